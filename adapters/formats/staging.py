"""A tournament created from a file, decided before anything is appended.

The import decides the founding commands one by one on a staged state (a refused
``draw_lots`` or ``reorder_rounds`` is a warning, not a failure), then sends the
accepted ones through the store's door together (``Store.execute_all``).
"""

from __future__ import annotations

from adapters.store import Store
from engine.arbiter.board_log import BoardLog
from engine.arbiter.incident_book import IncidentBook
from engine.commands import Command
from engine.dispatch import decide
from engine.game.clock_log import ClockLog
from engine.game.state import Game
from engine.tournament import tournament as tournaments
from engine.tournament.tournament import Tournament


class Staged:
    """The tournament as decided so far, nothing appended: which of the commands that
    create it from a file are accepted (a refused ``draw_lots`` or ``reorder_rounds`` is
    a warning, not a failure). The accepted commands are then executed together
    (``Store.execute_all``), so no kill leaves the tournament half made."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.state: Tournament | None = store.reads.tournament()
        self.commands: list[Command] = []

    def tournament(self) -> Tournament | None:
        return self.state

    def game(self, game_id: str) -> Game | None:
        return self.store.reads.game(game_id)

    def clock_log(self, game_id: str) -> ClockLog | None:
        return self.store.reads.clock_log(game_id)

    def board_log(self, serial: str) -> BoardLog | None:
        return self.store.reads.board_log(serial)

    def incident_book(self) -> IncidentBook | None:
        return self.store.reads.incident_book()

    def decide(self, command: Command) -> None:
        _, events = decide(command, self)
        for event in events:
            self.state = tournaments.evolve(self.state, event)
        self.commands.append(command)
