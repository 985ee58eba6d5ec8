"""One board's conversation, sans I/O: bytes and instants in; observations and host
commands out.

``BoardSession`` owns the parser, the shadow board, the debounce, the reconstructor
and the clock-side mapping; whoever owns the link calls ``connected``,
``receive_data`` and ``poll``, and collects ``data_to_send()`` and
``observations()``. Order first, time second: placements are read in the order they
passed when one settles (a lever press, a complete dump, the end of the input, or
with timing the debounce), so a move does not depend on how fast the bytes came
(docs/dgt.md, section 3)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import NotRequired

import chess

from adapters.dgt import protocol as p
from adapters.dgt.board_codes import MAGIC_PIECES, codes_of, placement_of
from adapters.dgt.clocksides import ClockReading, ClockSides, ColouredReading
from adapters.dgt.observations import Line, Observation
from adapters.dgt.reconstruct import MoveReconstructor

CLOCK_GAP_LIMIT_MS = 30_000
"""Longer silences of the clock (stopped, unplugged) say nothing of the timing's resolution."""


class ClockLine(Line):
    """A clock message's line: the clock's own sides, and in colours once mapped."""

    left_ms: int
    right_ms: int
    running: str | None
    white_ms: NotRequired[int]
    black_ms: NotRequired[int]
    running_colour: NotRequired[str | None]
    flag: NotRequired[str]


class ReadingLine(Line):
    white_ms: int
    black_ms: int
    running: str | None
    flag: NotRequired[str]


class SerialLine(Line):
    serial: str


@dataclass(frozen=True)
class ClockSeen(Observation):
    """A clock reading, mapped to colours once the mapping is known."""

    left_ms: int
    right_ms: int
    running_side: str | None
    coloured: ColouredReading | None

    @property
    def type(self) -> str:
        return "clock"

    def to_json(self) -> ClockLine:
        out = ClockLine(
            type="clock",
            left_ms=self.left_ms,
            right_ms=self.right_ms,
            running=self.running_side,
        )
        if self.coloured is not None:
            out["white_ms"] = self.coloured.white_ms
            out["black_ms"] = self.coloured.black_ms
            out["running_colour"] = self.coloured.running
            if self.coloured.flag is not None:
                out["flag"] = self.coloured.flag
        return out


@dataclass(frozen=True)
class ClockMapped(Observation):
    """A reading in colours, ready for ``clock_reading`` (released in order, possibly late)."""

    reading: ColouredReading

    @property
    def type(self) -> str:
        return "clock_reading"

    def to_json(self) -> ReadingLine:
        out = ReadingLine(
            type="clock_reading",
            white_ms=self.reading.white_ms,
            black_ms=self.reading.black_ms,
            running=self.reading.running,
        )
        if self.reading.flag is not None:
            out["flag"] = self.reading.flag
        return out


@dataclass(frozen=True)
class BoardIdentified(Observation):
    """The board told its serial number (first time, or a different one)."""

    serial: str

    @property
    def type(self) -> str:
        return "serial_number"

    def to_json(self) -> SerialLine:
        return SerialLine(type="serial_number", serial=self.serial)


@dataclass
class BoardSession:
    reconstructor: MoveReconstructor = field(default_factory=MoveReconstructor)
    clock_sides: ClockSides = field(default_factory=ClockSides)
    debounce_ms: int = 300
    timed: bool = True
    parser: p.DgtParser = field(default_factory=p.DgtParser)
    serial: str | None = None
    version: str | None = None
    shadow: list[int] | None = None
    last_clock: p.ClockTimes | None = None
    last_byte_ms: int = 0
    _dirty: bool = False
    _last_change_ms: int = 0
    _clock_started: bool = False
    _last_colour: str | None = None
    _last_dump_request_ms: int = 0
    redump_ms: int = 2000
    _send: bytearray = field(default_factory=bytearray)
    _out: list[Observation] = field(default_factory=list)
    _messages: list[p.Message] = field(default_factory=list)
    keep_messages: bool = False
    """Keep every decoded message for ``messages()`` (the CLI and tests)."""
    _passing: list[tuple[str, int]] = field(default_factory=list)
    _last_clock_ms: int | None = None
    _ply_at_last_clock: int | None = None
    _timing_real: bool = False
    """A field change arrived at an instant of its own (not a clock message's): the
    input's instants are real and quiet time means what it says."""
    _clock_gaps: deque[int] = field(default_factory=lambda: deque(maxlen=4))

    def __post_init__(self) -> None:
        self.use_timing(self.timed)

    def use_timing(self, timed: bool) -> None:
        """Whether the input's instants mean anything (a live link, a ``.dgt``
        recording) or not (raw bytes)."""
        self.timed = timed
        self.reconstructor.untimed = not timed

    def request(self, *codes: int) -> None:
        """Queue host commands for the board (``data_to_send``)."""
        self._send.extend(codes)

    def resume(self, start_fen: str | None, moves: list[str] | tuple[str, ...]) -> None:
        """Follow a game already under way (the store's record), if nothing was read yet."""
        if self.reconstructor.ply == 0:
            self.reconstructor.resume(start_fen, moves)

    # --- driving ------------------------------------------------------------

    def connected(self, now_ms: int) -> None:
        """The link is (again) open: ask for everything, reconcile on the dump."""
        self.reconnected()
        for code in p.STARTUP_COMMANDS:
            self._send.append(code)

    def reconnected(self) -> None:
        """The source is back after a gap: the next placement may be several plies
        ahead, and no reading yet shows a press (presses made meanwhile are unknown)."""
        self.shadow = None
        self._dirty = False
        self._passing.clear()
        self._last_colour = None
        self._last_clock_ms = None
        self._ply_at_last_clock = None
        self.clock_sides.forget_lever()
        self.reconstructor.link_restored()

    def receive_data(self, data: bytes, now_ms: int) -> None:
        self.last_byte_ms = now_ms
        self.parser.receive_data(data)
        for message in self.parser.events_received():
            self.handle(message, now_ms)

    def poll(self, now_ms: int) -> None:
        if self.timed and self._dirty and now_ms - self._last_change_ms >= self.debounce_ms:
            self._dirty = False
            self._settle_shadow(now_ms)
            self._send.append(p.SEND_BRD)
        self._out.extend(self.reconstructor.tick(now_ms))
        if (
            self.timed
            and not self.reconstructor.matches_game
            and now_ms - max(self._last_change_ms, self._last_dump_request_ms) >= self.redump_ms
        ):
            # A standing impossible position: read the board again now and then (the
            # record may have been completed meanwhile, or an update been lost).
            self._last_dump_request_ms = now_ms
            self._send.append(p.SEND_BRD)

    def run_timers_until(self, now_ms: int) -> None:
        """Fire, each at its own instant, the timers due by ``now_ms``: what a live
        link's timers would have done before a recorded chunk of that instant."""
        while (deadline := self.next_deadline_ms()) is not None and deadline <= now_ms:
            self.poll(deadline)

    def next_deadline_ms(self) -> int | None:
        """When ``poll`` next has work: the debounce, an alert, a confirmation."""
        deadlines = []
        if self.timed and self._dirty:
            deadlines.append(self._last_change_ms + self.debounce_ms)
        rec = self.reconstructor
        own = rec.next_deadline_ms()
        if own is not None:
            deadlines.append(own)
        if self.timed and not rec.matches_game:
            deadlines.append(max(self._last_change_ms, self._last_dump_request_ms) + self.redump_ms)
        return min(deadlines) if deadlines else None

    def finish(self, now_ms: int) -> None:
        """End of input: trailing bytes are an error; what is left settles."""
        for message in self.parser.flush():
            self.handle(message, now_ms)
        if self._dirty or self._passing or not self.reconstructor.matches_game:
            self._dirty = False
            self._settle_shadow(now_ms)
        self._out.extend(self.reconstructor.finish(now_ms))

    def data_to_send(self) -> bytes:
        out = bytes(self._send)
        self._send.clear()
        return out

    def observations(self) -> list[Observation]:
        out, self._out = self._out, []
        return out

    def messages(self) -> list[p.Message]:
        out, self._messages = self._messages, []
        return out

    def placement_seen(self, raw: str, now_ms: int) -> None:
        """A whole placement from a source that reports every change as a position
        (LiveChess): it goes through the same debounce as field updates."""
        try:
            codes = codes_of(raw)
        except (KeyError, ValueError):
            self.parser.errors += 1
            return
        if codes == self.shadow:
            return
        first = self.shadow is None
        self.shadow = codes
        if first:
            self._settle(raw, now_ms)
            return
        self._changed(raw, now_ms)

    def coloured_clock(self, reading: ColouredReading) -> None:
        """A reading already in colours (LiveChess): a change of the running colour
        with the board settled confirms the mover's move."""
        previous = self._last_colour
        self._last_colour = reading.running
        if previous is not None and reading.running is not None and reading.running != previous:
            # The press ends the move: what the board shows now is settled.
            if self._dirty or self._passing:
                self._dirty = False
                self._settle_shadow(reading.at_ms)
            if self.reconstructor.matches_game:
                self._out.extend(self.reconstructor.confirm(reading.at_ms, "clock"))
        self._out.append(ClockMapped(reading.at_ms, reading))

    # --- messages -----------------------------------------------------------

    def handle(self, message: p.Message, now_ms: int) -> None:
        if self.keep_messages:
            self._messages.append(message)
        match message:
            case p.BoardDump():
                self.shadow = list(message.codes)
                self._dirty = False
                for _, code in message.magic:
                    self._out.extend(self.reconstructor.magic_piece(MAGIC_PIECES[code], now_ms))
                self._settle(message.placement, now_ms)
            case p.FieldUpdate():
                if message.code in MAGIC_PIECES:
                    result = MAGIC_PIECES[message.code]
                    self._out.extend(self.reconstructor.magic_piece(result, now_ms))
                if self.shadow is None:
                    # No dump yet to apply it to: ask for one (once per batch).
                    if p.SEND_BRD not in self._send:
                        self._send.append(p.SEND_BRD)
                    return
                self.shadow[message.field] = message.code
                self._changed(placement_of(self.shadow), now_ms)
            case p.ClockTimes():
                self._clock(message, now_ms)
            case p.SerialNumber():
                if message.serial != self.serial:
                    self.serial = message.serial
                    self._out.append(BoardIdentified(now_ms, message.serial))
            case p.Version():
                self.version = f"{message.major}.{message.minor}"
            case p.ProtocolError():
                # After any doubt, ask for a full dump.
                if p.SEND_BRD not in self._send:
                    self._send.append(p.SEND_BRD)
            case _:
                pass

    def _changed(self, placement: str, now_ms: int) -> None:
        """The shadow changed: one more passing placement, the debounce starts again."""
        if not self._passing or self._passing[-1][0] != placement:
            self._passing.append((placement, now_ms))
        self._dirty = True
        self._last_change_ms = now_ms
        self.reconstructor.board_changed(now_ms)
        if (
            self.timed
            and not self._timing_real
            and self._last_clock_ms is not None
            and now_ms != self._last_clock_ms
        ):
            # A change with an instant of its own: the instants are real, not the clock's.
            self._timing_real = True
            self.reconstructor.timing_resolution_ms = 0

    def _settle_shadow(self, now_ms: int) -> None:
        if self.shadow is not None:
            self._settle(placement_of(self.shadow), now_ms)

    def _settle(self, placement: str, now_ms: int) -> None:
        passing, self._passing = self._passing, []
        self._out.extend(self.reconstructor.settle(placement, now_ms, passing))

    def _press_ends_move(self, running: str | None, white_to_move: bool) -> bool:
        """With the sides known, a press confirms only if the clock of the player now
        on move started (the mover stopped theirs); unknown sides: any press."""
        sides = self.clock_sides
        if running is None or sides.white_side is None:
            return True
        return (running == sides.white_side) == white_to_move

    def _clock(self, message: p.ClockTimes, now_ms: int) -> None:
        if message.no_clock:
            return
        self.last_clock = message
        self._clock_interval(now_ms)
        reading = ClockReading(
            now_ms,
            message.left_ms,
            message.right_ms,
            message.running,
            left_flag=message.left_flag,
            right_flag=message.right_flag,
        )
        sides = self.clock_sides
        lever = sides.lever_changed(reading)
        started = not self._clock_started and message.running is not None
        if started:
            self._clock_started = True
        rec = self.reconstructor
        if lever and (self._dirty or self._passing):
            # The press ends the move: what the board shows now is settled.
            self._dirty = False
            self._settle_shadow(now_ms)
        # A press belongs to the one move made since the last message; after more than
        # one (a slow clock speaks late) it cannot tell which: it confirms nothing.
        since = self._ply_at_last_clock
        lever = lever and (since is None or rec.ply - since <= 1)
        self._ply_at_last_clock = rec.ply
        if lever and rec.timing_resolution_ms > 0 and not sides.known:
            # Instants from a clock that speaks only now and then: the press may be the
            # opponent's, seen late; only the known sides can tell whose it was.
            lever = False
        settled = rec.matches_game and not self._dirty
        white_to_move = rec.board.turn == chess.WHITE
        if lever and settled and self._press_ends_move(message.running, white_to_move):
            # The mover pressed the clock: their move is complete.
            self._out.extend(rec.confirm(now_ms, "clock"))
        evidence = settled and (lever or (started and rec.ply == 0))
        mapped = sides.observe(reading, white_to_move, evidence)
        self._out.append(
            ClockSeen(
                now_ms,
                message.left_ms,
                message.right_ms,
                message.running,
                mapped[-1] if mapped else None,
            )
        )
        self._out.extend(ClockMapped(m.at_ms, m) for m in mapped)

    def _clock_interval(self, now_ms: int) -> None:
        """The intervals between clock messages tell how finely a capture timed by its
        clock knows its instants: quiet time must outlast the longest recent one."""
        if not self.timed or self._timing_real:
            return
        if self._last_clock_ms is None and not self._clock_gaps:
            # One message says nothing of the rate yet: assume the coarsest until a second.
            self.reconstructor.timing_resolution_ms = CLOCK_GAP_LIMIT_MS
        if self._last_clock_ms is not None:
            gap = now_ms - self._last_clock_ms
            if 0 < gap <= CLOCK_GAP_LIMIT_MS:
                self._clock_gaps.append(gap)
                self.reconstructor.timing_resolution_ms = max(self._clock_gaps)
        self._last_clock_ms = now_ms
