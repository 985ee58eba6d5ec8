"""Kept projections: a fold of the notification log saved with the position it holds.

The gateway's open alerts and standings and the flag check's games are saved in the
store's own database, the state and its position (a tracking record of the
``eventsourcing`` library) in one transaction, so that a restart folds only the events
after the position, each exactly once whatever moment a crash chose. A save that does
not advance the position is refused; a state written by another version of the
program, or unreadable, is dropped and folded again from the start. The design is in
docs/scale.md, "Kept projections"."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar, overload

import msgpack
import msgspec
from eventsourcing.persistence import IntegrityError, Tracking
from eventsourcing.postgres import (
    PostgresApplicationRecorder,
    PostgresDatastore,
    PostgresTrackingRecorder,
)
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore, SQLiteTrackingRecorder
from psycopg.sql import SQL, Identifier

from adapters.store.database_errors import database_error, said
from adapters.store.door import Store

log = logging.getLogger(__name__)

KEPT_TABLE = "kept_projections"
"""The states, by projection name (both backends)."""
PG_TRACKING_TABLE = "kept_tracking"
"""The positions on PostgreSQL (SQLite's tracking table is the library's ``tracking``)."""
SETUP_LOCK = "candidates: set up the kept projections of {schema}"
"""Names the PostgreSQL advisory lock held while the two tables are created."""


@dataclass(frozen=True)
class KeptRecord:
    """One kept projection as stored: its name, position and state bytes."""

    name: str
    position: int
    state: bytes


class KeptRecorder(Protocol):
    """What both backends' recorders offer."""

    def load(self, name: str) -> KeptRecord | None: ...

    def save(self, name: str, position: int, state: bytes) -> bool: ...

    def drop(self, name: str) -> bool: ...

    def records(self) -> list[KeptRecord]: ...


class SavesWithPosition:
    """``save``, the same on both backends: the tracking record (the library's
    ``_insert_tracking``, which only moves a position forward) and the state (the
    recorder's ``upsert_state``) in one transaction of its ``datastore``, after its
    ``set_up``."""

    def save(self, name: str, position: int, state: bytes) -> bool:
        """Write the state at ``position``; False (nothing written) if the position of
        ``name`` is already there or beyond."""
        recorder: Any = self
        recorder.set_up()
        try:
            with recorder.datastore.transaction(commit=True) as cursor:
                recorder._insert_tracking(cursor, Tracking(name, position))
                cursor.execute(recorder.upsert_state, (name, state))
        except IntegrityError:
            return False
        return True


class SQLiteKeptRecorder(SavesWithPosition, SQLiteTrackingRecorder):
    """Kept projections in the store's SQLite file: the library's tracking table and
    ``kept_projections``, written in one transaction."""

    def __init__(self, datastore: SQLiteDatastore) -> None:
        super().__init__(datastore)
        self.upsert_state = (
            f"INSERT INTO {KEPT_TABLE} (name, state) VALUES (?, ?) "
            "ON CONFLICT (name) DO UPDATE SET state = excluded.state"
        )
        self.select_one = (
            f"SELECT t.notification_id, k.state FROM tracking t JOIN {KEPT_TABLE} k "
            "ON k.name = t.application_name WHERE t.application_name = ?"
        )
        self.select_all = (
            f"SELECT t.application_name, t.notification_id, k.state FROM tracking t "
            f"JOIN {KEPT_TABLE} k ON k.name = t.application_name ORDER BY t.application_name"
        )
        self.ready = False
        """Both tables are there (looked up once, or created by ``set_up``)."""

    def construct_create_table_statements(self) -> list[str]:
        statements = super().construct_create_table_statements()
        statements.append(
            f"CREATE TABLE IF NOT EXISTS {KEPT_TABLE} ("
            "name TEXT PRIMARY KEY, state BLOB NOT NULL) WITHOUT ROWID"
        )
        return statements

    def exists(self) -> bool:
        if not self.ready:
            with self.datastore.transaction(commit=False) as c:
                c.execute(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)",
                    ("tracking", KEPT_TABLE),
                )
                self.ready = c.fetchone()[0] == 2
        return self.ready

    def set_up(self) -> None:
        """Create both tables if missing (another process doing it at once is fine)."""
        if not self.exists():
            with contextlib.suppress(IntegrityError):  # another process set it up just now
                self.create_table()
            self.ready = True

    def load(self, name: str) -> KeptRecord | None:
        if not self.exists():
            return None
        with self.datastore.transaction(commit=False) as c:
            c.execute(self.select_one, (name,))
            row = c.fetchone()
        return None if row is None else KeptRecord(name, int(row[0]), bytes(row[1]))

    def drop(self, name: str) -> bool:
        if not self.exists():
            return False
        with self.datastore.transaction(commit=True) as c:
            c.execute("DELETE FROM tracking WHERE application_name = ?", (name,))
            c.execute(f"DELETE FROM {KEPT_TABLE} WHERE name = ?", (name,))
            return bool(c.sqlite_cursor.rowcount)

    def records(self) -> list[KeptRecord]:
        if not self.exists():
            return []
        with self.datastore.transaction(commit=False) as c:
            c.execute(self.select_all)
            rows = c.fetchall()
        return [KeptRecord(str(r[0]), int(r[1]), bytes(r[2])) for r in rows]


class PostgresKeptRecorder(SavesWithPosition, PostgresTrackingRecorder):
    """Kept projections in the store's PostgreSQL schema: the library's tracking table
    (``kept_tracking``) and ``kept_projections``, written in one transaction."""

    def __init__(self, datastore: PostgresDatastore) -> None:
        super().__init__(datastore, tracking_table_name=PG_TRACKING_TABLE)
        schema = Identifier(self.datastore.schema)
        kept = Identifier(KEPT_TABLE)
        tracking = Identifier(PG_TRACKING_TABLE)
        self.sql_create_statements.append(
            SQL(
                "CREATE TABLE IF NOT EXISTS {0}.{1} (name text PRIMARY KEY, state bytea NOT NULL)"
            ).format(schema, kept)
        )
        self.upsert_state = SQL(
            "INSERT INTO {0}.{1} (name, state) VALUES (%s, %s) "
            "ON CONFLICT (name) DO UPDATE SET state = excluded.state"
        ).format(schema, kept)
        self.select_one = SQL(
            "SELECT t.notification_id, k.state FROM {0}.{2} t JOIN {0}.{1} k "
            "ON k.name = t.application_name WHERE t.application_name = %s"
        ).format(schema, kept, tracking)
        self.select_all = SQL(
            "SELECT t.application_name, t.notification_id, k.state FROM {0}.{2} t "
            "JOIN {0}.{1} k ON k.name = t.application_name ORDER BY t.application_name"
        ).format(schema, kept, tracking)
        self.delete_tracking = SQL("DELETE FROM {0}.{1} WHERE application_name = %s").format(
            schema, tracking
        )
        self.delete_state = SQL("DELETE FROM {0}.{1} WHERE name = %s").format(schema, kept)
        self.ready = False
        """Both tables are there (looked up once, or created by ``set_up``)."""

    def _tables_exist(self, conn: Any) -> bool:
        schema = self.datastore.schema
        row = conn.execute(
            "SELECT to_regclass(%s) IS NOT NULL AND to_regclass(%s) IS NOT NULL AS ready",
            (f"{schema}.{PG_TRACKING_TABLE}", f"{schema}.{KEPT_TABLE}"),
        ).fetchone()
        return row is not None and bool(row["ready"])

    def exists(self) -> bool:
        if not self.ready:
            with self.datastore.get_connection() as conn:
                self.ready = self._tables_exist(conn)
        return self.ready

    def set_up(self) -> None:
        """Create both tables if missing, under an advisory lock named after the schema
        (many processes opening one store at once never create them twice)."""
        if self.exists():
            return
        with advisory_lock(self.datastore, SETUP_LOCK) as conn:
            if not self._tables_exist(conn):
                self.create_table()
        self.ready = True

    def load(self, name: str) -> KeptRecord | None:
        if not self.exists():
            return None
        with self.datastore.transaction(commit=False) as curs:
            row = curs.execute(self.select_one, (name,)).fetchone()
        if row is None:
            return None
        return KeptRecord(name, int(row["notification_id"]), bytes(row["state"]))

    def drop(self, name: str) -> bool:
        if not self.exists():
            return False
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(self.delete_tracking, (name,))
            curs.execute(self.delete_state, (name,))
            return bool(curs.rowcount)

    def records(self) -> list[KeptRecord]:
        if not self.exists():
            return []
        with self.datastore.transaction(commit=False) as curs:
            rows = curs.execute(self.select_all).fetchall()
        return [
            KeptRecord(str(r["application_name"]), int(r["notification_id"]), bytes(r["state"]))
            for r in rows
        ]


@contextlib.contextmanager
def advisory_lock(datastore: PostgresDatastore, name: str) -> Iterator[Any]:
    """A connection holding the PostgreSQL advisory lock ``name`` (formatted with the
    store's ``schema``) while tables are set up: many processes opening one store at
    once never create them twice."""
    with datastore.get_connection() as conn:
        key = name.format(schema=datastore.schema)
        conn.execute("SELECT pg_advisory_lock(hashtext(%s))", (key,))
        try:
            yield conn
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (key,))


def kept_recorder(store: Store) -> KeptRecorder:
    """The kept projections' recorder of a store: in its own database (the same SQLite
    file or PostgreSQL schema, through the same connections). Its two tables are
    created by the first save (a start with nothing kept costs one look for them)."""
    recorder = store.app.recorder
    kept: SQLiteKeptRecorder | PostgresKeptRecorder
    if isinstance(recorder, PostgresApplicationRecorder):
        kept = PostgresKeptRecorder(recorder.datastore)
    elif isinstance(recorder, SQLiteApplicationRecorder):
        kept = SQLiteKeptRecorder(recorder.datastore)
    else:  # pragma: no cover - the store is SQLite or PostgreSQL
        raise TypeError(f"no kept projections on {type(recorder).__name__}")
    return kept


ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "projections", "adapters")


@functools.cache
def program_fingerprint() -> str:
    """A digest of the program's source (every module of ``engine``, ``projections`` and
    ``adapters``): a kept state is used only by the program that wrote it, since
    another version may fold the same events differently."""
    digest = hashlib.sha256()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            digest.update(str(path.relative_to(ROOT)).encode())
            try:
                digest.update(path.read_bytes())
            except OSError:
                digest.update(b"?")
    return digest.hexdigest()[:16]


KEEP_EVERY_S = 1.0
"""How often, at most, a running process saves a kept projection (and when it stops)."""

T = TypeVar("T")
S = TypeVar("S")
KeptMap = Mapping[str, object]
"""A kept state as stored, before it is read as its program's declared layout (each
program declares its own: ``kept_state.GatewayKept``, ...)."""


def open_kept(
    store: Store, name: str, format_version: int, recorder: KeptRecorder | None = None
) -> KeptProjection | None:
    """The kept projection ``name`` of ``store`` (kept by ``recorder``, else in the store's
    database); None (said in a warning) when the store cannot hold one: the process then
    folds the whole log, as before."""
    try:
        return KeptProjection(store, name, format_version, recorder)
    except Exception:
        log.warning("no kept state in this store (it cannot be set up)", exc_info=True)
        return None


class KeptProjection:
    """One kept projection of a store: its name and format, its state a msgpack map.

    ``load`` gives ``(position, state)`` or None (nothing kept, or nothing usable:
    another format, another program, unreadable bytes, a position beyond the log;
    each said in a warning, and the unusable state dropped); ``save`` writes the
    state with its position in one transaction, False when the store already holds
    that position or a later one (another process got there first)."""

    def __init__(
        self,
        store: Store,
        name: str,
        format_version: int,
        recorder: KeptRecorder | None = None,
    ) -> None:
        self.store = store
        self.name = name
        self.format = f"{name}/{format_version}/{program_fingerprint()}"
        """Written with every state; a state of any other format is not used."""
        self.recorder = recorder if recorder is not None else kept_recorder(store)
        """Where it is kept: the store's database, or beside it (the analysis')."""

    @overload
    def load(self) -> tuple[int, KeptMap] | None: ...
    @overload
    def load(self, layout: type[S]) -> tuple[int, S] | None: ...
    def load(self, layout: type[Any] | None = None) -> tuple[int, Any] | None:
        """``(position, state)``: the state read as ``layout`` (checked: a state of another
        layout is not used), or as the map it was stored as."""
        try:
            record = self.recorder.load(self.name)
        except Exception as exc:  # a cache never stops its process: fold the log instead
            log.warning("kept state %r cannot be read (%s): folding the whole log", self.name, exc)
            return None
        if record is None:
            return None
        state, problem = self._decoded(record, layout)
        if state is not None:
            return record.position, state
        log.warning(
            "kept state %r at position %d is %s: ignored and dropped, folding the whole log",
            self.name,
            record.position,
            problem,
        )
        try:
            self.recorder.drop(self.name)
        except Exception as exc:
            log.warning("kept state %r could not be dropped (%s)", self.name, exc)
        return None

    def _decoded(self, record: KeptRecord, layout: type[Any] | None) -> tuple[Any, str]:
        """The stored state (as ``layout``), or None and why it cannot be used."""
        try:
            decoded = msgpack.unpackb(record.state, raw=False, strict_map_key=False)
        except Exception as exc:  # msgpack raises several unrelated types on garbage
            return None, f"unreadable ({type(exc).__name__}: {exc})"
        if not isinstance(decoded, dict) or not isinstance(decoded.get("state"), dict):
            return None, "not a kept state"
        written = decoded.get("format")
        if written != self.format:
            return None, f"of another format or program ({written!r}; this one is {self.format!r})"
        if record.position > self.store.last_seq():
            return None, f"ahead of the log, which ends at {self.store.last_seq()}"
        if layout is None:
            return decoded["state"], ""
        try:
            return msgspec.convert(decoded["state"], layout), ""
        except msgspec.ValidationError as exc:
            return None, f"not of its layout ({exc})"

    def load_as(self, layout: type[S], parse: Callable[[int, S], T]) -> T | None:
        """The kept state as ``parse(position, state)`` reads it (``state`` checked as
        ``layout``); None when there is none, or when it is not of that layout (then
        dropped, with a warning)."""
        loaded = self.load(layout)
        if loaded is None:
            return None
        try:
            return parse(*loaded)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            log.warning(
                "kept state %r is not of its layout (%r): folding the whole log", self.name, exc
            )
            self.drop()
            return None

    def save_or_warn(self, position: int, state: KeptMap) -> bool | None:
        """``save``; None when the store failed (said in a warning: the next save covers it)."""
        try:
            return self.save(position, state)
        except Exception as exc:
            if database_error(exc) is not None:  # the outage is said by the reading
                log.debug("saving kept state %r failed (%s)", self.name, said(exc))
                return None
            log.warning(
                "saving kept state %r failed; the next save covers it", self.name, exc_info=True
            )
            return None

    def save(self, position: int, state: KeptMap) -> bool:
        """Keep ``state`` (a map of the program's declared layout) at ``position``."""
        data = msgpack.packb({"format": self.format, "state": state}, use_bin_type=True)
        return self.recorder.save(self.name, position, data)

    def drop(self) -> bool:
        return self.recorder.drop(self.name)
