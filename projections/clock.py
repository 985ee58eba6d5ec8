"""Clock read models: the regulation clock at any instant, the device's readings, the
per-ply comparison of an imported game's recorded clock with the regulation clock.

Pure folds, so the same code serves the CLI, the gateway, replay and audit:
``game_at`` (the game as it stood at an instant), ``clock_view`` (the contract's
``clock`` with periods, next control and a fallen flag, which a query shows but never
records), ``device_view`` and ``clock_report``. Durations are integer milliseconds
(docs/clocks.md)."""

from __future__ import annotations

import bisect
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from typing import Annotated, Literal, NotRequired, TypedDict, cast

from msgspec import Meta

from engine.clock.regulation import Clock, flag_fall_result
from engine.events import ClockReadingRecorded, Event, GameStarted, MovePlayed
from engine.game import state as games
from engine.game.reconciliation import judge
from engine.game.state import Game, mover, position
from engine.side import SIDES, Side
from engine.termination import ON_TIME, Termination
from engine.timefmt import clock_text as clock_text  # the engine's; kept importable here
from engine.timefmt import format_instant

NOT_JUDGED = (
    "stored as read, not judged: the score sheet named no time control (a reading is not "
    "judged against an assumed control), or the reading reached the engine after later moves"
)
GLITCH = (
    "a broadcast glitch: the reading contradicts the same player's readings before and "
    "after it; kept as read, not judged, not used to place the moves in time"
)
REPORT_TOLERANCE_MS = 999
"""Recorded clocks (``[%clk]``) show whole seconds."""


class Fall(TypedDict):
    """A fallen flag: whose and when its time ran out."""

    side: Side
    fell_at: str


FlaggedSide = Literal["white", "black", "both"] | None


class FlagShown(TypedDict):
    """The first flag that fell (Laws 2009 6.9), with the result and termination it means;
    ``recorded`` once a command recorded that result (``both``: 6.11)."""

    side: FlaggedSide
    fell_at: str
    result: str
    termination: str | None
    recorded: bool


class DeviceShown(TypedDict):
    """The clock on the table as last read (6.10 a), run on to the instant queried."""

    white_ms: int
    black_ms: int
    running: str | None
    read_at: str
    by: str | None
    open_alerts: list[str]
    stream_version: int | None


class PeriodPerSide(TypedDict):
    white: int
    black: int


class ToControlPerSide(TypedDict):
    white: int | None
    black: int | None


class ClockObject(TypedDict):
    """The game object's ``clock``: the regulation clock at ``at``; clients show remaining -
    (now - at) for the running side."""

    white_ms: int | None
    black_ms: int | None
    running: Side | None
    at: Annotated[
        str | None,
        Meta(
            description="the instant the values hold: the last change of the clock (a move, "
            "an adjustment, a penalty, a correction) or the instant queried; clients show "
            "remaining - (now - at) for the running side"
        ),
    ]
    known: NotRequired[bool]
    time_control: NotRequired[str]
    period: NotRequired[PeriodPerSide]
    moves_to_control: NotRequired[ToControlPerSide]
    flag: NotRequired[
        Annotated[
            FlagShown | None,
            Meta(
                description="the first flag that fell (Laws 2009 6.9): side, fell_at, the "
                "result and termination it means, recorded"
            ),
        ]
    ]
    falls: NotRequired[
        Annotated[list[Fall], Meta(description="every fallen flag in order: [{side, fell_at}]")]
    ]
    device: NotRequired[
        Annotated[
            DeviceShown | None,
            Meta(
                description="the clock on the table as last read (6.10 a): white_ms, "
                "black_ms, running, read_at, by, open_alerts"
            ),
        ]
    ]


class ClockRow(TypedDict):
    """One ply of ``clock_report``: the mover's recorded and regulation clocks, judged."""

    ply: int
    move: int
    side: Side
    san: str
    recorded_ms: int
    regulation_ms: int | None
    difference_ms: int | None
    status: str
    kind: str
    explanation: str


def game_at(events: Sequence[Event], at_ms: int) -> Game | None:
    """The game's state at ``at_ms``: its events up to that instant (in stream order)."""
    state: Game | None = None
    for event in events:
        if event.at_ms > at_ms and state is not None:
            break
        state = games.evolve(state, event)
    return state


def clock_view(game: Game, at_ms: int | None = None) -> ClockObject:
    """The contract's ``clock`` object at ``at_ms`` (default: the game's last event)."""
    clock = game.clock
    # The values hold at ``at``: the last change of the clock (a move, an adjustment, a
    # penalty, incident time, a correction), so ``remaining - (now - at)`` is right.
    changed = max(game.last_at_ms, clock.at_ms if clock is not None else 0)
    when = changed if at_ms is None else max(at_ms, changed)
    if clock is None:
        return {
            "white_ms": None,
            "black_ms": None,
            "running": None,
            "at": format_instant(when) if when else None,
            "known": False,
        }
    now = clock.at(when)
    view: ClockObject = {
        "white_ms": now.remaining_ms(Side.WHITE),
        "black_ms": now.remaining_ms(Side.BLACK),
        "running": now.running,
        "at": format_instant(when),
        "known": True,
        "time_control": clock.control.describe(),
        "period": {
            "white": now.period_index(Side.WHITE) + 1,
            "black": now.period_index(Side.BLACK) + 1,
        },
        "moves_to_control": {
            "white": now.moves_to_control(Side.WHITE),
            "black": now.moves_to_control(Side.BLACK),
        },
        "flag": None,
        "falls": [{"side": side, "fell_at": format_instant(t)} for side, t in clock.falls(when)],
    }
    if game.status == games.IN_PROGRESS:
        first = clock.first_fall(when)  # 6.9 decides on the first flag that fell
        if first is not None:
            fallen, falls = first
            result, termination = flag_fall_result(position(game), fallen)
            view["flag"] = {
                "side": cast(FlaggedSide, fallen),
                "fell_at": format_instant(falls),
                "result": result,
                "termination": termination,
                "recorded": False,
            }
    elif game.termination in ON_TIME:
        loser: Side | Literal["both"] | None = (
            Side.WHITE if game.result == "0-1" else Side.BLACK if game.result == "1-0" else None
        )
        if game.termination == Termination.BOTH_FLAGS_FALLEN:
            loser = "both"  # 6.11: the order cannot be established
        flagged = loser or _flagged_in_draw(clock)
        fell = clock.fell_at_ms(Side(flagged)) if flagged in SIDES else None
        fell_at = fell if fell is not None else game.last_at_ms
        if flagged in SIDES and when >= fell_at:
            # 6.9, as recorded: the loser's time ran out at the fall, whatever the model
            # kept (a result recorded by the arbiter where the score stops before the
            # flag fell): the clock of a time forfeit shows him at 0:00 from then on
            if flagged == Side.WHITE:
                view["white_ms"] = 0
            else:
                view["black_ms"] = 0
            fallen_flags = view.get("falls", [])
            if all(f["side"] != flagged for f in fallen_flags):
                fall: Fall = {"side": Side(flagged), "fell_at": format_instant(fell_at)}
                view["falls"] = sorted([*fallen_flags, fall], key=lambda f: f["fell_at"])
        view["flag"] = {
            "side": cast(FlaggedSide, flagged),
            "fell_at": format_instant(fell_at),
            "result": game.result,
            "termination": game.termination,
            "recorded": True,
        }
    return view


def _flagged_in_draw(clock: Clock) -> Side | None:
    for side in SIDES:
        if clock.remaining_ms(side) == 0:
            return side
    return None


def device_view(
    readings: Sequence[ClockReadingRecorded], at_ms: int, ended_at_ms: int | None = None
) -> DeviceShown | None:
    """The physical clock as last read at or before ``at_ms``, run on to ``at_ms``
    (but not past the end of the game, ``ended_at_ms``, when the clocks stopped)."""
    instants = [r.at_ms for r in readings]
    index = bisect.bisect_right(instants, at_ms) - 1
    if index < 0:
        return None
    last = readings[index]
    shown = {"white": last.white_ms, "black": last.black_ms}
    run_to = at_ms if ended_at_ms is None else min(at_ms, max(ended_at_ms, last.at_ms))
    if last.running in shown:
        side = last.running
        shown[side] = max(0, shown[side] - (run_to - last.at_ms))
    return {
        "white_ms": shown["white"],
        "black_ms": shown["black"],
        "running": last.running,
        "read_at": format_instant(last.at_ms),
        "by": last.by,
        "open_alerts": list(last.open_alerts),
        "stream_version": last.originator_version,
    }


def clock_report(
    events: Iterable[Event],
    readings: Iterable[ClockReadingRecorded],
    tolerance_ms: int = REPORT_TOLERANCE_MS,
) -> list[ClockRow]:
    """Per ply with a recorded clock: the mover's recorded and regulation clocks, judged.

    A reading stored with its ``ply`` (an import's ``[%clk]``, a move's two displays)
    belongs to that ply; one without (a live or DGT reading) to the last move before it.
    Each row: ``ply``, ``move`` (the mover's move number), ``side``, ``san``,
    ``recorded_ms``, ``regulation_ms`` (None where no control was applied),
    ``difference_ms``, ``status`` (``agrees``, ``artefact`` for a known device
    behaviour, ``mismatch``, ``not_judged`` for a reading stored without the regulation
    clock beside it, ``glitch`` for a broadcast glitch kept as read), ``kind`` and
    ``explanation`` (empty when it agrees).
    """
    events = list(events)
    by_ply = ply_readings(events, readings)
    rows: list[ClockRow] = []
    state: Game | None = None
    for event in events:
        state = games.evolve(state, event)
        if not isinstance(event, MovePlayed) or state is None:
            continue
        observed = by_ply.get(event.ply)
        if observed is None:
            continue
        side = mover(state.initial_fen, event.ply)
        recorded = observed.white_ms if side == "white" else observed.black_ms
        clock = state.clock
        move = clock.side(side).moves if clock is not None else _move_number(state, event)
        if observed.glitch or observed.model_white_ms is None or clock is None:
            # stored unjudged: an assumed or unknown control, a late read, a glitch
            regulation = None if observed.glitch or clock is None else clock.remaining_ms(side)
            difference = None
            status = "glitch" if observed.glitch else "not_judged"
            kind = "broadcast_glitch" if observed.glitch else ""
            explanation = GLITCH if observed.glitch else NOT_JUDGED
        else:
            found = judge(clock, side, recorded, event.at_ms, tolerance_ms)
            regulation, difference = found.model_ms, found.difference_ms
            status = (
                "agrees"
                if found.kind == "agrees"
                else "mismatch"
                if found.kind == "clock_mismatch"
                else "artefact"
            )
            kind = "" if found.kind == "agrees" else found.kind
            explanation = found.explanation
        rows.append(
            {
                "ply": event.ply,
                "move": move,
                "side": side,
                "san": event.san,
                "recorded_ms": recorded,
                "regulation_ms": regulation,
                "difference_ms": difference,
                "status": status,
                "kind": kind,
                "explanation": explanation,
            }
        )
    return rows


def _move_number(game: Game, move: MovePlayed) -> int:
    """The mover's move number of a ply (the clock's count, where there is no clock)."""
    first = mover(game.initial_fen, 1)
    return (move.ply + 1) // 2 if mover(game.initial_fen, move.ply) == first else move.ply // 2


def ply_readings(
    events: Iterable[Event], readings: Iterable[ClockReadingRecorded]
) -> dict[int, ClockReadingRecorded]:
    """Ply -> the device reading that belongs to it.

    A reading stored with its ``ply`` (an import's ``[%clk]``, a move's two displays)
    belongs to that ply; one without (a live ``clock_reading``, a DGT board's clock) to
    the last move made before it: the first such reading shows the mover's stopped clock.
    """
    by_ply: dict[int, ClockReadingRecorded] = {}
    untagged: list[ClockReadingRecorded] = []
    for reading in readings:
        if reading.ply is not None:
            by_ply[reading.ply] = reading
        else:
            untagged.append(reading)
    moves = [(e.at_ms, e.ply) for e in events if isinstance(e, MovePlayed)]
    instants = [at for at, _ in moves]
    for reading in sorted(untagged, key=lambda r: r.at_ms):
        index = bisect_right(instants, reading.at_ms) - 1
        if index >= 0 and moves[index][1] not in by_ply:
            by_ply[moves[index][1]] = reading
    return by_ply


def move_clocks(events: Iterable[Event]) -> list[int | None]:
    """The mover's regulation clock after each ply (None where the clock is unknown)."""
    clocks: list[int | None] = []
    state: Game | None = None
    for event in events:
        state = games.evolve(state, event)
        if isinstance(event, MovePlayed) and state is not None:
            if state.clock is None:
                clocks.append(None)
            else:
                clocks.append(state.clock.remaining_ms(mover(state.initial_fen, event.ply)))
    return clocks


def shown_clocks(
    events: Sequence[Event], readings: Iterable[ClockReadingRecorded] = ()
) -> dict[int, tuple[int, int | None, bool]]:
    """Ply -> (the clock to write as ``[%clk]``, the regulation clock when it differs,
    whether the reading is a broadcast glitch).

    The ``[%clk]`` of a ply is what the players saw: the mover's clock as the device
    read it after that move (Laws 2009 6.10 a: conclusive unless the arbiter rules the
    clock defective), as read (a glitch too, marked), and the regulation clock where no
    reading belongs to the ply. The regulation clock is given beside a reading only where
    a control was applied to it (the reading was judged: its regulation values are stored
    beside it) and the two differ by a second or more.
    """
    model = move_clocks(events)
    observed = ply_readings(events, readings)
    initial_fen = next((e.initial_fen for e in events if isinstance(e, GameStarted)), None)
    out: dict[int, tuple[int, int | None, bool]] = {}
    for ply, regulation in enumerate(model, start=1):
        reading = observed.get(ply)
        if reading is None:
            if regulation is not None:
                out[ply] = (regulation, None, False)
            continue
        side = mover(initial_fen, ply)
        shown = reading.white_ms if side == Side.WHITE else reading.black_ms
        judged = reading.model_white_ms is not None and not reading.glitch
        differs = judged and regulation is not None and abs(shown - regulation) >= 1000
        out[ply] = (shown, regulation if differs else None, reading.glitch)
    return out
