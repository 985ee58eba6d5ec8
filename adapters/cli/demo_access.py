"""Who the demo lets in, and the store it holds while it runs.

- **Tokens made for one run** (``demo_tokens``): a commentator's and the Chief Arbiter's,
  drawn from ``secrets`` when the demo starts, never written to disk, printed once with the
  URLs that use them (``access_lines``) and gone when the demo stops. The page reads a
  token from the URL's fragment (``#token=...``), which a browser never sends to a server.
- **The store is held** (``hold_store``): before the demo removes and recreates its store it
  takes an exclusive lock beside it (``flock``: the kernel releases it when the process
  ends, however it ends) and looks for any other process that has the store open (Linux's
  ``/proc``: a second demo, a ``candidates serve``). Either is refused in one line, and
  nothing is removed: a running demo never goes on serving deleted files.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from adapters.gateway.tokens import ARBITER, COMMENTATOR, Identity, Tokens
from adapters.store.sqlite_files import COMPANION_SUFFIXES, beside
from engine.errors import MalformedCommand

LOCK_SUFFIX = ".demo-lock"
"""The lock file beside the demo's store (``var/demo.sqlite.demo-lock``)."""


def demo_tokens() -> tuple[Tokens, str, str]:
    """(the tokens, the commentator's, the Chief Arbiter's): new for each run."""
    commentator = secrets.token_urlsafe(18)
    arbiter = secrets.token_urlsafe(18)
    tokens = Tokens(
        {
            commentator: Identity(COMMENTATOR, "Demo commentator"),
            arbiter: Identity(ARBITER, "Demo Chief Arbiter", "chief"),
        }
    )
    return tokens, commentator, arbiter


def access_lines(base: str, commentator: str, arbiter: str) -> list[str]:
    """The URLs of every side of the demo, the tokens in their fragments (shown once)."""
    return [
        f"Public page:      {base}/",
        f"Commentators:     {base}/#token={commentator}",
        f"Arbiters' desk:   {base}/arbiter#token={arbiter}  (as the Chief Arbiter)",
        f"Hall display:     {base}/display  (for a venue screen or a stream: no controls)",
        "The two tokens were made for this demo and end with it; they are shown only here.",
    ]


def other_holders(path: Path) -> list[int]:
    """The ids of the other processes that have the store (or a file of it) open; none
    where ``/proc`` cannot tell (another system)."""
    wanted = {str(p.resolve()) for p in (path, *(beside(path, s) for s in COMPANION_SUFFIXES))}
    mine = os.getpid()
    found: set[int] = set()
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == mine:
            continue
        with contextlib.suppress(OSError):
            for fd in (entry / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in wanted:
                        found.add(int(entry.name))
                        break
    return sorted(found)


@contextlib.contextmanager
def hold_store(path: Path) -> Iterator[None]:
    """Hold the demo's store for the run: refused (``MalformedCommand``, nothing removed)
    when another demo holds it or another process has it open."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock: IO[str] = beside(path, LOCK_SUFFIX).open("a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "another process"
            raise MalformedCommand(
                f"{path} is being served by another candidates demo (process {holder}): "
                "stop it first (Ctrl-C), or give this one --demo-store another path"
            ) from None
        others = other_holders(path)
        if others:
            raise MalformedCommand(
                f"{path} is open in another process ({', '.join(map(str, others))}), which "
                "may be serving it: stop it first, or give the demo --demo-store another path"
            )
        lock.seek(0)
        lock.truncate()
        lock.write(str(os.getpid()))
        lock.flush()
        yield
    finally:
        lock.close()  # the lock goes with the file (and with the process, however it ends)
