"""Routes a command of the contract to the decision that owns it.

The caller (the store adapter) supplies a ``World``: read access to the
current state of the aggregates. A decision returns the events to append,
possibly on several streams; the caller appends them in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from engine.arbiter import clock_rulings, corrections, flag_rulings, illegal_moves
from engine.arbiter import draw_claims as claims
from engine.commands import Command, parse_command
from engine.errors import MalformedCommand
from engine.events import ClockReadingRecorded, Event
from engine.game import moves, reconciliation
from engine.game import state as games
from engine.game.reconciliation import ClockLog
from engine.game.state import Game
from engine.standings import playoffs
from engine.standings import withdrawal as withdrawals
from engine.timefmt import format_instant
from engine.tournament import tournament as tournaments
from engine.tournament.tournament import Tournament


class World(Protocol):
    """What a decision may read: the current state of the aggregates."""

    def tournament(self) -> Tournament | None: ...

    def game(self, game_id: str) -> Game | None: ...

    def clock_log(self, game_id: str) -> ClockLog | None: ...


Handler = Callable[[Command, World], list[Event]]


def _last_reading(world: World, game_id: str) -> ClockReadingRecorded | None:
    log = world.clock_log(game_id)
    return log.last if log is not None else None


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
    "check_flags": lambda c, w: clock_rulings.check_flags(
        w.tournament(), w.game, c, lambda gid: _last_reading(w, gid)
    ),
    "correct_moves": lambda c, w: corrections.correct_moves(w.tournament(), w.game(c["game"]), c),
    "correct_result": lambda c, w: corrections.correct_result(w.tournament(), w.game(c["game"]), c),
    "rule_flag": lambda c, w: flag_rulings.rule_flag(
        w.tournament(), w.game(c["game"]), c, _last_reading(w, c["game"])
    ),
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
        "claim_draw",
        "advise_claim",
        "rule_claim",
        "rule_flag",
    }
)
"""Commands on one game that must not be dated before its last event (``clock_reading``
keeps its own order on the clock stream; ``check_flags`` dates a fall when it happened;
the corrections check their own order, since they also act on finished games)."""

DEFAULT_FUTURE_TOLERANCE_MS = 5 * 60_000
"""How far ahead of the receiving process's clock an instant may be (clocks of two
machines differ by seconds, not minutes): a command dated later is a typo (a year, a
day, an hour off) and would run the regulation clock past a flag that never fell."""


def require_not_in_future(cmd: Command, received_ms: int, tolerance_ms: int) -> None:
    """Refuse a command dated more than ``tolerance_ms`` after it was received.

    The engine has no clock of its own: the adapter that received the command says
    when (``received_ms``), so a decision stays a function of its inputs."""
    at_ms = cmd.at_ms
    if at_ms is not None and at_ms > received_ms + tolerance_ms:
        raise MalformedCommand(
            f"{cmd.name}: the instant {format_instant(at_ms)} is later than when the command "
            f"was received ({format_instant(received_ms)}) by more than "
            f"{tolerance_ms / 1000:g} s: a command cannot be dated in the future (check the "
            "date and the zone)"
        )


def decide(
    raw: object,
    world: World,
    received_ms: int | None = None,
    future_tolerance_ms: int = DEFAULT_FUTURE_TOLERANCE_MS,
) -> tuple[Command, list[Event]]:
    """Check the command's form, then decide it; raises CommandRefused.

    ``received_ms``: when the adapter received the command (its wall clock); an
    instant later than that by more than ``future_tolerance_ms`` is refused. None
    (a pure caller: a replay, a test of a rule) skips that check."""
    cmd = raw if isinstance(raw, Command) else parse_command(raw)
    if received_ms is not None:
        require_not_in_future(cmd, received_ms, future_tolerance_ms)
    if cmd.name in IN_TIME_ORDER:
        games.require_in_time_order(world.game(cmd["game"]), cmd)
    return cmd, HANDLERS[cmd.name](cmd, world)
