"""The store's writes and its looks at the log, each one request to the database.

``insert`` appends records in one transaction that first reads the log's position
under the writers' lock, and appends only if no other writer appended since the
state the decision was made on; the answer carries the position it saw, so the
caller knows where its cache stands without another look. ``last_id`` and ``tails``
are the looks. SQLite takes its write lock with ``BEGIN IMMEDIATE`` and signals the
commit; PostgreSQL calls the store's own function in one round trip (docs/scale.md,
"The single-move path")."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from eventsourcing.persistence import (
    ApplicationRecorder,
    IntegrityError,
    OperationalError,
    StoredEvent,
)
from eventsourcing.sqlite import SQLiteApplicationRecorder

from adapters.store.commit_signal import CommitSignal
from adapters.store.sqlite_files import database_file


@dataclass(frozen=True)
class Inserted:
    """What one insert transaction found and did."""

    before: int
    """The log's last notification id when the transaction began (0: empty)."""
    ids: list[int]
    """The notification ids of the records appended, in order; empty when the log was
    not at ``after`` (nothing appended)."""


class LogWriter(Protocol):
    def insert(
        self,
        records: Sequence[StoredEvent],
        after: int | None,
        positions: Sequence[int] | None = None,
    ) -> Inserted: ...

    def last_id(self) -> int: ...

    def tails(self, streams: Sequence[str], limit: int) -> dict[str, list[StoredEvent]]: ...

    def close(self) -> None: ...


class RecorderLogWriter:
    """Any other recorder (a log held in this process, ``adapters.store.memory_log``)
    through the library's interface: the position read, then the insert, one writer
    of this store at a time (such a log has one writer: the gateway's public copy)."""

    def __init__(self, recorder: ApplicationRecorder) -> None:
        self.recorder = recorder
        self.lock = threading.Lock()

    def insert(
        self,
        records: Sequence[StoredEvent],
        after: int | None,
        positions: Sequence[int] | None = None,
    ) -> Inserted:
        with self.lock:
            before = self.recorder.max_notification_id() or 0
            if after is not None and before != after:
                return Inserted(before, [])
            if positions is not None and list(positions) != list(
                range(before + 1, before + 1 + len(records))
            ):
                raise OperationalError("a log held in memory numbers its events 1, 2, ...")
            ids = list(self.recorder.insert_events(records) or [])
        return Inserted(before, ids)

    def last_id(self) -> int:
        return self.recorder.max_notification_id() or 0

    def tails(self, streams: Sequence[str], limit: int) -> dict[str, list[StoredEvent]]:
        select = self.recorder.select_events
        return {s: list(select(s, desc=True, limit=limit)) for s in streams}

    def close(self) -> None:
        """Nothing of its own to close."""


class SQLiteLogWriter:
    """Writes and looks on a connection of its own (a file), or on the pool's writer
    connection (a database in memory, which a second connection would not see)."""

    def __init__(self, recorder: SQLiteApplicationRecorder) -> None:
        self.datastore = recorder.datastore
        table = recorder.events_table_name
        self.insert_sql = f"INSERT INTO {table} VALUES (?,?,?,?)"
        self.insert_at_sql = (
            f"INSERT INTO {table} (rowid, originator_id, originator_version, topic, state) "
            "VALUES (?,?,?,?,?)"
        )
        self.last_sql = f"SELECT MAX(rowid) FROM {table}"
        self.ids_sql = f"SELECT rowid FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT ?"
        self.tail_sql = (
            f"SELECT originator_version, topic, state FROM {table} "
            "WHERE originator_id = ? ORDER BY originator_version DESC LIMIT ?"
        )
        self.lock = threading.Lock()
        self.own: sqlite3.Connection | None = None
        database = database_file(self.datastore)
        self.signal = CommitSignal(database) if database is not None else None
        """The followers' signal of each commit (none for a database in memory or named
        by a URI, which no follower watches)."""

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        pool = self.datastore.pool
        if pool.is_sqlite_memory_mode:
            with self.datastore.get_connection(commit=True) as pooled:
                yield pooled.cursor().sqlite_cursor.connection
            return
        with self.lock:
            if self.own is None:
                self.own = sqlite3.connect(
                    pool.db_name,
                    uri=True,
                    check_same_thread=False,
                    isolation_level=None,
                    timeout=pool.lock_timeout or 5,
                )
            yield self.own

    def insert(
        self,
        records: Sequence[StoredEvent],
        after: int | None,
        positions: Sequence[int] | None = None,
    ) -> Inserted:
        rows = [(str(r.originator_id), r.originator_version, r.topic, r.state) for r in records]
        with self.connection() as conn:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise OperationalError(exc) from exc
            try:
                before = conn.execute(self.last_sql).fetchone()[0] or 0
                if after is not None and before != after:
                    conn.execute("ROLLBACK")
                    return Inserted(before, [])
                if positions is None:
                    if len(rows) == 1:  # a move: its row id from the insert, no query more
                        last = conn.execute(self.insert_sql, rows[0]).lastrowid or 0
                    else:
                        conn.executemany(self.insert_sql, rows)
                        last = conn.execute("SELECT last_insert_rowid()").fetchone()[0]
                    if last == before + len(rows):
                        ids = list(range(before + 1, last + 1))
                    else:  # not the usual rowids (a table at the largest one): read them
                        found = conn.execute(self.ids_sql, (before, len(rows))).fetchall()
                        ids = [row[0] for row in found]
                else:
                    if positions and positions[0] <= before:
                        raise sqlite3.IntegrityError(
                            f"position {positions[0]} is not after the log's last, {before}"
                        )
                    at = [(p, *row) for p, row in zip(positions, rows, strict=True)]
                    conn.executemany(self.insert_at_sql, at)
                    ids = list(positions)
                conn.execute("COMMIT")
                if self.signal is not None:
                    self.signal.committed(ids[-1] if ids else before)
            except sqlite3.IntegrityError as exc:
                conn.execute("ROLLBACK")
                raise IntegrityError(exc) from exc
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        return Inserted(before, ids)

    def last_id(self) -> int:
        with self.connection() as conn:
            found = conn.execute(self.last_sql).fetchone()[0]
        return int(found or 0)

    def tails(self, streams: Sequence[str], limit: int) -> dict[str, list[StoredEvent]]:
        """The last ``limit`` records of each stream, newest first (none: absent)."""
        found: dict[str, list[StoredEvent]] = {}
        with self.connection() as conn:
            for stream in streams:
                rows = conn.execute(self.tail_sql, (stream, limit)).fetchall()
                found[stream] = [StoredEvent(stream, v, t, s) for v, t, s in rows]
        return found

    def close(self) -> None:
        with self.lock:
            if self.own is not None:
                self.own.close()
                self.own = None
            if self.signal is not None:
                self.signal.close()
