"""A position belongs to the log, not to a table (docs/architecture.md, "One log, many
processes"): the ``seq`` a client holds names the same event in the store, in a copy
restored from its exported log, and on a gateway of either.

A PostgreSQL server that crashed leaves its sequences up to 32 values ahead: a store
whose inserts took the table's sequence numbered its next event 463 after 446. The
store's own append gives the next position, under the writers' lock, so no crash
leaves a gap; a store that has gaps from before keeps them through ``export`` and
``import-log`` (the log gives a record's position where it jumps), so a commentator
resuming on the restored copy gets exactly what it would have got on the original.
A client whose position the copy does not hold (a backup older than what it saw) is
told so (``not_resumed: "position_unknown"``), never moved silently.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest

from adapters.formats.replay_log import (
    POSITIONS_VERSION,
    LogError,
    export_log,
    import_log,
    parse_objects,
    read_log,
)
from adapters.gateway.deltas import for_arbiters_only
from adapters.store import Store
from tests.conftest import PG_URL, _pg_schema_url
from tests.gateway_support import COMMENTATOR_TOKEN, Peer, RunningGateway
from tests.helpers import at, ok, paired_tournament, play

GAP = 16
"""How far the log jumps where the database crashed (446 -> 463 in the field: 16)."""


@pytest.fixture
def copy_url(store_url: str, tmp_path: Path) -> Iterator[str]:
    """An empty store on the same backend as ``store_url``: the restored copy."""
    if store_url.startswith("postgresql"):
        assert PG_URL is not None
        yield from _pg_schema_url(PG_URL)
    else:
        yield str(tmp_path / "copy.sqlite")


def played(store: Store) -> None:
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    ok(store, {"cmd": "start_game", "game": "1.2", "at": at(0)})
    play(store, "1.1", "e4 e5 Nf3 Nc6", start_s=0)
    store.seal()


def open_a_gap(store: Store, after: int) -> None:
    """Move every event after position ``after`` on by ``GAP``, as a crash of an older
    store's database left it (the events, their order and their links are untouched)."""
    table = store.app.recorder.events_table_name
    if store.is_postgres:
        import psycopg

        schema = store.app.recorder.datastore.schema  # type: ignore[attr-defined]
        base = store.url.partition("?")[0]
        with psycopg.connect(base, autocommit=True) as conn:
            name = f'"{schema}"."{table}"'
            ids = "notification_id"
            conn.execute(f"UPDATE {name} SET {ids} = -{ids} WHERE {ids} > {after}")
            conn.execute(f"UPDATE {name} SET {ids} = {GAP} - {ids} WHERE {ids} < 0")
        return
    path = store.app.recorder.datastore.pool.db_name  # type: ignore[attr-defined]
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE {table} SET rowid = -rowid WHERE rowid > {after}")
        conn.execute(f"UPDATE {table} SET rowid = {GAP} - rowid WHERE rowid < 0")


def objects_of(log: Path) -> list[Any]:
    with open(log, "rb") as handle:
        return list(msgpack.Unpacker(handle, raw=False))


def positions(store: Store) -> list[tuple[int, str, int]]:
    return [(seq, e.originator_id, e.originator_version) for seq, e in store.cache.events_since(0)]


def test_a_restored_copy_keeps_every_position_of_a_log_with_a_gap(
    store_url: str, copy_url: str, tmp_path: Path
) -> None:
    with Store(store_url) as original:
        played(original)
        gap_after = original.last_seq() - 3
        open_a_gap(original, gap_after)
        assert positions(original)[-1][0] == original.last_seq() == gap_after + 3 + GAP
        play(original, "1.2", "d4 d5", start_s=60)  # a store that goes on after its gap
        log = tmp_path / "backup.msgpack"
        export_log(original, log)
        assert objects_of(log)[0]["version"] == POSITIONS_VERSION
        with Store(copy_url) as copy:
            import_log(copy, read_log(log))
            assert positions(copy) == positions(original)
            again = tmp_path / "again.msgpack"
            export_log(copy, again)
            assert again.read_bytes() == log.read_bytes()
            # and the copy goes on at the next position
            play(copy, "1.2", "c4", start_s=120)
            assert copy.last_seq() == original.last_seq() + 1


def test_a_log_of_a_store_without_gaps_is_version_1_as_it_always_was(
    store: Store, tmp_path: Path
) -> None:
    played(store)
    log = tmp_path / "log.msgpack"
    export_log(store, log)
    objects = objects_of(log)
    assert objects[0]["version"] == 1
    assert {len(o) for o in objects[1:-1]} == {6}


def test_a_log_whose_positions_do_not_increase_is_refused(tmp_path: Path) -> None:
    with Store(str(tmp_path / "s.sqlite")) as store:
        played(store)
        log = tmp_path / "log.msgpack"
        export_log(store, log)
    objects = objects_of(log)
    objects[0]["version"] = POSITIONS_VERSION
    objects[3].append(2)  # the third record said to be at position 2: after the second
    with pytest.raises(LogError, match="positions increase"):
        parse_objects(objects, "bad.msgpack")


@pytest.fixture
def pg_store_url() -> Iterator[str]:
    """A fresh PostgreSQL store (the case is PostgreSQL's own: its table's sequence)."""
    if not PG_URL:
        pytest.skip("CANDIDATES_TEST_PG is not set: PostgreSQL tests skipped")
    yield from _pg_schema_url(PG_URL)


def test_positions_stay_dense_when_the_databases_sequence_jumps(pg_store_url: str) -> None:
    """After a crash PostgreSQL's sequence is ahead of the last row: the next event still
    takes the next position."""
    import psycopg

    with Store(pg_store_url) as store:
        played(store)
        last = store.last_seq()
        schema = store.app.recorder.datastore.schema  # type: ignore[attr-defined]
        table = f'"{schema}"."{store.app.recorder.events_table_name}"'
        with psycopg.connect(store.url.partition("?")[0], autocommit=True) as conn:
            conn.execute(
                "SELECT setval(pg_get_serial_sequence(%s, 'notification_id'), %s)",
                (table, last + 32),
            )
        play(store, "1.2", "d4", start_s=60)
        assert store.last_seq() == last + 1
        assert [seq for seq, _ in store.cache.events_since(last - 1)] == [last, last + 1]


def test_a_commentator_resumes_on_the_restored_copy_as_on_the_original(
    store_url: str, copy_url: str, tmp_path: Path
) -> None:
    with Store(store_url) as original:
        played(original)
        open_a_gap(original, original.last_seq() - 3)
        since = original.last_seq() - 1  # a position after the gap
        play(original, "1.2", "d4 d5 c4", start_s=60)
        expected = [
            seq for seq, e in original.cache.events_since(since) if not for_arbiters_only(e)
        ]
        log = tmp_path / "backup.msgpack"
        export_log(original, log)
    with Store(copy_url) as copy:
        import_log(copy, read_log(log))
    with RunningGateway(copy_url) as gw, Peer(gw) as back:
        back.subscribe(token=COMMENTATOR_TOKEN, since=since)
        assert back.next("subscribed")["resumed"] is True
        seqs = [back.next("delta")["seq"] for _ in expected]
        assert seqs == expected


def test_a_client_ahead_of_the_restored_copy_is_told_its_position_is_unknown(
    store_url: str, copy_url: str, tmp_path: Path
) -> None:
    """The backup was taken before the client's last event: its position is not in the
    copy, and it gets a snapshot of the copy with the reason, not a resume."""
    with Store(store_url) as original:
        played(original)
        log = tmp_path / "backup.msgpack"
        export_log(original, log)
        play(original, "1.2", "d4 d5", start_s=60)  # after the backup
        seen = original.last_seq()
    with Store(copy_url) as copy:
        import_log(copy, read_log(log))
    with RunningGateway(copy_url) as gw, Peer(gw) as back:
        back.subscribe(token=COMMENTATOR_TOKEN, since=seen)
        answer = back.next("subscribed")
        assert answer["resumed"] is False
        assert answer["not_resumed"] == "position_unknown"
        assert back.next("snapshot")["seq"] < seen
