"""The ``.dgt`` recording format: every byte of a board session with its arrival time.

A record holds one read (or write) as it happened, so a session replays through the
adapter with the same chunking and timing; a truncated last record (a recorder killed
mid-write) is ignored and reported (``Recording.truncated``), and anything without the
magic is raw bytes without timing. The layout is in docs/dgt.md, section 8."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

MAGIC = b"DGTREC1\n"
LAST_MS = 253_402_300_799_999
"""The last millisecond of the year 9999: the latest instant the contract can write."""
FROM_BOARD, TO_BOARD, LINK_EVENT = 1, 2, 3
_RECORD = struct.Struct(">BIH")
MAX_CHUNK = 0xFFFF


@dataclass(frozen=True)
class Record:
    kind: int
    at_ms: int
    """Epoch milliseconds (``started_at_ms`` + offset)."""
    data: bytes


@dataclass
class Recording:
    header: dict[str, Any]
    records: list[Record] = field(default_factory=list)
    truncated: bool = False

    @property
    def started_at_ms(self) -> int:
        value = self.header.get("started_at_ms", 0)
        return value if isinstance(value, int) else 0

    def from_board(self) -> Iterator[tuple[int, bytes]]:
        for record in self.records:
            if record.kind == FROM_BOARD:
                yield record.at_ms, record.data


def is_recording(data: bytes) -> bool:
    return data.startswith(MAGIC)


def parse_recording(data: bytes) -> Recording:
    """Read a ``.dgt`` recording; ValueError when the magic or header is wrong."""
    if not is_recording(data):
        raise ValueError("not a .dgt recording (missing the DGTREC1 magic)")
    end = data.find(b"\n", len(MAGIC))
    if end < 0:
        raise ValueError("a .dgt recording without a header line")
    try:
        header = json.loads(data[len(MAGIC) : end].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"the .dgt header is not JSON: {exc}") from None
    if not isinstance(header, dict):
        raise ValueError("the .dgt header is not a JSON object")
    started = header.get("started_at_ms", 0)
    if isinstance(started, bool) or not isinstance(started, int) or not 0 <= started <= LAST_MS:
        raise ValueError(
            f"the .dgt header's started_at_ms must be epoch milliseconds, got {started!r}"
        )
    recording = Recording(header)
    start = recording.started_at_ms
    pos = end + 1
    while pos < len(data):
        if pos + _RECORD.size > len(data):
            recording.truncated = True
            break
        kind, offset, length = _RECORD.unpack_from(data, pos)
        pos += _RECORD.size
        if pos + length > len(data):
            recording.truncated = True
            break
        recording.records.append(Record(kind, start + offset, data[pos : pos + length]))
        pos += length
    return recording


def read_input(data: bytes) -> tuple[list[tuple[int, bytes]], bool, Recording | None]:
    """(chunks, timed, recording): a recording's board bytes with their times, or
    raw bytes as one untimed chunk."""
    if is_recording(data):
        recording = parse_recording(data)
        return list(recording.from_board()), True, recording
    return [(0, data)], False, None


class Recorder:
    """Appends records to a ``.dgt`` file as they happen (flushed per record)."""

    def __init__(self, path: str | Path, started_at_ms: int, **header: Any) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.started_at_ms = started_at_ms
        self._file: BinaryIO = open(self.path, "wb")  # noqa: SIM115
        meta = {"format": "candidates-dgt", "version": 1, "started_at_ms": started_at_ms, **header}
        self._file.write(MAGIC + json.dumps(meta, sort_keys=True).encode("utf-8") + b"\n")
        self._file.flush()

    def write(self, kind: int, at_ms: int, data: bytes) -> None:
        offset = max(0, at_ms - self.started_at_ms)
        for i in range(0, max(len(data), 1), MAX_CHUNK):
            chunk = data[i : i + MAX_CHUNK]
            self._file.write(_RECORD.pack(kind, offset, len(chunk)) + chunk)
        self._file.flush()

    def board_bytes(self, at_ms: int, data: bytes) -> None:
        self.write(FROM_BOARD, at_ms, data)

    def host_bytes(self, at_ms: int, data: bytes) -> None:
        self.write(TO_BOARD, at_ms, data)

    def link_event(self, at_ms: int, text: str) -> None:
        self.write(LINK_EVENT, at_ms, text.encode("utf-8"))

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_recording(
    path: str | Path, chunks: list[tuple[int, bytes]], started_at_ms: int, **header: Any
) -> None:
    """A recording of board bytes at given epoch-ms instants (the simulator's output)."""
    with Recorder(path, started_at_ms, **header) as recorder:
        for at_ms, data in chunks:
            recorder.board_bytes(at_ms, data)
