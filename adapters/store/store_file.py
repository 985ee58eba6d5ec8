"""Whether a SQLite path holds a store, looked at without writing to it; and the read-only open.

An operator's mistake (``--store`` naming a PGN, a random file, a bare SQLite header,
another application's database) is told in one line before anything is opened:
``not_a_store(path)`` reads the file's first bytes and, for an SQLite database, its
tables, through a connection that cannot write (``mode=ro``), so the file is left
byte for byte as it was: no ``stored_events`` table is created in another
application's database, and nothing is said to be clean that is not a store.

``read_only_name(path)`` is the name the store's library opens for a command that
only reads (``candidates audit``, ``standings``, ``pgn`` ...): the same database through
SQLite's read-only URI, ``immutable`` too when this process cannot write the file or
its directory (an evidence copy on a read-only filesystem or a read-only file: SQLite
would otherwise need its shared-memory file beside it).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file (https://sqlite.org/fileformat.html)."""
STORE_TABLE = "stored_events"
"""The table every store has from its first open (the events, with their hash links)."""


def read_only_name(path: str | Path) -> str:
    """The SQLite URI that opens ``path`` read-only (``immutable`` when the file or its
    directory is not writable by this process: no lock or shared-memory file is made)."""
    file = Path(path).resolve()
    name = f"file:{quote(str(file))}?mode=ro"
    if not writable(file):
        name += "&immutable=1"
    return name


def writable(file: Path) -> bool:
    """Whether this process may write ``file`` and make files beside it (SQLite's ``-shm``
    and ``-wal``): False on a read-only filesystem, a read-only file or directory."""
    return os.access(file, os.W_OK) and os.access(file.parent, os.W_OK | os.X_OK)


def not_a_store(path: str | Path, *, empty_ok: bool = False) -> str | None:
    """Why the file at ``path`` is not a store, in words, or None when it is one (an SQLite
    database with the ``stored_events`` table). ``empty_ok``: an empty file, or an SQLite
    database without any table, is taken (a writing command's ``--create`` sets it up)."""
    file = Path(path)
    try:
        with file.open("rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as error:
        return f"cannot read it ({error.strerror})"
    if not head:
        return None if empty_ok else "it is an empty file, not a store"
    if head != SQLITE_MAGIC:
        return "it is not an SQLite database (a store is one: `candidates init` makes it)"
    try:
        tables = _tables(file)
    except sqlite3.Error as error:
        return f"it is not a readable SQLite database ({error})"
    if STORE_TABLE in tables:
        return None
    if not tables:
        return None if empty_ok else "it is an SQLite database with no table, not a store"
    shown = ", ".join(sorted(tables)[:5]) + (" ..." if len(tables) > 5 else "")
    return (
        f"it is another application's SQLite database (tables {shown}; no {STORE_TABLE}): "
        "nothing was written to it"
    )


def _tables(file: Path) -> set[str]:
    """The tables of the database at ``file``, read through a connection that cannot write."""
    connection = sqlite3.connect(read_only_name(file), uri=True, timeout=10)
    try:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    finally:
        connection.close()
    return {str(name) for (name,) in rows}
