"""A board's outbox: what a board reader read that the store does not hold yet, on disk.

A reader that cannot reach the store goes on reading its boards: every observation
the feed acts on is appended here first, and the feed marks how far the store holds
them. A reader restarted after a crash, a kill or a reboot sends what it had not
stored first, in order, and follows its board from the line it had read; a repeat is
answered as a duplicate, so no move is played twice. One JSON-lines file per board
and game, flushed at each write; the format is in docs/dgt.md, "The outbox"."""

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
