"""The drill's database: a PostgreSQL cluster of its own, never the machine's.

``initdb`` into a temporary directory and a postmaster on a free port, trust
auth on 127.0.0.1 only; the drill kills (SIGKILL) and restarts it as the
runbook says.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from deploy.runbook import DrillError

PORT_BASE_ENV = "CANDIDATES_DRILL_PORT_BASE"
"""``make drill PORT_BASE=N`` sets it: the drill's ports (its PostgreSQL cluster, its
gateways) are then the first free ones from N up, in a range the machine allows."""
PORT_RANGE = 100
"""How many ports from the base the drill may look through."""
_given: set[int] = set()
"""Ports this process has handed out (each is bound later, by another process)."""


def free_port() -> int:
    """A port free on 127.0.0.1: any (the kernel's choice), or the first free one from
    ``$CANDIDATES_DRILL_PORT_BASE`` up not handed out before (DrillError when none is
    free among ``PORT_RANGE``)."""
    base_text = os.environ.get(PORT_BASE_ENV, "").strip()
    if not base_text:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])
    try:
        base = int(base_text)
    except ValueError:
        base = 0
    if not 1024 <= base <= 65535 - PORT_RANGE:
        raise DrillError(
            f"PORT_BASE={base_text!r}: a port from 1024 to {65535 - PORT_RANGE} is needed"
        )
    for port in range(base, base + PORT_RANGE):
        if port in _given:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _given.add(port)
        return port
    raise DrillError(f"no free port from {base} to {base + PORT_RANGE - 1} (PORT_BASE)")


def pg_bin(name: str) -> str:
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    if found:
        return str(found[-1])
    path = shutil.which(name)
    if path is None:
        raise DrillError(f"PostgreSQL's {name} is not installed (/usr/lib/postgresql/*/bin)")
    return path


class Cluster:
    """A PostgreSQL cluster in a temporary directory, on a free port, trust auth on
    127.0.0.1 only. As root it runs as the ``postgres`` user (initdb refuses root)."""

    def __init__(self, base: Path) -> None:
        self.dir = base / "pgdata"
        self.port = free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.log = base / "postgresql.log"

    def _run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.as_user, *argv], capture_output=True, text=True, timeout=120, check=False
        )

    def init(self) -> None:
        self.dir.mkdir(parents=True)
        if self.as_user:
            shutil.chown(self.dir, "postgres", "postgres")
            os.chmod(self.dir.parent, 0o755)
            self.log.touch()
            shutil.chown(self.log, "postgres", "postgres")
        done = self._run(pg_bin("initdb"), "-D", str(self.dir), "-A", "trust", "-U", "postgres")
        if done.returncode:
            raise DrillError(f"initdb failed: {done.stderr.strip()[-400:]}")

    def start(self) -> None:
        """Start the postmaster; after a SIGKILL its old backends may hold the shared
        memory a moment: the start is tried again until they are gone (at most 60 s)."""
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        deadline = time.monotonic() + 60
        while True:
            done = self._run(
                pg_bin("pg_ctl"), "-D", str(self.dir), "-o", options, "-l", str(self.log),
                "-w", "-t", "30", "start",
            )  # fmt: skip
            if done.returncode == 0:
                return
            if time.monotonic() > deadline:
                raise DrillError(f"PostgreSQL did not start: {done.stdout[-300:]}")
            time.sleep(0.5)

    def postmaster_pid(self) -> int:
        return int((self.dir / "postmaster.pid").read_text().split()[0])

    def kill(self) -> int:
        """SIGKILL the postmaster (only this cluster's); its pid."""
        pid = self.postmaster_pid()
        os.kill(pid, signal.SIGKILL)
        return pid

    def stop(self) -> None:
        if (self.dir / "postmaster.pid").exists():
            self._run(pg_bin("pg_ctl"), "-D", str(self.dir), "-m", "immediate", "stop")

    def url(self, database: str = "candidates", user: str = "candidates") -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}"
