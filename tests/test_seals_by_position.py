"""Seals by position: due when the log has grown by N since the last seal, whoever
appends; a seal at the end of every ``apply`` run. A store written by many short
(or killed) processes is sealed like one written by one (docs/audit.md)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from adapters.audit import audit_store
from adapters.cli import main
from adapters.store import Store
from engine.events import ChainSealed
from tests.reliability_support import event_commands, write_commands

EVERY = 10


def seal_points(url: str) -> list[int]:
    with Store(url) as store:
        return [
            e.events_before for _, e in store.cache.events_since(0) if isinstance(e, ChainSealed)
        ]


def write(url: str, commands: list[dict[str, Any]], runs: int) -> None:
    """The commands in ``runs`` stores opened one after the other, none sealing at its
    end (as if each process were killed)."""
    size = -(-len(commands) // runs)
    for start in range(0, len(commands), size):
        with Store(url) as store:
            store.chain.seal_every = EVERY
            for command in commands[start : start + size]:
                assert store.handle(command)["ok"]


def test_eight_short_writers_seal_where_one_writer_does(tmp_path: Path) -> None:
    commands = event_commands()
    one, eight = str(tmp_path / "one.sqlite"), str(tmp_path / "eight.sqlite")
    write(one, commands, 1)
    write(eight, commands, 8)
    points = seal_points(one)
    assert len(points) >= 5
    assert seal_points(eight) == points
    with Store(eight) as store:  # never more than EVERY positions unsealed, plus the batch
        assert store.last_seq() - points[-1] <= EVERY + 3


def test_each_apply_run_seals_at_its_end_so_a_lost_last_reading_shows(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The issue's case: the last readings of two clock streams deleted after eight
    short runs went unnoticed. Every run now ends with a seal naming each stream's head."""
    monkeypatch.setenv("CANDIDATES_SEAL_EVERY", "1000")  # no seal by position here
    commands = event_commands()
    url = str(tmp_path / "store.sqlite")
    size = -(-len(commands) // 8)
    for start in range(0, len(commands), size):
        chunk = write_commands(tmp_path / f"part{start}.jsonl", commands[start : start + size])
        assert main(["--store", url, "apply", "--create", str(chunk)]) == 0
    assert len(seal_points(url)) == 8
    with Store(url) as store:
        assert not audit_store(store).of("integrity")
    with sqlite3.connect(url) as db:  # delete the last reading of game 1.2's clock
        db.execute(
            "DELETE FROM stored_events WHERE originator_id = 'clock/1.2' AND "
            "originator_version = (SELECT MAX(originator_version) FROM stored_events "
            "WHERE originator_id = 'clock/1.2')"
        )
    with Store(url) as store:
        kinds = {f.kind for f in audit_store(store).of("integrity")}
    assert "seal_mismatch" in kinds
