"""The drill's hall: the machine's paths moved under a directory, and systemd played.

The runbook's commands name the hall's paths (``/etc/candidates``,
``/var/lib/candidates``, ``/dev/ttyDGT``...), its database host and the
gateways' ports; the hall runs them with the paths moved under the drill's
directory and the drill's own ports (``Hall.here``). ``systemctl`` is played: the
hall reads the unit files the runbook installs and runs their ``ExecStart``
(``%i`` filled in, ``Environment=`` honoured); ``postgresql`` is the drill's own
cluster (``deploy/cluster.py``). The drill runs everything as its own user;
``Hall(..., users=True)`` plays the hall's users instead (tests/test_runbook_whole.py):
each block as the user the runbook names, in a fresh machine's login shell, and each
unit as its ``User=`` with its groups and only its ``Environment=``, as systemd does.
"""

from __future__ import annotations

import grp
import os
import pwd
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from deploy.cluster import Cluster, free_port
from deploy.runbook import DrillError

ROOT = Path(__file__).resolve().parents[1]
HALL_USER = "candidates"
"""The system user (and group) the hall's units run as (docs/operations.md, "Install")."""
BIN = Path(sys.executable).parent
"""Where the program's commands are (``candidates``): this interpreter's."""


@dataclass
class Unit:
    name: str
    exec_start: str
    environment: dict[str, str]
    oneshot: bool
    user: str | None = None
    group: str | None = None
    supplementary_groups: tuple[str, ...] = ()
    working_directory: str | None = None


def read_unit(path: Path) -> Unit:
    text = path.read_text(encoding="utf-8")
    env: dict[str, str] = {}
    exec_start = ""
    oneshot = False
    said: dict[str, str] = {}
    groups: list[str] = []
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if not sep or key.startswith("#"):
            continue
        if key == "ExecStart":
            exec_start = value.strip()
        elif key == "Environment":
            name, _, val = value.strip().partition("=")
            env[name] = val
        elif key == "Type" and value.strip() == "oneshot":
            oneshot = True
        elif key == "SupplementaryGroups":
            groups += value.split()
        elif key in ("User", "Group", "WorkingDirectory"):
            said[key] = value.strip()
    return Unit(
        path.name,
        exec_start,
        env,
        oneshot,
        user=said.get("User"),
        group=said.get("Group"),
        supplementary_groups=tuple(groups),
        working_directory=said.get("WorkingDirectory"),
    )


SYSTEMD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
"""The ``PATH`` systemd gives a system unit that sets none, and Debian's root login."""


def as_unit_user(unit: Unit) -> tuple[list[str], dict[str, str]]:
    """How systemd starts ``unit`` as its ``User=``: the ``setpriv`` prefix (the user, its
    ``Group=`` or login group, its groups of /etc/group and ``SupplementaryGroups=``) and
    the environment systemd gives it before ``Environment=`` (``HOME``, ``USER``...)."""
    if unit.user is None:
        return [], {"PATH": SYSTEMD_PATH}
    try:
        entry = pwd.getpwnam(unit.user)
    except KeyError:
        raise DrillError(f"{unit.name}: User={unit.user} is not a user of this machine") from None
    try:
        gid = grp.getgrnam(unit.group).gr_gid if unit.group else entry.pw_gid
        groups = set(os.getgrouplist(unit.user, gid))
        groups |= {grp.getgrnam(name).gr_gid for name in unit.supplementary_groups}
    except KeyError as missing:
        raise DrillError(f"{unit.name}: no group {missing} on this machine") from None
    prefix = [
        "setpriv",
        f"--reuid={entry.pw_uid}",
        f"--regid={gid}",
        "--groups=" + ",".join(str(g) for g in sorted(groups)),
        "--",
    ]
    env = {
        "PATH": SYSTEMD_PATH,
        "HOME": entry.pw_dir,
        "USER": unit.user,
        "LOGNAME": unit.user,
        "SHELL": entry.pw_shell,
    }
    return prefix, env


class Hall:
    """The drill's hall: paths, ports, the database, the units it runs."""

    def __init__(self, base: Path, out: Callable[[str], None], *, users: bool = False) -> None:
        self.base = base
        self.out = out
        self.users = users
        """False (the drill): the machine's users are not the hall's, everything runs as
        this process's user. True (tests/test_runbook_whole.py): the runbook's lines run
        as written (``adduser`` makes the ``candidates`` user) and the units run as their
        ``User=``, as systemd runs them."""
        self.cluster = Cluster(base)
        self.ports = {"8765": free_port(), "8766": free_port()}
        self.logs = base / "journal"
        self.logs.mkdir()
        self.dev = base / "dev"
        self.dev.mkdir()
        self.moved = {
            "/opt/candidates": str(ROOT),
            "/etc/candidates": str(base / "etc" / "candidates"),
            "/etc/systemd/system": str(base / "etc" / "systemd" / "system"),
            "/var/backups/candidates": str(base / "backups"),
            "/var/lib/candidates": str(base / "lib"),
            "/etc/profile.d": str(base / "etc" / "profile.d"),
            "/usr/local/bin": str(base / "usr" / "local" / "bin"),
            "/dev/ttyDGT": str(self.dev / "ttyDGT"),
            "db.hall.lan:5432": f"127.0.0.1:{self.cluster.port}",
            "db.hall.lan": "127.0.0.1",
        }
        self.units_dir = base / "etc" / "systemd" / "system"
        for there in (self.units_dir, base / "etc" / "profile.d", base / "usr" / "local" / "bin"):
            there.mkdir(parents=True)  # there on every machine already
        self.units: dict[str, Unit] = {}
        self.running: dict[str, subprocess.Popen[bytes]] = {}
        self.timers: set[str] = set()
        self.ran: list[tuple[str, str]] = []
        """(block, command) of every runbook command run, in order."""

    # paths, ports and the environment of a technician's shell on the hall's machines
    def here(self, text: str) -> str:
        for old in sorted(self.moved, key=len, reverse=True):
            text = text.replace(old, self.moved[old])
        for old, new in self.ports.items():
            text = re.sub(rf"\b{old}\b", str(new), text)
        if re.search(r"\b5432\b", text):
            raise DrillError(f"a command would reach the machine's PostgreSQL: {text}")
        return text

    def as_hall_user(self, command: str) -> str:
        """``command`` as this machine runs it for the hall's ``candidates`` user: the
        machine's users are not the drill's, so (unless the hall plays its ``users``)
        the lines that make it (``adduser``, ``usermod``) are not run ("") and the files
        the runbook gives to it are the drill's own user's, whether or not the machine
        has a ``candidates`` user."""
        if self.users:
            return command
        if command.startswith(("adduser ", "usermod ")):
            return ""
        me, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
        command = re.sub(rf"-o {HALL_USER}\b", f"-o {me}", command)
        return re.sub(rf"-g {HALL_USER}\b", f"-g {group}", command)

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        """A technician's shell: the drill's (this process's environment, the program
        first on ``PATH``, ``CANDIDATES_CONFIG`` set) or, when the hall plays its users,
        a fresh machine's root login (Debian's ``PATH``; ``run_line`` reads
        ``/etc/profile.d``); both reach the hall's database (``PGHOST``, ``PGPORT``)."""
        if self.users:
            env = {
                "PATH": SYSTEMD_PATH.replace("/usr/local/bin", self.here("/usr/local/bin")),
                "HOME": "/root",
                "LANG": "C.UTF-8",
                "PGHOST": "127.0.0.1",
                "PGPORT": str(self.cluster.port),
            }
            env.update({key: self.here(value) for key, value in (extra or {}).items()})
            return env
        env = dict(os.environ)
        env.pop("CANDIDATES_STORE", None)
        env.update(
            PATH=f"{BIN}:{env.get('PATH', '/usr/bin:/bin')}",
            CANDIDATES_CONFIG=self.here("/etc/candidates/hall.toml"),
            PGHOST="127.0.0.1",
            PGPORT=str(self.cluster.port),
            PGUSER="postgres",
            PYTHONUNBUFFERED="1",
        )
        for key, value in (extra or {}).items():
            env[key] = self.here(value)
        return env

    # the runbook
    def run_block(
        self, name: str, blocks: dict[str, list[str]], user: str | None = None
    ) -> list[str]:
        """Run block ``name``; as ``user`` (``runuser``) when the hall plays its users
        and ``user`` is not this process's."""
        if name not in blocks:
            raise DrillError(f"docs/operations.md has no block <!-- drill: {name} -->")
        outputs = []
        for line in blocks[name]:
            self.ran.append((name, line))
            outputs.append(self.run_line(line, user))
        return outputs

    def run_line(self, line: str, user: str | None = None) -> str:
        command = self.as_hall_user(self.here(line))
        if not command:
            return ""
        if command.startswith("systemctl "):
            self.systemctl(shlex.split(command)[1:])
            return ""
        switch: list[str] = []
        if self.users:  # a login shell: /etc/profile reads /etc/profile.d/*.sh
            profile = self.here("/etc/profile.d")
            command = f'for f in {profile}/*.sh; do [ -r "$f" ] && . "$f"; done; {command}'
            if user and user != pwd.getpwuid(os.getuid()).pw_name:
                switch = ["runuser", "-u", user, "--"]
        done = subprocess.run(
            [*switch, "bash", "-o", "pipefail", "-c", command],
            cwd="/" if switch else ROOT,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if done.returncode:
            said = (done.stderr or done.stdout).strip()[-800:]
            raise DrillError(f"`{line}` failed ({done.returncode}): {said}")
        return done.stdout

    # systemctl
    def systemctl(self, argv: list[str]) -> None:
        verb, *names = [a for a in argv if a != "--now"]
        if verb == "daemon-reload":
            self.units = {p.name: read_unit(p) for p in self.units_dir.glob("candidates-*")}
            return
        for name in names:
            if name == "postgresql":
                if verb in ("start", "restart"):
                    self.cluster.start()
                continue
            if name.endswith(".timer"):
                self.timers.add(name)
                continue
            if verb in ("stop", "restart"):
                self.stop(name)
            if verb in ("start", "restart", "enable"):
                self.start(name)

    def unit_of(self, name: str) -> tuple[Unit, str]:
        unit_name = name if "." in name else f"{name}.service"
        base, at, instance = unit_name.partition("@")
        if at:
            instance, _, suffix = instance.partition(".")
            template = f"{base}@.{suffix}"
        else:
            template = unit_name
        unit = self.units.get(template)
        if unit is None:
            raise DrillError(f"no unit {template} in {self.units_dir} (systemctl daemon-reload?)")
        return unit, instance

    def start(self, name: str) -> None:
        unit, instance = self.unit_of(name)
        argv = shlex.split(self.here(unit.exec_start.replace("%i", instance)))
        env = self.env(unit.environment)
        cwd = self.base
        if self.users:  # as systemd: the unit's user and groups, its environment only
            prefix, env = as_unit_user(unit)
            argv = [*prefix, *argv]
            env["PATH"] = self.here(env["PATH"])
            env.update({key: self.here(value) for key, value in unit.environment.items()})
            env["PYTHONUNBUFFERED"] = "1"  # the journal's lines as they are said
            cwd = Path(self.here(unit.working_directory or "/"))
        if unit.oneshot:
            done = subprocess.run(
                argv, env=env, cwd=cwd, capture_output=True, text=True, check=False
            )
            (self.logs / f"{name}.log").write_text(done.stdout + done.stderr)
            if done.returncode:
                raise DrillError(f"{name} failed: {done.stderr.strip()[-400:]}")
            return
        if name in self.running and self.running[name].poll() is None:
            return
        with (self.logs / f"{name}.log").open("ab") as log:  # the unit's: the child's copy
            self.running[name] = subprocess.Popen(
                argv, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=cwd
            )

    def stop(self, name: str) -> None:
        proc = self.running.pop(name, None)
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)

    def kill(self, name: str) -> int:
        """SIGKILL a unit's process, as a crash would; its pid."""
        proc = self.running[name]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        return proc.pid

    def stop_all(self) -> None:
        for name in list(self.running):
            self.stop(name)

    def gateway_url(self, port: str, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.ports[port]}{path}"

    def ws_url(self, port: str) -> str:
        return f"ws://127.0.0.1:{self.ports[port]}/ws"
