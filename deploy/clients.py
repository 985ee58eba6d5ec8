"""The drill's clients: what each saw of the round, and how it is judged.

Two commentators and the public on the websocket feeds (``FeedClient``, failing
over to the other gateway with ``since``), the arbiters' desk (``ArbiterDesk``:
commands with a ``command_id``, sent again when unanswered), the arbiters
entering moves from the score sheets (``ScoreSheets``) and a broadcast platform
polling ``/pgn/round/N.pgn`` (``PgnPoller``). Each keeps what it ``Seen``;
``judge`` counts it against the store: moves lost, doubled, out of order, the
longest gap.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import queue
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import chess
import chess.pgn
from websockets.sync.client import connect

from deploy.drill_round import ROUND
from deploy.runbook import DrillError


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
    results: set[str] = field(default_factory=set)
    """The games whose result this client received (``ResultRecorded``)."""
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
                # no keepalive, as a browser sends none: a gateway the drill kills closes
                # the socket, and a ping into it only printed its broken pipe's traceback
                with connect(
                    url,
                    subprotocols=["json"],  # type: ignore[list-item]
                    open_timeout=3,
                    ping_interval=None,
                ) as ws:
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
            if frame.get("kind") == "ResultRecorded":
                self.seen.results.add(str(frame.get("game")))
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
        self.lost: list[str] = []
        """Each board shown lost, as the desk showed it (game, ply, the alert's message)."""

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
        details = alert.get("details") or {}
        self.lost.append(f"{game_id} at ply {details.get('ply')}: {alert.get('message')}")
        shown = details.get("board_fen")
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
