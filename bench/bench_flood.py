"""Fairness under a flood: a normal client's command-to-delta latency, alone and beside flooders.

The gateway (``candidates serve --public-delay-s 0``, its own process, on a fresh
SQLite store with the 2013 field paired and game 1.1 started) serves an arbiter
client that plays moves over its socket and notes when the delta of each move
arrives (latency = delta received - command sent), and that the deltas come in
store order with none missing. One run, phases in turn:

- ``alone``: the baseline, no other client;
- then, for each kind of flood, the same moves beside N flooding clients (each in
  a process of its own, connected before the phase begins), none of which ever
  reads what the gateway sends it:

  - ``wsping``: websocket Ping control frames (the protocol answers each with a Pong),
  - ``ping``: ``{"op": "ping"}`` frames with 128-character ids,
  - ``subscribe``: public subscriptions, one after the other (each answered with
    a snapshot),
  - ``command``: commands without a token (each refused);
- ``after``: alone again (the gateway recovered).

Each phase prints p50 / p99 / max, the ratio of its p99 to the ``alone`` p99 of
the same run (the goal is 2x at most), and what became of the flooders: closed
by the gateway (with the code and reason of its close frame, when one reached
the flooder) after how many seconds, or still open when the phase ended.

    .venv/bin/python bench/bench_flood.py [--flooders 3] [--moves 60] [--phase-s 12]
        [--kinds wsping,ping,...]
        [--reconnect]

``--reconnect``: each flooder connects again as soon as it is closed (one
connection's budget is all a flood buys, each time).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.asyncio.client import ClientConnection, connect

from adapters.store import Store
from bench.common import pct, raw_websocket
from tests.helpers import at, ok, paired_tournament

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-arbiter-token"
CYCLE = ["Nf3", "Nf6", "Ng1", "Ng8"]
KINDS = ("wsping", "ping", "subscribe", "command")
SERVE_LOGGING = (
    "import logging, sys; "
    "logging.basicConfig(level=logging.WARNING, format='%(name)s %(message)s'); "
    "logging.getLogger('adapters.gateway').setLevel(logging.INFO); "
    "from adapters.cli import main; sys.exit(main())"
)
"""``candidates serve``, logging why the gateway closes a connection (its close frame
may never reach a flooder that does not read: it sits behind what the flooder left
unread)."""
CLOSE_LOGGED = re.compile(r"(?:closing|disconnecting) \S+ \S+: (\w+( \w+)?)")


# --- the flooders (each in a process of its own) ----------------------------------


def _masked(opcode: int, payload: bytes) -> bytes:
    """One client frame (masked, RFC 6455 5.3)."""
    mask = os.urandom(4)
    size = len(payload)
    if size < 126:
        head = bytes([0x80 | opcode, 0x80 | size])
    elif size < 1 << 16:
        head = bytes([0x80 | opcode, 0xFE]) + struct.pack("!H", size)
    else:
        head = bytes([0x80 | opcode, 0xFF]) + struct.pack("!Q", size)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _chunk(kind: str) -> bytes:
    """64 frames of one kind of flood, sent with one ``sendall``."""
    if kind == "wsping":
        frame = _masked(0x9, b"p" * 100)
    elif kind == "ping":
        frame = _masked(0x1, json.dumps({"op": "ping", "id": "p" * 128}).encode())
    elif kind == "subscribe":
        frame = _masked(0x1, json.dumps({"op": "subscribe", "games": "*"}).encode())
    else:
        command = {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(1)}
        frame = _masked(0x1, json.dumps({"op": "command", "id": "x", "command": command}).encode())
    return frame * 64


def _close_frame(data: bytes) -> tuple[int, str] | None:
    """The code and reason of the first close frame in what the server sent."""
    at_ = 0
    while at_ + 2 <= len(data):
        opcode, size = data[at_] & 0x0F, data[at_ + 1] & 0x7F
        at_ += 2
        if size == 126:
            size = struct.unpack("!H", data[at_ : at_ + 2])[0]
            at_ += 2
        elif size == 127:
            size = struct.unpack("!Q", data[at_ : at_ + 8])[0]
            at_ += 8
        payload = data[at_ : at_ + size]
        at_ += size
        if opcode == 0x8 and len(payload) >= 2:
            return struct.unpack("!H", payload[:2])[0], payload[2:].decode(errors="replace")
    return None


def flooder(port: int, kind: str, reconnect: bool, stop: EventType, results: Any) -> None:
    """Flood over one connection until ``stop`` is set (``reconnect``: over a new one
    each time the gateway closes it); put how each connection ended."""
    outcomes = [_flood_once(port, kind, stop)]
    while reconnect and not stop.is_set():
        outcomes.append(_flood_once(port, kind, stop))
    results.put(outcomes)


Outcome = tuple[int, float | None, tuple[int, str] | None]
"""(frames sent, seconds until the gateway closed it or None, its close frame's code and
reason if one reached the flooder)."""


def _flood_once(port: int, kind: str, stop: EventType) -> Outcome:
    """Send one kind of frame as fast as the gateway takes it, never reading, until
    ``stop`` is set or the gateway closes the connection; then read what it sent."""
    sock = raw_websocket(port)
    chunk = _chunk(kind)
    opened = time.monotonic()
    sent = 0
    closed_after: float | None = None
    sock.settimeout(0.2)
    pending = memoryview(chunk)
    while not stop.is_set():
        try:
            pending = pending[sock.send(pending) :]  # a frame is never cut short
        except TimeoutError:
            continue  # the gateway is not reading us now
        except OSError:
            closed_after = time.monotonic() - opened
            break
        if not pending:
            sent += 64
            pending = memoryview(chunk)
    received = b""
    sock.settimeout(1.0)
    reading_until = time.monotonic() + 3.0  # what an open connection still sends is not read
    try:
        while time.monotonic() < reading_until and (data := sock.recv(1 << 20)):
            received += data
            if _close_frame(received) is not None:
                if closed_after is None:
                    closed_after = time.monotonic() - opened
                break
    except OSError:
        if closed_after is None and not stop.is_set():
            closed_after = time.monotonic() - opened
    sock.close()
    return sent, closed_after, _close_frame(received)


# --- the normal client ---------------------------------------------------------


class Desk:
    """The arbiter client: plays a move, waits for its delta, notes the latency."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ply = 0
        self.last_seq = 0
        self.out_of_order = 0

    async def move(self) -> float:
        self.ply += 1
        command = {
            "cmd": "play_move",
            "game": "1.1",
            "move": CYCLE[(self.ply - 1) % 4],
            "at": at(self.ply),
        }
        sent = time.perf_counter()
        await self.ws.send(json.dumps({"op": "command", "id": str(self.ply), "command": command}))
        async with asyncio.timeout(60):
            while True:
                message = json.loads(await self.ws.recv())
                for frame in message if isinstance(message, list) else [message]:
                    if frame.get("op") == "result" and not frame.get("ok"):
                        raise RuntimeError(f"move refused: {frame}")
                    if frame.get("op") != "delta":
                        continue
                    if frame["seq"] <= self.last_seq:
                        self.out_of_order += 1
                    self.last_seq = frame["seq"]
                    if frame.get("kind") == "MovePlayed" and frame["event"]["ply"] == self.ply:
                        return (time.perf_counter() - sent) * 1000

    async def moves(self, count: int, seconds: float = 0.0) -> list[float]:
        """At least ``count`` moves, for at least ``seconds``: their latencies (ms)."""
        found = []
        until = time.monotonic() + seconds
        while len(found) < count or time.monotonic() < until:
            found.append(await self.move())
            await asyncio.sleep(random.uniform(0, 0.05))
        return found


async def run(args: argparse.Namespace, work: Path) -> None:
    store_url = str(work / "store.sqlite")
    with Store(store_url) as store:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    tokens = work / "tokens.json"
    tokens.write_text(json.dumps({TOKEN: {"role": "arbiter", "name": "bench"}}))
    log = work / "gateway.log"
    server = subprocess.Popen(
        [
            sys.executable, "-c", SERVE_LOGGING, "--store", store_url, "serve",
            "--port", "0", "--public-delay-s", "0", "--tokens", str(tokens),
        ],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=log.open("w"), text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        port = int(re.search(r":(\d+)/", server.stdout.readline()).group(1))  # type: ignore[union-attr]
        async with connect(f"ws://127.0.0.1:{port}/ws", subprotocols=["json"]) as ws:  # type: ignore[list-item]
            await ws.send(json.dumps({"op": "subscribe", "games": ["1.1"], "token": TOKEN}))
            desk = Desk(ws)
            await desk.moves(5)  # warm up
            print(
                f"normal client: an arbiter playing moves over the socket; at least {args.moves} "
                f"moves and {args.phase_s:g} s a phase; {args.flooders} flooders of each kind"
                f"{' (each connecting again when closed)' if args.reconnect else ''}; "
                f"load {os.getloadavg()[0]:.2f}"
            )
            print(
                f"{'phase':<16} {'moves':>5} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} "
                f"{'p99/alone':>9}  "
                "flooders"
            )
            alone = await desk.moves(args.moves, args.phase_s)
            _print("alone", alone, alone, "")
            for kind in args.kinds.split(","):
                logged = log.read_text()
                latency, ended = await _beside(desk, port, kind, args)
                ended += _closed_by_gateway(log.read_text()[len(logged) :])
                _print(f"{kind} x{args.flooders}", latency, alone, ended)
            after = await desk.moves(args.moves, args.phase_s)
            _print("after", after, alone, "")
            print(
                f"every move's delta arrived; deltas out of order or repeated: "
                f"{desk.out_of_order}; normal client closed: {ws.close_code is not None}"
            )
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            print("the gateway did not stop within 10 s of SIGTERM: killed")
            server.kill()
            server.wait()


async def _beside(desk: Desk, port: int, kind: str, args: argparse.Namespace):
    """The moves of one phase beside ``args.flooders`` flooders of one kind."""
    stop = multiprocessing.Event()
    results: Any = multiprocessing.Queue()
    processes = [
        multiprocessing.Process(target=flooder, args=(port, kind, args.reconnect, stop, results))
        for _ in range(args.flooders)
    ]
    for process in processes:
        process.start()
    await asyncio.sleep(1.0)  # the flood is in full swing
    latency = await desk.moves(args.moves, args.phase_s)
    stop.set()
    outcomes = [await asyncio.to_thread(results.get, True, 30) for _ in processes]
    for process in processes:
        process.join(10)
    await asyncio.sleep(1.0)
    return latency, _ended(outcomes)


def _closed_by_gateway(log: str) -> str:
    """What the gateway logged of the connections it closed, by reason."""
    reasons = Counter(match.group(1) for match in CLOSE_LOGGED.finditer(log))
    if not reasons:
        return ""
    return "; the gateway closed " + ", ".join(f"{n} for {why!r}" for why, n in reasons.items())


def _ended(outcomes: list[list[Outcome]]) -> str:
    """How the flooders' connections ended, in short."""
    connections = [o for each in outcomes for o in each]
    closed: dict[str, list[float]] = {}
    still_open = 0
    for _, closed_after, close in connections:
        if closed_after is None:
            still_open += 1
            continue
        how = "reset (no close frame reached it)" if close is None else f"{close[0]} {close[1]!r}"
        closed.setdefault(how, []).append(closed_after)
    parts = [f"{len(connections)} connections"]
    for how, after in closed.items():
        parts.append(f"{len(after)} closed {how} after {min(after):.1f}-{max(after):.1f} s")
    if still_open:
        parts.append(f"{still_open} open when the phase ended")
    return "; ".join(parts)


def _print(phase: str, latency: list[float], alone: list[float], ended: str) -> None:
    ratio = pct(latency, 0.99) / pct(alone, 0.99)
    print(
        f"{phase:<16} {len(latency):>5} {pct(latency, 0.5):>8.1f} {pct(latency, 0.99):>8.1f} "
        f"{max(latency):>8.1f} {ratio:>8.1f}x  {ended}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flooders", type=int, default=3)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument(
        "--phase-s",
        type=float,
        default=12.0,
        help="each phase plays moves for at least this long (the gateway closes a "
        "client that stays over its budget for 10 s)",
    )
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument(
        "--reconnect", action="store_true", help="a flooder closed connects again at once"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="candidates-flood-") as name:
        asyncio.run(run(args, Path(name)))


if __name__ == "__main__":
    main()
