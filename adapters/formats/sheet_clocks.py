"""The clocks of a score sheet: which time control its ``[%clk]`` readings are judged
against, the readings themselves, and the summary of how they compare (3.5.1; Laws 2009
6.10 a: the clock on the table is what the players saw).

``control_for`` decides the game's control and whether it is assumed (docs/import.md):
``--time-control``, else the ``TimeControl`` tag unless the game's own readings
contradict it and the rules profile's control fits them, else (no tag) the profile's,
assumed, against which the readings are never judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NotRequired, TypedDict

import chess
import chess.pgn

from engine.clock.move_instants import unexplained_rises
from engine.clock.time_control import read_time_control_text
from engine.errors import MalformedCommand
from engine.fields import DURATION_LIMIT_MS
from engine.rules import profile
from engine.side import Side
from projections.clock import ClockRow


class ClockSummary(TypedDict):
    """An imported game's clock readings against the regulation clock, counted: the plies
    compared, how many agree, the known artefacts and the mismatches (by kind)."""

    plies: int
    agree: int
    artefacts: dict[str, int]
    """Artefact kind -> how many (a device's known behaviour, not a mismatch)."""
    mismatches: int
    not_judged: NotRequired[int]
    """Readings with nothing to judge them by."""
    glitches: NotRequired[int]
    """A score sheet's readings that contradict the same player's before and after."""
    device_rule: NotRequired[str]
    """The clock on the table's own rule, read from its readings (``increment_on_control_move``)."""


def clock_summary(rows: Sequence[ClockRow]) -> ClockSummary:
    """Counts of a clock report (``projections.clock.clock_report``)."""
    summary = ClockSummary(plies=len(rows), agree=0, artefacts={}, mismatches=0)
    for row in rows:
        if row["status"] == "not_judged":  # nothing to judge by
            summary["not_judged"] = summary.get("not_judged", 0) + 1
        elif row["status"] == "glitch":
            summary["glitches"] = summary.get("glitches", 0) + 1
        elif row["status"] == "agrees":
            summary["agree"] += 1
        elif row["status"] == "artefact":
            summary["artefacts"][row["kind"]] = summary["artefacts"].get(row["kind"], 0) + 1
        else:
            summary["mismatches"] += 1
    return summary


def recorded_clocks(pgn: chess.pgn.Game) -> list[int | None]:
    """The ``[%clk]`` after each move, in ms (None where a move has none). A reading no
    clock shows (hours of thousands of digits: Python will not convert them, or more than
    a day) is refused with the move it follows, never a traceback."""
    clocks: list[int | None] = []
    for ply, node in enumerate(pgn.mainline(), start=1):
        try:
            seconds = node.clock()
        except ValueError:
            seconds = float("inf")
        if seconds is not None and not 0 <= seconds <= DURATION_LIMIT_MS / 1000:
            raise MalformedCommand(
                f"the [%clk] after ply {ply} is no clock's reading (more than 24 hours)"
            )
        clocks.append(None if seconds is None else round(seconds * 1000))
    return clocks


def control_for(
    game: Any,
    game_id: str,
    clocks: list[int | None],
    time_control: str | None,
    rules: str,
    warnings: list[str],
) -> tuple[str, bool]:
    """The game's time control (its written form) and whether it is assumed.

    ``time_control`` (``--time-control``) says it for every game. Else the
    ``TimeControl`` tag, unless the game's own ``[%clk]`` readings contradict it (they
    rise where it credits nothing: a tag saying 60 moves where the clocks show the next
    period at move 40) and the rules
    profile's control fits them: the readings are observations of the clock, so the
    control they fit is used, with a warning. An unreadable tag is a warning: the
    profile's control is assumed and the readings are kept as read, never judged.
    Without a tag (or ``?``) the profile's control is assumed, with a warning: the
    readings are stored as read and never judged against a control nobody stated (3.5.1
    is not every event's control); a profile naming no control keeps them as read too.
    """
    label = f"game {game_id} {game.label()}"
    recorded = any(c is not None for c in clocks)
    default = profile(rules).time_control
    stated = bool(time_control)
    tag = time_control or game.header("TimeControl")
    if tag == "-":
        return tag, False
    if not tag or tag == "?":
        if recorded and not stated and default == "?":
            warnings.append(
                f"{label}: no TimeControl tag, and the {profile(rules).name} profile names no "
                "control: its [%clk] readings are kept as read, not judged and not placed in "
                "time (pass --time-control to judge them)"
            )
            return default, False
        if recorded and not stated:
            warnings.append(
                f"{label}: no TimeControl tag; the {profile(rules).name} control {default} is "
                "assumed, and its [%clk] readings are kept as read, not judged against it "
                "(pass --time-control to judge them)"
            )
            return default, True
        return tag or default, False
    control = read_time_control_text(tag)
    if control is None:
        kept = " its [%clk] readings are kept as read, not judged;" if recorded else ""
        warnings.append(
            f"{label}: TimeControl {tag!r} cannot be read;{kept} the "
            f"{profile(rules).name} control is assumed (pass --time-control)"
        )
        return default, recorded
    if recorded and not stated and control.tag != default:
        fen = game.pgn.headers.get("FEN") if game.pgn.headers.get("SetUp") == "1" else None
        first = Side.BLACK if fen and chess.Board(fen).turn == chess.BLACK else Side.WHITE
        against = unexplained_rises(control, first, clocks)
        rules_control = read_time_control_text(default)
        if against and rules_control is not None and rules_control.known:
            under_rules = unexplained_rises(rules_control, first, clocks)
            if under_rules < against:
                warnings.append(
                    f"{label}: TimeControl {tag!r} (read as {control.tag}) does not fit the "
                    f"game's [%clk] readings ({against} rise(s) it credits nothing for); the "
                    f"{profile(rules).name} control {default} fits them and is used (pass "
                    "--time-control to say otherwise)"
                )
                return default, False
    return control.tag, False
