"""Routes a command of the contract to the decision that owns it.

The caller (the store adapter) supplies a ``World``: read access to the
current state of the aggregates. A decision returns the events to append,
possibly on several streams; the caller appends them in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from engine.arbiter import clock_rulings, illegal_moves
from engine.arbiter import draw_claims as claims
from engine.commands import Command, parse_command
from engine.events import Event
from engine.game import moves, reconciliation
from engine.game import state as games
from engine.game.reconciliation import ClockLog
from engine.game.state import Game
from engine.standings import playoffs
from engine.standings import withdrawal as withdrawals
from engine.tournament import tournament as tournaments
from engine.tournament.tournament import Tournament


class World(Protocol):
    """What a decision may read: the current state of the aggregates."""

    def tournament(self) -> Tournament | None: ...

    def game(self, game_id: str) -> Game | None: ...

    def clock_log(self, game_id: str) -> ClockLog | None: ...


Handler = Callable[[Command, World], list[Event]]

HANDLERS: dict[str, Handler] = {
    "create_tournament": lambda c, w: tournaments.create_tournament(w.tournament(), c),
    "draw_lots": lambda c, w: tournaments.draw_lots(w.tournament(), c),
    "start_game": lambda c, w: moves.start_game(w.tournament(), w.game(c["game"]), c),
    "play_move": lambda c, w: reconciliation.with_move_reading(
        moves.play_move(w.game(c["game"]), c), c, w.game(c["game"]), lambda: w.clock_log(c["game"])
    ),
    "resign": lambda c, w: moves.resign(w.game(c["game"]), c),
    "declare_result": lambda c, w: moves.declare_result(w.tournament(), w.game(c["game"]), c),
    "claim_draw": lambda c, w: claims.claim_draw(w.tournament(), w.game(c["game"]), c),
    "advise_claim": lambda c, w: claims.advise_claim(w.tournament(), w.game(c["game"]), c),
    "rule_claim": lambda c, w: claims.rule_claim(w.tournament(), w.game(c["game"]), c),
    "record_illegal_move": lambda c, w: illegal_moves.record_illegal_move(
        w.tournament(), w.game(c["game"]), c
    ),
    "offer_draw": lambda c, w: claims.refuse_draw_by_agreement(w.tournament(), None, c),
    "agree_draw": lambda c, w: claims.refuse_draw_by_agreement(w.tournament(), None, c),
    "clock_reading": lambda c, w: reconciliation.record_clock_reading(
        w.game(c["game"]), w.clock_log(c["game"]), c
    ),
    "adjust_clock": lambda c, w: clock_rulings.adjust_clock(w.tournament(), w.game(c["game"]), c),
    "check_flags": lambda c, w: clock_rulings.check_flags(w.tournament(), w.game, c),
    "withdraw": lambda c, w: withdrawals.withdraw(w.tournament(), w.game, c),
    "start_playoff": lambda c, w: playoffs.start_playoff(w.tournament(), w.game, c),
    "advance_playoff": lambda c, w: playoffs.advance_playoff(w.tournament(), w.game, c),
    "choose_colour": lambda c, w: playoffs.choose_colour(w.tournament(), c),
}


IN_TIME_ORDER = frozenset(
    {
        "play_move",
        "resign",
        "declare_result",
        "record_illegal_move",
        "adjust_clock",
    }
)
"""Commands on one game that must not be dated before its last event (``clock_reading``
keeps its own order on the clock stream; ``check_flags`` dates a fall when it happened).
The claim procedure (``claim_draw``, ``advise_claim``, ``rule_claim``) is not checked yet."""


def decide(raw: object, world: World) -> tuple[Command, list[Event]]:
    """Check the command's form, then decide it; raises CommandRefused (or
    AlreadyRecorded for a ``play_move`` whose ``ply`` already holds that move)."""
    cmd = raw if isinstance(raw, Command) else parse_command(raw)
    if cmd.name == "play_move":
        moves.check_ply(world.game(cmd["game"]), cmd)
    if cmd.name in IN_TIME_ORDER:
        games.require_in_time_order(world.game(cmd["game"]), cmd)
    return cmd, HANDLERS[cmd.name](cmd, world)
