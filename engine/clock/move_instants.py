"""Move instants from a score sheet's recorded clocks (``[%clk]`` after every move).

The time a move took is what the mover's clock lost with the regulation's credit
for it; summed from the start, it gives the instant each move was completed, so the
regulation clock of an imported game is known at every ply. Readings that the
regulation cannot explain are tried against the known device behaviours
(``engine.game.reconciliation``) and the difference stays visible; a fall is derived
only where the readings support it. Durations are integer milliseconds; the rule is
in docs/clocks.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise

from engine.clock.regulation import Clock
from engine.clock.time_control import TimeControl
from engine.side import SIDES, Side


def derive_move_instants(
    control: TimeControl,
    start_ms: int,
    first_side: Side,
    clocks_ms: Sequence[int | None],
    *,
    increment_on_control_move: bool = False,
) -> list[int]:
    """The instant each ply was completed, from the mover's recorded clock after it
    (``increment_on_control_move``: the device's rule the regulation clock follows)."""
    derived = _derive(control, start_ms, first_side, clocks_ms, increment_on_control_move)
    return [at for at, _ in derived]


def increment_credited_on_control_move(
    control: TimeControl, first_side: Side, clocks_ms: Sequence[int | None]
) -> bool:
    """Whether the readings show a clock that credits the next period's increment on the
    move completing a period (move 40 under ``40/7200:1800+30``, move 60 under 3.5.1):
    a control move played faster than that increment whose reading rises by the period's
    time *and* the increment (under the regulation credit the move would have taken
    less than no time). A control move that took longer cannot show it, and then the
    difference is absorbed in its time used: the regulation clock agrees either way."""
    return any(
        device
        for _, device in _derive(control, 0, first_side, clocks_ms, increment_on_control_move=False)
    )


def _derive(
    control: TimeControl,
    start_ms: int,
    first_side: Side,
    clocks_ms: Sequence[int | None],
    increment_on_control_move: bool,
) -> list[tuple[int, bool]]:
    """Per ply: the instant it was completed, and whether its reading showed the next
    period's increment credited on the control move."""
    clock = Clock.start(
        control, start_ms, first_side, increment_on_control_move=increment_on_control_move
    )
    previous = {side: control.initial_ms(side) for side in SIDES}
    side = first_side
    out: list[tuple[int, bool]] = []
    now = start_ms
    for recorded in clocks_ms:
        used, device = 0, False
        if recorded is not None:
            used, device = _time_used(clock, side, previous[side], recorded)
            previous[side] = recorded
        now += used
        clock = clock.complete_move(side, now)
        out.append((now, device))
        side = side.opponent
    return out


def _time_used(clock: Clock, side: Side, before: int, after: int) -> tuple[int, bool]:
    """(the time the move took, whether the reading shows the next period's increment
    credited on the control move while the regulation clock does not)."""
    control = clock.control
    number = clock.side(side).moves + 1
    following = control.control_after(number)
    bonus, increment = clock.credit_ms(side, number)
    regulation = bonus + increment
    had = clock.remaining_ms(side)
    extra = 0
    if following is not None and not clock.increment_on_control_move:
        extra = control.period(following).increment_ms
    credits = [(regulation, False)]
    if extra:
        credits.append((regulation + extra, before + regulation - after < -GLITCH_TOLERANCE_MS))
    if bonus:
        credits.append((regulation - bonus, False))
    # The regulation clock reaches zero on this move only where the device agrees (it
    # shows no time left after the move): a device showing time is conclusive (6.10 a),
    # so the model keeps a millisecond and the difference is reported as a mismatch,
    # never as a fall the readings do not support.
    cap = had if after <= GLITCH_TOLERANCE_MS else max(0, had - 1)
    for credit, device in credits:
        used = before + credit - after
        if 0 <= used <= cap:
            return used, device
    return max(0, min(before + regulation - after, cap)), False


GLITCH_TOLERANCE_MS = 1_000
"""Recorded clocks show whole seconds."""


def _own_readings(
    first_side: Side, clocks_ms: Sequence[int | None]
) -> dict[Side, list[tuple[int, int, int]]]:
    """Per player, (ply 0-based, the player's move number, recorded clock) in order."""
    side = first_side
    counts = dict.fromkeys(SIDES, 0)
    readings: dict[Side, list[tuple[int, int, int]]] = {s: [] for s in SIDES}
    for ply, recorded in enumerate(clocks_ms):
        counts[side] += 1
        if recorded is not None:
            readings[side].append((ply, counts[side], recorded))
        side = side.opponent
    return readings


def _fits(
    control: TimeControl,
) -> Callable[[Side, tuple[int, int, int], tuple[int, int, int]], bool]:
    """Whether a player's clock may read ``later`` after ``earlier``: it can rise by no
    more than what the control credits for the moves in between (a period's time on
    completing move 40 or 60, the increments), a device crediting the increment on the
    control move and a second of rounding allowed for."""
    slack = GLITCH_TOLERANCE_MS + max((p.increment_ms for p in control.periods), default=0)

    def credits(side: Side, after_move: int, up_to_move: int) -> int:
        total = 0
        for number in range(after_move + 1, up_to_move + 1):
            following = control.control_after(number)
            if following is not None:
                total += control.period(following).time_ms(side)
            total += control.period(control.period_of_move(number)).increment_ms
        return total

    def fits(side: Side, earlier: tuple[int, int, int], later: tuple[int, int, int]) -> bool:
        return later[2] <= earlier[2] + credits(side, earlier[1], later[1]) + slack

    return fits


def glitched_readings(
    control: TimeControl, first_side: Side, clocks_ms: Sequence[int | None]
) -> list[int]:
    """The plies (0-based) whose recorded clock contradicts the same player's readings
    before and after it while those two agree with each other: a broadcast glitch (a
    ``[%clk 0:00:00]`` in the middle of a game), not an observation of the clock.

    A player's clock can rise between two readings by no more than what the control
    credits for the moves in between (a period's time on completing move 40 or 60, the
    increments; a device crediting the increment on the control move is allowed for).
    """
    fits = _fits(control)
    glitches: list[int] = []
    for side_name, own in _own_readings(first_side, clocks_ms).items():
        for i in range(1, len(own) - 1):
            before, here, after = own[i - 1], own[i], own[i + 1]
            if fits(side_name, before, after) and not (
                fits(side_name, before, here) and fits(side_name, here, after)
            ):
                glitches.append(here[0])
    return sorted(glitches)


def unexplained_rises(
    control: TimeControl, first_side: Side, clocks_ms: Sequence[int | None]
) -> int:
    """How many times a player's recorded clock rises by more than ``control`` credits
    between two of his readings: the readings' evidence against a control (a tag that
    says 60 moves where the clocks show the next period's time at move 40)."""
    fits = _fits(control)
    return sum(
        1
        for side, own in _own_readings(first_side, clocks_ms).items()
        for earlier, later in pairwise(own)
        if not fits(side, earlier, later)
    )
