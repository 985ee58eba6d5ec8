"""Time controls built from periods, read from and written as PGN ``TimeControl`` tags.

A time control is a sequence of periods (Laws 2009 6.2 a), each with its time, an
optional number of moves and an optional increment, as the 2012 controls need (3.5.1
``40/7200:20/3600:900+30``; 3.7.1.a, 3.7.2, and 3.7.3.a's sudden death, written
``60/300|240:0+3`` as the PGN tag cannot give the players different times). Every
field of the PGN standard is read; durations are integer milliseconds. The tags and
their readings are in docs/clocks.md."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from engine.errors import MalformedCommand
from engine.side import Side


@dataclass(frozen=True, slots=True)
class Period:
    """One time control period (Laws 6.2 a)."""

    moves: int | None
    """Moves to complete in the period; None for the rest of the game."""
    white_ms: int
    """Time credited to White when the period begins."""
    black_ms: int
    """Time credited to Black when the period begins."""
    increment_ms: int = 0
    """Added after each move completed in this period."""

    def time_ms(self, side: Side) -> int:
        """The time this period credits to one side."""
        return self.white_ms if Side.of(side) is Side.WHITE else self.black_ms


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A time control: its periods, in the order they are played."""

    periods: tuple[Period, ...]
    """Empty when the control is unknown (``?``) or there is none (``-``)."""
    tag: str
    """The text it was read from (its canonical written form)."""

    @property
    def known(self) -> bool:
        """False for ``?`` and ``-``: the clock cannot be modelled and never flags."""
        return bool(self.periods)

    def period(self, index: int) -> Period:
        """The period at ``index`` (0-based); the last one repeats (PGN 9.6.1)."""
        if index < len(self.periods):
            return self.periods[index]
        return self.periods[-1]

    def initial_ms(self, side: Side) -> int:
        """The time on one side's clock at the start (3.7.3.a: White 5 min, Black 4 min)."""
        return self.periods[0].time_ms(side) if self.periods else 0

    def period_of_move(self, move_number: int) -> int:
        """The 0-based period the player's ``move_number``-th move (from 1) belongs to.

        With ``40/7200:20/3600:900+30``: moves 1-40 -> 0, 41-60 -> 1, 61... -> 2.
        """
        index, first = 0, 1
        while True:
            moves = self.period(index).moves
            if moves is None or move_number < first + moves:
                return index
            first += moves
            index += 1

    def _controls(self) -> Iterator[int]:
        """The move numbers at which each period ends (40, 60 under 3.5.1), in order,
        until a period for the rest of the game."""
        index, last = 0, 0
        while (moves := self.period(index).moves) is not None:
            last += moves
            yield last
            index += 1

    def control_after(self, move_number: int) -> int | None:
        """The 0-based index of the period that begins once ``move_number`` is completed.

        None unless ``move_number`` is the last move of a period (40 and 60 under 3.5.1).
        """
        for index, last in enumerate(self._controls()):
            if move_number <= last:
                return index + 1 if move_number == last else None
        return None

    def moves_to_control(self, moves_completed: int) -> int | None:
        """Moves still to complete before the next control; None in a period for the rest."""
        for last in self._controls():
            if moves_completed < last:
                return last - moves_completed
        return None

    def describe(self) -> str:
        """Plain words for people: ``40 moves in 120 min, 20 moves in 60 min, 15 min + 30 s``."""
        if not self.periods:
            return "unknown" if self.tag == "?" else "no time control"
        parts = []
        for p in self.periods:
            time = _minutes(p.white_ms)
            if p.black_ms != p.white_ms:
                time = f"White {_minutes(p.white_ms)}, Black {_minutes(p.black_ms)}"
            text = f"{p.moves} moves in {time}" if p.moves else f"{time} for the rest"
            if p.increment_ms:
                text += f" + {p.increment_ms / 1000:g} s a move"
            parts.append(text)
        return ", then ".join(parts)


def _minutes(ms: int) -> str:
    return f"{ms / 60000:g} min" if ms % 60000 == 0 else f"{ms / 1000:g} s"


_FIELD = re.compile(r"(?:(?P<moves>\d+)/)?(?P<white>\d+)(?:\|(?P<black>\d+))?(?:\+(?P<inc>\d+))?")


def parse_time_control(tag: str) -> TimeControl:
    """Read a PGN ``TimeControl`` tag (or this project's two-sided form); MalformedCommand."""
    text = tag.strip()
    if text in ("?", "-", ""):
        return TimeControl((), text or "?")
    periods: list[Period] = []
    fields = text.split(":")
    for position, field in enumerate(fields, start=1):
        if field.startswith("*"):
            raise MalformedCommand(
                f"time control {tag!r}: sandclock field {field!r} is not supported"
            )
        match = _FIELD.fullmatch(field)
        if match is None:
            raise MalformedCommand(
                f"time control {tag!r}: cannot read field {position} ({field!r}); expected "
                "moves/seconds, seconds, seconds+increment or WHITE|BLACK seconds, "
                'e.g. "40/7200:20/3600:900+30" or "60/300|240:0+3"'
            )
        moves = int(match["moves"]) if match["moves"] else None
        if moves == 0:
            raise MalformedCommand(f"time control {tag!r}: a period of 0 moves in {field!r}")
        if moves is None and position != len(fields):
            raise MalformedCommand(
                f"time control {tag!r}: the sudden-death field {field!r} must be the last one"
            )
        white = int(match["white"]) * 1000
        black = int(match["black"]) * 1000 if match["black"] else white
        periods.append(Period(moves, white, black, int(match["inc"] or 0) * 1000))
    if periods[0].white_ms == 0 or periods[0].black_ms == 0:
        raise MalformedCommand(f"time control {tag!r}: the first period gives a player no time")
    control = TimeControl(tuple(periods), "")
    return TimeControl(control.periods, format_time_control(control))


def format_time_control(control: TimeControl) -> str:
    """The written form: PGN ``TimeControl`` where it can say it, ``W|B`` seconds otherwise."""
    if not control.periods:
        return control.tag or "?"
    fields = []
    for p in control.periods:
        seconds = f"{p.white_ms // 1000}"
        if p.black_ms != p.white_ms:
            seconds += f"|{p.black_ms // 1000}"
        field = f"{p.moves}/{seconds}" if p.moves else seconds
        if p.increment_ms:
            field += f"+{p.increment_ms // 1000}"
        fields.append(field)
    return ":".join(fields)


CLASSICAL_3_5_1 = "40/7200:20/3600:900+30"
"""3.5.1: 120 min/40, 60 min/20, 15 min + 30 s from move 61."""
RAPID_3_7_1_A = "1500+10"
"""3.7.1.a: 25 min + 10 s a move."""
BLITZ_3_7_2 = "300+3"
"""3.7.2: 5 min + 3 s a move from move 1."""
SUDDEN_DEATH_3_7_3_A = "60/300|240:0+3"
"""3.7.3.a: White 5 min, Black 4 min, 3 s a move from move 61 (this project's form)."""


_MINUTES = (
    r"(?P<amount>\d+(?:\.\d+)?)\s*(?P<unit>'|′|’|min(?:ute)?s?\.?|mn|m\b|h(?:ours?)?\b|hrs?\b)"
)
_PERIOD = re.compile(
    _MINUTES + r"\s*(?:(?:/|for|in|per)\s*(?:(?P<moves>\d+)\s*(?:moves?|mv)?"
    r"|(?P<rest>end|rest|ko|kt|the\s+rest(?:\s+of\s+the\s+game)?|game|g)\b)|(?P<bare>))"
)
_INCREMENT = re.compile(
    r"(?P<seconds>\d+)\s*(?:\"|″|”|''|s\b|secs?\.?|seconds?)\s*(?:/|per|a|each)?\s*"
    r"(?:move|mv)?\b(?:[^0-9]*?(?:from|starting(?:\s+(?:from|with|at))?|beginning\s+with)\s*"
    r"(?:move\s*)?(?P<from_move>\d+))?"
)


def read_time_control_text(text: str) -> TimeControl | None:
    """A ``TimeControl`` tag as real files write it, or None when it cannot be read.

    The PGN standard form (``40/7200:20/3600:900+30``) and this project's forms come
    first; then the free-text forms of broadcasts and organisers' files, e.g.
    ``120'/40 + 30'/end + 30"/move from move 1`` or ``90 min/40 moves + 30 min + 30 sec
    per move from move 1``: periods of minutes (or hours) for a number of moves or for the
    rest, then an increment of seconds per move from a given move (from move 1 when not
    said). An increment from move N belongs to the periods from the one holding move N.
    """
    try:
        return parse_time_control(text)
    except MalformedCommand:
        pass
    lowered = text.lower().replace("’", "'").replace("′", "'").replace("″", '"')
    increment_ms, from_move = 0, 1
    found = _INCREMENT.search(lowered)
    if found is not None:
        increment_ms = int(found["seconds"]) * 1000
        from_move = int(found["from_move"] or 1)
        lowered = lowered[: found.start()] + " " + lowered[found.end() :]
    periods: list[tuple[int | None, int]] = []
    for match in _PERIOD.finditer(lowered):
        amount = float(match["amount"])
        unit = match["unit"]
        minutes = amount * 60 if unit.startswith("h") else amount
        moves = int(match["moves"]) if match["moves"] else None
        periods.append((moves, round(minutes * 60_000)))
        if moves is None:
            break
    if not periods or any(ms <= 0 for _, ms in periods):
        return None
    first_with_increment, move = None, 1
    for index, (moves, _) in enumerate(periods):
        if move == from_move:
            first_with_increment = index
            break
        if moves is None:
            break
        move += moves
    if increment_ms and first_with_increment is None:
        return None
    built = [
        Period(
            moves,
            ms,
            ms,
            increment_ms if first_with_increment is not None and i >= first_with_increment else 0,
        )
        for i, (moves, ms) in enumerate(periods)
    ]
    if built[-1].moves is not None and len(built) > 1:
        return None  # a last period with a move count repeats (PGN 9.6.1): not what text means
    control = TimeControl(tuple(built), "")
    return TimeControl(control.periods, format_time_control(control))
