"""The runbook run whole, each block as the user it names, the units as their ``User=``.

docs/operations.md from "Before the event" to the round, on this machine: the
``candidates`` system user and group made by the runbook's ``adduser`` line (and
removed at the end); every block run as the user its ``<!-- drill: NAME as USER -->``
line names (root as root; ``postgres`` and ``candidates`` through ``runuser``), each
line in a login shell of a fresh Debian machine (Debian's ``PATH``, then what
``/etc/profile.d/*.sh`` sets, nothing of this process's); ``systemctl`` played as
systemd runs the units of ``deploy/systemd``: as their ``User=`` (its login group,
its groups of /etc/group, ``SupplementaryGroups=``), with their ``Environment=`` only
and ``WorkingDirectory=`` (``/`` when none) (``deploy.hall.Hall`` with ``users=True``).
Root reads and writes whatever the modes say; the units do not, so a mode the runbook
gets wrong fails here. It runs on PostgreSQL, as the runbook's hall.toml says, and on
a SQLite store in the units' folder, whose files (``-wal``, ``-shm``, ``-commits``) a
command run as root would leave root's; on PostgreSQL it goes on with the blocks of
"When something fails" that need no failure first (a board reader and a gateway
restarted, a backup now, its restore). It checks that a board's move reaches both
gateways, that the backup is written by the ``candidates`` user, that nothing in the
units' folders is root's, that the units still run as that user and that no journal
holds a traceback.

Where this machine must differ from a hall:

- the hall's paths are moved under a temporary folder (``/etc/candidates``,
  ``/var/lib/candidates``, ``/var/backups/candidates``, ``/etc/systemd/system``,
  ``/etc/profile.d``, ``/usr/local/bin``), the adduser line's ``--home`` included;
- ``/opt/candidates`` is this checkout's files with a venv of Debian's
  ``/usr/bin/python3.11`` that reads this checkout's installed packages (this
  process's Python may lie where only root enters, as pyenv's under ``/root``), so
  the install block's ``make .venv/.installed`` finds it made;
- the gateways' ports are free ones, not 8765 and 8766;
- the database machine is a PostgreSQL cluster of the test's own (initdb as the
  ``postgres`` user, trust on 127.0.0.1, a free port: ``deploy/cluster.py``), never
  the machine's server; the shells reach it with ``PGHOST`` and ``PGPORT`` and the
  ``database`` block runs on it as ``postgres`` (the SQLite run has no database
  machine and does not run that block);
- the organiser's edits of the installed hall.toml are ``deploy.drill_round.edit_config``
  (the store's URL, the tokens, the boards' ports, a public delay of seconds);
- the boards are the simulator on pseudo-terminals (run as root, as a board is not a
  process of the hall), each given to ``root:dialout`` mode 660 as udev gives a USB
  serial port, so that only the ``dialout`` group opens it;
- the backup timer's first run is brought forward: the test starts
  ``candidates-backup.service`` once a move is stored, as the timer starts it;
- ``PYTHONUNBUFFERED=1`` is added to the units' environment so that their journals
  (a file per unit) are complete when they are read.
"""

from __future__ import annotations

import fcntl
import grp
import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from deploy import cluster
from deploy.clients import ArbiterDesk, FeedClient, Seen
from deploy.drill_round import BOARDS, DRILL_TOKENS, ROUND, edit_config, round_games
from deploy.hall import BIN, HALL_USER, Hall
from deploy.organisers_list import write_london_2013
from deploy.runbook import STEPS, DrillError, block_users, runbook_blocks
from tests.unprivileged import is_root, shared_dir

PREFIX = "runbook-whole-"
"""The temporary folder's prefix: a ``candidates`` user whose home is under such a
folder was made by a run of this test that did not end (and is removed)."""
ROUND_STEPS = STEPS[: STEPS.index("during-play") + 1]
"""The runbook's blocks from "Before the event" to the round, in its order."""
ROOT = Path(__file__).resolve().parents[1]
SYSTEM_PYTHON = "/usr/bin/python3.11"
"""The distribution's Python 3.11 (Debian's), which every user may run."""
PLIES = 10
"""Each board's game cut to its first plies: a move or two is what the test needs."""


def _why_not() -> str | None:
    if not is_root():
        return "the runbook's setup is root's (adduser, install -o): run as root"
    if not os.access(SYSTEM_PYTHON, os.X_OK) or sys.version_info[:2] != (3, 11):
        return f"the units run this checkout's packages with {SYSTEM_PYTHON}: not here"
    for tool in ("setpriv", "runuser", "adduser", "usermod", "userdel", "groupdel"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    try:
        cluster.pg_bin("initdb")
        cluster.pg_bin("pg_ctl")
        pwd.getpwnam("postgres")
        grp.getgrnam("dialout")
    except (DrillError, KeyError) as missing:
        return f"the database machine's part cannot run here: {missing}"
    return None


needs_root = pytest.mark.skipif(_why_not() is not None, reason=str(_why_not()))


def _user_home(name: str) -> str | None:
    try:
        return pwd.getpwnam(name).pw_dir
    except KeyError:
        return None


def _remove_hall_user() -> None:
    subprocess.run(["userdel", HALL_USER], capture_output=True, check=False)
    try:
        grp.getgrnam(HALL_USER)
    except KeyError:
        return
    subprocess.run(["groupdel", HALL_USER], capture_output=True, check=False)


@pytest.fixture
def hall() -> Iterator[Hall]:
    """A hall whose users are this machine's; one run at a time (the user is the
    machine's), the user removed after."""
    with open(Path(tempfile.gettempdir()) / "candidates-runbook-whole.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        home = _user_home(HALL_USER)
        if home is not None and Path(home).parent.name.startswith(PREFIX):
            _remove_hall_user()  # left by a run of this test that did not end
        elif home is not None:
            pytest.skip(f"this machine has a {HALL_USER} user of its own ({home})")
        base = shared_dir(PREFIX)
        made = Hall(base, lambda _: None, users=True)
        made.moved["/opt/candidates"] = str(checkout(base))
        try:
            yield made
        finally:
            made.stop_all()
            made.cluster.stop()
            _remove_hall_user()
            shutil.rmtree(base, ignore_errors=True)


def checkout(base: Path) -> Path:
    """``/opt/candidates`` for the hall's users: this checkout's files, and a venv of the
    distribution's Python (this process's may lie where only root enters) that reads
    this checkout's installed packages and runs the same ``candidates``."""
    opt = base / "opt" / "candidates"
    opt.mkdir(parents=True)
    for entry in ROOT.iterdir():
        if entry.name != ".venv":
            (opt / entry.name).symlink_to(entry)
    venv = opt / ".venv"
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    ours = Path(sysconfig.get_paths()["purelib"])
    (venv / "lib" / "python3.11" / "site-packages" / "checkout.pth").write_text(
        f"import site; site.addsitedir({str(ours)!r})\n", encoding="utf-8"
    )
    script = (BIN / "candidates").read_text(encoding="utf-8").split("\n", 1)[1]
    (venv / "bin" / "candidates").write_text(f"#!{venv}/bin/python\n{script}", encoding="utf-8")
    (venv / "bin" / "candidates").chmod(0o755)
    (venv / ".installed").touch()  # `make .venv/.installed` of the install block: done
    return opt


def start_boards(hall: Hall) -> list[subprocess.Popen[bytes]]:
    """The round's boards on pseudo-terminals, each at the path hall.toml names, given
    to the ``dialout`` group as udev gives a USB serial port."""
    folder = hall.base / "boards"
    folder.mkdir()
    games = round_games(PLIES)
    sims = []
    for board in BOARDS:
        pgn = folder / f"{ROUND}.{board}.pgn"
        pgn.write_text(str(games[f"{ROUND}.{board}"]) + "\n", encoding="utf-8")
        with (folder / f"board-{board}.log").open("ab") as log:
            sims.append(
                subprocess.Popen(
                    [
                        str(BIN / "candidates"), "dgt", "simulate", "--pgn", str(pgn),
                        "--serial", f"{20130 + int(board)}", "--seed", str(2013 + int(board)),
                        "--pty", str(hall.dev / f"ttyDGT{board}"),
                        "--no-transients", "--stay-on",
                    ],
                    stdout=log, stderr=subprocess.STDOUT, env=hall.env(),
                )
            )  # fmt: skip
    links = [hall.dev / f"ttyDGT{board}" for board in BOARDS]
    wait_for("the boards' pseudo-terminals", lambda: all(link.exists() for link in links))
    dialout = grp.getgrnam("dialout").gr_gid
    for link in links:
        device = os.path.realpath(link)
        os.chown(device, 0, dialout)
        os.chmod(device, 0o660)
    return sims


def wait_for(what: str, done: Callable[[], bool], timeout_s: float = 120) -> None:
    """Wait until ``done()``, bounded: the machine's speed decides how long, not a sleep."""
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def uid_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return int(line.split()[1])
    raise AssertionError(f"no Uid in /proc/{pid}/status")


def test_every_block_of_the_runbook_names_its_user() -> None:
    """Who runs each block is said where it is (``<!-- drill: NAME as USER -->``): root,
    the database machine's ``postgres`` or the units' ``candidates``."""
    users = block_users()
    assert set(users) == set(runbook_blocks()) and set(ROUND_STEPS) <= set(users)
    assert all(user in ("root", "postgres", HALL_USER) for user in users.values()), users


@needs_root
@pytest.mark.parametrize("store", ["postgresql", "sqlite"])
def test_the_runbook_runs_as_the_users_it_names_up_to_a_round(hall: Hall, store: str) -> None:
    """On the runbook's PostgreSQL, and on a SQLite store in the units' folder (a hall of
    one machine), whose files every process of the store must be able to write."""
    blocks, users = runbook_blocks(), block_users()

    def step(name: str) -> list[str]:
        return hall.run_block(name, blocks, users[name])

    clients: list[FeedClient] = []
    sims: list[subprocess.Popen[bytes]] = []
    try:
        step("install")
        unit_uid = pwd.getpwnam(HALL_USER).pw_uid
        assert grp.getgrnam(HALL_USER).gr_gid == pwd.getpwnam(HALL_USER).pw_gid
        assert HALL_USER in grp.getgrnam("dialout").gr_mem
        if store == "postgresql":
            hall.cluster.init()
            hall.cluster.start()
            step("database")
            url = hall.cluster.url()
        else:  # no database machine: the store is a file of the units' folder
            url = hall.here("/var/lib/candidates/candidates.sqlite")
        step("configure")
        edit_config(hall, url)
        step("check-config")
        write_london_2013(Path(hall.here("/etc/candidates/players.csv")))
        step("founding")
        pairings = step("tournament")[-1]
        assert f"{ROUND}.1" in pairings, pairings
        step("units")
        step("start-gateways")

        # the desk on one gateway, the commentary studio on the other
        desk = ArbiterDesk(Seen("desk", "deltas"), [hall.ws_url("8765")], DRILL_TOKENS["arbiter"])
        studio = FeedClient(
            Seen("studio", "deltas"), [hall.ws_url("8766")], DRILL_TOKENS["commentator"]
        )
        # a viewer of the public feed, which the broadcast's PGN is: the drill's delay late
        public = FeedClient(
            Seen("public", "deltas"), [hall.ws_url("8765"), hall.ws_url("8766")], None
        )
        clients += [desk, studio, public]
        for client in clients:
            client.start()
            assert client.connected.wait(30), f"{client.name} could not connect"
        for board in BOARDS:
            desk.command({"cmd": "start_game", "game": f"{ROUND}.{board}"})
        sims = start_boards(hall)
        step("start-boards")
        step("backup-timer")
        first = f"{ROUND}.1"
        wait_for(
            "a move of the boards at both gateways, and in the public feed after its delay",
            lambda: all(c.seen.moves.get(first) for c in clients),
        )
        game, pgn = step("during-play")
        assert "[Round " in pgn and game.strip(), (game, pgn)
        hall.start("candidates-backup.service")  # what the timer starts
        if store == "postgresql":  # a failure's blocks that need no failure first
            for name in (
                "board-reader-died",
                "gateway-died",
                "backup-now",
                "restore-database",
                "restore",
            ):
                step(name)

        # who wrote what: the units as their user, nothing of root's in their folders
        for name, proc in hall.running.items():
            assert proc.poll() is None, f"{name} ended: {read_journal(hall, name)}"
            assert uid_of(proc.pid) == unit_uid, name
        backups = Path(hall.here("/var/backups/candidates"))
        latest = backups / "latest.msgpack"
        assert latest.resolve().is_file() and latest.resolve().stat().st_uid == unit_uid
        recordings = Path(hall.here("/var/lib/candidates/dgt"))
        assert any(recordings.glob("*.dgt")), sorted(recordings.iterdir())
        if store == "sqlite":
            assert Path(url).stat().st_uid == unit_uid
        for folder in (Path(hall.here("/var/lib/candidates")), backups):
            for path in [folder, *folder.rglob("*")]:
                assert path.lstat().st_uid == unit_uid, f"{path} is not {HALL_USER}'s"
        for journal in sorted(hall.logs.iterdir()):
            text = journal.read_text(encoding="utf-8", errors="replace")
            assert "Traceback" not in text, f"{journal.name}:\n{text[-3000:]}"
    finally:
        for client in clients:
            client.stop.set()
        for sim in sims:
            sim.kill()
            sim.wait(10)


def read_journal(hall: Hall, name: str) -> str:
    path = hall.logs / f"{name}.log"
    return path.read_text(encoding="utf-8", errors="replace")[-2000:] if path.exists() else ""
