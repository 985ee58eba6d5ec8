"""One board's conversation, sans I/O: bytes and instants in; observations and
host commands out.

``BoardSession`` owns the parser, the shadow board (the 64 fields as last
reported), the debounce, the reconstructor and the clock-side mapping.
Whoever owns the link (``adapters.dgt.link``, the CLI, a test) calls

- ``connected(now_ms)`` when the link (re)opens: the start-up commands
  (update-nice mode, version, serial number, full dump, clock) are queued;
- ``receive_data(data, now_ms)`` with every chunk read;
- ``poll(now_ms)`` when ``next_deadline_ms()`` is reached (or at any time);
- ``data_to_send()`` and ``observations()`` to collect the results.

Settling (the picochess / DGT-DLL practice): every field update restarts a
``debounce_ms`` timer; when it expires the shadow placement is settled and a
full dump is requested, which settles again (and cures lost updates). A
complete dump always counts as settled. With ``timed=False`` (raw bytes with
no arrival times) only complete dumps settle, and ``finish()`` settles what
is left at the end of the input.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess

from adapters.dgt import protocol as p
from adapters.dgt.clocksides import ClockReading, ClockSides, ColouredReading
from adapters.dgt.reconstruct import MoveReconstructor, Observation


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

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "type": "clock",
            "left_ms": self.left_ms,
            "right_ms": self.right_ms,
            "running": self.running_side,
        }
        if self.coloured is not None:
            out.update(
                white_ms=self.coloured.white_ms,
                black_ms=self.coloured.black_ms,
                running_colour=self.coloured.running,
            )
        return out


@dataclass(frozen=True)
class ClockMapped(Observation):
    """A reading in colours, ready for ``clock_reading`` (released in order, possibly late)."""

    reading: ColouredReading

    @property
    def type(self) -> str:
        return "clock_reading"

    def to_json(self) -> dict[str, object]:
        return {
            "type": "clock_reading",
            "white_ms": self.reading.white_ms,
            "black_ms": self.reading.black_ms,
            "running": self.reading.running,
        }


@dataclass(frozen=True)
class BoardIdentified(Observation):
    """The board told its serial number (first time, or a different one)."""

    serial: str

    @property
    def type(self) -> str:
        return "serial_number"

    def to_json(self) -> dict[str, object]:
        return {"type": "serial_number", "serial": self.serial}


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

    # --- driving ------------------------------------------------------------

    def connected(self, now_ms: int) -> None:
        """The link is (again) open: ask for everything, reconcile on the dump."""
        self.shadow = None
        self._dirty = False
        # The first reading after a (re)connection is no lever press: presses made
        # while the link was down are unknown.
        self.clock_sides.forget_lever()
        self.reconstructor.link_restored()
        for code in p.STARTUP_COMMANDS:
            self._send.append(code)

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
        rec = self.reconstructor
        if (
            self.timed
            and rec._unknown is not None
            and now_ms - max(self._last_change_ms, self._last_dump_request_ms) >= self.redump_ms
        ):
            # A standing impossible position: read the board again now and then (the
            # record may have been completed meanwhile, or an update been lost).
            self._last_dump_request_ms = now_ms
            self._send.append(p.SEND_BRD)

    def next_deadline_ms(self) -> int | None:
        """When ``poll`` next has work: the debounce, an alert, a confirmation."""
        deadlines = []
        if self.timed and self._dirty:
            deadlines.append(self._last_change_ms + self.debounce_ms)
        rec = self.reconstructor
        if rec._unknown is not None and not rec._unknown_alerted:
            deadlines.append(rec._unknown_since_ms + rec.alert_after_ms)
        if rec.provisional_from is not None and rec._unknown is None:
            deadlines.append(rec._last_change_ms + rec.confirm_ms)
        if self.timed and rec._unknown is not None:
            deadlines.append(max(self._last_change_ms, self._last_dump_request_ms) + self.redump_ms)
        return min(deadlines) if deadlines else None

    def finish(self, now_ms: int) -> None:
        """End of input: trailing bytes are an error; what is left settles."""
        for message in self.parser.flush():
            self.handle(message, now_ms)
        if self._dirty:
            self._dirty = False
            self._settle_shadow(now_ms)
        self._out.extend(self.reconstructor.tick(now_ms + self.reconstructor.alert_after_ms))
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
            codes = p.codes_of(raw)
        except (KeyError, ValueError):
            self.parser.errors += 1
            return
        if codes == self.shadow:
            return
        first = self.shadow is None
        self.shadow = codes
        if first or not self.timed:
            self._settle(raw, now_ms)
            return
        self._dirty = True
        self._last_change_ms = now_ms

    def coloured_clock(self, reading: ColouredReading) -> None:
        """A reading already in colours (LiveChess): a change of the running colour
        with the board settled confirms the mover's move."""
        previous = self._last_colour
        self._last_colour = reading.running
        rec = self.reconstructor
        if (
            previous is not None
            and reading.running is not None
            and reading.running != previous
            and rec._unknown is None
            and not self._dirty
        ):
            self._out.extend(rec.confirm(reading.at_ms, "clock"))
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
                    self._out.extend(self.reconstructor.magic_piece(p.MAGIC_PIECES[code], now_ms))
                self._settle(message.placement, now_ms)
            case p.FieldUpdate():
                if message.code in p.MAGIC_PIECES:
                    result = p.MAGIC_PIECES[message.code]
                    self._out.extend(self.reconstructor.magic_piece(result, now_ms))
                if self.shadow is None:
                    # No dump yet to apply it to: ask for one (once per batch).
                    if p.SEND_BRD not in self._send:
                        self._send.append(p.SEND_BRD)
                    return
                self.shadow[message.field] = message.code
                self._dirty = True
                self._last_change_ms = now_ms
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

    def _settle_shadow(self, now_ms: int) -> None:
        if self.shadow is not None:
            self._settle(p.placement_of(self.shadow), now_ms)

    def _settle(self, placement: str, now_ms: int) -> None:
        self._out.extend(self.reconstructor.settle(placement, now_ms))

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
        reading = ClockReading(now_ms, message.left_ms, message.right_ms, message.running)
        sides = self.clock_sides
        lever = sides.lever_changed(reading)
        started = not self._clock_started and message.running is not None
        if started:
            self._clock_started = True
        rec = self.reconstructor
        settled = rec._unknown is None and not self._dirty
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
