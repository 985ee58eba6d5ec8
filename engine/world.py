"""What a decision may read: the current state of the aggregates.

The caller of ``engine.dispatch.decide`` (the store adapter, or an in-memory
world in tests) supplies it; a command's ``decide`` reads only through it.
"""

from __future__ import annotations

from typing import Protocol

from engine.arbiter.board_log import BoardLog
from engine.arbiter.incident_book import IncidentBook
from engine.game.clock_log import ClockLog
from engine.game.state import Game
from engine.tournament.tournament import Tournament


class World(Protocol):
    """Read access to the tournament, the games, their clock logs, the boards' alerts and
    the incident book."""

    def tournament(self) -> Tournament | None: ...

    def game(self, game_id: str) -> Game | None: ...

    def clock_log(self, game_id: str) -> ClockLog | None: ...

    def board_log(self, serial: str) -> BoardLog | None: ...

    def incident_book(self) -> IncidentBook | None: ...
