"""``candidates audit`` always reports: a damaged store gives findings naming the
stream, version and event, and a non-zero exit, never a traceback.

Each test damages a real SQLite store the way someone with write access to the
file could (tests/test_audit.py builds it), then audits it through the API and
the command line.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import msgpack
import pytest

from adapters.audit import INTEGRITY, audit_store
from adapters.cli import main
from adapters.store import Store
from tests.test_audit import build, edit_state


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "event.sqlite"
    build(path)
    return path


def set_row(path: Path, stream: str, version: int, **columns: object) -> None:
    sets = ", ".join(f"{name}=?" for name in columns)
    with sqlite3.connect(path) as con:
        con.execute(
            f"UPDATE stored_events SET {sets} WHERE originator_id=? AND originator_version=?",
            (*columns.values(), stream, version),
        )


def row(path: Path, stream: str, version: int) -> tuple[str, bytes]:
    with sqlite3.connect(path) as con:
        found: tuple[str, bytes] = con.execute(
            "SELECT topic, state FROM stored_events WHERE originator_id=? AND originator_version=?",
            (stream, version),
        ).fetchone()
    return found


def audited(path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    """The findings, by the API and by ``candidates audit`` (exit status 1 both ways)."""
    with Store(str(path)) as store:
        report = audit_store(store)
    assert report.exit_status() == 1, report.render()
    capsys.readouterr()
    assert main(["--store", str(path), "audit"]) == 1
    text = capsys.readouterr()
    assert "Traceback" not in text.out + text.err
    assert main(["--store", str(path), "audit", "--format", "json"]) == 1
    findings: list[dict[str, object]] = json.loads(capsys.readouterr().out)["findings"]
    assert findings == [f.as_dict() for f in report.findings]
    return [f for f in findings if f["severity"] == INTEGRITY]


def named(findings: list[dict[str, object]], kind: str, stream: str, version: int) -> bool:
    return any(
        f["kind"] == kind and f.get("stream") == stream and f.get("version") == version
        for f in findings
    )


class TestADamagedStoreIsReported:
    def test_a_changed_move_makes_later_moves_illegal(self, db: Path, capsys) -> None:
        # 1.e4 (game/1.1 v2) becomes 1.d4: 3.Bb5 (v6) is then impossible, the bishop blocked
        edit_state(db, "game/1.1", 2, uci="d2d4", san="d4")
        findings = audited(db, capsys)
        assert named(findings, "broken_link", "game/1.1", 2)
        assert named(findings, "illegal_move", "game/1.1", 6)

    def test_two_rows_of_different_streams_swapped(self, db: Path, capsys) -> None:
        move, reading = row(db, "game/1.1", 3), row(db, "clock/1.1", 1)
        set_row(db, "game/1.1", 3, topic=reading[0], state=reading[1])
        set_row(db, "clock/1.1", 1, topic=move[0], state=move[1])
        findings = audited(db, capsys)
        assert named(findings, "broken_link", "game/1.1", 3)
        assert named(findings, "broken_link", "clock/1.1", 1)

    def test_two_events_of_one_stream_swapped_are_out_of_order(self, db: Path, capsys) -> None:
        with sqlite3.connect(db) as con:
            rowids = dict(
                con.execute(
                    "SELECT originator_version, rowid FROM stored_events "
                    "WHERE originator_id='game/1.2' AND originator_version IN (2, 3)"
                ).fetchall()
            )
            con.execute("UPDATE stored_events SET rowid=-1 WHERE rowid=?", (rowids[2],))
            con.execute("UPDATE stored_events SET rowid=? WHERE rowid=?", (rowids[2], rowids[3]))
            con.execute("UPDATE stored_events SET rowid=? WHERE rowid=-1", (rowids[3],))
        findings = audited(db, capsys)
        assert named(findings, "out_of_order", "game/1.2", 2)

    def test_garbage_state_bytes(self, db: Path, capsys) -> None:
        set_row(db, "game/1.1", 4, state=b"\xc1\xff\x00garbage")
        findings = audited(db, capsys)
        assert named(findings, "unreadable_event", "game/1.1", 4)

    def test_state_bytes_that_are_not_a_map(self, db: Path, capsys) -> None:
        set_row(db, "game/1.2", 2, state=msgpack.packb([1, 2, 3]))
        findings = audited(db, capsys)
        assert named(findings, "unreadable_event", "game/1.2", 2)

    def test_a_topic_changed_to_an_unknown_type(self, db: Path, capsys) -> None:
        set_row(db, "game/1.1", 3, topic="engine.events:MoveForged")
        findings = audited(db, capsys)
        assert named(findings, "unknown_event_type", "game/1.1", 3)

    def test_a_topic_changed_to_another_event_type(self, db: Path, capsys) -> None:
        set_row(db, "game/1.1", 3, topic="engine.events:ResultRecorded")
        findings = audited(db, capsys)
        assert named(findings, "ill_typed_field", "game/1.1", 3)

    def test_an_ill_typed_time_control(self, db: Path, capsys) -> None:
        edit_state(db, "game/1.2", 1, time_control=7)
        findings = audited(db, capsys)
        assert named(findings, "ill_typed_field", "game/1.2", 1)

    def test_an_ill_typed_clock_reading(self, db: Path, capsys) -> None:
        edit_state(db, "clock/1.1", 2, white_ms="lots")
        findings = audited(db, capsys)
        assert named(findings, "ill_typed_field", "clock/1.1", 2)

    def test_an_ill_typed_tournament_event(self, db: Path, capsys) -> None:
        edit_state(db, "tournament", 1, cycles="two")
        findings = audited(db, capsys)
        assert named(findings, "ill_typed_field", "tournament", 1)
