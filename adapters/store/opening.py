"""Opening a store: its URL, its environment, the application on it, PostgreSQL set-up.

``open_application`` opens the eventsourcing application of a store (a SQLite path or a
PostgreSQL URL, ``adapters.store.application``; or a log held in memory,
``adapters.store.memory_log``), sets a PostgreSQL schema up once
(``adapters.store.postgres``, loaded with the driver only) and says whether opening
made the store; ``log_writer`` picks the inserts and looks of its database. The door
(``adapters.store.door.Store``) opens through both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eventsourcing.persistence import ApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder

from adapters.store.application import (
    CandidatesApplication,
    is_postgres_recorder,
    store_env,
    store_url,
)
from adapters.store.log_writer import LogWriter, RecorderLogWriter, SQLiteLogWriter
from adapters.store.memory_log import MemoryApplication, MemoryLog


@dataclass(frozen=True)
class Opened:
    """A store's application as opened."""

    url: str
    app: CandidatesApplication
    """On the store's database, or on a log held in this process (``url`` merely names it)."""
    created: bool
    """Whether opening set the store up (a new SQLite file, a new PostgreSQL schema, a log
    in memory)."""

    @property
    def is_postgres(self) -> bool:
        return self.url.startswith(("postgresql://", "postgres://"))


def open_application(
    url: str | None = None, *, memory: MemoryLog | None = None, read_only: bool = False
) -> Opened:
    """The application of the store at ``url`` (default: ``store_url``), set up if new."""
    url = store_url(url)
    env = store_env(url, read_only=read_only) if memory is None else {}
    sqlite_path = env.get("SQLITE_DBNAME")
    created = memory is not None or (
        bool(sqlite_path) and (sqlite_path == ":memory:" or not Path(str(sqlite_path)).exists())
    )
    app = CandidatesApplication(env=env) if memory is None else MemoryApplication(memory)
    if is_postgres_recorder(app.recorder):
        from adapters.store.postgres import set_up_postgres  # only with the driver

        try:
            created = set_up_postgres(app.recorder)
        except Exception:
            app.close()
            raise
    return Opened(url, app, created)


def log_writer(recorder: ApplicationRecorder) -> LogWriter:
    """The inserts and looks for the application recorder of a store
    (``adapters.store.log_writer``; on PostgreSQL ``adapters.store.postgres_log_writer``,
    loaded with the driver only)."""
    if is_postgres_recorder(recorder):
        from adapters.store.postgres_log_writer import PostgresLogWriter  # only with the driver

        return PostgresLogWriter(recorder)
    if isinstance(recorder, SQLiteApplicationRecorder):
        return SQLiteLogWriter(recorder)
    return RecorderLogWriter(recorder)
