"""Whether an error is the store's database failing: said in one line, never a traceback.

A database that goes away (PostgreSQL restarted or killed: ``AdminShutdown``, a closed
connection; SQLite's ``database or disk is full``, a locked or read-only file) raises
the driver's error, sometimes wrapped by the event store's library. Such an error is
the database's, not the program's: a long-running process says it in one line and
retries (``adapters.store.outage``), a command ends with one line
(``adapters.cli.store_trouble``). Anything else keeps its traceback.
"""

from __future__ import annotations

import sqlite3
import sys


def database_error(error: BaseException) -> BaseException | None:
    """The database's error in ``error`` or in the errors it was raised from; None when
    none of them is a database's."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _is_database_error(current):
            return current
        current = current.__cause__ or current.__context__
    return None


def _is_database_error(error: BaseException) -> bool:
    if isinstance(error, sqlite3.Error):
        return True
    persistence = sys.modules.get("eventsourcing.persistence")
    if persistence is not None and isinstance(error, persistence.PersistenceError):
        return True
    psycopg = sys.modules.get("psycopg")  # loaded only by a PostgreSQL store
    return psycopg is not None and isinstance(error, psycopg.Error)


def said(error: BaseException) -> str:
    """The error's first line, at most 200 characters (what the database said)."""
    lines = str(error).strip().splitlines()
    line = lines[0] if lines else type(error).__name__
    return line if len(line) <= 200 else line[:197] + "..."
