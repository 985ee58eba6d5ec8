"""Gateway: latency from command to delivery, and CPU per delivered message.

For 1, 100 and 1,000 connected websocket clients (msgpack, all games), on
loopback only:

- the gateway (``candidates serve --public-delay-s 0``, its own process, on a
  fresh SQLite store with the 2013 field paired and game 1.1 started), two
  paths: ``socket``, an arbiter client sends ``play_move`` commands over the
  gateway (decided and stored by the gateway, read back at once, fanned
  out); ``store``, this process stores the moves itself, as a DGT board or
  the CLI would, and the gateway is woken by the writer's signal of the
  commit (a write to ``<database>-commits``, ``adapters.store.wakeup``). Each client notes
  when the delta of the move arrives. Latency = arrival - sending of the
  command. CPU = the gateway process's on-CPU time (every thread, from the
  scheduler's counters) during the moves, divided by the messages delivered
  (for ``socket`` it includes deciding and storing the commands).
- the baseline, measured in the same run: a bare ``websockets`` server (its
  own process) that ``broadcast()``s each message it is sent to every
  client; a trigger client sends it the very messages the gateway delivered,
  so the frames are the same bytes. Latency = arrival - sending of the
  trigger.

Each move waits until every client has its delta (or 10 s), then 0-50 ms of
jitter, so moves do not fall in step with the gateway's timers.

    .venv/bin/python bench/bench_gateway.py [--clients 1,100,1000] [--moves 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgpack
from websockets.asyncio.client import connect

from adapters.store import Store
from bench.common import BARE_BROADCAST_SERVER, pct
from tests.helpers import at, ok, paired_tournament

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-arbiter-token"
CYCLE = ["Nf3", "Nf6", "Ng1", "Ng8"]


def cpu_seconds(pid: int) -> float:
    """On-CPU time of every thread of a process, from the scheduler's nanosecond counters
    (``/proc/PID/task/*/schedstat``; the tick counters of ``stat`` are too coarse)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile
    return total / 1e9


class Receivers:
    """N clients that note the arrival time of every message, decoded afterwards."""

    def __init__(self) -> None:
        self.arrivals: list[tuple[float, bytes]] = []
        self.count = 0
        self.changed = asyncio.Event()
        self.tasks: list[asyncio.Task[None]] = []
        self.sockets: list = []

    async def open(self, url: str, n: int, subscribe: bytes | None) -> None:
        ready = asyncio.Semaphore(100)

        async def one() -> None:
            async with ready:
                ws = await connect(url, compression=None, max_size=2**24, open_timeout=60)
                if subscribe is not None:
                    await ws.send(subscribe)
                    await ws.recv()  # subscribed (+ snapshot, batched with it or next)
                self.sockets.append(ws)

        await asyncio.gather(*(one() for _ in range(n)))
        await asyncio.sleep(0.5)  # snapshots still in flight are drained below
        for ws in self.sockets:
            self.tasks.append(asyncio.create_task(self._read(ws)))
        await asyncio.sleep(1.0)
        self.arrivals.clear()
        self.count = 0

    async def _read(self, ws) -> None:
        try:
            async for message in ws:
                self.arrivals.append((time.perf_counter(), message))
                self.count += 1
                self.changed.set()
        except Exception:
            return

    async def wait_for(self, count: int, timeout: float) -> None:
        deadline = time.perf_counter() + timeout
        while self.count < count and time.perf_counter() < deadline:
            self.changed.clear()
            try:
                await asyncio.wait_for(
                    self.changed.wait(), max(0.0, deadline - time.perf_counter())
                )
            except TimeoutError:
                break

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*(ws.close() for ws in self.sockets), return_exceptions=True)


def plies_of(message: bytes) -> list[int]:
    obj = msgpack.unpackb(message, raw=False, strict_map_key=False)
    frames = obj if isinstance(obj, list) else [obj]
    return [
        f["event"]["ply"]
        for f in frames
        if isinstance(f, dict) and f.get("op") == "delta" and f.get("kind") == "MovePlayed"
    ]


def latencies(sent: dict[int, float], arrivals: list[tuple[float, bytes]]) -> list[float]:
    found = []
    for when, message in arrivals:
        for ply in plies_of(message):
            if ply in sent:
                found.append((when - sent[ply]) * 1000)
    return found


async def moves(receivers: Receivers, pid: int, n: int, count: int, first_ply: int, send):
    """Play ``count`` moves through ``send(ply, command)``; (latencies, cpu, delivered, frames)."""
    receivers.arrivals.clear()
    receivers.count = 0
    sent: dict[int, float] = {}
    cpu0 = cpu_seconds(pid)
    for i in range(count):
        ply = first_ply + i
        move = {"cmd": "play_move", "game": "1.1", "move": CYCLE[(ply - 1) % 4], "at": at(ply)}
        sent[ply] = time.perf_counter()
        await send(ply, move)
        await receivers.wait_for(n * (i + 1), 10)
        await asyncio.sleep(random.uniform(0, 0.05))
    cpu = cpu_seconds(pid) - cpu0
    by_ply: dict[int, bytes] = {}
    for _, message in receivers.arrivals:
        for p in plies_of(message):
            by_ply.setdefault(p, message)
    return latencies(sent, receivers.arrivals), cpu, receivers.count, by_ply


async def run_gateway(store_url: str, tokens: str, n: int, count: int, first_ply: int):
    """Both paths on one gateway: commands over its socket, then moves stored by this
    process (another writer: the gateway is woken by the writes to the store's files)."""
    proc = subprocess.Popen(
        [
            sys.executable, "-c", "import sys; from adapters.cli import main; sys.exit(main())",
            "--store", store_url, "serve", "--port", "0", "--public-delay-s", "0",
            "--tokens", tokens,
        ],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        port = re.search(r":(\d+)/", proc.stdout.readline()).group(1)  # type: ignore[union-attr]
        proc.stdout.readline()
        url = f"ws://127.0.0.1:{port}/ws"
        receivers = Receivers()
        await receivers.open(url, n, msgpack.packb({"op": "subscribe", "games": ["1.1"]}))
        desk = await connect(url, compression=None, max_size=2**24)
        await desk.send(msgpack.packb({"op": "subscribe", "games": [], "token": TOKEN}))
        await desk.recv()

        async def over_socket(ply: int, move: dict) -> None:
            await desk.send(msgpack.packb({"op": "command", "id": str(ply), "command": move}))

        socket_path = await moves(receivers, proc.pid, n, count, first_ply, over_socket)
        await desk.close()
        with Store(store_url) as writer:

            async def into_store(ply: int, move: dict) -> None:
                await asyncio.to_thread(writer.handle, move)

            store_path = await moves(receivers, proc.pid, n, count, first_ply + count, into_store)
        await receivers.close()
        return socket_path, store_path
    finally:
        proc.terminate()
        proc.wait(10)


async def run_baseline(n: int, frames: dict[int, bytes]):
    proc = subprocess.Popen(
        [sys.executable, "-c", BARE_BROADCAST_SERVER], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        receivers = Receivers()
        await receivers.open(f"ws://127.0.0.1:{port}/", n, None)
        trigger = await connect(f"ws://127.0.0.1:{port}/trigger", compression=None)
        sent: dict[int, float] = {}
        cpu0 = cpu_seconds(proc.pid)
        for i, (ply, message) in enumerate(sorted(frames.items())):
            sent[ply] = time.perf_counter()
            await trigger.send(message)
            await receivers.wait_for(n * (i + 1), 10)
            await asyncio.sleep(random.uniform(0, 0.05))
        cpu = cpu_seconds(proc.pid) - cpu0
        result = latencies(sent, receivers.arrivals), cpu, receivers.count
        await trigger.close()
        await receivers.close()
        return result
    finally:
        proc.terminate()
        proc.wait(10)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", default="1,100,1000")
    parser.add_argument("--moves", type=int, default=20)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    work = Path(tempfile.mkdtemp(prefix="bench-gateway-"))
    store_url = str(work / "store.sqlite")
    with Store(store_url) as store:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    tokens = work / "tokens.json"
    tokens.write_text(json.dumps({TOKEN: {"role": "arbiter", "name": "bench"}}))
    counts = [int(c) for c in args.clients.split(",")]
    print(f"gateway vs bare websockets broadcast; {args.moves} moves per row; loopback; msgpack")
    print(
        f"{'clients':>7} | {'path':<6} | {'gateway p50/p99 ms':>19} | "
        f"{'baseline p50/p99 ms':>20} | "
        f"{'gateway CPU/msg':>15} | {'baseline CPU/msg':>16} | {'CPU ratio':>9}"
    )
    ply = 1
    for n in counts:
        by_socket, by_store = await run_gateway(store_url, str(tokens), n, args.moves, ply)
        ply += 2 * args.moves
        b_lat, b_cpu, b_count = await run_baseline(n, by_socket[3])
        b_per = b_cpu / max(1, b_count) * 1e6
        for path, (g_lat, g_cpu, g_count, _) in (("socket", by_socket), ("store", by_store)):
            g_per = g_cpu / max(1, g_count) * 1e6
            print(
                f"{n:>7} | {path:<6} | {pct(g_lat, 0.5):>8.1f} / {pct(g_lat, 0.99):>7.1f} | "
                f"{pct(b_lat, 0.5):>9.1f} / {pct(b_lat, 0.99):>7.1f} | "
                f"{g_per:>12.0f} us | {b_per:>13.0f} us | {g_per / b_per:>8.1f}x",
                flush=True,
            )
            if g_count < n * args.moves:
                print(f"        (delivered {g_count} of {n * args.moves} messages)")
    print(
        "latency: command sent -> delta received; socket: an arbiter's command over the "
        "gateway (decided, stored, read back at once, fanned out); store: a move stored by "
        "another process (the commit wakes the gateway); baseline: "
        "trigger sent -> message received"
    )
    print("CPU/msg: the server process's on-CPU time (all threads) / messages delivered")


if __name__ == "__main__":
    asyncio.run(main())
