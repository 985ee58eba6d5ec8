"""Sans-I/O DGT electronic board protocol: bytes in, typed messages out.

``DgtParser.receive_data(chunk)`` takes any split of the stream and never raises:
garbage, truncated frames and unknown ids become counted ``ProtocolError`` messages
and the parser resynchronises, so a noisy cable costs a dump, not the session. The
host's commands are encoded here too. Nothing here reads a clock or touches a file;
the framing and the tables (``dgtbrd.h``, 2012-2015) are in docs/dgt.md."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from adapters.dgt.board_codes import MAGIC_PIECES, codes_of, field_square_name, rotate_placement
from adapters.dgt.messages import (
    BatteryStatus,
    BoardDump,
    BusAddress,
    ClockAck,
    ClockNull,
    ClockTimes,
    EEMoves,
    FieldUpdate,
    Message,
    OtherMessage,
    ProtocolError,
    SerialNumber,
    Trademark,
    Version,
)

__all__ = [  # the messages the parser makes, named here too: ``protocol.BoardDump``...
    "BatteryStatus",
    "BoardDump",
    "BusAddress",
    "ClockAck",
    "ClockNull",
    "ClockTimes",
    "EEMoves",
    "FieldUpdate",
    "Message",
    "OtherMessage",
    "ProtocolError",
    "SerialNumber",
    "Trademark",
    "Version",
]


log = logging.getLogger(__name__)


# --- host -> board commands (single bytes) ----------------------------------

SEND_RESET = 0x40
SEND_CLK = 0x41
SEND_BRD = 0x42
SEND_UPDATE = 0x43
SEND_UPDATE_BRD = 0x44
RETURN_SERIALNR = 0x45
RETURN_BUSADRES = 0x46
SEND_TRADEMARK = 0x47
SEND_EE_MOVES = 0x49
TO_BUSMODE = 0x4A
SEND_UPDATE_NICE = 0x4B
SEND_BATTERY_STATUS = 0x4C
SEND_VERSION = 0x4D
RETURN_LONG_SERIALNR = 0x55
CLOCK_MESSAGE = 0x2B

# Clock commands inside the 0x2b wrapper (DGT XL / DGT3000 / Revelation II).
CLOCK_DISPLAY = 0x01
CLOCK_ICONS = 0x02
CLOCK_END = 0x03
CLOCK_BUTTON = 0x08
CLOCK_VERSION = 0x09
CLOCK_SETNRUN = 0x0A
CLOCK_BEEP = 0x0B
CLOCK_ASCII = 0x0C


def command(code: int) -> bytes:
    """A one-byte host command (``SEND_BRD`` -> ``b"B"``)."""
    return bytes((code,))


def clock_command(cmd: int, data: bytes = b"") -> bytes:
    """The clock wrapper: ``2b <size> 03 <cmd> <data...> 00``; size counts the bytes after it."""
    body = bytes((0x03, cmd)) + data + b"\x00"
    return bytes((CLOCK_MESSAGE, len(body))) + body


def clock_set_and_run(left_s: int, right_s: int, mode: int) -> bytes:
    """SetNRun: left h,m,s, right h,m,s (plain binary, as drivers send them), then mode
    (0x01 left runs down, 0x02 right runs down, 0x04 paused, 0x08 switch side on lever)."""

    def hms(seconds: int) -> bytes:
        seconds = max(0, min(seconds, 9 * 3600 + 59 * 60 + 59))
        return bytes((seconds // 3600, seconds // 60 % 60, seconds % 60))

    return clock_command(CLOCK_SETNRUN, hms(left_s) + hms(right_s) + bytes((mode,)))


STARTUP_COMMANDS = (SEND_UPDATE_NICE, SEND_VERSION, RETURN_SERIALNR, SEND_BRD, SEND_CLK)
"""What the host sends on (re)connection: update-nice mode (the board is IDLE after
power-up or a bus-mode switch until told otherwise), version, serial number, a full
dump (the position to reconcile with) and the clock."""

# --- board -> host message ids -----------------------------------------------

MSG_BOARD_DUMP = 0x86
MSG_BWTIME = 0x8D
MSG_FIELD_UPDATE = 0x8E
MSG_EE_MOVES = 0x8F
MSG_BUSADRES = 0x90
MSG_SERIALNR = 0x91
MSG_TRADEMARK = 0x92
MSG_VERSION = 0x93
MSG_BOARD_DUMP_50B = 0x94
MSG_BOARD_DUMP_50W = 0x95
MSG_BATTERY_STATUS = 0xA0
MSG_LONG_SERIALNR = 0xA2

# Length rules: exact total length, or a minimum for variable messages.
_EXACT_LENGTH = {
    MSG_BOARD_DUMP: 67,
    MSG_BWTIME: 10,
    MSG_FIELD_UPDATE: 5,
    MSG_BUSADRES: 5,
    MSG_VERSION: 5,
    MSG_BOARD_DUMP_50B: 53,
    MSG_BOARD_DUMP_50W: 53,
    MSG_LONG_SERIALNR: 13,
}
_SERIAL_LENGTHS = (8, 12)  # 5 ASCII digits; the 1998 header's 12-byte form adds " 1.0"
MAX_GARBAGE = 4096
"""Bytes outside a message held back at most before they are reported."""
MAX_FRAME_LENGTH = 0x1F03 + 3
"""Longest frame accepted (a full EE_MOVES dump); anything longer is a broken header."""

# --- BWTIME ------------------------------------------------------------------


def _bcd(value: int) -> int | None:
    hi, lo = value >> 4, value & 0x0F
    if hi > 9 or lo > 9:
        return None
    return hi * 10 + lo


def _to_bcd(value: int) -> int:
    return (value // 10) << 4 | (value % 10)


def decode_bwtime(p: bytes) -> ClockTimes | ClockAck | ClockNull | str:
    """The 7 payload bytes of 0x8d; a string is the reason it was rejected."""
    if not any(p):
        return ClockNull()
    if (p[0] & 0x0F) == 0x0A or (p[3] & 0x0F) == 0x0A:
        # 6.3: bit 7 of each ack byte travels in bit 4/5 of p[0] / p[3].
        return ClockAck(
            ack0=(p[1] & 0x7F) | ((p[3] << 3) & 0x80),
            ack1=(p[2] & 0x7F) | ((p[3] << 2) & 0x80),
            ack2=(p[4] & 0x7F) | ((p[0] << 3) & 0x80),
            ack3=(p[5] & 0x7F) | ((p[0] << 2) & 0x80),
        )
    right_h, left_h = p[0] & 0x0F, p[3] & 0x0F
    right_m, right_s, left_m, left_s = (_bcd(p[i]) for i in (1, 2, 4, 5))
    if right_h > 9 or left_h > 9:
        return f"clock hours out of range ({right_h}, {left_h})"
    if right_m is None or right_s is None or left_m is None or left_s is None:
        return "clock minutes/seconds are not BCD"
    if max(right_m, right_s, left_m, left_s) > 59:
        return "clock minutes/seconds above 59"
    return ClockTimes(
        left_ms=((left_h * 60 + left_m) * 60 + left_s) * 1000,
        right_ms=((right_h * 60 + right_m) * 60 + right_s) * 1000,
        status=p[6],
        left_flags=p[3] & 0x70,
        right_flags=p[0] & 0x70,
    )


def _decode(message_id: int, payload: bytes, offset: int) -> Message:
    frame = bytes((message_id,)) + payload
    if message_id == MSG_BOARD_DUMP:
        bad = [c for c in payload if c > 0x0F]
        if bad:
            return ProtocolError(f"board dump with unknown piece code {bad[0]:#04x}", frame, offset)
        return BoardDump(tuple(payload))
    if message_id == MSG_FIELD_UPDATE:
        field_index, code = payload[0], payload[1]
        if field_index > 63:
            return ProtocolError(f"field update for field {field_index}", frame, offset)
        if code > 0x0F:
            return ProtocolError(f"field update with unknown piece code {code:#04x}", frame, offset)
        return FieldUpdate(field_index, code)
    if message_id == MSG_BWTIME:
        decoded = decode_bwtime(payload)
        if isinstance(decoded, str):
            return ProtocolError(decoded, frame, offset)
        return decoded
    if message_id == MSG_SERIALNR:
        text = payload[:5].decode("ascii", "replace")
        return SerialNumber(text)
    if message_id == MSG_LONG_SERIALNR:
        return SerialNumber(payload.decode("ascii", "replace").strip(), long=True)
    if message_id == MSG_VERSION:
        return Version(payload[0], payload[1])
    if message_id == MSG_TRADEMARK:
        return Trademark(payload.decode("ascii", "replace"))
    if message_id == MSG_BUSADRES:
        return BusAddress(payload[0] << 7 | payload[1])
    if message_id == MSG_BATTERY_STATUS:
        return BatteryStatus(payload)
    if message_id == MSG_EE_MOVES:
        return EEMoves(payload)
    return OtherMessage(message_id, payload)


_KNOWN_IDS = {
    MSG_BOARD_DUMP,
    MSG_BWTIME,
    MSG_FIELD_UPDATE,
    MSG_EE_MOVES,
    MSG_BUSADRES,
    MSG_SERIALNR,
    MSG_TRADEMARK,
    MSG_VERSION,
    MSG_BOARD_DUMP_50B,
    MSG_BOARD_DUMP_50W,
    MSG_BATTERY_STATUS,
    MSG_LONG_SERIALNR,
}


def _length_ok(message_id: int, total: int) -> bool:
    exact = _EXACT_LENGTH.get(message_id)
    if exact is not None:
        return total == exact
    if message_id == MSG_SERIALNR:
        return total in _SERIAL_LENGTHS
    return 3 <= total <= MAX_FRAME_LENGTH


@dataclass
class DgtParser:
    """Board -> host byte stream to messages. Feed any chunks; never raises.

    Resynchronisation (protocol 2): only the id byte has bit 7 set. Bytes before
    an id are garbage; a size or payload byte with bit 7 set breaks the current
    frame and parsing restarts *at that byte* (it may be the next message's id).
    Unknown ids and impossible lengths are errors too: the id byte is dropped
    and the search for the next id starts right after it.
    """

    errors: int = 0
    """Number of protocol errors so far."""
    messages: int = 0
    """Number of valid messages so far."""
    bytes_in: int = 0
    _buffer: bytearray = field(default_factory=bytearray)
    _offset: int = 0  # stream position of _buffer[0]
    _out: list[Message] = field(default_factory=list)

    def receive_data(self, data: bytes) -> None:
        """Feed bytes received from the board."""
        self.bytes_in += len(data)
        self._buffer += data
        self._parse()

    def events_received(self) -> list[Message]:
        """The messages decoded since the last call, in order."""
        out, self._out = self._out, []
        return out

    def feed(self, data: bytes) -> list[Message]:
        """``receive_data`` then ``events_received``."""
        self.receive_data(data)
        return self.events_received()

    def pending(self) -> int:
        """Bytes held back waiting for the rest of a frame."""
        return len(self._buffer)

    def flush(self) -> list[Message]:
        """End of stream: a frame still incomplete becomes a protocol error."""
        if self._buffer:
            self._error("stream ended inside a frame", bytes(self._buffer), self._offset)
            self._offset += len(self._buffer)
            self._buffer.clear()
        return self.events_received()

    def _error(self, reason: str, data: bytes, offset: int) -> None:
        self.errors += 1
        log.info("DGT protocol error at byte %d: %s (%s)", offset, reason, data[:16].hex(" "))
        self._out.append(ProtocolError(reason, data, offset))

    def _parse(self) -> None:
        buf = self._buffer
        pos = 0  # consumed so far; the buffer is cut once at the end
        size = len(buf)
        try:
            while pos < size:
                head = buf[pos]
                if head < 0x80:
                    # Garbage before an id byte: a run is reported once it ends (at the
                    # next id byte, at flush, or past MAX_GARBAGE), whatever the split.
                    end = next((i for i in range(pos, size) if buf[i] >= 0x80), None)
                    if end is None:
                        if size - pos <= MAX_GARBAGE:
                            return
                        end = size
                    self._error("bytes outside a message", bytes(buf[pos:end]), self._at(pos))
                    pos = end
                    continue
                if size - pos < 3:
                    if any(b >= 0x80 for b in buf[pos + 1 : size]):
                        pos = self._broken(pos, 1)
                        continue
                    return
                size_hi, size_lo = buf[pos + 1], buf[pos + 2]
                if size_hi >= 0x80 or size_lo >= 0x80:
                    pos = self._broken(pos, 1 if size_hi >= 0x80 else 2)
                    continue
                total = size_hi << 7 | size_lo
                if head not in _KNOWN_IDS:
                    self._error(
                        f"unknown message id {head:#04x}", bytes(buf[pos : pos + 3]), self._at(pos)
                    )
                    pos += 1
                    continue
                if not _length_ok(head, total):
                    self._error(
                        f"message {head:#04x} with impossible length {total}",
                        bytes(buf[pos : pos + 3]),
                        self._at(pos),
                    )
                    pos += 1
                    continue
                # Payload bytes so far: any byte with bit 7 set breaks the frame.
                upto = min(pos + total, size)
                if upto > pos + 3 and max(buf[pos + 3 : upto]) >= 0x80:
                    bad = next(i for i in range(pos + 3, upto) if buf[i] >= 0x80)
                    pos = self._broken(pos, bad - pos)
                    continue
                if size - pos < total:
                    return
                message = _decode(head, bytes(buf[pos + 3 : pos + total]), self._at(pos))
                if isinstance(message, ProtocolError):
                    self._error(message.reason, message.data, message.offset)
                else:
                    self.messages += 1
                    self._out.append(message)
                pos += total
        finally:
            del buf[:pos]
            self._offset += pos

    def _at(self, pos: int) -> int:
        return self._offset + pos

    def _broken(self, pos: int, length: int) -> int:
        self._error(
            "frame broken by a byte with bit 7 set",
            bytes(self._buffer[pos : pos + length]),
            self._at(pos),
        )
        return pos + length


# --- board -> host encoders (the simulator and the tests speak as a board) ---


def frame(message_id: int, payload: bytes) -> bytes:
    """A board message: id, 14-bit total length (header included), payload."""
    total = len(payload) + 3
    return bytes((message_id, (total >> 7) & 0x7F, total & 0x7F)) + payload


def encode_board_dump(codes: Iterable[int]) -> bytes:
    return frame(MSG_BOARD_DUMP, bytes(codes))


def encode_placement(placement: str, rotated: bool = False) -> bytes:
    """A board dump of a placement, as a board turned 180 degrees reports it when ``rotated``."""
    return encode_board_dump(codes_of(rotate_placement(placement) if rotated else placement))


def encode_field_update(field_index: int, code: int) -> bytes:
    return frame(MSG_FIELD_UPDATE, bytes((field_index, code)))


def encode_clock(
    left_ms: int,
    right_ms: int,
    running: str | None,
    *,
    left_flags: int = 0,
    right_flags: int = 0,
    battery_low: bool = False,
    no_clock: bool = False,
) -> bytes:
    """BWTIME with times (rounded down to seconds); ``running`` is left/right/None.

    The lever is up on the running side (a player presses their own side down):
    status bit1 = 1 (right side up) when the right clock runs; bit3 = right's turn,
    bit4 = left's turn (2015 header).
    """

    def hms(ms: int, flags: int) -> bytes:
        s = max(0, min(ms // 1000, 9 * 3600 + 59 * 60 + 59))
        return bytes(((s // 3600) | (flags & 0x70), _to_bcd(s // 60 % 60), _to_bcd(s % 60)))

    status = 0
    if running is not None:
        status |= 0x01
        status |= 0x10 if running == "left" else 0x08
    if running == "right":
        status |= 0x02
    status |= 0x04 if battery_low else 0
    status |= 0x20 if no_clock else 0
    return frame(
        MSG_BWTIME, hms(right_ms, right_flags) + hms(left_ms, left_flags) + bytes((status,))
    )


def encode_clock_ack(ack0: int, ack1: int, ack2: int = 0, ack3: int = 0) -> bytes:
    """BWTIME carrying an ack: the 0x0a marker nibble in p[0] and p[3], bit 7s in bits 4/5."""
    p0 = 0x0A | ((ack2 >> 3) & 0x10) | ((ack3 >> 2) & 0x20)
    p3 = 0x0A | ((ack0 >> 3) & 0x10) | ((ack1 >> 2) & 0x20)
    return frame(MSG_BWTIME, bytes((p0, ack0 & 0x7F, ack1 & 0x7F, p3, ack2 & 0x7F, ack3 & 0x7F, 0)))


def encode_serial(serial: str) -> bytes:
    return frame(MSG_SERIALNR, serial.encode("ascii")[:5].ljust(5, b"0"))


def encode_version(major: int, minor: int) -> bytes:
    return frame(MSG_VERSION, bytes((major & 0x7F, minor & 0x7F)))


def describe(message: Message) -> dict[str, object]:
    """The JSON form of a message, as ``candidates dgt decode`` prints it."""
    match message:
        case BoardDump():
            out: dict[str, object] = {"type": "board_dump", "board_fen": message.placement}
            if message.magic:
                out["magic"] = [
                    {"square": field_square_name(i), "result": MAGIC_PIECES[c]}
                    for i, c in message.magic
                ]
            return out
        case FieldUpdate():
            out = {
                "type": "field_update",
                "field": message.field,
                "square": field_square_name(message.field),
                "piece": message.letter,
            }
            if message.code in MAGIC_PIECES:
                out["magic"] = MAGIC_PIECES[message.code]
            return out
        case ClockTimes():
            return {
                "type": "clock",
                "left_ms": message.left_ms,
                "right_ms": message.right_ms,
                "running": message.running,
                "lever": "right_up" if message.lever_right_up else "left_up",
                "left_flag": message.left_flag,
                "right_flag": message.right_flag,
                "battery_low": message.battery_low,
                "no_clock": message.no_clock,
                "status": message.status,
            }
        case ClockAck():
            return {
                "type": "clock_ack",
                "ok": message.ok,
                "acks": [message.ack0, message.ack1, message.ack2, message.ack3],
            }
        case ClockNull():
            return {"type": "clock_null"}
        case SerialNumber():
            return {"type": "serial_number", "serial": message.serial, "long": message.long}
        case Version():
            return {"type": "version", "version": f"{message.major}.{message.minor}"}
        case Trademark():
            return {"type": "trademark", "text": message.text}
        case BusAddress():
            return {"type": "bus_address", "address": message.address}
        case BatteryStatus():
            return {"type": "battery_status", "percent": message.percent}
        case EEMoves():
            return {"type": "ee_moves", "bytes": len(message.payload)}
        case OtherMessage():
            return {
                "type": "other",
                "id": message.message_id,
                "payload": message.payload.hex(),
            }
        case ProtocolError():
            return {
                "type": "protocol_error",
                "reason": message.reason,
                "offset": message.offset,
                "bytes": message.data[:64].hex(" "),
            }
    raise AssertionError(message)  # pragma: no cover
