"""Reconciling the physical clock with the regulation clock (3.5.1; Laws 2009, 6.10).

Two clocks are kept, never mixed: the regulation clock says what each clock should
show; a clock reading is what a device showed, stored as it is beside the regulation
values. A difference beyond the tolerance raises an alert for the arbiters, named
after the device behaviour it matches (``bonus_not_credited``,
``period_added_at_zero``, ``increment_started_late``, ``increment_on_control_move``)
or ``clock_mismatch``, once while it persists. The last reading carries the alerts in
force, so a clock stream loads from it alone. Durations are integer milliseconds;
the behaviours are in docs/clocks.md."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.clock.regulation import Clock
from engine.commands import Command, command
from engine.errors import (
    GameNotInProgress,
    MalformedCommand,
    OutOfOrder,
    UnknownGame,
)
from engine.events import AlertRaised, ClockReadingRecorded, Event, ResultRecorded, clock_stream
from engine.fields import Instant
from engine.game import state as games
from engine.game.clock_log import ClockLog
from engine.game.flags import flag_alert, flag_check
from engine.game.state import IN_PROGRESS, Game, require_game
from engine.side import SIDES, Side
from engine.timefmt import format_instant
from engine.world import World

DEFAULT_TOLERANCE_MS = 2000
"""Readings within 2 s of the regulation clock agree (DGT displays whole seconds)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One side's reading judged against the regulation clock."""

    side: Side
    kind: str
    """``agrees`` or an alert kind (module docstring)."""
    reading_ms: int
    model_ms: int
    explanation: str

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.side}"

    @property
    def difference_ms(self) -> int:
        return self.reading_ms - self.model_ms


def _clock_text(ms: int) -> str:
    sign = "-" if ms < 0 else ""
    seconds = abs(ms) // 1000
    return f"{sign}{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def agrees(reading_ms: int, model_ms: int, tolerance_ms: int) -> bool:
    """Whether a device's time is the regulation clock's, within the tolerance."""
    return -tolerance_ms <= reading_ms - model_ms <= tolerance_ms


def judge(
    clock: Clock,
    side: Side,
    reading_ms: int,
    at_ms: int,
    tolerance_ms: int,
    model_ms: int | None = None,
) -> Finding:
    """Compare one side's device reading with the regulation clock at ``at_ms``
    (``model_ms``: the regulation clock's time for ``side`` there, when already known)."""
    model = clock.remaining_ms(side, at_ms) if model_ms is None else model_ms
    if agrees(reading_ms, model, tolerance_ms):
        return Finding(side, "agrees", reading_ms, model, "")
    diff = reading_ms - model
    own = clock.side(side)
    control = clock.control

    def finding(kind: str, explanation: str) -> Finding:
        return Finding(side, kind, reading_ms, model, explanation)

    shown = f"the clock shows {_clock_text(reading_ms)}, the regulation clock {_clock_text(model)}"
    # Bonuses credited so far, most recent last, with the move that earned each.
    credited: list[tuple[int, int]] = []
    index, last_move = 0, 0
    while True:
        moves = control.period(index).moves
        if moves is None or last_move + moves > own.moves:
            break
        last_move += moves
        index += 1
        credited.append((last_move, control.period(index).time_ms(side)))
    increment = control.period(clock.period_index(side)).increment_ms
    if reading_ms <= tolerance_ms and model > tolerance_ms and credited:
        move, bonus = credited[-1]
        return finding(
            "period_added_at_zero",
            f"{side}: {shown}. {side} completed move {move}, so the "
            f"{_clock_text(bonus)} of the next period is owed: a DGT clock set to add the next "
            "period only when the display reaches zero shows 0:00 and a flag here. This is not "
            "a flag fall.",
        )
    missing_total = 0
    for count, (_move, bonus) in enumerate(reversed(credited), start=1):
        missing_total += bonus
        for late in range(own.increments + 1):
            if abs(diff + missing_total + late * increment) <= tolerance_ms:
                moves_text = " and ".join(str(m) for m, _ in credited[-count:])
                late_text = f" and {late} increment(s) of {increment // 1000} s" if late else ""
                return finding(
                    "bonus_not_credited",
                    f"{side}: {shown}. The time credited on completing move {moves_text} "
                    f"({_clock_text(missing_total)}){late_text} is missing on the clock: the "
                    "clock is mis-set (Laws 6.10 b: the arbiter sets it right, times and move "
                    "counter), or it is a DGT clock that adds the next period only when the "
                    "display reaches zero (it will then show a flag that is not a flag fall, "
                    "and start the increment late).",
                )
            if not increment:
                break
    if increment and own.increments:
        for late in range(1, own.increments + 1):
            if abs(diff + late * increment) <= tolerance_ms:
                return finding(
                    "increment_started_late",
                    f"{side}: {shown}. The clock lacks {late} increment(s) of "
                    f"{increment // 1000} s: a device that began its last period when the "
                    "display reached zero, not at the control, starts its increment late. "
                    "Not a mismatch of the time used.",
                )
    if increment and credited and abs(diff - increment) <= tolerance_ms:
        move = credited[-1][0]
        return finding(
            "increment_on_control_move",
            f"{side}: {shown}. The clock credited the {increment // 1000} s increment on move "
            f"{move} itself, one move before the regulation (increment from move {move + 1}): a "
            "device or broadcast artefact; the offset stays for the rest of the game.",
        )
    return finding(
        "clock_mismatch",
        f"{side}: {shown} (difference {diff / 1000:+.1f} s, tolerance {tolerance_ms / 1000:g} s).",
    )


@command(
    "clock_reading",
    summary="A reading of the physical clock, stored beside the regulation clock (3.5.1, Laws 6).",
    events=(ClockReadingRecorded, AlertRaised, ResultRecorded),
    refusals=(
        (UnknownGame, "", "the game has not been started"),
        (GameNotInProgress, "", "the game finished before the reading's instant"),
        (
            MalformedCommand,
            "",
            "a negative time or tolerance, or a reading earlier than the last stored one",
        ),
    ),
    notes={
        "white_ms": "White's clock display, milliseconds",
        "black_ms": "Black's clock display, milliseconds",
        "running": "the side whose clock runs, `null` when both are stopped",
        "by": "the device or person that read the clock (`dgt:<serial>`, an arbiter ...)",
        "ply": "the ply the reading belongs to",
        "tolerance_ms": "the difference from the regulation clock that raises an alert",
        "flag": "the side whose flag the device shows fallen (DGT clocks report it; Laws 2009 6.8)",
    },
)
@dataclass(frozen=True, kw_only=True)
class ClockReading(Command):
    game: str
    at_ms: Instant
    white_ms: int
    black_ms: int
    running: Side | None
    """The side whose clock runs, ``null`` when both are stopped."""
    by: str = "arbiter"
    ply: int | None = None
    tolerance_ms: int = DEFAULT_TOLERANCE_MS
    flag: Side | None = None
    """The side whose flag the device shows (DGT clocks report it; Laws 2009 6.8)."""

    def decide(self, world: World) -> list[Event]:
        return record_clock_reading(world.game(self.game), world.clock_log(self.game), self)


def record_clock_reading(game: Game | None, log: ClockLog | None, cmd: ClockReading) -> list[Event]:
    """``clock_reading {game, at, white_ms, black_ms, running, by?, ply?, tolerance_ms?,
    flag?}``.

    Stores the reading with the regulation values beside it, raises the alerts
    whose condition is new, and looks at the flags (engine.game.flags): the
    regulation flag fallen by the reading's instant (an alert, or the result in
    unsupervised play), and a device flag or 0:00 (an alert).
    """

    g = require_game(game, cmd.game)
    at_ms, by = cmd.at_ms, cmd.by
    white_ms, black_ms = cmd.white_ms, cmd.black_ms
    if white_ms < 0 or black_ms < 0:
        raise MalformedCommand(
            f"clock_reading: times cannot be negative (white_ms={white_ms}, black_ms={black_ms})"
        )
    tolerance = cmd.tolerance_ms
    if tolerance < 0:
        raise MalformedCommand(f"clock_reading: tolerance_ms must be >= 0, got {tolerance}")
    if g.status != IN_PROGRESS and at_ms > g.last_at_ms:
        raise GameNotInProgress(
            f"game {g.game_id} is finished ({g.result}, {g.termination}) since "
            f"{format_instant(g.last_at_ms)}: a reading at {format_instant(at_ms)} is not stored"
        )
    if log is not None and log.last is not None and at_ms < log.last.at_ms:
        raise OutOfOrder(
            f"clock_reading at {format_instant(at_ms)} is earlier than the last stored reading "
            f"of game {g.game_id} ({format_instant(log.last.at_ms)}): readings are stored in "
            "time order"
        )
    events, after = flag_check(g, at_ms, by, log.last if log is not None else None)
    readings = reading_events(
        after,
        log,
        at_ms=at_ms,
        by=by,
        white_ms=white_ms,
        black_ms=black_ms,
        running=cmd.running,
        ply=cmd.ply,
        tolerance_ms=tolerance,
    )
    return events + readings + device_flag_alerts(after, readings, cmd.flag, by)


def device_flag_alerts(
    game: Game, readings: list[Event], flag: Side | None, by: str
) -> list[Event]:
    """A ``flag_fall`` alert for a side the device shows fallen: its own flag (``flag``)
    or 0:00. Not when the reading was not judged (older than the game's last event),
    nor when the regulation clock explains the 0:00 (``period_added_at_zero``,
    ``bonus_not_credited``: the side completed the control; the device did not credit
    the next period). The arbiter rules (Laws 2009 6.8, 6.10 a: ``rule_flag``)."""
    reading = readings[0] if readings else None
    if (
        not isinstance(reading, ClockReadingRecorded)
        or game.status != IN_PROGRESS
        or reading.model_white_ms is None
    ):
        return []
    shown = {Side.WHITE: reading.white_ms, Side.BLACK: reading.black_ms}
    sides = [side for side in SIDES if side == flag or shown[side] == 0]
    if not sides:
        return []  # no flag shown, no 0:00 (every reading of a game in play)
    explained = {
        str(alert.details.get("side"))
        for alert in readings[1:]
        if isinstance(alert, AlertRaised) and alert.kind in NOT_A_FLAG
    }
    explained.update(
        key.partition(":")[2] for key in reading.open_alerts if key.partition(":")[0] in NOT_A_FLAG
    )
    events: list[Event] = []
    state = game
    for side in sides:
        if side in explained:
            continue
        alert = flag_alert(
            state,
            "device",
            side,
            reading.at_ms,
            by,
            reading,
            f"game {game.game_id}: the clock on the table shows {side}'s flag "
            f"({'its flag' if side == flag else '0:00'}, read by {by}); a flag is fallen when "
            "the arbiter observes it (Laws 2009 6.8; 6.10 a: the clock's indication is "
            "conclusive unless the clock is evidently defective): rule_flag",
        )
        if alert is not None:
            events.append(alert)
            state = evolve_game(state, alert)
    return events


NOT_A_FLAG = frozenset({"period_added_at_zero", "bonus_not_credited"})
"""Reading alerts that explain a device's 0:00: the side completed the control and the
device has not credited the next period yet. Not flag falls."""


def with_move_reading(
    events: list[Event],
    game: Game | None,
    log_of: Callable[[], ClockLog | None],
    *,
    at_ms: int,
    by: str,
    white: int | None,
    black: int | None,
) -> list[Event]:
    """``play_move`` with ``white_ms`` and ``black_ms``: the move's events, then the reading.

    The device's times at the move are stored on the clock stream like any
    reading, judged against the regulation clock after the move.
    """
    if white is None and black is None:
        return events
    if white is None or black is None or game is None:
        raise MalformedCommand(
            "play_move: give both white_ms and black_ms (the clock's two displays), or neither"
        )
    if white < 0 or black < 0:
        raise MalformedCommand(
            f"play_move: times cannot be negative (white_ms={white}, black_ms={black})"
        )
    log = log_of()
    if log is not None and log.last is not None and at_ms < log.last.at_ms:
        return events  # a later reading is already stored (the board saw the move late)
    after = game
    for event in events:
        after = evolve_game(after, event)
    clock = after.clock
    return events + reading_events(
        after,
        log,
        at_ms=at_ms,
        by=by,
        white_ms=white,
        black_ms=black,
        running=clock.running if clock else None,
        ply=after.ply,
        tolerance_ms=DEFAULT_TOLERANCE_MS,
    )


def evolve_game(game: Game, event: Event) -> Game:
    after = games.evolve(game, event)
    assert after is not None
    return after


def reading_events(
    g: Game,
    log: ClockLog | None,
    *,
    at_ms: int,
    by: str,
    white_ms: int,
    black_ms: int,
    running: str | None,
    ply: int | None,
    tolerance_ms: int,
) -> list[Event]:
    """The stored reading and the alerts whose condition is new."""
    events: list[Event] = []
    log = log or ClockLog(g.game_id)
    stream = clock_stream(g.game_id)
    # A reading older than the game's last event (a board that held its readings
    # until it knew which side is White's, a late batch) is stored as observed
    # but not judged: the regulation clock in hand already counts the later moves,
    # so comparing the two would raise false mismatches.
    clock = g.clock if at_ms >= g.last_at_ms else None
    model_white = model_black = None
    findings: list[Finding] = []
    if clock is not None:
        model_white = clock.remaining_ms(Side.WHITE, at_ms)
        model_black = clock.remaining_ms(Side.BLACK, at_ms)
        findings = [
            judge(clock, side, reading, at_ms, tolerance_ms, model)
            for side, reading, model in (
                (Side.WHITE, white_ms, model_white),
                (Side.BLACK, black_ms, model_black),
            )
            if not agrees(reading, model, tolerance_ms)  # nothing more to find of it
        ]
        open_now = tuple(f.key for f in findings)
    else:
        open_now = () if g.clock is None else tuple(log.open_alerts)
    version = log.version + 1
    events.append(
        ClockReadingRecorded(
            originator_id=stream,
            originator_version=version,
            at_ms=at_ms,
            by=by,
            game=g.game_id,
            white_ms=white_ms,
            black_ms=black_ms,
            running=running,
            model_white_ms=model_white,
            model_black_ms=model_black,
            ply=ply,
            open_alerts=open_now,
        )
    )
    if not findings:
        return events
    assert clock is not None  # only a judged reading has findings
    already = set(log.open_alerts)
    before = _differences(log.last)
    for found in findings:
        if found.key in already:
            was = before.get(found.side)
            if was is None or abs(found.difference_ms - was) <= tolerance_ms:
                continue  # the same condition, the same difference: nothing new to show
            # the same condition with another difference: raised again, so whoever shows
            # the alert shows the latest figures (the desk replaces it by its key)
        version += 1
        events.append(
            AlertRaised(
                originator_id=stream,
                originator_version=version,
                at_ms=at_ms,
                by=by,
                game=g.game_id,
                kind=found.kind,
                message=found.explanation,
                details={
                    "side": found.side,
                    "reading_ms": found.reading_ms,
                    "regulation_ms": found.model_ms,
                    "difference_ms": found.difference_ms,
                    "white_ms": white_ms,
                    "black_ms": black_ms,
                    "regulation_white_ms": model_white,
                    "regulation_black_ms": model_black,
                    "moves_completed": clock.side(found.side).moves,
                    "tolerance_ms": tolerance_ms,
                    **({"updated": True} if found.key in already else {}),
                },
            )
        )
    return events


def _differences(reading: ClockReadingRecorded | None) -> dict[Side, int]:
    """Each side's reading minus the regulation clock at that reading (judged ones only)."""
    if reading is None or reading.model_white_ms is None or reading.model_black_ms is None:
        return {}
    return {
        Side.WHITE: reading.white_ms - reading.model_white_ms,
        Side.BLACK: reading.black_ms - reading.model_black_ms,
    }
