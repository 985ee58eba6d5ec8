"""The signal a SQLite store's writer gives the followers after each commit.

SQLite publishes a commit after its last write to the write-ahead log, so a follower
woken by that write may find nothing yet. After each commit that appends, the writer
writes the log's last notification id to ``<database>-commits``: a write there means
a commit that can be read now. Where the file cannot be made the writer says so once
and signals nothing (its followers are woken by the log's writes); a store copied
without it works the same (docs/scale.md, "PostgreSQL for live work")."""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

SIGNAL_SUFFIX = "-commits"
"""The name of the commit signal: the database's, followed by this."""
ID_DIGITS = 20
"""A notification id written in full (a SQLite rowid has at most 19 digits)."""


def signal_path(database: Path) -> Path:
    """The commit signal of the SQLite database ``database``."""
    return database.with_name(database.name + SIGNAL_SUFFIX)


class CommitSignal:
    """Writes the commit signal of one database; opened at the first commit."""

    def __init__(self, database: Path) -> None:
        self.path = signal_path(database)
        self.database = database
        self._fd: int | None = None
        self.failed = False
        """The signal could not be written (said once in the log): nothing is written."""

    def committed(self, last_id: int) -> None:
        """A commit whose last notification id is ``last_id`` can be read now. Never
        raises: the commit is made, a signal that cannot be written costs the followers
        only the wait for the log's writes."""
        if self.failed:
            return
        try:
            if self._fd is None:
                self._fd = self._open()
            os.pwrite(self._fd, f"{last_id:0{ID_DIGITS}d}\n".encode(), 0)
        except OSError as exc:
            self.failed = True
            self.close()
            log.warning(
                "the commits to the store %s are not signalled to its followers (%s: %s): "
                "they are woken by its write-ahead log",
                self.database,
                self.path.name,
                exc.strerror or exc,
            )

    def _open(self) -> int:
        flags = os.O_WRONLY | os.O_CLOEXEC
        try:
            return os.open(self.path, flags)
        except FileNotFoundError:
            pass
        try:
            mode = stat.S_IMODE(os.stat(self.database).st_mode) & 0o666
        except OSError:
            mode = 0o644
        fd = os.open(self.path, flags | os.O_CREAT, mode)
        with contextlib.suppress(OSError):  # as SQLite does for its -wal and -shm files
            os.fchmod(fd, mode)  # the umask does not narrow the database's permissions
        return fd

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)
