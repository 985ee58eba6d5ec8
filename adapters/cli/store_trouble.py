"""A store that fails under a command, said in one line.

A full disk (SQLite's ``database or disk is full``, an ``ENOSPC``), a file that cannot
be written, a database that went away: the command ends with one ``candidates: ...``
line on stderr and exit status 2, never a traceback (``adapters.cli.main``). What was
committed before stays; a file of commands that carry ``command_id`` is finished by
running it again once the cause is gone (those applied answer as they did).
"""

from __future__ import annotations

import sqlite3
import sys

RERUN = (
    "what was committed before stays; free the space or fix the cause, then run the same "
    "command again (commands with command_id are not applied twice)"
)


def store_trouble(error: BaseException) -> str | None:
    """The one line that says ``error`` when it is the store's database failing (here or
    in an exception it was raised from), else None (a fault of the program: raised)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _is_database_error(current):
            return f"the store could not be written or read: {_first_line(current)}; {RERUN}"
        current = current.__cause__ or current.__context__
    return None


def _is_database_error(error: BaseException) -> bool:
    if isinstance(error, sqlite3.Error):
        return True
    persistence = sys.modules.get("eventsourcing.persistence")
    if persistence is not None and isinstance(error, persistence.PersistenceError):
        return True
    psycopg = sys.modules.get("psycopg")
    return psycopg is not None and isinstance(error, psycopg.Error)


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    line = text[0] if text else type(error).__name__
    return line if len(line) <= 200 else line[:197] + "..."
