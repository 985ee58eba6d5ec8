"""Replay logs (docs/replay-log.md): exact round trip store -> log -> store -> log."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import msgpack
import pytest

from adapters.formats.pgn_import import import_pgn
from adapters.formats.replay_log import (
    FORMAT,
    LogError,
    export_log,
    import_log,
    read_log,
    store_records,
    write_log,
)
from adapters.store import Store
from engine.timefmt import parse_instant
from tests.cli import candidates
from tests.helpers import at, ok, paired_tournament, play

SOURCE = Path(__file__).resolve().parents[1] / "replay_logs" / "sources" / "candidates-2013.pgn"


def small_event(store: Store) -> None:
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    ok(store, {"cmd": "start_game", "game": "1.2", "at": at(0)})
    play(store, "1.1", "e4 e5 Nf3 Nc6")
    play(store, "1.2", "d4 d5 c4", start_s=3)
    store.seal()
    play(store, "1.1", "Bb5 a6", start_s=50)
    ok(store, {"cmd": "resign", "game": "1.2", "by": "black", "at": at(90)})


def export_log_to(store: Store, path: Path) -> Path:
    export_log(store, path)
    return path


class TestRoundTrip:
    def test_store_to_log_to_store_is_exact(self, store: Store, tmp_path: Path) -> None:
        small_event(store)
        first = tmp_path / "first.msgpack"
        second = tmp_path / "second.msgpack"
        count = export_log(store, first, notes="test")
        assert count == store.cache.count()
        with Store(str(tmp_path / "copy.sqlite")) as copy:
            assert import_log(copy, read_log(first)) == count
            export_log(copy, second, notes="test")
            original = [(r.as_list()) for r in store_records(store)]
            copied = [(r.as_list()) for r in store_records(copy)]
            assert copied == original
            assert [e for _, e in copy.cache.events_since(0)] == [
                e for _, e in store.cache.events_since(0)
            ]
            assert copy.reads.game("1.1") == store.reads.game("1.1")
        assert first.read_bytes() == second.read_bytes()

    def test_whole_2013_event_round_trips(self, sqlite_store: Store, tmp_path: Path) -> None:
        reports = import_pgn(sqlite_store, SOURCE)
        assert sum(r.status == "imported" for r in reports) == 56
        first, second = tmp_path / "a.msgpack", tmp_path / "b.msgpack"
        export_log(sqlite_store, first)
        with Store(str(tmp_path / "copy.sqlite")) as copy:
            import_log(copy, read_log(first))
            export_log(copy, second)
        assert first.read_bytes() == second.read_bytes()

    def test_header_names_format_and_tournament(self, sqlite_store: Store, tmp_path: Path) -> None:
        small_event(sqlite_store)
        path = tmp_path / "log.msgpack"
        export_log(sqlite_store, path, generated=["clock readings"])
        log = read_log(path)
        assert log.header["format"] == FORMAT
        assert log.header["version"] == 1
        assert log.tournament == "london-2013"
        assert list(log.header["generated"]) == ["clock readings"]
        assert log.trailer is not None and log.trailer["events"] == len(log.records)
        assert log.trailer["state"]["games"]["1.2"]["result"] == "1-0"
        assert [r.seq for r in log.records] == list(range(1, len(log.records) + 1))


class TestRefusals:
    def test_import_into_a_store_that_is_not_empty_is_refused(
        self, sqlite_store: Store, tmp_path: Path
    ) -> None:
        small_event(sqlite_store)
        path = tmp_path / "log.msgpack"
        export_log(sqlite_store, path)
        before = sqlite_store.cache.count()
        with pytest.raises(Exception, match="not empty"):
            import_log(sqlite_store, read_log(path))
        assert sqlite_store.cache.count() == before

    def test_a_tampered_log_is_refused_naming_the_event(
        self, sqlite_store: Store, tmp_path: Path
    ) -> None:
        small_event(sqlite_store)
        path = tmp_path / "log.msgpack"
        export_log(sqlite_store, path)
        with open(path, "rb") as handle:
            objects = list(msgpack.Unpacker(handle, raw=False, strict_map_key=False))
        for item in objects:
            if isinstance(item, list) and item[0] == "game/1.1" and item[1] == 3:
                item[4]["uci"], item[4]["san"] = "g8f6", "Nf6"
        tampered = tmp_path / "tampered.msgpack"
        tampered.write_bytes(b"".join(msgpack.packb(o, use_bin_type=True) for o in objects))
        with Store(str(tmp_path / "copy.sqlite")) as copy:
            with pytest.raises(LogError, match=r"game/1\.1 v3 \(MovePlayed"):
                import_log(copy, read_log(tampered))
            assert copy.cache.count() == 0

    def test_a_log_its_own_seal_contradicts_is_refused_whole(
        self, sqlite_store: Store, tmp_path: Path
    ) -> None:
        """Two adjacent records of different streams swapped before a seal, the trailer's
        digest written anew: every link and the trailer hold, the seal does not."""
        small_event(sqlite_store)
        log = read_log(export_log_to(sqlite_store, tmp_path / "log.msgpack"))
        records = list(log.records)
        i = next(
            n
            for n in range(len(records) - 1)
            if records[n].stream.startswith("game/1.1")
            and records[n + 1].stream.startswith("game/1.2")
        )
        records[i], records[i + 1] = records[i + 1], records[i]
        # written anew in their new order, each at the next position, as a version 1 log
        records = [replace(r, seq=n, position=0) for n, r in enumerate(records, start=1)]
        swapped = tmp_path / "swapped.msgpack"
        with open(swapped, "wb") as handle:
            write_log(handle, log.header, records)
        with Store(str(tmp_path / "copy.sqlite")) as copy:
            with pytest.raises(LogError, match=r"ChainSealed.*seal's digest is not that of"):
                import_log(copy, read_log(swapped))
            assert copy.cache.count() == 0

    def test_not_a_log(self, tmp_path: Path) -> None:
        path = tmp_path / "x.msgpack"
        path.write_bytes(msgpack.packb({"hello": 1}))
        with pytest.raises(LogError, match="not a replay log"):
            read_log(path)
        with pytest.raises(LogError, match="cannot read"):
            read_log(tmp_path / "missing.msgpack")


class TestSchemaEvolution:
    def test_an_event_stored_before_its_class_gained_a_field_keeps_its_link(
        self, sqlite_store: Store, tmp_path: Path
    ) -> None:
        """GameStarted gained ``stage`` (and more) with defaults; older records lack them."""
        from adapters.audit import INTEGRITY, audit_store
        from adapters.formats.replay_log import Record

        paired_tournament(sqlite_store)
        old = Record(
            0,
            "game/1.1",
            1,
            "GameStarted",
            parse_instant(at(0)),
            {
                "by": "arbiter",
                "game": "1.1",
                "round": 1,
                "board": 1,
                "white": "aronian",
                "black": "carlsen",
                "time_control": "40/7200:20/3600:900+30",
                "rules": "candidates-2012",
                "initial_fen": None,
            },
            None,
        )
        sqlite_store.append([old.event()])
        play(sqlite_store, "1.1", "e4 e5")
        assert sqlite_store.reads.game("1.1").stage == "tournament"
        assert audit_store(sqlite_store).of(INTEGRITY) == []
        first, second = tmp_path / "a.msgpack", tmp_path / "b.msgpack"
        export_log(sqlite_store, first)
        records = read_log(first).records
        started = next(r for r in records if r.type == "GameStarted")
        assert "stage" not in started.fields
        with Store(str(tmp_path / "copy.sqlite")) as copy:
            import_log(copy, read_log(first))
            export_log(copy, second)
        assert first.read_bytes() == second.read_bytes()

    def test_a_record_with_an_unknown_field_is_refused_by_name(self) -> None:
        from adapters.formats.replay_log import Record

        record = Record(7, "game/1.1", 2, "MovePlayed", 0, {"by": "x", "colour": "red"}, None)
        with pytest.raises(LogError, match=r"game/1\.1 v2 .*no field\(s\) \['colour'\]"):
            record.event()


def _rewritten(path: Path, out: Path, change: Any) -> Path:
    """The log at ``path`` with ``change(objects)`` applied to its msgpack objects, as they
    are (no link, digest or count recomputed)."""
    with open(path, "rb") as handle:
        objects = list(msgpack.Unpacker(handle, raw=False, strict_map_key=False))
    change(objects)
    out.write_bytes(b"".join(msgpack.packb(o, use_bin_type=True) for o in objects))
    return out


class TestWhatTheLogSaysOfItself:
    """The header and the trailer are written from the events: one that says otherwise
    was edited after the export, and the log is refused whole (issue: a trailer result of
    1.2 changed from 1-0 to 0-1 was imported with exit 0; a renamed header tournament was
    accepted and printed)."""

    def test_a_trailer_whose_state_contradicts_the_events_is_refused_whole(
        self, sqlite_store: Store, tmp_path: Path
    ) -> None:
        small_event(sqlite_store)
        log = export_log_to(sqlite_store, tmp_path / "log.msgpack")

        def flip(objects: list[Any]) -> None:
            objects[-1]["state"]["games"]["1.2"]["result"] = "0-1"

        tampered = _rewritten(log, tmp_path / "flipped.msgpack", flip)
        with Store(str(tmp_path / "copy.sqlite")) as copy:
            with pytest.raises(LogError, match=r"game 1\.2: the trailer records .*'0-1'"):
                import_log(copy, read_log(tampered))
            assert copy.cache.count() == 0
        run = candidates("import-log", "--create", str(tampered), store=str(tmp_path / "c.sqlite"))
        assert run.returncode == 2 and "Traceback" not in run.stderr
        assert "game 1.2" in run.stderr and "Nothing was appended" in run.stderr
        assert candidates("audit", str(tampered), store=str(tmp_path / "c.sqlite")).returncode

    def test_a_trailer_whose_standings_contradict_the_events_is_refused(
        self, sqlite_store: Store, tmp_path: Path
    ) -> None:
        small_event(sqlite_store)
        log = export_log_to(sqlite_store, tmp_path / "log.msgpack")

        def boost(objects: list[Any]) -> None:
            standings = objects[-1]["state"]["standings"]
            standings["rows"][-1]["points"] = 9

        tampered = _rewritten(log, tmp_path / "boosted.msgpack", boost)
        with Store(str(tmp_path / "copy.sqlite")) as copy:
            with pytest.raises(LogError, match="standings the trailer records differ"):
                import_log(copy, read_log(tampered))
            assert copy.cache.count() == 0

    def test_a_header_naming_another_tournament_is_refused(
        self, sqlite_store: Store, tmp_path: Path
    ) -> None:
        small_event(sqlite_store)
        log = export_log_to(sqlite_store, tmp_path / "log.msgpack")

        def rename(objects: list[Any]) -> None:
            objects[0]["tournament"] = "zurich-1953"

        tampered = _rewritten(log, tmp_path / "renamed.msgpack", rename)
        with Store(str(tmp_path / "copy.sqlite")) as copy:
            with pytest.raises(LogError, match="header's tournament is 'zurich-1953'"):
                import_log(copy, read_log(tampered))
            assert copy.cache.count() == 0

    def test_the_logs_kept_in_the_repository_still_import(self, tmp_path: Path) -> None:
        logs = sorted((SOURCE.parents[1]).glob("*.msgpack"))
        assert logs
        for number, path in enumerate(logs):
            with Store(str(tmp_path / f"{number}.sqlite")) as copy:
                assert import_log(copy, read_log(path)) > 0
