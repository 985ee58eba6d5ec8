"""A board's outbox (adapters/dgt/outbox.py, docs/dgt.md section 11): what a board
reader read and the store does not hold yet, kept on disk in order.

Every kind of observation the store's feed acts on comes back as it went in; what
is marked stored is not sent again; a file cut back once all is stored; a last
line cut short by a kill is left out; a file that is not an outbox is moved aside
and said, never sent. The observations are those of a real game reconstructed
from a simulated board's recording (Kramnik - Ivanchuk, London 2013)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from adapters.dgt.clocksides import ClockSides, ColouredReading
from adapters.dgt.link import FileSource
from adapters.dgt.observations import (
    BoardAlert,
    LineRecovered,
    MoveConfirmed,
    MoveCorrected,
    MoveSeen,
    Observation,
    TakebackSeen,
)
from adapters.dgt.outbox import Outbox, kept, outbox_name
from adapters.dgt.reconstruct import MoveReconstructor
from adapters.dgt.recording import write_recording
from adapters.dgt.session import BoardIdentified, BoardSession, ClockMapped
from adapters.dgt.simulator import BoardSimulator, Noise
from tests.test_dgt_serial import kramnik_ivanchuk

T0_MS = 1_363_000_000_000


def observations_of_a_game(tmp_path: Path) -> list[Observation]:
    """What a session reads of a simulated board playing the game's first 20 plies
    (knocked pieces too), the raw clock messages left out as a writer leaves them."""
    sim = BoardSimulator.from_pgn(kramnik_ivanchuk(), noise=Noise(knocks=0.3), seed=3)
    sim.moves = sim.moves[:20]
    recording = tmp_path / "g.dgt"
    write_recording(recording, [(T0_MS + at, data) for at, data in sim.raw_stream()], T0_MS)
    session = BoardSession(MoveReconstructor(), ClockSides.of("right"))
    out: list[Observation] = []
    asyncio.run(FileSource(recording, session, out.extend, speed=0).run(asyncio.Event()))
    return [o for o in out if kept(o)]


def open_outbox(path: Path) -> Outbox:
    return Outbox(path, board="ttyDGT1", game="6.3")


def test_every_observation_comes_back_as_it_went_in(tmp_path: Path) -> None:
    read = observations_of_a_game(tmp_path)
    assert {type(o) for o in read} >= {MoveSeen, MoveConfirmed, ClockMapped, BoardAlert}
    others: list[Observation] = [
        MoveCorrected(1, 3, "g1f1", "e1g1", "O-O", False),
        MoveCorrected(2, 4, "e2e3", None, None, True),
        TakebackSeen(3, 5, 3, ("g1f3", "b8c6")),
        LineRecovered(4, 20, ("e7e6",), ("e7e5", "d4d5"), "the board shows ..."),
        BoardIdentified(5, "31337"),
        ClockMapped(6, ColouredReading(6, 7_000, 8_000, "white", flag="black")),
    ]
    path = tmp_path / outbox_name("ttyDGT1", "6.3")
    outbox = open_outbox(path)
    outbox.add(read + others)
    outbox.close()
    again = open_outbox(path)
    assert again.unsent == read + others


def test_what_is_marked_stored_is_not_sent_again_and_the_file_is_cut_once_all_is(
    tmp_path: Path,
) -> None:
    read = observations_of_a_game(tmp_path)
    path = tmp_path / "ttyDGT1-6.3.outbox"
    outbox = open_outbox(path)
    outbox.add(read[:30])
    outbox.stored(10)
    outbox.add(read[30:])
    outbox.close()
    again = open_outbox(path)
    assert again.unsent == read[10:]
    # the new outbox holds them from 0 on: all stored, the file is its header alone
    again.stored(len(read) - 10)
    assert len(path.read_text().splitlines()) == 1
    again.add(read[:2])
    again.stored(len(read) - 10 + 1)  # counted from the first it ever held
    again.close()
    assert open_outbox(path).unsent == read[1:2]


def test_a_last_line_cut_short_by_a_kill_is_left_out(tmp_path: Path) -> None:
    read = observations_of_a_game(tmp_path)[:5]
    path = tmp_path / "ttyDGT1-6.3.outbox"
    outbox = open_outbox(path)
    outbox.add(read)
    outbox.close()
    text = path.read_text()
    path.write_text(text + '{"type": "MoveSeen", "at_ms": 17')
    assert open_outbox(path).unsent == read


def test_a_file_that_is_not_an_outbox_is_moved_aside_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "ttyDGT1-6.3.outbox"
    path.write_text('{"format": "something else"}\n{"type": "MoveSeen"}\n')
    caplog.set_level(logging.WARNING)
    outbox = open_outbox(path)
    assert outbox.unsent == []
    assert (tmp_path / "ttyDGT1-6.3.outbox.unreadable").exists()
    assert any("cannot be read" in r.getMessage() for r in caplog.records)
    assert len(path.read_text().splitlines()) == 1  # a new outbox, its header alone


def test_an_outbox_s_name_holds_no_path_separator() -> None:
    assert outbox_name("127.0.0.1:7001", "2.1") == "127.0.0.1_7001-2.1.outbox"
    assert "/" not in outbox_name("dev/ttyUSB0", "2.1")
