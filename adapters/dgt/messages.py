"""The messages a DGT board sends its host, decoded (``adapters.dgt.protocol``)."""

from __future__ import annotations

from dataclasses import dataclass

from adapters.dgt.board_codes import MAGIC_PIECES, PIECE_LETTERS, placement_of


@dataclass(frozen=True, slots=True)
class BoardDump:
    """0x86: the 64 fields, field 0 first (a8 in normal orientation)."""

    codes: tuple[int, ...]

    @property
    def placement(self) -> str:
        """The piece placement read in normal orientation (magic pieces left out)."""
        return placement_of(self.codes)

    @property
    def magic(self) -> tuple[tuple[int, int], ...]:
        """(field, code) of any result ("magic") piece on the board."""
        return tuple((i, c) for i, c in enumerate(self.codes) if c in MAGIC_PIECES)


@dataclass(frozen=True, slots=True)
class FieldUpdate:
    """0x8e: one field changed; ``code`` 0 means it became empty."""

    field: int
    code: int

    @property
    def letter(self) -> str | None:
        return PIECE_LETTERS.get(self.code)


@dataclass(frozen=True, slots=True)
class ClockTimes:
    """0x8d with times: the protocol knows the LEFT and RIGHT clocks, never colours.

    p[0..2] right h/m/s, p[3..5] left h/m/s (since the 2011 header), p[6] status.
    """

    left_ms: int
    right_ms: int
    status: int
    left_flags: int
    right_flags: int

    @property
    def running(self) -> str | None:
        """``left``/``right`` when the clock runs, from bit0 (running) and bit1 (lever:
        1 = right side up). The raised side's clock runs: a player presses their own
        side down, which stops their clock and raises the opponent's. None when stopped.
        (Bits 3/4, "whose turn", swapped meaning between header revisions: not used.)"""
        if not self.status & 0x01:
            return None
        return "right" if self.status & 0x02 else "left"

    @property
    def lever_right_up(self) -> bool:
        return bool(self.status & 0x02)

    @property
    def battery_low(self) -> bool:
        return bool(self.status & 0x04)

    @property
    def no_clock(self) -> bool:
        """Status bit 5: no clock connected; the times mean nothing."""
        return bool(self.status & 0x20)

    @property
    def left_flag(self) -> bool:
        """Left flag fallen (bit 4) or shown (bit 6)."""
        return bool(self.left_flags & 0x50)

    @property
    def right_flag(self) -> bool:
        return bool(self.right_flags & 0x50)


@dataclass(frozen=True, slots=True)
class ClockAck:
    """0x8d carrying a clock acknowledgement: four 8-bit ack bytes."""

    ack0: int
    ack1: int
    ack2: int
    ack3: int

    @property
    def ok(self) -> bool:
        return self.ack0 == 0x10


@dataclass(frozen=True, slots=True)
class ClockNull:
    """0x8d with an all-zero payload (sent by some Bluetooth firmware): ignored."""


@dataclass(frozen=True, slots=True)
class SerialNumber:
    """0x91 (5 ASCII digits) or 0xa2 (10 characters, ``long=True``)."""

    serial: str
    long: bool = False


@dataclass(frozen=True, slots=True)
class Version:
    """0x93: firmware version ``major.minor``."""

    major: int
    minor: int


@dataclass(frozen=True, slots=True)
class Trademark:
    """0x92: ASCII text."""

    text: str


@dataclass(frozen=True, slots=True)
class BusAddress:
    """0x90: the board's 14-bit bus address."""

    address: int


@dataclass(frozen=True, slots=True)
class BatteryStatus:
    """0xa0 (Bluetooth boards): raw payload; byte 0 is the charge in percent."""

    payload: bytes

    @property
    def percent(self) -> int | None:
        return self.payload[0] if self.payload and self.payload[0] <= 100 else None


@dataclass(frozen=True, slots=True)
class EEMoves:
    """0x8f: (part of) the board's internal log, raw."""

    payload: bytes


@dataclass(frozen=True, slots=True)
class OtherMessage:
    """A well-framed message this adapter does not interpret (draughts dumps...)."""

    message_id: int
    payload: bytes


@dataclass(frozen=True, slots=True)
class ProtocolError:
    """Bytes that are not a valid message: counted and logged, never raised."""

    reason: str
    data: bytes
    offset: int
    """Position of the first offending byte in the whole stream."""


Message = (
    BoardDump
    | FieldUpdate
    | ClockTimes
    | ClockAck
    | ClockNull
    | SerialNumber
    | Version
    | Trademark
    | BusAddress
    | BatteryStatus
    | EEMoves
    | OtherMessage
    | ProtocolError
)
