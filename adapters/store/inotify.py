"""Linux ``inotify`` through the C library (``ctypes``): the changes of one directory.

A SQLite store is written by whichever process commits: its write-ahead log (the
``-wal`` file beside the database), the database itself at a checkpoint, the
``-journal`` file in rollback mode. Watching the directory that holds them (not
the files) sees a write-ahead log created after the watch began, deleted when
the last connection closes, truncated by a checkpoint, and a database replaced by
a rename, with no watch to renew. Where ``inotify`` is missing (not Linux, a
C library without it, no watches left) ``DirectoryWatch`` raises ``OSError`` and
the caller reads the store on a timer instead.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import struct
from pathlib import Path

IN_MODIFY = 0x00000002
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_Q_OVERFLOW = 0x00004000
"""The kernel's queue overflowed: events were lost (read everything again)."""
IN_IGNORED = 0x00008000
"""The watch was removed (the directory was deleted or its file system unmounted)."""
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

WRITES = IN_MODIFY | IN_CREATE | IN_MOVED_TO
"""What a commit, a checkpoint, a new write-ahead log or a database put in place by a
rename does to the files of a store (a file's truncation is a modification)."""

_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len (struct inotify_event)
_READ_BYTES = 64 * 1024


class _Libc:
    """The three calls, bound once (``OSError`` when the C library lacks them)."""

    def __init__(self) -> None:
        name = ctypes.util.find_library("c")
        if name is None:
            raise OSError(errno.ENOSYS, "no C library to call inotify through")
        libc = ctypes.CDLL(name, use_errno=True)
        try:
            self.init1 = libc.inotify_init1
            self.add_watch = libc.inotify_add_watch
        except AttributeError:
            raise OSError(errno.ENOSYS, "the C library has no inotify") from None
        self.init1.argtypes = [ctypes.c_int]
        self.init1.restype = ctypes.c_int
        self.add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        self.add_watch.restype = ctypes.c_int


_libc: _Libc | None = None


def libc() -> _Libc:
    """The C library's inotify calls (looked up on first use)."""
    global _libc
    if _libc is None:
        _libc = _Libc()
    return _libc


def _failed(what: str) -> OSError:
    code = ctypes.get_errno()
    return OSError(code, f"{what}: {os.strerror(code)}")


class DirectoryWatch:
    """An ``inotify`` descriptor watching one directory for ``mask`` (non-blocking reads)."""

    def __init__(self, directory: str | Path, mask: int = WRITES) -> None:
        calls = libc()
        fd: int = calls.init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            raise _failed("inotify_init1")
        self.fd = fd
        if calls.add_watch(fd, os.fsencode(directory), mask) < 0:
            error = _failed(f"inotify_add_watch {directory}")
            os.close(fd)
            raise error
        self.directory = Path(directory)

    def fileno(self) -> int:
        return self.fd

    def events(self) -> list[tuple[int, str]]:
        """Every event waiting (mask, name of the file in the directory); none if none."""
        found: list[tuple[int, str]] = []
        while True:
            try:
                data = os.read(self.fd, _READ_BYTES)
            except BlockingIOError:
                return found
            if not data:
                return found
            at = 0
            while at + _HEADER.size <= len(data):
                _wd, mask, _cookie, length = _HEADER.unpack_from(data, at)
                raw = data[at + _HEADER.size : at + _HEADER.size + length]
                found.append((mask, os.fsdecode(raw.rstrip(b"\0"))))
                at += _HEADER.size + length

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
