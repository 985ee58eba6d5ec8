"""Flag fall: what the engine does when a side's time may have run out (Laws 2009 6.8-6.10).

The engine holds evidence, never the flag itself: the regulation clock reaching zero
(a model, seconds away from the table in time trouble) and a device's own flag or
0:00 (unless a known device behaviour explains it). Under a supervised profile each
piece of evidence raises a ``flag_fall`` alert once and the arbiter rules
(``rule_flag``); under ``candidates-2012-unsupervised`` the regulation clock decides
at the next look at the game. A query never writes, and a game whose clock is unknown
is never flagged (docs/clocks.md)."""

from __future__ import annotations

from typing import Any

from engine.clock.regulation import Clock, flag_fall_result
from engine.events import AlertRaised, ClockReadingRecorded, Event, ResultRecorded
from engine.game.state import FLAG_FALL, IN_PROGRESS, Game, evolve, position
from engine.rules import profile
from engine.side import SIDES, Side
from engine.termination import Termination
from engine.timefmt import format_instant


def fallen_flag(clock: Clock | None, at_ms: int) -> tuple[Side, int] | None:
    """(side, instant its time reached zero) of the first flag fallen by ``at_ms``: a
    fall kept from a move completed after it, or the running side's (Laws 2009 6.9)."""
    if clock is None:
        return None
    return clock.first_fall(at_ms)


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


def automatic(game: Game) -> bool:
    """Whether the game's profile records flag falls itself (unsupervised play)."""
    return profile(game.rules).automatic_flag_results


def flag_fall(game: Game, at_ms: int, by: str) -> list[Event]:
    """The events ending ``game`` on time if its regulation flag has fallen by ``at_ms``
    (else none), whatever the profile: the unsupervised profile's decision."""

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


def flag_evidence(
    game: Game, side: Side, at_ms: int, device: ClockReadingRecorded | None = None
) -> dict[str, Any]:
    """What the arbiters see with a flag alert or ruling: both clocks (regulation and
    the last device reading), the moves completed, and where the control stands."""
    clock = game.clock
    evidence: dict[str, Any] = {"side": str(side), "at": format_instant(at_ms), "ply": game.ply}
    if clock is not None:
        fell = clock.fell_at_ms(side, at_ms) if side in SIDES else None
        falls = clock.falls(at_ms)
        evidence.update(
            regulation_white_ms=clock.remaining_ms(Side.WHITE, at_ms),
            regulation_black_ms=clock.remaining_ms(Side.BLACK, at_ms),
            regulation_fell_at=format_instant(fell) if fell is not None else None,
            regulation_falls=[{"side": str(s), "fell_at": format_instant(t)} for s, t in falls],
            moves_completed={"white": clock.white.moves, "black": clock.black.moves},
            moves_to_control=clock.moves_to_control(side) if side in SIDES else None,
            period=clock.period_index(side) + 1 if side in SIDES else None,
            control_reached=clock.period_index(side) > 0 if side in SIDES else None,
        )
    if device is not None:
        evidence.update(
            device_white_ms=device.white_ms,
            device_black_ms=device.black_ms,
            device_read_at=format_instant(device.at_ms),
            device_by=device.by,
        )
    return evidence


def flag_key(game: Game, source: str, side: Side) -> str:
    """``source:side:moves``: one alert per piece of evidence, side and moves completed."""
    moves = game.clock.side(side).moves if game.clock is not None else game.ply
    return f"{source}:{side}:{moves}"


def already_seen(game: Game, key: str) -> bool:
    """An alert for that evidence is open, or the arbiter has ruled on it."""
    return key in game.open_flag_alerts or any(
        key in (r.evidence.get("alerts") or ()) for r in game.flag_rulings
    )


def flag_alert(
    game: Game,
    source: str,
    side: Side,
    at_ms: int,
    by: str,
    device: ClockReadingRecorded | None = None,
    message: str = "",
) -> AlertRaised | None:
    """A ``flag_fall`` alert on the game stream, unless that evidence was already raised."""
    key = flag_key(game, source, side)
    if already_seen(game, key):
        return None
    details = {"key": key, "source": source, **flag_evidence(game, side, at_ms, device)}
    if not message:
        what = "the regulation clock" if source == "regulation" else "the device clock"
        message = (
            f"game {game.game_id}: {what} shows {side}'s flag"
            + (f" ({flag_reason(game.clock, side)})" if game.clock is not None else "")
            + "; a flag is fallen when the arbiter observes it (Laws 2009 6.8): rule_flag"
        )
    return AlertRaised(
        originator_id=game.stream,
        originator_version=game.version + 1,
        at_ms=at_ms,
        by=by,
        game=game.game_id,
        kind=FLAG_FALL,
        message=message,
        details=details,
    )


def flag_check(
    game: Game, at_ms: int, by: str, device: ClockReadingRecorded | None = None
) -> tuple[list[Event], Game]:
    """What the regulation clock says by ``at_ms``, and the game after it.

    Unsupervised: the flag-fall result if the flag has fallen (the game is then
    finished). Supervised: a ``flag_fall`` alert, raised once; the game goes on; not
    where ``device``, the clock on the table as last read, still shows that side with
    time (6.10 a: its indication is conclusive; ``device_shows_time``)."""
    if game.status != IN_PROGRESS or game.clock is None:
        return [], game
    if automatic(game):
        events = flag_fall(game, at_ms, by)
        after = game
        for event in events:
            after = _evolved(after, event)
        return events, after
    events, after = [], game
    for side, _fell in game.clock.falls(at_ms):  # each side's fall, in order (6.9, 6.11)
        if any(k.startswith(f"regulation:{side}:") for k in after.open_flag_alerts):
            continue  # that fall is before the arbiters already
        if device_shows_time(device, side, at_ms):
            continue  # the clock on the table is conclusive (6.10 a): no fall to raise
        alert = flag_alert(after, "regulation", side, at_ms, by, device)
        if alert is not None:
            events.append(alert)
            after = _evolved(after, alert)
    return events, after


DEVICE_TIME_MS = 2_000
"""What a device must still show for a side (beyond a DGT display's rounding and a
second's reading interval) for its reading to contradict a regulation fall."""


def device_shows_time(device: ClockReadingRecorded | None, side: Side, at_ms: int) -> bool:
    """Whether the clock on the table, as last read (run on to ``at_ms`` if that side was
    running), still shows ``side`` with time: a judged reading of the game in play (not a
    late one, not an import's) whose time for the side is more than ``DEVICE_TIME_MS``.
    A regulation fall is raised only where the device agrees or no device was read; the
    difference itself is the reading's alert (``engine.game.reconciliation``)."""
    if device is None or device.model_white_ms is None or device.glitch:
        return False
    shown = device.white_ms if Side.of(side) is Side.WHITE else device.black_ms
    if device.running == side:
        shown -= max(0, at_ms - device.at_ms)
    return shown > DEVICE_TIME_MS


def _evolved(game: Game, event: Event) -> Game:
    state = evolve(game, event)
    assert state is not None
    return state
