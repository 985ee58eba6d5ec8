"""A board's outbox: what a board reader read that the store does not hold yet, on disk.

A board reader that cannot reach the store (the database restarting, the network
to it down) goes on reading its boards: every observation the store's feed acts
on (a move seen, corrected or confirmed, a recovered line, a takeback, an alert
of the board, a clock reading in colours, the board's serial number) is appended
here before it is queued for the store, and the feed marks how far the store
holds them. A reader restarted (a crash, a kill, a machine rebooted) finds in
its outbox what it read and had not stored, sends it first, in order, and
follows its board from the line it had read, so that only what it never read is
rebuilt from the board's dump.

One file per board and game (``<board>-<game>.outbox``) in the board reader's
recordings directory, JSON lines (all instants epoch milliseconds)::

    {"format": "candidates-dgt-outbox", "version": 1, "board": "ttyDGT1", "game": "2.1"}
    {"type": "MoveSeen", "at_ms": ..., "uci": "e2e4", "san": "e4", "ply": 1, ...}
    {"type": "MoveConfirmed", "at_ms": ..., "ply": 1, "uci": "e2e4", "reason": "clock"}
    {"stored": 2}

``{"stored": N}``: the first N observations after the header are in the store
(and the feed holds nothing of them that the store lacks). Once every one is
stored, the file is cut back to its header. A last line cut short (the reader
killed while it wrote) is ignored. Sending an observation again is harmless: a
move carries its ``ply`` and a clock reading its ``command_id``, so the store
answers a repeat as a duplicate and never plays a move twice (an alert of the
board sent again before the crash's mark may be stored twice).

Each write is flushed to the operating system (as a ``.dgt`` recording is), so
the outbox survives the reader's own death, not a power cut of its machine.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
from pathlib import Path
from typing import Any, TextIO

from adapters.dgt.clocksides import ColouredReading
from adapters.dgt.observations import (
    BoardAlert,
    LineRecovered,
    MoveConfirmed,
    MoveCorrected,
    MoveSeen,
    Observation,
    TakebackSeen,
)
from adapters.dgt.session import BoardIdentified, ClockMapped

log = logging.getLogger(__name__)

FORMAT = "candidates-dgt-outbox"
VERSION = 1
KEPT: dict[str, type[Observation]] = {
    kind.__name__: kind
    for kind in (
        MoveSeen,
        MoveCorrected,
        MoveConfirmed,
        TakebackSeen,
        LineRecovered,
        BoardAlert,
        ClockMapped,
        BoardIdentified,
    )
}
"""The observations the store's feed acts on, by the name the outbox writes."""


def kept(observation: Observation) -> bool:
    """Whether the store's feed acts on ``observation`` (a raw clock message, shown
    to whoever prints the board's messages, is not kept: its reading in colours is)."""
    return type(observation).__name__ in KEPT


def to_line(observation: Observation) -> dict[str, Any]:
    """The outbox's line for ``observation``."""
    return {"type": type(observation).__name__, **dataclasses.asdict(observation)}


def from_line(line: dict[str, Any]) -> Observation:
    """The observation of an outbox line; ValueError when it is not one."""
    kind = KEPT.get(str(line.get("type")))
    if kind is None:
        raise ValueError(f"not an observation of the outbox: {line.get('type')!r}")
    values: list[Any] = []  # in the order of the observation's fields
    for spec in dataclasses.fields(kind):
        if spec.name not in line:
            raise ValueError(f"{kind.__name__} without {spec.name!r}")
        value = line[spec.name]
        if spec.name == "reading":
            value = ColouredReading(**value)
        elif isinstance(value, list):
            value = tuple(value)
        values.append(value)
    return kind(*values)


def outbox_name(board: str, game: str) -> str:
    """The file name of a board's outbox for a game (no path separator in it)."""
    safe = f"{board}-{game}".replace("/", "_").replace(":", "_")
    return f"{safe}.outbox"


class Outbox:
    """One board's outbox: ``unsent`` (read when it was opened), ``add``, ``stored``."""

    def __init__(self, path: str | Path, *, board: str, game: str) -> None:
        self.path = Path(path)
        self.header = {"format": FORMAT, "version": VERSION, "board": board, "game": game}
        self.unsent: list[Observation] = self._read()
        """What a reader before this one read and did not store, in order."""
        self.count = 0
        """Observations written after the header."""
        self.offset = 0
        """How many observations the file no longer holds (stored, then cut off)."""
        self._file: TextIO | None = None
        self._rewrite(self.unsent)

    def _read(self) -> list[Observation]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        lines = text.split("\n")
        cut_short = lines.pop()  # "" when the last line is whole
        observations: list[Observation] = []
        stored = 0
        try:
            header = json.loads(lines[0]) if lines else None
            if not isinstance(header, dict) or header.get("format") != FORMAT:
                raise ValueError(f"its first line is not an outbox's header ({FORMAT})")
            for number, raw in enumerate(lines[1:], start=2):
                line = json.loads(raw)
                if not isinstance(line, dict):
                    raise ValueError(f"line {number} is not a JSON object")
                if "stored" in line:
                    stored = max(stored, int(line["stored"]))
                else:
                    observations.append(from_line(line))
        except (ValueError, TypeError) as exc:
            aside = self.path.with_name(self.path.name + ".unreadable")
            os.replace(self.path, aside)
            log.error("%s cannot be read (%s): moved to %s, not sent", self.path, exc, aside)
            return []
        if cut_short:
            log.info("%s: its last line was cut short (the reader died writing it)", self.path)
        unsent = observations[stored:]
        if unsent:
            log.warning(
                "%s: %d observation(s) read from the board and not stored yet: sent first",
                self.path,
                len(unsent),
            )
        return unsent

    def _rewrite(self, observations: list[Observation]) -> None:
        """The file as the header and ``observations`` (replaced whole, never half)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(json.dumps(self.header, sort_keys=True) + "\n")
            for observation in observations:
                out.write(json.dumps(to_line(observation), sort_keys=True) + "\n")
        os.replace(tmp, self.path)
        if self._file is not None:
            self._file.close()
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        self.count = len(observations)

    def add(self, observations: list[Observation]) -> None:
        """Append ``observations`` (those the feed acts on), flushed at once."""
        if self._file is None:
            raise RuntimeError(f"the outbox {self.path} is closed")
        for observation in observations:
            self._file.write(json.dumps(to_line(observation), sort_keys=True) + "\n")
        self._file.flush()
        self.count += len(observations)

    def stored(self, through: int) -> None:
        """The observations added before the ``through``-th (counted from the first this
        outbox ever held, the unsent included) are in the store: marked, and the file
        cut back to its header once every one is."""
        if self._file is None:
            return
        written = through - self.offset
        if written <= 0:
            return
        if written >= self.count:
            self.offset += self.count
            self._rewrite([])
            return
        self._file.write(json.dumps({"stored": written}) + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
