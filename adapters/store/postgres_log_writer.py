"""The store's writes and looks on PostgreSQL (``adapters.store.log_writer`` says what a
writer does): one call of the store's database function per insert, on a connection of
its own; the look through libpq directly. In a module of its own so that a store on
SQLite never loads the PostgreSQL driver."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import psycopg
from eventsourcing.persistence import IntegrityError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from psycopg.sql import SQL, Composed, Identifier
from psycopg.types.composite import register_composite

from adapters.store.log_writer import Inserted
from adapters.store.postgres import append_function_name

LOOK = b"candidates_look"
"""The name of the look's prepared statement on the writer's own connection."""


class PostgresLogWriter:
    """Writes on a connection of its own, opened at the first insert (a store that only
    reads, a gateway's follower, costs the server no connection more) and again after
    the server dropped it; looks on it once it is open, else on the store's pooled
    connection, through libpq directly (no cursor)."""

    def __init__(self, recorder: PostgresApplicationRecorder) -> None:
        self.recorder = recorder
        self.datastore = recorder.datastore
        kwargs = self.datastore.pool.kwargs
        assert isinstance(kwargs, dict)
        self.kwargs = {k: v for k, v in kwargs.items() if k != "row_factory"}
        schema, table = self.datastore.schema, recorder.events_table_name
        # The records in binary: psycopg writes an array of composites as text field by
        # field (escaping each), about ten times the time of the binary form.
        self.call_sql = SQL("SELECT * FROM {}.{}(%b, %s)").format(
            Identifier(schema), Identifier(append_function_name(recorder))
        )
        self.last_sql = (
            SQL("SELECT max(notification_id) FROM {}.{}")
            .format(Identifier(schema), Identifier(table))
            .as_bytes(None)
        )
        qualified = f'"{schema or "public"}"."{table}"'
        self.insert_at_sql: list[SQL | Composed] = [
            SQL("LOCK TABLE {}.{} IN EXCLUSIVE MODE").format(Identifier(schema), Identifier(table)),
            SQL("SELECT coalesce(max(notification_id), 0) FROM {}.{}").format(
                Identifier(schema), Identifier(table)
            ),
            SQL(
                "INSERT INTO {}.{} (notification_id, originator_id, originator_version, topic, "
                "state) SELECT * FROM unnest(%s::bigint[], %s::text[], %s::int[], %s::text[], "
                "%s::bytea[])"
            ).format(Identifier(schema), Identifier(table)),
            SQL("SELECT setval(pg_get_serial_sequence(%s, 'notification_id'), %s)"),
            SQL("NOTIFY {}").format(Identifier(recorder.channel_name)),
        ]
        self.qualified = qualified
        self.tails_sql = SQL(
            "SELECT e.originator_id, e.originator_version, e.topic, e.state "
            "FROM unnest(%s::text[]) AS s(id) CROSS JOIN LATERAL (SELECT * FROM {}.{} t "
            "WHERE t.originator_id = s.id ORDER BY t.originator_version DESC LIMIT %s) AS e"
        ).format(Identifier(schema), Identifier(table))
        self.lock = threading.Lock()
        self.own: psycopg.Connection[tuple[Any, ...]] | None = None
        self._prepared: psycopg.Connection[Any] | None = None
        """The connection the look is prepared on (``LOOK``), if any."""

    def _connect(self) -> psycopg.Connection[tuple[Any, ...]]:
        if self.own is None or self.own.closed:
            try:
                conn = psycopg.connect(**self.kwargs, autocommit=True)
            except psycopg.OperationalError as exc:
                raise OperationalError(str(exc)) from exc
            self.datastore.register_type_adapters()
            for info in self.datastore.psycopg_type_adapters.values():
                register_composite(info, conn, info.python_type)
            self.own = conn
        return self.own

    def insert(
        self,
        records: Sequence[StoredEvent],
        after: int | None,
        positions: Sequence[int] | None = None,
    ) -> Inserted:
        if positions is not None:
            return self._insert_at(records, after, positions)
        events = [
            self.recorder.construct_pg_stored_event(
                r.originator_id, r.originator_version, r.topic, r.state
            )
            for r in records
        ]
        with self.lock:
            conn = self._connect()
            try:
                rows = conn.execute(self.call_sql, (events, after), prepare=True).fetchall()
            except psycopg.IntegrityError as exc:
                raise IntegrityError(str(exc)) from exc
            except psycopg.OperationalError as exc:
                conn.close()  # the outcome is unknown: the caller's next look tells
                raise OperationalError(str(exc)) from exc
        before = int(rows[0][0]) if rows else 0
        ids = sorted(int(row[1]) for row in rows if row[1] is not None)
        return Inserted(before, ids)

    def _insert_at(
        self, records: Sequence[StoredEvent], after: int | None, positions: Sequence[int]
    ) -> Inserted:
        """The records at the positions given, in one transaction under the writers' lock."""
        lock, last, insert, setval, notify = self.insert_at_sql
        columns = (
            list(positions),
            [str(r.originator_id) for r in records],
            [r.originator_version for r in records],
            [r.topic for r in records],
            [r.state for r in records],
        )
        with self.lock:
            conn = self._connect()
            try:
                with conn.transaction():
                    conn.execute(lock)
                    row = conn.execute(last).fetchone()
                    before = int(row[0]) if row else 0
                    if after is not None and before != after:
                        return Inserted(before, [])
                    if positions and positions[0] <= before:
                        raise IntegrityError(
                            f"position {positions[0]} is not after the log's last, {before}"
                        )
                    conn.execute(insert, columns)
                    conn.execute(setval, (self.qualified, max([before, *positions, 1])))
                    conn.execute(notify)
            except psycopg.IntegrityError as exc:
                raise IntegrityError(str(exc)) from exc
            except psycopg.OperationalError as exc:
                conn.close()
                raise OperationalError(str(exc)) from exc
        return Inserted(before, list(positions))

    def last_id(self) -> int:
        for attempt in (1, 2):
            with self.lock:
                if self.own is not None and not self.own.closed:
                    result = self._look(self.own, prepared=True)
                else:
                    with self.datastore.get_connection() as conn:
                        result = self._look(conn)
            if isinstance(result, int):
                return result
            if attempt == 2:
                raise OperationalError(f"cannot look at the store's log: {result}")
        raise AssertionError("unreachable")

    def _look(self, conn: psycopg.Connection[Any], prepared: bool = False) -> int | str:
        """The log's last notification id, or why it could not be read (the connection
        is then closed: a look is safe to make again). ``prepared``: on the writer's own
        connection, as a statement prepared once on it (a look right after a commit
        otherwise plans the query again, most of its time)."""
        try:
            if prepared:
                if self._prepared is not conn:
                    self._prepare_look(conn)
                result = conn.pgconn.exec_prepared(LOOK, [])
            else:
                result = conn.pgconn.exec_(self.last_sql)
        except psycopg.OperationalError as exc:
            conn.close()
            return str(exc)
        if result.status == psycopg.pq.ExecStatus.TUPLES_OK:
            value = result.get_value(0, 0)
            return int(value) if value else 0
        conn.close()
        return (result.error_message or b"").decode(errors="replace")

    def _prepare_look(self, conn: psycopg.Connection[Any]) -> None:
        """Prepare the look on ``conn`` (``LOOK``); OperationalError if it cannot be."""
        result = conn.pgconn.prepare(LOOK, self.last_sql)
        if result.status != psycopg.pq.ExecStatus.COMMAND_OK:
            message = (result.error_message or b"").decode(errors="replace")
            raise psycopg.OperationalError(message)
        self._prepared = conn

    def tails(self, streams: Sequence[str], limit: int) -> dict[str, list[StoredEvent]]:
        """The last ``limit`` records of each stream, newest first, in one round trip."""
        found: dict[str, list[StoredEvent]] = {stream: [] for stream in streams}
        with self.datastore.get_connection() as conn:
            rows = conn.execute(self.tails_sql, (list(streams), limit), prepare=True)
            for row in rows.fetchall():
                stream, version = row["originator_id"], row["originator_version"]
                record = StoredEvent(stream, version, row["topic"], bytes(row["state"]))
                found[stream].append(record)
        return found

    def close(self) -> None:
        with self.lock:
            if self.own is not None:
                self.own.close()
                self.own = None
