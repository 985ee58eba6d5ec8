"""The history checker: many processes on one store, randomly killed, every history
checked against the log (docs/architecture.md, "One log, many processes").

A history is a few seconds of a live round, on a fresh store:

- **writers**: a long-running ``candidates apply -`` (the stale-writer case: it keeps
  its cache between commands), one-shot ``candidates apply`` runs, and an arbiter's
  websocket on each gateway, sending moves (often stale: the next move of the game as
  the writer last knew it, so many are refused), clock readings and clock
  adjustments to games 1.1-1.3, every command under a ``command_id``; a command
  whose answer was lost to a kill is sent again under the same id, as a client does;
- **a board reader** (``candidates dgt run`` replaying a simulated board's recording)
  playing game 1.4;
- **subscribers**: commentators and arbiters on the gateways, who drop their
  connection at random moments and resume with ``since`` at a random position they
  have seen;
- **kills**: ``kill -9`` of the long-running writer and of a gateway (each started
  again), and the database going away: a PostgreSQL cluster of the checker's own
  killed and started again, a SQLite store held under an exclusive lock.

Then every history is checked against the log:

1. every command answered ok is in the log once (its ``CommandApplied`` and exactly
   the events its answer named), every refused one is not, and one with no answer
   at most once; no game holds a ply twice;
2. no refusal that the state at its position would have accepted, and no acceptance
   it would have refused: each decision is made again, by the engine, on a fresh
   fold of the log up to its position (a refusal's ``seq``; just before an
   acceptance's first event), and must give the same refusal, or the same events;
3. every subscriber's deltas, from each position it started at (a snapshot's ``seq``
   or its ``since``), are exactly the log's events after that position that its role
   sees (docs/protocol.md, "Which events a role sees"), in order, without a repeat,
   up to the log's end (a live clock reading that only confirms the countdown may
   be left out, as documented).

``python -m tests.history_checker --histories 200 --backend sqlite`` (``make
history``: 200 on each store) prints the figures and exits 1 on any anomaly;
``tests/test_history_checker.py`` runs a few in ``make test``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.exceptions import WebSocketException
from websockets.sync.client import ClientConnection, connect

from adapters.gateway.deltas import for_arbiters_only
from adapters.store import Store
from engine.command_ids import command_identity
from engine.dispatch import decide
from engine.errors import AlreadyRecorded, CommandRefused
from engine.events import (
    AlertRaised,
    ClockReadingRecorded,
    CommandApplied,
    Event,
    MovePlayed,
)
from engine.timefmt import format_instant, parse_instant

ROOT = Path(__file__).resolve().parents[1]
CANDIDATES = str(Path(sys.executable).with_name("candidates"))
PGN = ROOT / "tests" / "data" / "clocked-games.pgn"

ARBITER = "history-arbiter-token-0123456789"
COMMENTATOR = "history-commentator-token-0123456789"
TOKENS = {
    ARBITER: {"role": "arbiter", "name": "Chief Arbiter", "arbiter": "chief"},
    COMMENTATOR: {"role": "commentator", "name": "Studio"},
}
WRITTEN_GAMES = ("1.1", "1.2", "1.3", "2.1", "2.2", "2.3")
BOARD_GAME = "1.4"
OPENINGS = (
    "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7",
    "d4 Nf6 c4 e6 Nc3 Bb4 e3 O-O Bd3 d5 Nf3 c5 O-O Nc6 a3 Bxc3 bxc3 dxc4",
    "c4 e5 Nc3 Nf6 Nf3 Nc6 g3 d5 cxd5 Nxd5 Bg2 Nb6 O-O Be7 d3 O-O a3 Be6",
)
LINES = {game: OPENINGS[i % len(OPENINGS)].split() for i, game in enumerate(WRITTEN_GAMES)}
"""The moves each writer tries in each game, in order (a writer with a stale idea of
the ply tries a move the game is past: refused)."""
NOT_REDECIDED = frozenset({"conflict", "store_unavailable", "command_id_reused"})
"""Refusals that are not about the state (another writer kept winning, the store was
down, an id reused): nothing to decide again."""
ANSWER_WAIT_S = 20.0


def now_iso() -> str:
    return format_instant(time.time_ns() // 1_000_000)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- what the processes did -------------------------------------------------------------


@dataclass
class Sent:
    """One command a writer sent, and its answer (None: lost to a kill)."""

    writer: str
    command: dict[str, Any]
    answer: dict[str, Any] | None = None
    acked: int = 0
    """How many events had been acknowledged to any writer when it was sent: its decision
    must stand on a state that holds them all."""

    @property
    def command_id(self) -> str:
        return str(self.command["command_id"])


@dataclass
class Segment:
    """What one subscriber received from one starting position (a snapshot's ``seq`` or
    the ``since`` of a resume) until it dropped the connection or got a snapshot."""

    subscriber: str
    role: str
    start: int
    seqs: list[int] = field(default_factory=list)
    closed: bool = False
    """Ended by the subscriber or the gateway (not cut short by the end of the history)."""


@dataclass
class Outcome:
    """The figures of one history and what it found wrong."""

    seed: int
    backend: str
    events: int = 0
    sent: int = 0
    accepted: int = 0
    refused: int = 0
    unanswered: int = 0
    redecided: int = 0
    segments: int = 0
    deltas: int = 0
    kills: Counter[str] = field(default_factory=Counter)
    anomalies: list[str] = field(default_factory=list)


class Journal:
    """What every writer and subscriber of a history did (threads append here)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sent: list[Sent] = []
        self.segments: list[Segment] = []
        self.ply: dict[str, int] = dict.fromkeys(WRITTEN_GAMES, 0)
        """The ply each game is at, as the writers last learned it (often stale)."""
        self.started: set[str] = {WRITTEN_GAMES[0]}
        """The games the writers know started (the others are started by a writer: a
        game another process starts and plays in is the stale writer's case)."""
        self.acked: list[tuple[str, int]] = []
        """(stream, version) of every event acknowledged to a writer, in the order of the
        answers."""

    def learned(self, sent: Sent) -> None:
        answer = sent.answer or {}
        with self.lock:
            if answer.get("ok"):
                self.acked.extend((e["stream"], e["version"]) for e in answer.get("events", ()))
            for event in answer.get("events") or ():
                if event.get("type") == "GameStarted":
                    self.started.add(sent.command["game"])
                if event.get("type") == "MovePlayed":
                    game = sent.command["game"]
                    self.ply[game] = max(self.ply.get(game, 0), int(event["ply"]))


# --- the processes ------------------------------------------------------------------------


class Gateway:
    """``candidates serve`` on a port of its own, killed and started again on it."""

    def __init__(self, name: str, store: str, tokens: Path, work: Path) -> None:
        self.name, self.store, self.tokens = name, store, tokens
        self.port = free_port()
        self.log = work / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [
                    CANDIDATES, "--store", self.store, "serve", "--host", "127.0.0.1",
                    "--port", str(self.port), "--tokens", str(self.tokens),
                    "--public-delay-s", "0",
                ],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            time.sleep(0.05)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def receive(ws: ClientConnection, timeout: float) -> list[dict[str, Any]]:
    """The frames of the next message (a frame or an array of frames); [] on a timeout."""
    try:
        message = ws.recv(timeout=timeout)
    except TimeoutError:
        return []
    value = json.loads(message)
    return [f for f in (value if isinstance(value, list) else [value]) if isinstance(f, dict)]


def open_socket(url: str) -> ClientConnection:
    """A JSON websocket to a gateway, to be used as a context manager."""
    return connect(url, subprotocols=["json"], open_timeout=5, ping_interval=None)  # type: ignore[list-item]


class Writers:
    """The writers of one history, each in a thread, until ``stop`` is set."""

    def __init__(self, history: History) -> None:
        self.h = history
        self.rng = random.Random(history.seed * 7 + 1)
        self.counter = 0
        self.long: subprocess.Popen[str] | None = None
        self.long_lock = threading.Lock()

    def command(self, writer: str, rng: random.Random, focus: str | None = None) -> dict[str, Any]:
        """A random command; ``focus``: the game a writer keeps to for a while (the others
        start and play games it has not read)."""
        with self.h.journal.lock:
            self.counter += 1
            number = self.counter
            game = focus if focus is not None and rng.random() < 0.97 else rng.choice(WRITTEN_GAMES)
            ply = self.h.journal.ply[game] + rng.choice((0, 0, 0, 0, -1, 1))
            starting = game not in self.h.journal.started and rng.random() < 0.5
        command_id = f"h{self.h.seed}/{writer}/{number}"
        kind = rng.random()
        line = LINES[game]
        if starting or kind < 0.02:
            command: dict[str, Any] = {"cmd": "start_game", "game": game, "at": now_iso()}
        elif kind < 0.7 and 0 <= ply < len(line):
            command = {
                "cmd": "play_move",
                "game": game,
                "move": line[ply],
                "at": now_iso(),
            }
            if rng.random() < 0.3:
                command["ply"] = ply + 1
        elif kind < 0.95:
            command = {
                "cmd": "clock_reading",
                "game": game,
                "at": now_iso(),
                "white_ms": rng.randrange(6_000_000, 7_200_000),
                "black_ms": rng.randrange(6_000_000, 7_200_000),
                "running": rng.choice(("white", "black")),
            }
        else:
            command = {
                "cmd": "adjust_clock",
                "game": game,
                "side": rng.choice(("white", "black")),
                "delta_ms": rng.choice((-60_000, 60_000, 120_000)),
                "reason": "the clock was set wrong",
                "arbiter": "chief",
                "at": now_iso(),
            }
        return {**command, "command_id": command_id}

    def record(self, sent: Sent) -> None:
        """Journal a command about to be sent, with what was acknowledged before it."""
        with self.h.journal.lock:
            sent.acked = len(self.h.journal.acked)
            self.h.journal.sent.append(sent)

    # a long-running `candidates apply -`: its cache lives across commands
    def _start_long(self) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [CANDIDATES, "--store", self.h.store, "apply", "-"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1, start_new_session=True,
        )  # fmt: skip

    def kill_long(self) -> None:
        with self.long_lock:
            process = self.long
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)

    def long_running(self, stop: threading.Event) -> None:
        rng = random.Random(self.h.seed * 11 + 2)
        lost: list[dict[str, Any]] = []
        focus = rng.choice(WRITTEN_GAMES)
        while not stop.is_set():
            with self.long_lock:
                self.long = process = self._start_long()
            assert process.stdin is not None and process.stdout is not None
            try:
                while not stop.is_set():
                    if rng.random() < 0.15:
                        focus = rng.choice(WRITTEN_GAMES)
                    command = lost.pop() if lost else self.command("long", rng, focus)
                    sent = Sent("long", command)
                    self.record(sent)
                    process.stdin.write(json.dumps(command) + "\n")
                    process.stdin.flush()
                    line = process.stdout.readline()
                    if not line:
                        lost.append(command)  # killed before it answered: sent again
                        break
                    sent.answer = json.loads(line)
                    self.h.journal.learned(sent)
                    time.sleep(rng.uniform(0.0, 0.2))  # a desk between two entries
            except (BrokenPipeError, OSError):
                lost.append(command)
            finally:
                with contextlib.suppress(Exception):
                    if process.stdin is not None:
                        process.stdin.close()
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(10)

    def one_shots(self, stop: threading.Event) -> None:
        rng = random.Random(self.h.seed * 13 + 3)
        while not stop.is_set():
            focus = rng.choice(WRITTEN_GAMES)  # often a game started and played at once
            commands = [self.command("once", rng, focus) for _ in range(rng.randint(1, 3))]
            sents = [Sent("once", c) for c in commands]
            for sent in sents:
                self.record(sent)
            text = "".join(json.dumps(c) + "\n" for c in commands)
            done = subprocess.run(
                [CANDIDATES, "--store", self.h.store, "apply", "-"],
                input=text, capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
            for sent, line in zip(sents, done.stdout.splitlines(), strict=False):
                sent.answer = json.loads(line)
                self.h.journal.learned(sent)
            stop.wait(rng.uniform(0.2, 0.8))  # a process's start costs a core a second

    def arbiter(self, gateway: Gateway, stop: threading.Event) -> None:
        rng = random.Random(self.h.seed * 17 + gateway.port)
        lost: list[dict[str, Any]] = []
        while not stop.is_set():
            try:
                with open_socket(gateway.url) as ws:
                    self._arbiter_commands(ws, gateway, rng, lost, stop)
            except (OSError, WebSocketException, TimeoutError):
                time.sleep(0.05)

    def _arbiter_commands(
        self,
        ws: ClientConnection,
        gateway: Gateway,
        rng: random.Random,
        lost: list[dict[str, Any]],
        stop: threading.Event,
    ) -> None:
        ws.send(json.dumps({"op": "subscribe", "games": [], "token": ARBITER}))
        while not stop.is_set():
            command = lost.pop() if lost else self.command(gateway.name, rng)
            sent = Sent(gateway.name, command)
            self.record(sent)
            lost.append(command)
            ws.send(json.dumps({"op": "command", "id": command["command_id"], "command": command}))
            deadline = time.monotonic() + ANSWER_WAIT_S
            while sent.answer is None and time.monotonic() < deadline:
                for frame in receive(ws, 1.0):
                    if frame.get("op") == "result" and frame.get("id") == command["command_id"]:
                        sent.answer = {k: v for k, v in frame.items() if k not in ("op", "id")}
            if sent.answer is None:
                return
            lost.remove(command)
            self.h.journal.learned(sent)
            time.sleep(rng.uniform(0.0, 0.08))


class Subscriber:
    """A commentator or an arbiter that drops its connection at random moments and
    resumes at a random position it has seen."""

    def __init__(self, history: History, name: str, role: str, rng: random.Random) -> None:
        self.h, self.name, self.role, self.rng = history, name, role, rng
        self.token = ARBITER if role == "arbiter" else COMMENTATOR
        self.seen: list[int] = []

    def run(self, stop: threading.Event, drained: threading.Event) -> None:
        since: int | None = None
        while not drained.is_set():
            gateway = self.rng.choice(self.h.gateways)
            try:
                with open_socket(gateway.url) as ws:
                    since = self._follow(ws, since, stop, drained)
            except (OSError, WebSocketException, TimeoutError, ValueError):
                time.sleep(0.05)

    def _follow(
        self,
        ws: ClientConnection,
        since: int | None,
        stop: threading.Event,
        drained: threading.Event,
    ) -> int | None:
        request: dict[str, Any] = {"op": "subscribe", "games": "*", "token": self.token}
        if since is not None:
            request["since"] = since
        ws.send(json.dumps(request))
        segment: Segment | None = None
        until = time.monotonic() + self.rng.uniform(0.3, 2.0)
        while not drained.is_set() and (stop.is_set() or time.monotonic() < until):
            for frame in receive(ws, 0.2):
                op = frame.get("op")
                if op == "subscribed" and frame.get("resumed"):
                    segment = self._segment(int(frame["since"]))
                elif op == "snapshot":
                    if segment is not None:
                        segment.closed = True
                    segment = self._segment(int(frame["seq"]))
                elif op == "delta" and segment is not None:
                    segment.seqs.append(int(frame["seq"]))
                    self.seen.append(int(frame["seq"]))
        if segment is not None:
            segment.closed = not drained.is_set()
        # where to resume: mostly the last position seen, sometimes an earlier one
        if not self.seen:
            return None
        if self.rng.random() < 0.3:
            return self.rng.choice(self.seen)
        return self.seen[-1]

    def _segment(self, start: int) -> Segment:
        segment = Segment(self.name, self.role, start)
        with self.h.journal.lock:
            self.h.journal.segments.append(segment)
        self.seen.append(start)
        return segment


# --- one history --------------------------------------------------------------------------


class History:
    def __init__(
        self,
        seed: int,
        backend: str,
        work: Path,
        store: str,
        seconds: float,
        database: Any = None,
        board: Path | None = None,
    ) -> None:
        self.seed, self.backend, self.work, self.store = seed, backend, work, store
        self.seconds = seconds
        self.database = database
        """The PostgreSQL cluster of the checker's own (``deploy.cluster.Cluster``), or None."""
        self.board = board
        self.rng = random.Random(seed)
        self.journal = Journal()
        self.ends: dict[str, int] = {}
        """The log's last event each role sees, once the writers stopped."""
        self.outcome = Outcome(seed, backend)
        tokens = work / "tokens.json"
        tokens.write_text(json.dumps(TOKENS))
        count = 2 if self.rng.random() < 0.5 else 1
        self.gateways = [Gateway(f"gateway{i + 1}", store, tokens, work) for i in range(count)]

    def set_up(self) -> None:
        from tests.helpers import paired_tournament

        with Store(self.store) as store:
            paired_tournament(store)
            for game in (WRITTEN_GAMES[0], BOARD_GAME):
                answer = store.handle({"cmd": "start_game", "game": game, "at": now_iso()})
                assert answer["ok"], answer

    def run(self) -> Outcome:
        self.set_up()
        for gateway in self.gateways:
            gateway.start()
        stop, drained = threading.Event(), threading.Event()
        writers = Writers(self)
        threads = [
            threading.Thread(target=writers.long_running, args=(stop,), daemon=True),
            threading.Thread(target=writers.one_shots, args=(stop,), daemon=True),
            *(
                threading.Thread(target=writers.arbiter, args=(g, stop), daemon=True)
                for g in self.gateways
            ),
        ]
        subscribers = [
            Subscriber(
                self,
                f"sub{i}",
                self.rng.choice(("commentator", "arbiter")),
                random.Random(self.seed * 31 + i),
            )
            for i in range(3)
        ]
        listening = [
            threading.Thread(target=s.run, args=(stop, drained), daemon=True) for s in subscribers
        ]
        board = self._board_reader()
        for thread in (*threads, *listening):
            thread.start()
        try:
            self._kill_at_random(writers, time.monotonic() + self.seconds)
        finally:
            stop.set()
            for thread in threads:
                thread.join(120)
            if board is not None:
                board.send_signal(signal.SIGINT)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    board.wait(20)
                if board.poll() is None:
                    board.kill()
                    board.wait(10)
            self._drain(subscribers)
            drained.set()
            for thread in listening:
                thread.join(30)
            for gateway in self.gateways:
                gateway.stop()
        self.check()
        return self.outcome

    def _board_reader(self) -> subprocess.Popen[bytes] | None:
        if self.board is None:
            return None
        with open(self.work / "board.log", "ab") as log:
            return subprocess.Popen(
                [
                    CANDIDATES, "--store", self.store, "dgt", "run",
                    "--dgt-file", f"{self.board}={BOARD_GAME}", "--speed", "1",
                    "--public-delay-s", "0",
                ],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip

    def _kill_at_random(self, writers: Writers, until: float) -> None:
        kills = self.rng.randint(1, 3)
        moments = sorted(self.rng.uniform(0.5, self.seconds - 0.5) for _ in range(kills))
        start = time.monotonic()
        for moment in moments:
            time.sleep(max(0.0, start + moment - time.monotonic()))
            what = self.rng.choice(("writer", "gateway", "database"))
            self.outcome.kills[what] += 1
            if what == "writer":
                writers.kill_long()
            elif what == "gateway":
                gateway = self.rng.choice(self.gateways)
                gateway.kill()
                time.sleep(self.rng.uniform(0.1, 0.6))
                gateway.start()
            else:
                self._database_away(self.rng.uniform(0.5, 2.0))
        time.sleep(max(0.0, until - time.monotonic()))

    def _database_away(self, seconds: float) -> None:
        if self.database is not None:
            self.database.kill()
            time.sleep(seconds)
            self.database.start()
            return
        # SQLite: the database file held under an exclusive lock, as a stuck writer would
        conn = sqlite3.connect(self.store, timeout=30, isolation_level=None)
        try:
            conn.execute("BEGIN EXCLUSIVE")
            time.sleep(seconds)
            conn.execute("ROLLBACK")
        finally:
            conn.close()

    def _drain(self, subscribers: list[Subscriber]) -> None:
        """Let every subscriber reach the log's end, as it is once the writers stopped
        (a gateway seals what its arbiters appended when it stops, after this)."""
        with Store(self.store) as store:
            log = list(store.cache.events_since(0))
        for role in ("arbiter", "commentator"):
            visible = [seq for seq, e in log if sees(role, e)]
            self.ends[role] = visible[-1] if visible else 0
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if all(s.seen and s.seen[-1] >= self.ends[s.role] for s in subscribers):
                return
            time.sleep(0.05)

    # --- the checks ---------------------------------------------------------------------

    def check(self) -> None:
        outcome = self.outcome
        with Store(self.store) as store:
            log = list(store.cache.events_since(0))
        outcome.events = len(log)
        self._check_commands(log)
        self._check_decisions(log)
        self._check_subscribers(log)

    def _anomaly(self, text: str) -> None:
        self.outcome.anomalies.append(f"history {self.seed} ({self.backend}): {text}")

    def _check_commands(self, log: list[tuple[int, Event]]) -> None:
        outcome = self.outcome
        applied: dict[str, list[CommandApplied]] = {}
        by_stream = {(e.originator_id, e.originator_version): e for _, e in log}
        for _, event in log:
            if isinstance(event, CommandApplied):
                applied.setdefault(event.command_id, []).append(event)
        plies = Counter((e.originator_id, e.ply) for _, e in log if isinstance(e, MovePlayed))
        for (stream, ply), count in plies.items():
            if count > 1:
                self._anomaly(f"{stream} holds ply {ply} {count} times")
        answers: dict[str, list[Sent]] = {}
        for sent in self.journal.sent:
            answers.setdefault(sent.command_id, []).append(sent)
        outcome.sent = len(answers)
        for command_id, sents in answers.items():
            records = applied.get(command_id, [])
            if len(records) > 1:
                self._anomaly(f"{command_id} applied {len(records)} times")
            answered = [s.answer for s in sents if s.answer is not None]
            if not answered:
                outcome.unanswered += 1
                continue
            oks = [a for a in answered if a.get("ok")]
            if oks and any(not a.get("ok") for a in answered):
                codes = {a.get("error", {}).get("code") for a in answered if not a.get("ok")}
                if not codes <= {"store_unavailable"}:
                    self._anomaly(f"{command_id} answered both ok and refused {codes}")
            if oks:
                outcome.accepted += 1
                for answer in oks:
                    if answer.get("duplicate"):
                        continue
                    if len(records) != 1:
                        self._anomaly(f"{command_id} answered ok but is not in the log")
                        continue
                    named = [(e["stream"], e["version"]) for e in answer.get("events", [])]
                    if named != [tuple(pair) for pair in records[0].events]:
                        self._anomaly(
                            f"{command_id} answered {named}, the log holds {records[0].events}"
                        )
                    for pair in named:
                        if pair not in by_stream:
                            self._anomaly(f"{command_id}'s event {pair} is not in the log")
            else:
                outcome.refused += 1
                if records:
                    self._anomaly(f"{command_id} was refused but is in the log")

    def _check_decisions(self, log: list[tuple[int, Event]]) -> None:
        """Every decision again, by the engine, on a fresh fold of the log up to its
        position: a refusal at the position it names (``seq``), an acceptance just before
        its first event; the same refusal, or the same events."""
        seq_of = {(e.originator_id, e.originator_version): seq for seq, e in log}
        decisions: list[tuple[int, Sent]] = []
        for sent in self.journal.sent:
            answer = sent.answer
            if answer is None:
                continue
            if not answer.get("ok"):
                code = answer.get("error", {}).get("code")
                if "seq" in answer and code not in NOT_REDECIDED:
                    decisions.append((int(answer["seq"]), sent))
            elif answer.get("events"):
                first = answer["events"][0]
                decisions.append((seq_of[(first["stream"], first["version"])] - 1, sent))
        decisions.sort(key=lambda pair: pair[0])
        known = [0]  # the log's last acknowledged position after each acknowledgement
        for pair in self.journal.acked:
            known.append(max(known[-1], seq_of.get(pair, 0)))
        # An acceptance may answer a copy sent again (its first answer, read back): it was
        # decided when the first copy was sent. A refusal is decided anew each time.
        first_sent: dict[str, int] = {}
        for sent in self.journal.sent:
            first_sent[sent.command_id] = min(
                first_sent.get(sent.command_id, sent.acked), sent.acked
            )
        for position, sent in decisions:
            acked = first_sent[sent.command_id] if sent.answer and sent.answer["ok"] else sent.acked
            if position < known[acked]:
                self._anomaly(
                    f"{sent.command_id} decided at {position}, before {known[acked]}, "
                    f"an event acknowledged before it was sent (answer: {sent.answer})"
                )
        fresh = Store(":memory:")
        fresh.chain.seal_every = 0
        try:
            folded = 0
            for position, sent in decisions:
                upto = [e for seq, e in log[folded:] if seq <= position]
                if upto:
                    fresh.append(upto)
                    folded += len(upto)
                assert sent.answer is not None
                answer = sent.answer
                code, events = decided_again(fresh, sent.command)
                wanted = answer["error"]["code"] if not answer["ok"] else "accepted"
                if code != wanted:
                    self._anomaly(
                        f"{sent.command_id} {wanted} at {position}; "
                        f"decided again on the log up to there: {code}"
                    )
                elif answer["ok"] and events != answer["events"]:
                    self._anomaly(
                        f"{sent.command_id} accepted at {position} with {answer['events']}; "
                        f"decided again: {events}"
                    )
                self.outcome.redecided += 1
        finally:
            fresh.close()

    def _check_subscribers(self, log: list[tuple[int, Event]]) -> None:
        for segment in self.journal.segments:
            self.outcome.segments += 1
            self.outcome.deltas += len(segment.seqs)
            expected = [(seq, e) for seq, e in log if seq > segment.start and sees(segment.role, e)]
            got = segment.seqs
            if got != sorted(set(got)):
                self._anomaly(
                    f"{segment.subscriber} from {segment.start}: repeated or out of order {got}"
                )
                continue
            reach = got[-1] if got else segment.start
            wanted = [seq for seq, e in expected if seq <= reach]
            quiet = {seq for seq, e in expected if isinstance(e, ClockReadingRecorded)}
            missing = [seq for seq in wanted if seq not in set(got) and seq not in quiet]
            extra = [seq for seq in got if seq not in {s for s, _ in expected}]
            if missing or extra:
                self._anomaly(
                    f"{segment.subscriber} ({segment.role}) from {segment.start}: "
                    f"missing {missing[:10]}, not in its view {extra[:10]}"
                )
        for name in {s.subscriber for s in self.journal.segments}:
            final = [s for s in self.journal.segments if s.subscriber == name][-1]
            reached = final.seqs[-1] if final.seqs else final.start
            end = self.ends.get(final.role, 0)
            if reached < end:
                self._anomaly(f"{name} ({final.role}) ended at {reached}; the log's end was {end}")


def decided_again(fresh: Store, command: dict[str, Any]) -> tuple[str, list[Any] | None]:
    """The engine's decision of ``command`` on ``fresh`` (the log up to a position): the
    refusal's code, ``duplicate``, or ``accepted`` with the events in their contract form."""
    body, _, _ = command_identity(command)
    received = parse_instant(str(command["at"])) + 1000
    with fresh.cache.session():
        try:
            _, events = decide(body, fresh.view(), received, fresh.decider.future_tolerance_ms)
        except AlreadyRecorded:
            return "duplicate", None
        except CommandRefused as refused:
            return refused.code, None
    return "accepted", json.loads(json.dumps([e.to_wire() for e in events]))


def sees(role: str, event: Event) -> bool:
    """Whether a delta of ``event`` reaches a client of ``role`` (docs/protocol.md, "Which
    events a role sees"): alerts come as ``alert`` frames, not deltas."""
    if isinstance(event, AlertRaised):
        return False
    return role == "arbiter" or not for_arbiters_only(event)


# --- many histories -----------------------------------------------------------------------


def board_recording(work: Path) -> Path:
    """A simulated board's recording of a game, made once (``candidates dgt simulate``)."""
    out = work / "board.dgt"
    if not out.exists():
        subprocess.run(
            [
                CANDIDATES, "dgt", "simulate", "--pgn", str(PGN), "--index", "0",
                "--time-scale", "0.002", "--out", str(out),
            ],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
    return out


@contextlib.contextmanager
def postgres_cluster(work: Path) -> Iterator[Any]:
    """A PostgreSQL cluster of the checker's own, which it may kill (never the machine's)."""
    from deploy.cluster import Cluster

    cluster = Cluster(work)
    cluster.init()
    cluster.start()
    try:
        yield cluster
    finally:
        with contextlib.suppress(Exception):
            cluster.stop()


def run_histories(
    count: int, backend: str, first_seed: int = 1, seconds: float = 3.0, board: bool = True
) -> list[Outcome]:
    base = Path(tempfile.mkdtemp(prefix="histories-"))
    outcomes: list[Outcome] = []
    try:
        recording = board_recording(base) if board else None
        with contextlib.ExitStack() as stack:
            cluster = (
                stack.enter_context(postgres_cluster(base)) if backend == "postgresql" else None
            )
            for seed in range(first_seed, first_seed + count):
                work = base / f"h{seed}"
                work.mkdir()
                if cluster is not None:
                    store = (
                        f"postgresql://postgres@127.0.0.1:{cluster.port}/postgres?schema=h{seed}"
                    )
                else:
                    store = str(work / "store.sqlite")
                history = History(seed, backend, work, store, seconds, cluster, recording)
                outcome = history.run()
                outcomes.append(outcome)
                print_outcome(outcome)
                if not outcome.anomalies:
                    shutil.rmtree(work, ignore_errors=True)
    finally:
        if all(not o.anomalies for o in outcomes):
            shutil.rmtree(base, ignore_errors=True)
        else:
            print(f"kept for inspection: {base}", file=sys.stderr)
    return outcomes


def print_outcome(outcome: Outcome) -> None:
    kills = ", ".join(f"{k} {n}" for k, n in sorted(outcome.kills.items()))
    print(
        f"history {outcome.seed} ({outcome.backend}): {outcome.events} events, {outcome.sent} "
        f"commands ({outcome.accepted} ok, {outcome.refused} refused, {outcome.unanswered} "
        f"unanswered), {outcome.redecided} decisions made again, {outcome.segments} "
        f"subscriptions, {outcome.deltas} deltas; kills: {kills}; "
        f"{len(outcome.anomalies)} anomalies",
        flush=True,
    )
    for anomaly in outcome.anomalies:
        print(f"  ANOMALY {anomaly}", flush=True)


def summary(outcomes: list[Outcome]) -> str:
    kills: Counter[str] = Counter()
    for outcome in outcomes:
        kills.update(outcome.kills)
    anomalies = sum(len(o.anomalies) for o in outcomes)
    return (
        f"{len(outcomes)} histories, {sum(o.events for o in outcomes)} events, "
        f"{sum(o.sent for o in outcomes)} commands ({sum(o.accepted for o in outcomes)} ok, "
        f"{sum(o.refused for o in outcomes)} refused, "
        f"{sum(o.unanswered for o in outcomes)} unanswered), "
        f"{sum(o.redecided for o in outcomes)} decisions made again, "
        f"{sum(o.segments for o in outcomes)} subscriptions with "
        f"{sum(o.deltas for o in outcomes)} deltas; kills: "
        + ", ".join(f"{k} {n}" for k, n in sorted(kills.items()))
        + f"; {anomalies} anomalies"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="history_checker", description=__doc__.split("\n\n")[0])
    parser.add_argument("--histories", type=int, default=200)
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--seed", type=int, default=1, help="the first history's seed")
    parser.add_argument("--seconds", type=float, default=3.0, help="how long each history writes")
    parser.add_argument("--no-board", action="store_true", help="no board reader")
    args = parser.parse_args(argv)
    # stopped from outside: its gateways, board readers and database are stopped too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    failed = False
    for backend in backends:
        outcomes = run_histories(
            args.histories, backend, args.seed, args.seconds, not args.no_board
        )
        line = summary(outcomes)
        print(f"{backend}: {line}", flush=True)
        failed |= any(o.anomalies for o in outcomes)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
