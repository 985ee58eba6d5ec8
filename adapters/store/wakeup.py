"""Waking a follower when the store changes, whichever process wrote to it.

``listen_for_changes`` gives a follower (the gateway, the analysis service) a
``ChangeListener`` that calls ``on_change`` from its own thread when any process
commits: PostgreSQL's ``NOTIFY``, or on SQLite the writer's commit signal and the
database's files watched through ``inotify``. A notification carries only the fact
of a change, so a lost one costs latency alone: the follower still reads on a slow
safety timer, or on a short one where no listener can be made. The details are in
docs/scale.md, "PostgreSQL for live work"."""

from __future__ import annotations

import logging
import math
import os
import select
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path

from psycopg.sql import SQL, Identifier

from adapters.store import inotify
from adapters.store.commit_signal import signal_path
from adapters.store.door import Store
from adapters.store.outage import Outage
from adapters.store.sqlite_files import database_file

log = logging.getLogger(__name__)

FALLBACK_S = 1.0
"""How often a listening follower reads the store anyway (a notification lost with a
dropped connection, or a write the watch did not see, costs at most this)."""
RECONNECT_S = 1.0
SETTLE_S = 0.05
"""SQLite, where ``writing()`` cannot tell: how long a follower woken by a write to the
store's files reads again when it found nothing (the commit is published to readers after
the write that woke it)."""
SIGNAL_GRACE_S = 0.05
"""SQLite: how long after a write to the store's files the listener waits for the writer's
signal of its commit before it wakes the follower without one (a writer that does not
signal: the follower then reads while the write lock is held, ``writing()``)."""
FILE_SUFFIXES = ("", "-wal", "-journal")
"""The files of a SQLite store whose writes are commits (not ``-shm``: readers use it)."""
WAL_WRITE_LOCK_BYTE = 120
"""The byte of a SQLite store's ``-shm`` file a writer locks from its first write to the
end of its transaction, after the commit is published (``WAL_WRITE_LOCK``: SQLite's
documented WAL-index format, https://www.sqlite.org/walformat.html)."""
PROC_LOCKS = Path("/proc/locks")
"""Every file lock held on the machine (Linux). The locks are read there, never by opening
the ``-shm`` file: closing any descriptor of a file drops every POSIX lock this process
holds on it, the store's own connections' included."""


def first_line(error: BaseException) -> str:
    """An error's first line: a database that went away says so in one line of the log."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


class ChangeListener(ABC):
    """A thread that calls ``on_change`` when the store may have changed (a commit of any
    process), once when it starts listening (whatever was committed before), and
    ``close()`` to stop it."""

    settle_s = 0.0
    """How long after an ``unsure`` wake-up a follower that found nothing reads again
    when ``writing()`` cannot tell."""

    def __init__(self, on_change: Callable[[], None], name: str) -> None:
        self._on_change = on_change
        self._stopped = threading.Event()
        self.listening = threading.Event()
        """Set once the first notification can be received (tests wait for it)."""
        self.notifications = 0
        """Changes announced (the start's catch-up not counted)."""
        self.unsure = 0
        """Changes announced that may not be readable yet (counted before ``on_change``):
        a write to the store's files that no commit signal followed. A follower that
        found nothing after one asks ``writing()``; every other announcement is of a
        commit readable when it was made."""
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def _start(self) -> None:
        self._thread.start()

    @abstractmethod
    def _run(self) -> None:
        """Listen until ``close()``: announce each change (``_announce``)."""

    def _announce(self, *, unsure: bool = False) -> None:
        self.notifications += 1
        if unsure:
            self.unsure += 1
        self._on_change()

    def writing(self) -> bool | None:
        """Whether an ``unsure`` change announced may still be unreadable: a process is
        writing to the store (None: it cannot be told; then look again for ``settle_s``)."""
        return False

    def close(self) -> None:
        self._stopped.set()
        self._thread.join(5)


class NotifyListener(ChangeListener):
    """PostgreSQL: ``LISTEN`` on the store's channel, ``on_change`` per notification."""

    def __init__(self, store: Store, on_change: Callable[[], None]) -> None:
        super().__init__(on_change, "store-listener")
        recorder = store.app.recorder
        self.channel: str = recorder.channel_name  # type: ignore[attr-defined]
        self._datastore = recorder.datastore  # type: ignore[attr-defined]
        self._start()

    def _run(self) -> None:
        # said once when it fails and once when it listens again (``Outage``), not at
        # each attempt while the server is away
        outage = Outage("listening for store changes", log, RECONNECT_S)
        while not self._stopped.is_set():
            try:
                with self._datastore.get_connection() as conn:
                    conn.execute(SQL("LISTEN {0}").format(Identifier(self.channel)))
                    conn.commit()
                    outage.succeeded()
                    self.listening.set()
                    self._on_change()  # whatever was appended before the LISTEN
                    while not self._stopped.is_set():
                        for _ in conn.notifies(timeout=0.2, stop_after=1):
                            self._announce()
            except Exception as exc:  # the server went away (said in one line), or worse
                if self._stopped.is_set():
                    return
                outage.failed(exc)
                self._stopped.wait(RECONNECT_S)


class FileListener(ChangeListener):
    """SQLite: the database's directory watched; ``on_change`` at each commit signal
    (``adapters.store.commit_signal``), and for a batch of writes to the store's files
    (the write-ahead log, the database, the rollback journal) that no signal followed
    within ``SIGNAL_GRACE_S`` (``unsure``)."""

    settle_s = SETTLE_S

    def __init__(
        self, database: Path, on_change: Callable[[], None], grace_s: float = SIGNAL_GRACE_S
    ) -> None:
        super().__init__(on_change, "store-file-listener")
        self.database = database
        self.names = frozenset(database.name + suffix for suffix in FILE_SUFFIXES)
        self.signal = signal_path(database).name
        self.grace_s = grace_s
        self._shm = database.with_name(database.name + "-shm")
        self._watch = inotify.DirectoryWatch(database.parent)  # OSError: no inotify here
        self._stop_r, self._stop_w = os.pipe()
        self._start()

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self._watch.fileno(), select.POLLIN)
        poller.register(self._stop_r, select.POLLIN)
        self.listening.set()
        self._on_change()  # whatever was committed before the watch
        unsigned_at: float | None = None  # a write to the store's files no signal followed
        try:
            while not self._stopped.is_set():
                if unsigned_at is None:
                    poller.poll()  # no timeout: close() writes to the pipe
                else:
                    left_s = unsigned_at + self.grace_s - time.monotonic()
                    poller.poll(max(0, math.ceil(left_s * 1000)))
                if self._stopped.is_set():
                    return
                signalled, unsigned = self._changes()
                if signalled:
                    self._announce()
                    unsigned_at = None
                if unsigned and unsigned_at is None:
                    unsigned_at = time.monotonic()
                if unsigned_at is not None and time.monotonic() >= unsigned_at + self.grace_s:
                    unsigned_at = None
                    self._announce(unsure=True)
        except Exception:
            log.exception("watching the store's files failed: it is read every %g s", FALLBACK_S)

    def writing(self) -> bool | None:
        """Whether a process holds the store's write lock now (a commit whose write woke
        the follower is published before the lock is released); None without a
        ``-shm`` file (rollback-journal mode) or ``/proc/locks`` to ask."""
        try:
            inode = os.stat(self._shm).st_ino
            locks = PROC_LOCKS.read_text()
        except OSError:
            return None
        return write_lock_held(locks, inode)

    def _changes(self) -> tuple[bool, bool]:
        """(a commit signal was written, a store's file was written after the last commit
        signal) in the events waiting; all are read: a burst is one wake-up. Events lost
        (the queue overflowed) or a directory no longer watched wake the follower at once
        (``unsure``). A signal covers the writes seen before it, its own commit's; a
        commit of a writer that does not signal, whose write came between another
        writer's commit and that writer's signal, is left to the safety read."""
        signalled = unsigned = lost = False
        for mask, name in self._watch.events():
            if mask & inotify.IN_Q_OVERFLOW:
                lost = True  # events were lost: read the store
            elif mask & inotify.IN_IGNORED:
                log.warning(
                    "the directory of the store %s is no longer watched (removed?): it is "
                    "read every %g s",
                    self.database,
                    FALLBACK_S,
                )
                self._stopped.set()
                lost = True
            elif name == self.signal:
                signalled, unsigned = True, False
            elif name in self.names:
                unsigned = True
        if lost:
            self._announce(unsure=True)
        return signalled, unsigned

    def close(self) -> None:
        self._stopped.set()
        os.write(self._stop_w, b"x")
        self._thread.join(5)
        self._watch.close()
        os.close(self._stop_r)
        os.close(self._stop_w)


def write_lock_held(locks: str, inode: int) -> bool:
    """Whether ``locks`` (the text of ``/proc/locks``) holds a lock of the file ``inode``
    over ``WAL_WRITE_LOCK_BYTE`` (lines ``N: POSIX ADVISORY WRITE pid maj:min:inode start
    end``; a waiter's line, ``N: -> ...``, holds nothing)."""
    for line in locks.splitlines():
        fields = line.split()
        if len(fields) < 8 or fields[1] == "->":
            continue
        try:
            file_inode = int(fields[5].rsplit(":", 1)[1])
            start = int(fields[6])
            end = WAL_WRITE_LOCK_BYTE if fields[7] == "EOF" else int(fields[7])
        except (IndexError, ValueError):
            continue
        if file_inode == inode and start <= WAL_WRITE_LOCK_BYTE <= end:
            return True
    return False


def sqlite_file(store: Store) -> Path | None:
    """The database file of a SQLite store (None in memory, or not a plain path)."""
    database = database_file(getattr(store.app.recorder, "datastore", None))  # none: in memory
    return database.resolve() if database is not None else None


def listen_for_changes(store: Store, on_change: Callable[[], None]) -> ChangeListener | None:
    """A listener of the store's commits; None where there is none (said in the log: the
    caller reads the store on its own timer)."""
    if store.is_postgres:
        return NotifyListener(store, on_change)
    database = sqlite_file(store)
    if database is None:
        return None
    try:
        return FileListener(database, on_change)
    except OSError as exc:
        log.info(
            "the files of the store %s cannot be watched (%s): it is read on a timer",
            database,
            exc.strerror or exc,
        )
        return None
