"""``candidates audit``: tampering with SQLite directly is detected and the event named.

The store's own tables are edited the way someone with write access to the
file could: a move changed, an event deleted, two events swapped in the global
order, a result edited in place (docs/audit.md).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import msgpack
import pytest

from adapters.audit import INTEGRITY, RULE, audit_log, audit_store
from adapters.cli import main
from adapters.formats.replay_log import export_log, read_log
from adapters.store import Store
from engine.events import AlertRaised
from tests.helpers import T0_MS, at, ok, paired_tournament, play


def build(path: Path) -> None:
    """Two games, a draw declared by the arbiter, a resignation, sealed at the end."""
    with Store(str(path)) as store:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        ok(store, {"cmd": "start_game", "game": "1.2", "at": at(0)})
        play(store, "1.1", "e4 e5 Nf3 Nc6 Bb5 a6")
        play(store, "1.2", "d4 d5 c4 e6", start_s=5)
        for seconds in (62, 70, 80):
            reading = {"cmd": "clock_reading", "game": "1.1", "at": at(seconds)}
            white_ms = 7_200_000 - 31_000 - (seconds - 61) * 1000
            ok(store, {**reading, "white_ms": white_ms, "black_ms": 7_170_000, "running": "white"})
        ok(store, {"cmd": "resign", "game": "1.1", "by": "black", "at": at(100)})
        ok(
            store,
            {
                "cmd": "declare_result",
                "game": "1.2",
                "result": "1/2-1/2",
                "reason": "a dead position, neither side can mate (Laws 2009 5.2 b)",
                "arbiter": "chief",
                "at": at(120),
            },
        )
        assert store.seal() is not None


def rows(path: Path) -> list[tuple[int, str, int, str, bytes]]:
    with sqlite3.connect(path) as db:
        return db.execute(
            "SELECT rowid, originator_id, originator_version, topic, state "
            "FROM stored_events ORDER BY rowid"
        ).fetchall()


def edit_state(path: Path, stream: str, version: int, **changes: Any) -> None:
    with sqlite3.connect(path) as db:
        (state,) = db.execute(
            "SELECT state FROM stored_events WHERE originator_id=? AND originator_version=?",
            (stream, version),
        ).fetchone()
        data = msgpack.unpackb(state, raw=False)
        data.update(changes)
        db.execute(
            "UPDATE stored_events SET state=? WHERE originator_id=? AND originator_version=?",
            (msgpack.packb(data, use_bin_type=True), stream, version),
        )


def audited(path: Path):
    with Store(str(path)) as store:
        return audit_store(store)


def named(report, kind: str, stream: str, version: int | None = None) -> bool:
    return any(
        f.kind == kind
        and f.record is not None
        and f.record.stream == stream
        and (version is None or f.record.version == version)
        for f in report.findings
    )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "event.sqlite"
    build(path)
    return path


class TestCleanStore:
    def test_a_clean_store_has_no_integrity_failure(self, db: Path) -> None:
        report = audited(db)
        assert report.of(INTEGRITY) == []
        assert report.exit_status() == 0
        assert report.seals == 1

    def test_3_9_2_b_the_declared_draw_is_a_rule_finding_failing_only_with_strict(
        self, db: Path
    ) -> None:
        report = audited(db)
        assert named(report, "draw_without_reason", "game/1.2")
        assert named(report, "arbiter_override", "game/1.2")
        assert report.exit_status(strict=True) == 1
        assert all(f.severity != RULE or f.record is not None for f in report.findings)

    def test_the_cli_exit_status(self, db: Path, capsys) -> None:
        assert main(["--store", str(db), "audit"]) == 0
        assert main(["--store", str(db), "audit", "--strict"]) == 1
        out = capsys.readouterr().out
        assert "draw_without_reason" in out and "Integrity failures: none" in out


class TestTampering:
    def test_a_changed_move_is_named(self, db: Path) -> None:
        # 1.1 v3 is 1...e5: make it 1...c5
        edit_state(db, "game/1.1", 3, uci="c7c5", san="c5")
        report = audited(db)
        assert named(report, "broken_link", "game/1.1", 3)
        assert report.exit_status() == 1

    def test_a_deleted_event_in_a_stream_is_named(self, db: Path) -> None:
        with sqlite3.connect(db) as con:
            con.execute(
                "DELETE FROM stored_events WHERE originator_id='game/1.2' AND originator_version=3"
            )
        report = audited(db)
        assert named(report, "missing_event", "game/1.2", 4)
        assert report.exit_status() == 1

    def test_a_deleted_last_event_of_a_stream_is_caught_by_the_seal(self, db: Path) -> None:
        last = max(v for _, s, v, _, _ in rows(db) if s == "game/1.1")
        with sqlite3.connect(db) as con:
            con.execute(
                "DELETE FROM stored_events WHERE originator_id='game/1.1' AND originator_version=?",
                (last,),
            )
        report = audited(db)
        seal = [f for f in report.of(INTEGRITY) if f.kind == "seal_mismatch"]
        assert seal and "missing (deleted)" in seal[0].message
        assert report.exit_status() == 1

    def test_two_events_of_different_streams_swapped_are_named(self, db: Path) -> None:
        table = rows(db)
        a = next(r for r in table if r[1] == "game/1.1" and r[2] == 2)
        b = next(r for r in table if r[1] == "game/1.2" and r[2] == 2)
        with sqlite3.connect(db) as con:
            con.execute("UPDATE stored_events SET rowid=-1 WHERE rowid=?", (a[0],))
            con.execute("UPDATE stored_events SET rowid=? WHERE rowid=?", (a[0], b[0]))
            con.execute("UPDATE stored_events SET rowid=? WHERE rowid=-1", (b[0],))
        report = audited(db)
        seal = [f for f in report.of(INTEGRITY) if f.kind == "seal_mismatch"]
        assert seal, report.render()
        assert "out of the sealed order" in seal[0].message
        assert "game/1.2 v2" in seal[0].message and "game/1.1 v2" in seal[0].message

    def test_a_deleted_clock_reading_is_named(self, db: Path) -> None:
        with sqlite3.connect(db) as con:
            con.execute(
                "DELETE FROM stored_events WHERE originator_id='clock/1.1' AND originator_version=2"
            )
        report = audited(db)
        assert named(report, "missing_event", "clock/1.1", 3)
        assert report.exit_status() == 1

    def test_a_deleted_last_clock_reading_is_caught_by_the_seal(self, db: Path) -> None:
        last = max(v for _, s, v, _, _ in rows(db) if s == "clock/1.1")
        with sqlite3.connect(db) as con:
            con.execute(
                "DELETE FROM stored_events "
                "WHERE originator_id='clock/1.1' AND originator_version=?",
                (last,),
            )
        report = audited(db)
        seal = [f for f in report.of(INTEGRITY) if f.kind == "seal_mismatch"]
        assert seal and "missing (deleted)" in seal[0].message
        assert f"clock/1.1 v{last} (its last event when sealed) is missing" in seal[0].message

    def test_3_5_1_a_reading_whose_regulation_clock_was_rewritten_is_impossible(
        self, db: Path
    ) -> None:
        """Even re-hashed, a stored regulation clock the time control cannot give is named."""
        import hashlib

        from adapters.store.chain import event_canonical

        with Store(str(db)) as store:
            previous = store.chain.stored_link("clock/1.1", 1)
            event = store.cache.stream("clock/1.1")[1]
        forged = type(event).__new__(type(event))
        object.__setattr__(forged, "__dict__", {**vars(event), "model_white_ms": 7_200_000})
        link = hashlib.sha256(previous + event_canonical(forged)).digest()
        edit_state(db, "clock/1.1", 2, model_white_ms=7_200_000, _link=link)
        report = audited(db)
        assert named(report, "impossible_clock", "clock/1.1", 2)

    def test_a_result_edited_in_place_is_named(self, db: Path) -> None:
        version = max(v for _, s, v, _, _ in rows(db) if s == "game/1.1")
        edit_state(db, "game/1.1", version, result="0-1", reason="white resigned")
        report = audited(db)
        assert named(report, "broken_link", "game/1.1", version)
        assert report.exit_status() == 1

    def test_rehashing_a_changed_event_still_breaks_its_successor(self, db: Path) -> None:
        """A forger who recomputes the changed event's link breaks the next one instead."""
        import hashlib

        from adapters.formats.replay_log import event_classes
        from adapters.store.chain import event_canonical

        with Store(str(db)) as store:
            previous = store.chain.stored_link("game/1.1", 2)
            event = store.cache.stream("game/1.1")[2]
        cls = event_classes()["MovePlayed"]
        forged = cls(**{**event.__dict__, "uci": "c7c5", "san": "c5"})
        link = hashlib.sha256(previous + event_canonical(forged)).digest()
        edit_state(db, "game/1.1", 3, uci="c7c5", san="c5", _link=link)
        report = audited(db)
        assert not named(report, "broken_link", "game/1.1", 3)
        assert named(report, "broken_link", "game/1.1", 4)


class TestAuditOfALog:
    def test_a_clean_log_passes_and_a_cut_log_fails(self, db: Path, tmp_path: Path) -> None:
        path = tmp_path / "log.msgpack"
        with Store(str(db)) as store:
            export_log(store, path)
        assert audit_log(read_log(path), str(path)).exit_status() == 0
        data = path.read_bytes()
        objects = list(msgpack.Unpacker(__import__("io").BytesIO(data), raw=False))
        cut = tmp_path / "cut.msgpack"
        cut.write_bytes(b"".join(msgpack.packb(o, use_bin_type=True) for o in objects[:-1]))
        report = audit_log(read_log(cut), str(cut))
        assert any(f.kind == "truncated_log" for f in report.findings)
        assert report.exit_status() == 1


class TestSeals:
    def test_two_writers_sealing_in_turn_keep_the_seals_consistent(self, tmp_path: Path) -> None:
        path = tmp_path / "shared.sqlite"
        build(path)
        with Store(str(path)) as first, Store(str(path)) as second:
            first.seal()
            ok(second, {"cmd": "start_game", "game": "1.3", "at": at(200)})
            assert second.seal() is not None
            ok(first, {"cmd": "start_game", "game": "1.4", "at": at(210)})
            assert first.seal() is not None
            assert first.seal() is None  # nothing new to seal
        report = audited(path)
        assert report.of(INTEGRITY) == [] and report.seals == 3

    def test_automatic_seals_every_n_events(self, tmp_path: Path) -> None:
        with Store(str(tmp_path / "auto.sqlite")) as store:
            store.chain.seal_every = 5
            paired_tournament(store)
            ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
            play(store, "1.1", "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6")
            seals = [e for e in store.cache.stream("tournament") if e.kind == "ChainSealed"]
            assert len(seals) == 2
            assert seals[-1].events_before % 5 in (0, 1, 2)
            report = audit_store(store)
        assert report.of(INTEGRITY) == [] and report.seals == 2


class TestArt3_9_2_bClaims:
    """3.9.2 b: a draw is backed by a claim the arbiter accepted."""

    def _repeat(self, store: Store) -> None:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        play(store, "1.1", "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8")
        ok(
            store,
            {
                "cmd": "claim_draw",
                "game": "1.1",
                "by": "white",
                "kind": "threefold_repetition",
                "at": at(100),
            },
        )

    def test_3_9_2_b_a_draw_on_an_accepted_claim_is_backed(self, sqlite_store: Store) -> None:
        self._repeat(sqlite_store)
        ok(
            sqlite_store,
            {
                "cmd": "rule_claim",
                "game": "1.1",
                "claim": "1",
                "decision": "accepted",
                "arbiter": "chief",
                "at": at(120),
            },
        )
        report = audit_store(sqlite_store)
        assert report.of(INTEGRITY) == []
        assert report.of(RULE) == []

    def test_3_9_2_b_a_ruling_against_the_verification_is_an_override(
        self, sqlite_store: Store
    ) -> None:
        self._repeat(sqlite_store)
        ok(
            sqlite_store,
            {
                "cmd": "rule_claim",
                "game": "1.1",
                "claim": "1",
                "decision": "rejected",
                "arbiter": "chief",
                "reason": "the arbiter saw the positions differ",
                "at": at(120),
            },
        )
        report = audit_store(sqlite_store)
        assert named(report, "arbiter_override", "game/1.1")
        assert report.exit_status() == 0 and report.exit_status(strict=True) == 1


class TestProjections:
    def test_a_trailer_whose_standings_were_edited_is_named(self, db: Path, tmp_path: Path) -> None:
        path = tmp_path / "log.msgpack"
        with Store(str(db)) as store:
            export_log(store, path)
        with open(path, "rb") as handle:
            objects = list(msgpack.Unpacker(handle, raw=False, strict_map_key=False))
        rows = objects[-1]["state"]["standings"]["rows"]
        rows[0]["points"], rows[-1]["points"] = rows[-1]["points"], rows[0]["points"]
        edited = tmp_path / "edited.msgpack"
        edited.write_bytes(b"".join(msgpack.packb(o, use_bin_type=True) for o in objects))
        report = audit_log(read_log(edited), str(edited))
        assert any(
            f.kind == "projection_differs" and "standings" in f.message for f in report.findings
        )


class TestOverrides:
    def test_an_arbiters_clock_adjustment_is_listed_a_penalty_of_9_5_is_not(
        self, sqlite_store: Store
    ) -> None:
        paired_tournament(sqlite_store)
        ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        play(sqlite_store, "1.1", "e4 e5")
        claim = {"cmd": "claim_draw", "game": "1.1", "by": "white", "at": at(30)}
        ok(sqlite_store, {**claim, "kind": "threefold_repetition"})
        ruling = {"cmd": "rule_claim", "game": "1.1", "claim": "1", "arbiter": "chief"}
        ok(sqlite_store, {**ruling, "decision": "rejected", "at": at(40)})
        adjust = {"cmd": "adjust_clock", "game": "1.1", "side": "black", "arbiter": "chief"}
        ok(sqlite_store, {**adjust, "delta_ms": 60_000, "reason": "clock set wrong", "at": at(50)})
        report = audit_store(sqlite_store)
        overrides = [f for f in report.of(RULE) if f.kind == "arbiter_override"]
        assert [f.record.type for f in overrides] == ["ClockAdjusted"]
        assert "clock set wrong" in overrides[0].message
        assert report.of(INTEGRITY) == []


def test_alerts_of_an_electronic_board_are_audited_not_noted(tmp_path: Path, capsys) -> None:
    """A DGT board's alerts on its own stream (board/<serial>) are checked like every event
    (hash links, seals) and counted; no 'not audited' note."""
    path = tmp_path / "s.sqlite"
    with Store(str(path)) as store:
        paired_tournament(store)
        for version in (1, 2):
            store.append(
                [
                    AlertRaised(
                        originator_id="board/13001",
                        originator_version=version,
                        at_ms=T0_MS + version,
                        by="dgt:13001",
                        game="1.1",
                        kind="board_disconnected",
                        message="board 13001 stopped answering",
                        details={},
                    )
                ]
            )
        store.seal()
        report = audit_store(store)
    assert (report.board_alerts, report.boards) == (2, 1)
    assert not [f for f in report.findings if f.kind == "unknown_stream"]
    assert report.of(INTEGRITY) == []
    assert main(["--store", str(path), "audit"]) == 0
    out = capsys.readouterr().out
    assert "2 alerts of 1 electronic board" in out and "not audited" not in out
