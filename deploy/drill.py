"""The event-day drill: docs/operations.md run on this machine, with things broken on purpose.

``make drill`` (``python deploy/drill.py``) sets up a hall as the runbook says and
plays a round of London 2013 through it: a PostgreSQL cluster of its own (initdb
into a temporary directory, on a free port: the machine's server on 5432 is never
touched), two gateways and two board readers started from the unit files of
``deploy/systemd/`` with the hall's one configuration, four simulated DGT boards
playing the round's real games on pseudo-terminals through the real serial
stack, the arbiters acting through the desk's websocket channel, two
commentators, a public client and a broadcast poller on ``/pgn/round/N.pgn``.
Mid-round it kills (SIGKILL) a board reader, a gateway and the database's
postmaster, restarting each as the runbook says; it takes a backup, restores it
and audits it; after the round it loses the machine (restores the backup into a
fresh store and re-enters what the score sheets show since). Then it prints
what every client saw against the store (moves lost, doubled, out of order, the
longest gap) and the audits, and exits 1 unless every count is 0 and every
audit passes.

The commands it runs are the runbook's: every ``sh`` block of docs/operations.md
carries a ``<!-- drill: NAME -->`` line and the drill runs the blocks by name,
with the hall's paths moved under a temporary directory (``/etc/candidates`` ->
``TMP/etc/candidates`` ...), the database's host and port and the gateways'
ports replaced by the drill's. ``systemctl`` is played by the drill: it reads
the unit files the runbook installs and runs their ``ExecStart`` (``%i`` filled
in, ``Environment=`` honoured); ``postgresql`` is the drill's own cluster.

``--short``: fewer moves (the test of ``make test``), every step and every kill.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import os
import queue
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.pgn
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # tools/ (the sample's sources) is not installed
RUNBOOK = ROOT / "docs" / "operations.md"
UNITS = ROOT / "deploy" / "systemd"
TEMPLATE = ROOT / "deploy" / "hall.toml"
PGN = ROOT / "replay_logs" / "sources" / "candidates-2013.pgn"
BIN = Path(sys.executable).parent
ROUND = 2
BOARDS = ("1", "2", "3", "4")
GROUPS = {"a": ("1", "2"), "b": ("3", "4")}
DRILL_TOKENS = {
    "arbiter": "drill-chief-token-0001",
    "commentator": "drill-studio-token-0002",
}
PUBLIC_DELAY_S = 4
TIME_SCALE = 2.5
"""The boards' pace: a ply about every 4 s on each board (the simulator's hands and
thinking, 2.5 times its default; no transient pauses: the drill is about the hall's
processes, tests/test_dgt_*.py about the boards' noise). Real players take minutes
a move; a board reader restarted in a few seconds must find its boards at most a
few plies on, as in a hall (the reconstructor reconciles up to four plies from the
board's dump, docs/dgt.md; more is the arbiters' to enter from the score sheets)."""
STEPS = (
    "install",
    "database",
    "configure",
    "check-config",
    "tournament",
    "units",
    "start-gateways",
    "start-boards",
    "backup-timer",
    "during-play",
    "board-reader-died",
    "gateway-died",
    "database-restarted",
    "backup-now",
    "restore",
    "machine-lost",
)
"""The runbook's blocks, in the order the drill runs them (tests/test_operations.py
checks that every ``sh`` block of docs/operations.md is one of these)."""


class DrillError(Exception):
    """A step of the drill could not be carried out (not a finding: a failure to run)."""


# --- the runbook --------------------------------------------------------------------


def runbook_blocks(text: str | None = None) -> dict[str, list[str]]:
    """Name -> the command lines of each ``<!-- drill: NAME -->`` block (``\\``
    continuations joined, comments and blank lines dropped)."""
    text = RUNBOOK.read_text(encoding="utf-8") if text is None else text
    blocks: dict[str, list[str]] = {}
    for name, body in re.findall(r"<!-- drill: ([\w-]+) -->\s*\n```sh\n(.*?)```", text, re.S):
        blocks[name] = command_lines(body)
    return blocks


def sh_blocks(text: str | None = None) -> list[str]:
    """The body of every ``sh`` code block of the runbook, tagged or not."""
    text = RUNBOOK.read_text(encoding="utf-8") if text is None else text
    return re.findall(r"```sh\n(.*?)```", text, re.S)


def command_lines(body: str) -> list[str]:
    lines: list[str] = []
    pending = ""
    for raw in body.splitlines():
        line = raw.rstrip()
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        lines.append((pending + line.strip()).strip())
        pending = ""
    if pending:
        lines.append(pending.strip())
    return lines


# --- the database: a cluster of the drill's own -------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


# --- systemd, played by the drill ---------------------------------------------------


@dataclass
class Unit:
    name: str
    exec_start: str
    environment: dict[str, str]
    oneshot: bool


def read_unit(path: Path) -> Unit:
    text = path.read_text(encoding="utf-8")
    env: dict[str, str] = {}
    exec_start = ""
    oneshot = False
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if not sep:
            continue
        if key == "ExecStart":
            exec_start = value.strip()
        elif key == "Environment":
            name, _, val = value.strip().partition("=")
            env[name] = val
        elif key == "Type" and value.strip() == "oneshot":
            oneshot = True
    return Unit(path.name, exec_start, env, oneshot)


class Hall:
    """The drill's hall: paths, ports, the database, the units it runs."""

    def __init__(self, base: Path, out: Callable[[str], None]) -> None:
        self.base = base
        self.out = out
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
            "/dev/ttyDGT": str(self.dev / "ttyDGT"),
            "db.hall.lan:5432": f"127.0.0.1:{self.cluster.port}",
            "db.hall.lan": "127.0.0.1",
        }
        self.units_dir = base / "etc" / "systemd" / "system"
        self.units_dir.mkdir(parents=True)  # there on every machine already
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

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
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
    def run_block(self, name: str, blocks: dict[str, list[str]]) -> list[str]:
        if name not in blocks:
            raise DrillError(f"docs/operations.md has no block <!-- drill: {name} -->")
        outputs = []
        for line in blocks[name]:
            self.ran.append((name, line))
            outputs.append(self.run_line(line))
        return outputs

    def run_line(self, line: str) -> str:
        command = self.here(line)
        if command.startswith("systemctl "):
            self.systemctl(shlex.split(command)[1:])
            return ""
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command],
            cwd=ROOT,
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
        if unit.oneshot:
            done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
            (self.logs / f"{name}.log").write_text(done.stdout + done.stderr)
            if done.returncode:
                raise DrillError(f"{name} failed: {done.stderr.strip()[-400:]}")
            return
        if name in self.running and self.running[name].poll() is None:
            return
        log = (self.logs / f"{name}.log").open("ab")
        self.running[name] = subprocess.Popen(
            argv, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=self.base
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


# --- the hall's configuration, as the organiser edits it ------------------------------


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


def write_toml(path: Path, data: dict[str, Any]) -> None:
    lines: list[str] = []
    tables: list[tuple[str, dict[str, Any]]] = []

    def emit(prefix: str, table: dict[str, Any]) -> None:
        subtables = []
        for key, value in table.items():
            if isinstance(value, dict) and (
                all(isinstance(v, dict) for v in value.values())
                or (prefix == "" and key in ("gateway", "dgt", "tokens"))
            ):
                subtables.append((key, value))
            else:
                name = json.dumps(key) if not re.fullmatch(r"[\w-]+", key) else key
                lines.append(f"{name} = {toml_value(value)}")
        for key, value in subtables:
            tables.append((f"{prefix}{key}", value))

    emit("", data)
    while tables:
        name, table = tables.pop(0)
        lines.append(f"\n[{name}]")
        if name == "tokens":
            for token, spec in table.items():
                lines.append(f"{json.dumps(token)} = {toml_value(spec)}")
            continue
        emit(f"{name}.", table)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def edit_config(hall: Hall, cluster_url: str) -> None:
    """What the organiser changes in the installed hall.toml: the store, the tokens, the
    boards' ports, and (for the drill) a public delay of seconds instead of minutes."""
    import tomllib

    path = Path(hall.here("/etc/candidates/hall.toml"))
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    data["store"] = cluster_url
    data["public_delay_s"] = PUBLIC_DELAY_S
    data["tokens"] = {
        DRILL_TOKENS["arbiter"]: {"role": "arbiter", "name": "Chief Arbiter", "arbiter": "chief"},
        DRILL_TOKENS["commentator"]: {"role": "commentator", "name": "Commentary studio"},
    }
    data["dgt"]["groups"] = {
        group: {"boards": [f"/dev/ttyDGT{b}={ROUND}.{b}" for b in boards]}
        for group, boards in GROUPS.items()
    }
    write_toml(path, data)
    # the text of the file is the hall's: its paths are the drill's directories
    path.write_text(hall.here(path.read_text(encoding="utf-8")), encoding="utf-8")


def founding_commands() -> list[dict[str, Any]]:
    """The organiser's founding commands for London 2013 (the real drawing of lots, the
    rounds' order and the boards as published: tools/sample.py derives them)."""
    from tools import sample

    games = sample.source_games()
    lots = sample.drawing_of_lots(games)
    commands: list[dict[str, Any]] = [sample._create()]
    commands.append({"cmd": "draw_lots", "tournament": sample.TOURNAMENT, "numbers": lots.numbers})
    if lots.round_order != tuple(range(1, len(lots.round_order) + 1)):
        commands.append(
            {
                "cmd": "reorder_rounds",
                "tournament": sample.TOURNAMENT,
                "order": list(lots.round_order),
                "reason": "the playing schedule of London 2013 (3.2)",
            }
        )
    from adapters.store import Store

    with tempfile.TemporaryDirectory() as tmp, Store(str(Path(tmp) / "s.sqlite")) as store:
        for command in commands:
            answer = store.handle({**command, "by": "organiser"})
            if not answer["ok"]:
                raise DrillError(f"founding command refused: {answer['error']}")
        tournament = store.tournament()
        assert tournament is not None
        boards = sample.published_boards(games, tournament.pairings())
    if boards:
        commands.append(
            {
                "cmd": "renumber_boards",
                "tournament": sample.TOURNAMENT,
                "boards": {r: list(order) for r, order in boards.items()},
                "reason": "the boards of each round as London 2013 published them",
            }
        )
    return [{**c, "by": "organiser"} for c in commands]


def round_games(plies: int | None) -> dict[str, chess.pgn.Game]:
    """The round's real games by id (``2.1`` ...), cut to ``plies`` when given."""
    out: dict[str, chess.pgn.Game] = {}
    with PGN.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            if game.headers["Round"].split(".")[0] != str(ROUND):
                continue
            if plies is not None:
                node = game
                for _ in range(plies):
                    if not node.variations:
                        break
                    node = node.variations[0]
                node.variations = []
                game.headers["Result"] = "*"
            out[game.headers["Round"]] = game
    return out


# --- the clients ---------------------------------------------------------------------


def now_iso() -> str:
    from engine.timefmt import format_instant

    return format_instant(time.time_ns() // 1_000_000)


@dataclass
class Seen:
    """What one client saw: per game, the moves in order, and when each move arrived."""

    name: str
    kind: str  # deltas | views
    moves: dict[str, list[str]] = field(default_factory=dict)
    doubled: int = 0
    out_of_order: int = 0
    arrivals: list[float] = field(default_factory=list)
    failovers: int = 0
    resumed: int = 0
    snapshots: int = 0
    seqs: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def delta(self, game: str, ply: int, uci: str, seq: int) -> None:
        with self.lock:
            line = self.moves.setdefault(game, [])
            if seq in self.seqs[-4000:] or (ply <= len(line) and line[ply - 1] == uci):
                self.doubled += 1
                return
            if ply != len(line) + 1:
                self.out_of_order += 1
                del line[ply - 1 :]
            line.append(uci)
            self.seqs.append(seq)
            self.arrivals.append(time.monotonic())

    def view(self, game: str, moves: list[str]) -> None:
        """A whole game as a snapshot, an object or a PGN shows it: it must extend what
        was seen before (a move changed or gone is out of order; more moves than the
        record holds would be doubled, counted at the end)."""
        with self.lock:
            line = self.moves.get(game, [])
            if moves[: len(line)] != line:
                self.out_of_order += 1
            if len(moves) > len(line):
                self.arrivals.extend([time.monotonic()] * (len(moves) - len(line)))
            if len(moves) >= len(line) or moves[: len(line)] != line:
                self.moves[game] = list(moves)


class FeedClient(threading.Thread):
    """A websocket client of the live feed (a token) or the public one; on a lost
    connection it subscribes on the other gateway with ``since``."""

    def __init__(self, seen: Seen, urls: list[str], token: str | None) -> None:
        super().__init__(daemon=True, name=seen.name)
        self.seen = seen
        self.urls = urls
        self.token = token
        self.stop = threading.Event()
        self.last_seq: int | None = None
        self.connected = threading.Event()
        self.ws: Any = None

    def subscribe_frame(self) -> dict[str, Any]:
        frame: dict[str, Any] = {"op": "subscribe", "games": "*"}
        if self.token:
            frame["token"] = self.token
        if self.last_seq is not None:
            frame["since"] = self.last_seq
        return frame

    def run(self) -> None:
        turn = 0
        while not self.stop.is_set():
            url = self.urls[turn % len(self.urls)]
            try:
                with connect(url, subprotocols=["json"], open_timeout=3) as ws:  # type: ignore[list-item]
                    self.ws = ws
                    ws.send(json.dumps(self.subscribe_frame()))
                    self.connected.set()
                    self.on_connected(ws)
                    while not self.stop.is_set():
                        try:
                            message = ws.recv(timeout=0.5)
                        except TimeoutError:
                            continue
                        data = json.loads(message)
                        for frame in data if isinstance(data, list) else [data]:
                            self.take(frame)
            except Exception:
                if self.stop.is_set():
                    return
                self.seen.failovers += 1
                turn += 1
                time.sleep(0.2)

    def on_connected(self, ws: Any) -> None:
        pass

    def take(self, frame: dict[str, Any]) -> None:
        op = frame.get("op")
        if op == "subscribed" and frame.get("resumed"):
            self.seen.resumed += 1
        if op == "snapshot":
            self.seen.snapshots += 1
            for game in frame.get("games") or []:
                self.seen.view(game["game"], list(game.get("uci") or []))
        elif op == "delta":
            if self.seen.kind == "deltas" and frame.get("kind") == "MovePlayed":
                event = frame["event"]
                self.seen.delta(frame["game"], int(event["ply"]), event["uci"], frame["seq"])
            elif self.seen.kind == "views" and frame.get("object"):
                obj = frame["object"]
                self.seen.view(obj["game"], list(obj.get("uci") or []))
        if op in ("snapshot", "delta") and isinstance(frame.get("seq"), int):
            self.last_seq = max(self.last_seq or 0, frame["seq"])


class ArbiterDesk(FeedClient):
    """The arbiters' desk: commands over the websocket, each with a ``command_id``;
    those unanswered when the connection went are sent again on the next."""

    def __init__(self, seen: Seen, urls: list[str], token: str) -> None:
        super().__init__(seen, urls, token)
        self.pending: dict[str, dict[str, Any]] = {}
        self.answers: dict[str, dict[str, Any]] = {}
        self.sent: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.answered = threading.Condition(self.lock)
        self.counter = 0
        self.lost_boards: queue.Queue[dict[str, Any]] = queue.Queue()
        """``impossible_position`` alerts as the desk shows them."""

    def on_connected(self, ws: Any) -> None:
        with self.lock:
            for fid, command in self.pending.items():
                ws.send(json.dumps({"op": "command", "id": fid, "command": command}))

    def take(self, frame: dict[str, Any]) -> None:
        if frame.get("op") == "alert" and frame.get("kind") == "impossible_position":
            self.lost_boards.put(frame)
            return
        if frame.get("op") == "result":
            with self.answered:
                fid = frame.get("id")
                if fid in self.pending:
                    self.pending.pop(fid)
                    self.answers[fid] = frame
                    self.answered.notify_all()
            return
        super().take(frame)

    def command(self, command: dict[str, Any], timeout_s: float = 60) -> dict[str, Any]:
        with self.lock:
            self.counter += 1
            fid = f"desk-{self.counter}"
            command = {"at": now_iso(), **command, "command_id": f"drill-{fid}-{time.time_ns()}"}
            self.pending[fid] = command
            self.sent.append(command)
        deadline = time.monotonic() + timeout_s
        with contextlib.suppress(Exception):
            self.ws.send(json.dumps({"op": "command", "id": fid, "command": command}))
        with self.answered:
            while fid not in self.answers:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DrillError(f"the desk got no answer to {command['cmd']}")
                self.answered.wait(min(left, 1.0))
                if fid not in self.answers and self.ws is not None:
                    pass
            answer = self.answers[fid]
        if not answer.get("ok"):
            raise DrillError(f"the desk's {command['cmd']} was refused: {answer.get('error')}")
        return answer


class ScoreSheets(threading.Thread):
    """The arbiters at the desk: a board shown lost (``impossible_position``: more plies
    were played while its reader was down than its dump reconciles) gets the moves of
    the score sheet entered up to the position the board shows (docs/operations.md,
    "A board reader dies"); the board is then followed from the record."""

    def __init__(self, desk: ArbiterDesk, games: dict[str, chess.pgn.Game]) -> None:
        super().__init__(daemon=True, name="score sheets")
        self.desk = desk
        self.games = games
        self.stop = threading.Event()
        self.entered = 0

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                alert = self.desk.lost_boards.get(timeout=0.5)
            except queue.Empty:
                continue
            with contextlib.suppress(DrillError):
                self.enter(alert)

    def enter(self, alert: dict[str, Any]) -> None:
        game_id = str(alert.get("game"))
        shown = (alert.get("details") or {}).get("board_fen")
        game = self.games.get(game_id)
        if game is None or not shown:
            return
        board = game.board()
        sheet: list[tuple[int, str]] = []
        target = 0
        for ply, move in enumerate(game.mainline_moves(), start=1):
            sheet.append((ply, board.san(move)))
            board.push(move)
            if board.board_fen() == shown:
                target = ply
        with self.desk.seen.lock:
            recorded = len(self.desk.seen.moves.get(game_id, []))
        for ply, san in sheet[recorded:target]:
            self.desk.command(
                {"cmd": "play_move", "game": game_id, "move": san, "ply": ply, "by": "chief"}
            )
            self.entered += 1


class PgnPoller(threading.Thread):
    """A broadcast platform polling ``/pgn/round/N.pgn`` with ``If-None-Match`` every
    half second; a gateway that does not answer is left for the other."""

    def __init__(self, seen: Seen, urls: list[str]) -> None:
        super().__init__(daemon=True, name=seen.name)
        self.seen = seen
        self.urls = urls
        self.stop = threading.Event()
        self.polls = 0
        self.not_modified = 0

    def run(self) -> None:
        turn = 0
        etag: str | None = None
        while not self.stop.is_set():
            request = urllib.request.Request(self.urls[turn % len(self.urls)])
            if etag:
                request.add_header("If-None-Match", etag)
            try:
                with urllib.request.urlopen(request, timeout=3) as response:
                    etag = response.headers.get("ETag")
                    self.take(response.read().decode("utf-8"))
                self.polls += 1
            except urllib.error.HTTPError as error:
                if error.code == 304:
                    self.polls += 1
                    self.not_modified += 1
                else:
                    turn, etag = turn + 1, None
                    self.seen.failovers += 1
            except (OSError, urllib.error.URLError):
                turn, etag = turn + 1, None
                self.seen.failovers += 1
            self.stop.wait(0.5)

    def take(self, text: str) -> None:
        handle = io.StringIO(text)
        while (game := chess.pgn.read_game(handle)) is not None:
            board = game.headers.get("Board")
            if board:
                self.seen.view(f"{ROUND}.{board}", [m.uci() for m in game.mainline_moves()])


# --- the drill --------------------------------------------------------------------------


@dataclass
class Figures:
    rows: list[dict[str, Any]]
    audits: dict[str, tuple[bool, str]]
    events: dict[str, Any]


def store_moves(url: str) -> tuple[dict[str, list[str]], dict[int, tuple[str, int]], int]:
    """Per game the stored moves; per MovePlayed its seq -> (game, ply); the last seq."""
    from adapters.store import Store
    from engine.events import MovePlayed

    with Store(url) as store:
        games = {g: list(store.game(g).moves) for g in store.game_ids() if store.game(g)}  # type: ignore[union-attr]
        seqs = {
            seq: (event.originator_id.removeprefix("game/"), event.ply)
            for seq, event in store.events_since(0)
            if isinstance(event, MovePlayed)
        }
        return games, seqs, store.last_seq()


def judge(seen: Seen, games: dict[str, list[str]], play: tuple[float, float]) -> dict[str, Any]:
    lost = doubled = 0
    for game, moves in games.items():
        line = seen.moves.get(game, [])
        lost += sum(1 for i, m in enumerate(moves) if i >= len(line) or line[i] != m)
        doubled += max(0, len(line) - len(moves))
    arrivals = sorted(t for t in seen.arrivals if play[0] <= t <= play[1])
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    return {
        "client": seen.name,
        "moves": sum(len(v) for v in seen.moves.values()),
        "lost": lost,
        "doubled": doubled + seen.doubled,
        "out_of_order": seen.out_of_order,
        "gap_s": max(gaps, default=0.0),
        "failovers": seen.failovers,
        "resumed": seen.resumed,
    }


class Drill:
    def __init__(self, short: bool, keep: bool, out: Callable[[str], None] = print) -> None:
        self.short = short
        self.keep = keep
        self.out = out
        self.plies = 24 if short else None
        self.tmp = Path(tempfile.mkdtemp(prefix="candidates-drill-"))
        os.chmod(self.tmp, 0o755)
        self.hall = Hall(self.tmp, out)
        self.blocks = runbook_blocks()
        self.sims: dict[str, subprocess.Popen[bytes]] = {}
        self.clients: list[FeedClient] = []
        self.events: dict[str, Any] = {}
        self.started = time.monotonic()
        self.summary: dict[str, Any] = {}

    def say(self, text: str) -> None:
        self.out(f"[{time.monotonic() - self.started:6.1f}s] {text}")

    def step(self, name: str) -> list[str]:
        self.say(f"runbook: {name}")
        return self.hall.run_block(name, self.blocks)

    @property
    def url(self) -> str:
        return self.hall.cluster.url()

    def ply_count(self) -> int:
        games, _, _ = store_moves(self.url)
        return sum(len(m) for m in games.values())

    def wait_for(self, what: str, done: Callable[[], bool], timeout_s: float = 300) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if done():
                    return
            except Exception:
                pass
            if time.monotonic() > deadline:
                try:
                    state = {g: len(m) for g, m in store_moves(self.url)[0].items()}
                except Exception as exc:
                    state = {"store": repr(exc)}
                raise DrillError(f"timed out waiting for {what} (plies stored: {state})")
            time.sleep(0.3)

    def gateway_up(self, port: str) -> bool:
        try:
            with urllib.request.urlopen(self.hall.gateway_url(port, "/status"), timeout=2):
                return True
        except OSError:
            return False

    def run(self) -> int:
        try:
            return self._run()
        finally:
            for client in self.clients:
                client.stop.set()
            for sim in self.sims.values():
                if sim.poll() is None:
                    sim.kill()
            self.hall.stop_all()
            self.hall.cluster.stop()
            if self.keep:
                self.out(f"kept: {self.tmp}")
            else:
                shutil.rmtree(self.tmp, ignore_errors=True)

    def _run(self) -> int:
        hall = self.hall
        games = round_games(self.plies)
        total_plies = sum(len(list(g.mainline_moves())) for g in games.values())
        self.say(f"round {ROUND}: {len(games)} boards, {total_plies} plies; directory {self.tmp}")
        self.step("install")
        hall.cluster.init()
        hall.cluster.start()
        self.say(f"PostgreSQL of the drill on 127.0.0.1:{hall.cluster.port} ({hall.cluster.dir})")
        self.step("database")
        self.step("configure")
        edit_config(hall, self.url)
        self.step("check-config")
        founding = Path(hall.here("/etc/candidates/london-2013.jsonl"))
        founding.write_text("".join(json.dumps(c) + "\n" for c in founding_commands()))
        self.step("tournament")
        self.step("units")
        self.step("start-gateways")

        # the clients: two commentators, the public, the desk, a broadcast
        a, b = hall.ws_url("8765"), hall.ws_url("8766")
        seen = {
            "commentator@A": Seen("commentator@A", "deltas"),
            "commentator@B": Seen("commentator@B", "deltas"),
            "public@A": Seen("public@A", "views"),
            "desk@A": Seen("desk@A", "deltas"),
            "broadcast PGN": Seen("broadcast PGN", "views"),
        }
        token = DRILL_TOKENS["commentator"]
        self.clients = [
            FeedClient(seen["commentator@A"], [a, b], token),
            FeedClient(seen["commentator@B"], [b, a], token),
            FeedClient(seen["public@A"], [a, b], None),
        ]
        desk = ArbiterDesk(seen["desk@A"], [a, b], DRILL_TOKENS["arbiter"])
        self.clients.append(desk)
        poller = PgnPoller(
            seen["broadcast PGN"],
            [hall.gateway_url(p, f"/pgn/round/{ROUND}.pgn") for p in ("8765", "8766")],
        )
        sheets = ScoreSheets(desk, games)
        for client in [*self.clients, poller, sheets]:
            client.start()
        for client in self.clients:
            if not client.connected.wait(30):
                raise DrillError(f"{client.name} could not connect")

        # the round: the arbiters start the games at the desk, the boards are switched on
        for board in BOARDS:
            desk.command({"cmd": "start_game", "game": f"{ROUND}.{board}"})
        self.say("desk: the round's four games started")
        pgn_dir = self.tmp / "games"
        pgn_dir.mkdir()
        for board in BOARDS:
            game_id = f"{ROUND}.{board}"
            path = pgn_dir / f"{game_id}.pgn"
            path.write_text(str(games[game_id]) + "\n", encoding="utf-8")
            log = (hall.logs / f"board-{board}.log").open("ab")
            self.sims[board] = subprocess.Popen(
                [
                    str(BIN / "candidates"), "dgt", "simulate", "--pgn", str(path),
                    "--serial", f"{20130 + int(board)}", "--seed", str(2013 + int(board)),
                    "--pty", str(hall.dev / f"ttyDGT{board}"),
                    "--time-scale", str(TIME_SCALE), "--no-transients", "--stay-on",
                ],
                stdout=log, stderr=subprocess.STDOUT, env=hall.env(),
            )  # fmt: skip
        self.wait_for(
            "the boards' pseudo-terminals",
            lambda: all((hall.dev / f"ttyDGT{b}").exists() for b in BOARDS),
            30,
        )
        play_from = time.monotonic()
        self.step("start-boards")
        self.step("backup-timer")

        def at_share(share: float) -> Callable[[], bool]:
            return lambda: self.ply_count() >= share * total_plies

        # a board reader dies, right after one of its boards' moves was stored
        self.wait_for("the first moves", at_share(0.1))
        self.step("during-play")
        group_a = [f"{ROUND}.{b}" for b in GROUPS["a"]]

        def plies_a() -> int:
            return sum(len(m) for g, m in store_moves(self.url)[0].items() if g in group_a)

        seen_a = plies_a()
        self.wait_for("a move of group a", lambda: plies_a() > seen_a, 60)
        pid = hall.kill("candidates-boards@a")
        self.say(f"SIGKILL board reader a (pid {pid}) at {self.ply_count()} plies")
        self.events["board reader killed"] = pid
        self.step("board-reader-died")

        # the arbiter adjusts a clock while play goes on
        desk.command(
            {
                "cmd": "adjust_clock",
                "game": f"{ROUND}.1",
                "side": "white",
                "delta_ms": 120_000,
                "reason": "the clock was set wrongly at the start",
            }
        )
        self.say("desk: adjust_clock on 2.1 (+2 min to White)")

        # a gateway dies
        self.wait_for("a fifth of the moves", at_share(0.2))
        pid = hall.kill(f"candidates-gateway@{hall.ports['8765']}")
        self.say(f"SIGKILL gateway A (pid {pid}) at {self.ply_count()} plies")
        self.events["gateway killed"] = pid
        time.sleep(1.5)
        self.step("gateway-died")
        self.wait_for("gateway A back", lambda: self.gateway_up("8765"), 60)

        # the database dies
        self.wait_for("a third of the moves", at_share(0.3))
        before = self.ply_count()
        self.events["plies stored when the database was killed"] = f"{before} of {total_plies}"
        pid = hall.cluster.kill()
        self.say(f"SIGKILL PostgreSQL's postmaster (pid {pid}) at {before} plies")
        self.events["database killed"] = pid
        time.sleep(2.0)
        self.step("database-restarted")

        # a backup while play goes on, restored and audited
        self.wait_for(
            "moves after the restart",
            lambda: self.ply_count() > min(before + 4, total_plies - 1),
            120,
        )
        backup_at = time.time_ns() // 1_000_000
        backup_out = self.step("backup-now")
        self.say(f"backup: {backup_out[-1].strip()}")
        self.step("restore")  # its diff fails the step unless both audits say the same
        restored = self.audit(hall.cluster.url("candidates_restore"))
        in_backup = store_moves(hall.cluster.url("candidates_restore"))[0]
        self.say(f"restored: {restored[1]}; {sum(map(len, in_backup.values()))} plies")

        # the end of the round: every board done, every game ended at the desk
        expected = {g: [m.uci() for m in games[g].mainline_moves()] for g in games}
        self.wait_for(
            "every move of the round in the store",
            lambda: store_moves(self.url)[0] == expected,
            600,
        )
        play_to = time.monotonic()
        for game_id, game in games.items():
            self.end_game(desk, game_id, game)
        self.say("desk: every game ended (resignations, claims ruled)")
        time.sleep(PUBLIC_DELAY_S + 3)  # the public sees the end after its delay
        final_games, final_seqs, final_seq = store_moves(self.url)
        self.wait_for(
            "the clients caught up",
            lambda: all(
                (c.last_seq or 0) >= final_seq for c in self.clients if c.seen.kind == "deltas"
            ),
            60,
        )
        time.sleep(2)
        for client in [*self.clients, poller, sheets]:
            client.stop.set()

        # the machine is lost: the last backup, and what the score sheets show since
        self.write_score_sheets(in_backup, backup_at, desk)
        self.step("machine-lost")
        restored_url = self.hall.cluster.url("candidates_new")
        restored_games, _, _ = store_moves(restored_url)

        rows = [judge(s, final_games, (play_from, play_to)) for s in seen.values()]
        audits = {
            "store": self.audit(self.url),
            "restored backup": (restored[0], f"{restored[1]}; the same as the backup log's"),
            "machine-lost copy": self.audit(restored_url),
        }
        record = {"boards vs score sheets": final_games == expected}
        record["machine-lost copy vs store"] = restored_games == final_games
        self.events["store events"] = final_seq
        self.events["moves"] = len(final_seqs)
        self.events["runbook commands run"] = len(hall.ran)
        self.events["moves the arbiters entered from the score sheets"] = sheets.entered
        self.events["broadcast polls"] = f"{poller.polls} ({poller.not_modified} not modified)"
        return self.report(Figures(rows, audits, self.events), record)

    def audit(self, url: str) -> tuple[bool, str]:
        done = subprocess.run(
            [str(BIN / "candidates"), "--store", url, "audit"],
            capture_output=True,
            text=True,
            env=self.hall.env(),
            check=False,
        )
        summary = (done.stdout.strip().splitlines() or ["(no output)"])[0]
        return done.returncode == 0, summary

    def end_game(self, desk: ArbiterDesk, game_id: str, game: chess.pgn.Game) -> None:
        """The arbiters end the game at the desk: a resignation for a decisive result, else
        the draw claim the player on move makes (3.9.2 b), advised and ruled."""
        from tools import sample

        board = game.end().board()
        result = game.headers.get("Result", "*")
        white = sample.player_id(game.headers["White"])
        black = sample.player_id(game.headers["Black"])
        if result in ("1-0", "0-1"):
            desk.command(
                {"cmd": "resign", "game": game_id, "by": "black" if result == "1-0" else "white"}
            )
            return
        kind, intended = sample.draw_claim(board)
        claim: dict[str, Any] = {
            "cmd": "claim_draw",
            "game": game_id,
            "by": white if board.turn == chess.WHITE else black,
            "kind": kind,
        }
        if intended:
            claim["intended_move"] = intended
        answer = desk.command(claim)
        number = next((e.get("claim") for e in answer.get("events", []) if e.get("claim")), "1")
        if kind == "theoretical_draw":
            desk.command(
                {
                    "cmd": "advise_claim",
                    "game": game_id,
                    "claim": str(number),
                    "opinion": "draw",
                    "advisor": "advisor",
                }
            )
        desk.command(
            {"cmd": "rule_claim", "game": game_id, "claim": str(number), "decision": "accepted"}
        )

    def write_score_sheets(
        self, in_backup: dict[str, list[str]], backup_at: int, desk: ArbiterDesk
    ) -> None:
        """What the arbiters enter after losing the machine: from the score sheets, every
        move after those of the backup (the store's own, as the sheets show them); from
        the desk's book, every command since."""
        from adapters.store import Store
        from engine.events import MovePlayed
        from engine.timefmt import format_instant

        lines: list[tuple[int, dict[str, Any]]] = []
        with Store(self.url) as store:
            for _, event in store.events_since(0):
                game_id = event.originator_id.removeprefix("game/")
                if isinstance(event, MovePlayed) and event.ply > len(in_backup.get(game_id, [])):
                    lines.append(
                        (
                            event.at_ms,
                            {
                                "cmd": "play_move",
                                "game": game_id,
                                "move": event.san,
                                "ply": event.ply,
                                "at": format_instant(event.at_ms),
                                "by": "score-sheet",
                            },
                        )
                    )
        from engine.commands import REGISTRY
        from engine.timefmt import parse_instant

        for command in desk.sent:
            at_ms = parse_instant(command["at"])
            if at_ms >= backup_at and command["cmd"] != "start_game":
                entry = {k: v for k, v in command.items() if k != "command_id"}
                spec = REGISTRY.get(command["cmd"])
                if spec is not None and spec.field("arbiter") is not None:
                    entry.setdefault("arbiter", "chief")  # the desk's token filled it in
                lines.append((at_ms, entry))
        lines.sort(key=lambda item: item[0])
        path = Path(self.hall.here("/var/lib/candidates/score-sheets.jsonl"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(c) + "\n" for _, c in lines), encoding="utf-8")

    def report(self, figures: Figures, record: dict[str, bool]) -> int:
        out = self.out
        out("")
        out(f"{'client':<16} {'moves':>6} {'lost':>5} {'doubled':>8} {'out of order':>13} "
            f"{'longest gap':>12} {'failovers':>10} {'resumed':>8}")  # fmt: skip
        for row in figures.rows:
            out(
                f"{row['client']:<16} {row['moves']:>6} {row['lost']:>5} {row['doubled']:>8} "
                f"{row['out_of_order']:>13} {row['gap_s']:>11.1f}s {row['failovers']:>10} "
                f"{row['resumed']:>8}"
            )
        out("")
        for name, value in figures.events.items():
            out(f"{name}: {value}")
        for name, agrees in record.items():
            out(f"{name}: {'equal' if agrees else 'DIFFERENT'}")
        for name, (ok, summary) in figures.audits.items():
            out(f"audit of the {name}: {'passed' if ok else 'FAILED'} ({summary})")
        lost = sum(r["lost"] for r in figures.rows)
        doubled = sum(r["doubled"] for r in figures.rows)
        disorder = sum(r["out_of_order"] for r in figures.rows)
        gaps = ", ".join(f"{r['client']} {r['gap_s']:.1f} s" for r in figures.rows)
        failed = (
            lost or doubled or disorder
            or not all(ok for ok, _ in figures.audits.values())
            or not all(record.values())
        )  # fmt: skip
        last = f"{lost} lost, {doubled} doubled, {disorder} out of order; longest gaps: {gaps}"
        self.summary = {
            "clients": figures.rows,
            "audits": {k: {"passed": ok, "summary": v} for k, (ok, v) in figures.audits.items()},
            "record": record,
            "events": {k: str(v) for k, v in figures.events.items()},
            "ran": [list(item) for item in self.hall.ran],
            "last_line": last,
        }
        out(last)
        return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="fewer moves, every step and kill")
    parser.add_argument("--keep", action="store_true", help="keep the drill's directory")
    parser.add_argument(
        "--summary", metavar="FILE", help="also write the figures and the commands run as JSON"
    )
    args = parser.parse_args(argv)
    drill = Drill(args.short, args.keep)
    try:
        status = drill.run()
    except DrillError as error:
        print(f"drill: {error}", file=sys.stderr)
        return 2
    if args.summary:
        Path(args.summary).write_text(json.dumps(drill.summary, indent=2), encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
