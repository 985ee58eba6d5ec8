"""The files of a SQLite store: its database, SQLite's own files beside it, and ours.

A store on SQLite is a database file (``database_file``) with, beside it, SQLite's
write-ahead log (``-wal``), its shared index (``-shm``) and, in rollback mode, its
journal (``-journal``), and the writer's commit signal (``-commits``,
``adapters.store.commit_signal``). Other data kept beside a store (the evaluations,
``adapters.analysis.table``) is a database of its own, named by a suffix of the
store's name (``beside``). ``remove_database`` removes a database with all of its
files (the demo and the sample start each run from nothing).
"""

from __future__ import annotations

from pathlib import Path

from adapters.store.commit_signal import SIGNAL_SUFFIX

COMPANION_SUFFIXES = ("-wal", "-shm", "-journal", SIGNAL_SUFFIX)
"""The files beside a SQLite database that belong to it."""


def database_file(datastore: object) -> Path | None:
    """The database file of a SQLite datastore; None for a database in memory, one named
    by a URI (``file:...``), or a datastore that is not SQLite's."""
    pool = getattr(datastore, "pool", None)
    name = str(getattr(pool, "db_name", "") or "")
    if pool is None or getattr(pool, "is_sqlite_memory_mode", True):
        return None
    if not name or name.startswith("file:"):
        return None
    return Path(name)


def beside(database: Path, suffix: str) -> Path:
    """The file named ``database``'s name followed by ``suffix``, in its directory."""
    return database.with_name(database.name + suffix)


def remove_database(database: Path) -> None:
    """Remove ``database`` and every file beside it that belongs to it (none need exist)."""
    for path in (database, *(beside(database, s) for s in COMPANION_SUFFIXES)):
        path.unlink(missing_ok=True)
