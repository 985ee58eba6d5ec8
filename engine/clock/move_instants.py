"""Move instants from a score sheet's recorded clocks (``[%clk]`` after every move).

All durations are integer milliseconds.

A recorded clock says what the mover's clock showed after the move; the time
the move took is then what the clock lost: ``used = before + credited - after``,
where ``credited`` is what the regulation credits for that move (the next
period's time on completing move 40 or 60, the increment of the move's
period). Adding the time used ply after ply, from the game's start, gives the
instant each move was completed, so the regulation clock of an imported game
is known at every ply.

Recordings are observations of devices and broadcasts, not of the rules: when
the regulation credit would make the time used negative, or longer than the
player had, the known device behaviours (``engine.game.reconciliation``) are tried
in turn: the increment credited on the control move itself (move 60), the
period time not credited. The time used is then derived with the device's
credit, and the regulation clock carries the difference, which the clock
report shows as that artefact. A ply without a recorded clock takes no time
(the next recorded clock of that player accounts for both moves).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.clock.regulation import Clock
from engine.clock.time_control import TimeControl
from engine.side import SIDES, Side


def derive_move_instants(
    control: TimeControl,
    start_ms: int,
    first_side: Side,
    clocks_ms: Sequence[int | None],
) -> list[int]:
    """The instant each ply was completed, from the mover's recorded clock after it."""
    clock = Clock.start(control, start_ms, first_side)
    previous = {side: control.initial_ms(side) for side in SIDES}
    side = first_side
    instants: list[int] = []
    now = start_ms
    for recorded in clocks_ms:
        used = 0
        if recorded is not None:
            used = _time_used(clock, side, previous[side], recorded)
            previous[side] = recorded
        now += used
        clock = clock.complete_move(side, now)
        instants.append(now)
        side = side.opponent
    return instants


def _time_used(clock: Clock, side: Side, before: int, after: int) -> int:
    control = clock.control
    number = clock.side(side).moves + 1
    following = control.control_after(number)
    bonus = control.period(following).time_ms(side) if following is not None else 0
    increment = control.period(control.period_of_move(number)).increment_ms
    regulation = bonus + increment
    had = clock.remaining_ms(side)
    credits = [regulation]
    if following is not None:
        credits.append(regulation + control.period(following).increment_ms)
    if bonus:
        credits.append(regulation - bonus)
    for credit in credits:
        used = before + credit - after
        if 0 <= used <= had:
            return used
    return max(0, min(before + regulation - after, had))
