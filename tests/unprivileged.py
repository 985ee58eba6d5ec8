"""Running a command as a user without privileges, where root would hide a permission.

Root reads and writes a file whatever its mode, so a test of a read-only store, or of
the runbook's file modes, run as root proves nothing. ``as_user(command)`` is the
command run as ``nobody`` when this process is root (``setpriv``, util-linux), as
itself otherwise (already without privileges). ``shared_dir()`` is a fresh folder any
user may enter (pytest's own ``tmp_path`` is private to the user running the suite).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

NOBODY = 65534
"""The uid and gid of ``nobody`` on Debian."""


def is_root() -> bool:
    return os.geteuid() == 0


def as_user(command: list[str], uid: int = NOBODY, gid: int = NOBODY) -> list[str]:
    """``command`` run as ``uid``:``gid`` with no supplementary group when this process is
    root; unchanged otherwise."""
    if not is_root():
        return command
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise RuntimeError("setpriv (util-linux) is needed to run a command without root")
    return [setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", *command]


def shared_dir(prefix: str) -> Path:
    """A new folder of mode 755 in the system's temporary folder (``/dev/shm`` or ``/tmp``
    are open to every user); the caller removes it."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    return folder
