"""Flag fall: when the regulation clock says a side's time ran out, the game ends.

FIDE Laws of Chess 2009, 6.9: "if a player does not complete the prescribed
number of moves in the allotted time, the game is lost by the player. However,
the game is drawn, if the position is such that the opponent cannot checkmate
the player's king by any possible series of legal moves." (Our wording of the
rule; ``engine.clock.regulation.can_checkmate`` says how "cannot checkmate" is decided.)

A flag fall is found wherever the engine next looks at the game after it
happened, and the recorded result is the same whichever way:

- a move (or a resignation) that arrives after the mover's time reached zero:
  the flag fall is recorded instead (the move does not count);
- a clock reading (``clock_reading``) taken after that instant;
- ``check_flags`` (a server sends it on a timer), for one game or every
  started game of the schedule.

The ``ResultRecorded`` carries the instant the time reached zero (not the
instant it was noticed), termination ``time_forfeit`` (a loss) or
``flag_fall_draw`` (6.9 draw), and a reason naming the period and the moves
still owed. A query never writes: ``projections.clock`` shows the fallen flag
without recording anything. A game whose clock is unknown is never flagged.
"""

from __future__ import annotations

from engine.clock.regulation import Clock, flag_fall_result
from engine.events import Event, ResultRecorded
from engine.game.state import IN_PROGRESS, Game, position
from engine.side import Side
from engine.termination import Termination
from engine.timefmt import format_instant


def fallen_flag(clock: Clock | None, at_ms: int) -> tuple[Side, int] | None:
    """(side, instant its time reached zero) if a flag has fallen by ``at_ms``."""
    if clock is None:
        return None
    side = clock.flag_fallen(at_ms)
    falls = clock.flag_falls_at_ms()
    if side is None or falls is None:
        return None
    return side, falls


def flag_reason(clock: Clock, side: Side) -> str:
    """Plain words: whose flag, in which period, how many moves were still owed."""
    owed = clock.moves_to_control(side)
    period = clock.period_index(side) + 1
    done = clock.side(side).moves
    tail = (
        f"{owed} move(s) short of the control in period {period}"
        if owed is not None
        else f"in period {period} (the rest of the game)"
    )
    return f"{side}'s flag fell after {done} completed move(s), {tail}"


def flag_fall(game: Game, at_ms: int, by: str) -> list[Event]:
    """The events ending ``game`` on time if a flag has fallen by ``at_ms`` (else none)."""

    if game.status != IN_PROGRESS or game.clock is None:
        return []
    fallen = fallen_flag(game.clock, at_ms)
    if fallen is None:
        return []
    side, falls_ms = fallen
    result, termination = flag_fall_result(position(game), side)
    reason = flag_reason(game.clock, side) + f" at {format_instant(falls_ms)}"
    if termination == Termination.FLAG_FALL_DRAW:
        reason += "; drawn: the opponent cannot checkmate by any series of legal moves (6.9)"
    else:
        reason += " (6.9)"
    return [
        ResultRecorded(
            originator_id=game.stream,
            originator_version=game.version + 1,
            at_ms=max(falls_ms, game.last_at_ms),
            by=by,
            result=result,
            termination=termination,
            reason=reason,
        )
    ]
