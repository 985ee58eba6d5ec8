"""The engine's analysis beside the live path: does it slow a move down, and how soon do
commentators get an evaluation?

    .venv/bin/python bench/bench_analysis.py [--boards 4,100] [--moves 10] [--viewers 20]
        [--nodes 100000] [--movetime 200] [--threads 1]

For each number of boards, one SQLite store: N games in progress (the first plies of the
2013 games), every board making a move about every 30 s (a writer thread of this
process, as the DGT boards would), one gateway process (``candidates serve``) with M
viewers and one commentator (every board). ``candidates analyse`` (its own process and session, the
stated budget) runs all along, stopped with its engine (SIGSTOP) in every other phase: the
phases without analysis and with it alternate ``--rounds`` times, so that the load of a
shared machine weighs alike on both. In each phase:

- move to viewer: ``--moves`` moves on ``v.1`` stored by this process, 1.5 s apart; the
  latency from the store's commit to the delta's arrival at every viewer, p50/p99;
- single move: ``play_move`` decided, stored and its game object projected (as
  ``bench/load.py`` measures it), median, of a game of its own moving every 100 ms all
  through the phase (so that a burst of the shared machine's load weighs on few of
  them), in a process of its own (as a board's writer is: not the viewers' and the
  commentator's, whose frames would otherwise take turns with it under one
  interpreter lock);
- move to evaluation (phases with analysis): from the commit of each move of every board
  in the phase to the commentator's ``analysis`` frame of that position, p50/p99, and how
  many of those positions were evaluated by the end of the phase (plus 2 s): when the
  analysis falls behind, a board's older positions wait for the backfill.

The default budget (1 thread, 64 MiB, 100,000 nodes or 200 ms a position, nice 10, the
idle scheduling class) evaluates five positions a second or more: a hundred boards moving
every 30 s offer about three.

The figures without analysis are the baseline of the same run; the ratio is printed.
Without Stockfish the script says so and stops. The machine is shared: quote ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from adapters.analysis.uci import find_engine  # noqa: E402
from adapters.store import Store  # noqa: E402
from adapters.store.queries import game_object  # noqa: E402
from bench.common import game_moves, pct  # noqa: E402
from engine.timefmt import format_instant  # noqa: E402

TOKEN = "bench-commentator-token"
PLAYERS = [{"id": f"p{i}", "name": f"Player {i}", "rating": 2700 - i} for i in range(1, 9)]
ARBITERS = [{"id": "chief", "name": "Chief Arbiter", "role": "chief"}]
CYCLE = ["g1f3", "g8f6", "f3g1", "f6g8"]
OPENING_PLIES = 6
EVAL_GRACE_S = 2.0
"""After a phase with analysis, how long the evaluations under way may still arrive."""
STOP_S = 120
"""How long the analysis may take to stop (it runs at the lowest priority: on a busy machine
its last evaluation and its summary wait for a free core)."""
SINGLE_EVERY_S = 0.1
"""How often the single move's game moves, all through each phase."""
SPACING_S = 1.5
"""Between two moves of ``v.1`` (a board's moves are half a minute apart in a real game;
this keeps the run short and still lets the evaluation of one move come before the next)."""


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def at_now() -> str:
    return format_instant(now_ms())


def set_up(url: str, boards: int) -> list[list[str]]:
    """N games in progress after their first plies, ``v.1`` and ``s.*`` besides; the rest
    of each game's moves (for the writer thread)."""
    games = game_moves(56)
    rest: list[list[str]] = []
    with Store(url) as store:
        store.execute(
            {
                "cmd": "create_tournament",
                "tournament": "bench",
                "name": "Bench",
                "start_date": "2026-01-01",
                "players": PLAYERS,
                "arbiters": ARBITERS,
            }
        )
        start = now_ms() - 60_000
        for b in range(boards):
            moves = games[b % len(games)]
            gid = "v.1" if b == 0 else f"b.{b}"
            store.execute(
                {
                    "cmd": "start_game",
                    "game": gid,
                    "white": "p1",
                    "black": "p2",
                    "at": format_instant(start),
                }
            )
            if gid == "v.1":
                rest.append([])
                continue
            for ply, uci in enumerate(moves[:OPENING_PLIES], start=1):
                at = format_instant(start + ply * 1000)
                store.execute({"cmd": "play_move", "game": gid, "move": uci, "at": at})
            rest.append(moves[OPENING_PLIES:])
    return rest


class Writer(threading.Thread):
    """Every board (but ``v.1``) a move about every 30 s, spread evenly."""

    def __init__(self, url: str, rest: list[list[str]]) -> None:
        super().__init__(daemon=True)
        self.url, self.rest = url, rest
        self.stop = threading.Event()
        self.moves = 0
        self.committed: dict[tuple[str, int], float] = {}
        """(game, ply) -> the instant its move was committed."""

    def run(self) -> None:
        boards = [b for b in range(len(self.rest)) if self.rest[b]]
        if not boards:
            return
        every_s = 30.0 / len(boards)
        turn = 0
        with Store(self.url) as store:
            while not self.stop.wait(every_s):
                b = boards[turn % len(boards)]
                turn += 1
                if not self.rest[b]:
                    continue
                uci = self.rest[b].pop(0)
                answer = store.handle(
                    {"cmd": "play_move", "game": f"b.{b}", "move": uci, "at": at_now()}
                )
                if answer["ok"]:
                    self.moves += 1
                    ply = next(e["ply"] for e in answer["events"] if e["type"] == "MovePlayed")
                    self.committed[(f"b.{b}", ply)] = time.perf_counter()


def start_gateway(url: str, tokens: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "adapters.cli", "--store", url, "serve", "--port", "0",
            "--public-delay-s", "0", "--flag-check", "0", "--tokens", str(tokens),
        ],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    port = re.search(r"at http://[^:]+:(\d+)/", proc.stdout.readline()).group(1)  # type: ignore[union-attr]
    return proc, f"ws://127.0.0.1:{port}/ws"


def start_analyser(url: str, args: argparse.Namespace, errors: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable, "-m", "adapters.cli", "--store", url, "analyse",
            "--threads", str(args.threads), "--hash", "64", "--nodes", str(args.nodes),
            "--movetime", str(args.movetime), "--nice", "10", "--duty", str(args.duty),
        ],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=errors, text=True,
        start_new_session=True,  # its own process group: stopped and continued with its engine
    )  # fmt: skip


def signal_analysis(analyser: subprocess.Popen[str], sig: int) -> None:
    """Signal the analysis' process group and its engine, which is in a session of its
    own (``adapters.analysis.uci``): its children, read from ``/proc``."""
    engines: list[int] = []
    for task in Path(f"/proc/{analyser.pid}/task").glob("*"):
        with contextlib.suppress(OSError, ValueError):
            engines += [int(pid) for pid in (task / "children").read_text().split()]
    with contextlib.suppress(ProcessLookupError):
        os.killpg(analyser.pid, sig)
    for pid in engines:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


class Followers:
    """Viewers of ``v.1`` (public) and one commentator: the arrival of each ply's delta at
    every viewer, and of each ply's evaluation at the commentator."""

    def __init__(self) -> None:
        self.delta_at: dict[int, list[float]] = {}
        self.eval_at: dict[tuple[str, int], float] = {}
        """(game, ply) -> when the commentator got its evaluation (every board)."""
        self.sockets: list[Any] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.changed = asyncio.Event()

    async def open(self, url: str, viewers: int) -> None:
        for i in range(viewers + 1):
            ws = await connect(url, compression=None, max_size=2**24)
            frame: dict[str, Any] = {"op": "subscribe", "games": ["v.1"]}
            if i == viewers:  # the commentator follows every board
                frame = {"op": "subscribe", "games": "*", "token": TOKEN}
            await ws.send(msgpack.packb(frame))
            self.sockets.append(ws)
            self.tasks.append(asyncio.create_task(self._read(ws, i == viewers)))
        await asyncio.sleep(1.5)

    async def _read(self, ws: Any, commentator: bool) -> None:
        with contextlib.suppress(Exception):
            async for message in ws:
                arrived = time.perf_counter()
                data = msgpack.unpackb(message, raw=False, strict_map_key=False)
                for frame in data if isinstance(data, list) else [data]:
                    if frame.get("op") == "delta" and frame.get("object") and not commentator:
                        self.delta_at.setdefault(frame["object"]["ply"], []).append(arrived)
                    elif frame.get("op") == "analysis" and commentator:
                        self.eval_at.setdefault((frame["game"], frame["ply"]), arrived)
                self.changed.set()

    async def wait_delta(self, ply: int, viewers: int, timeout: float = 15) -> list[float]:
        deadline = time.perf_counter() + timeout
        while len(self.delta_at.get(ply, [])) < viewers and time.perf_counter() < deadline:
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), 0.5)
        return self.delta_at.get(ply, [])

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*(ws.close() for ws in self.sockets), return_exceptions=True)


def single_moves(store: Store, gid: str, seconds: float) -> list[float]:
    """A game of its own moving every ``SINGLE_EVERY_S`` for ``seconds``: each move
    decided, stored, its game object projected."""
    store.execute({"cmd": "start_game", "game": gid, "white": "p1", "black": "p2", "at": at_now()})
    spent: list[float] = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        began = time.perf_counter()
        move = CYCLE[len(spent) % 4]
        store.execute({"cmd": "play_move", "game": gid, "move": move, "at": at_now()})
        game_object(store.reads, gid)
        spent.append((time.perf_counter() - began) * 1000)
        time.sleep(max(0.0, SINGLE_EVERY_S - (time.perf_counter() - began)))
    return spent


def single_move_worker(url: str) -> int:
    """``--single-moves URL``: for each line ``GAME SECONDS`` read on stdin, its
    ``single_moves`` as a JSON line (the bench's process of its own for the single move)."""
    with Store(url) as store:
        for line in sys.stdin:
            gid, seconds = line.split()
            print(json.dumps(single_moves(store, gid, float(seconds))), flush=True)
    return 0


class SingleMoves:
    """The single move's process (``single_move_worker``), asked once per phase, for the
    whole phase."""

    def __init__(self, url: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--single-moves", url],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip

    def measure(self, gid: str, seconds: float) -> list[float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{gid} {seconds}\n")
        self.proc.stdin.flush()
        return [float(ms) for ms in json.loads(self.proc.stdout.readline())]

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(30)


async def phase(
    store: Store,
    followers: Followers,
    single: SingleMoves,
    viewers: int,
    moves: int,
    name: str,
) -> tuple[list[float], list[float], list[tuple[int, float]]]:
    """(move-to-viewer ms, single move ms, (ply, commit instant) of the v.1 moves)."""
    latencies: list[float] = []
    commits: list[tuple[int, float]] = []
    measured = asyncio.create_task(
        asyncio.to_thread(single.measure, f"s.{name}", moves * SPACING_S)
    )  # all through the phase, beside the v.1 moves
    for _ in range(moves):
        game = store.reads.game("v.1")
        ply = (game.ply if game else 0) + 1
        move = {"cmd": "play_move", "game": "v.1", "move": CYCLE[(ply - 1) % 4], "at": at_now()}
        answer = await asyncio.to_thread(store.handle, move)
        committed = time.perf_counter()
        assert answer["ok"], answer
        commits.append((ply, committed))
        arrived = await followers.wait_delta(ply, viewers)
        latencies.extend((t - committed) * 1000 for t in arrived)
        await asyncio.sleep(SPACING_S)
    return latencies, await measured, commits


async def run_boards(boards: int, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-analysis-") as tmp:
        url = str(Path(tmp) / "store.sqlite")
        tokens = Path(tmp) / "tokens.json"
        tokens.write_text(json.dumps({TOKEN: {"role": "commentator", "name": "bench"}}))
        rest = set_up(url, boards)
        writer = Writer(url, rest)
        gateway, ws_url = start_gateway(url, tokens)
        followers = Followers()
        figures: dict[str, list[float]] = {
            "viewer_off": [],
            "viewer_on": [],
            "single_off": [],
            "single_on": [],
        }
        evals: list[float] = []
        asked = 0
        counters: list[dict[str, Any]] = []
        single = SingleMoves(url)
        analyser: subprocess.Popen[str] | None = None
        try:
            await followers.open(ws_url, args.viewers)
            writer.start()
            with Store(url) as store:
                # the analysis runs all along, stopped (SIGSTOP, with its engine) in the
                # phases without it: on and off alternate many times, so that the load of a
                # shared machine weighs alike on both
                errors = (Path(tmp) / "analyse.err").open("w")
                analyser = start_analyser(url, args, errors)
                game = store.reads.game("v.1")
                current = ("v.1", game.ply if game else 0)
                deadline = time.perf_counter() + 90
                while current not in followers.eval_at and time.perf_counter() < deadline:
                    await asyncio.sleep(0.1)  # steady state: the engine up, v.1 evaluated
                for index in range(2 * args.rounds):
                    analysing = index % 2 == 1
                    signal_analysis(analyser, signal.SIGCONT if analysing else signal.SIGSTOP)
                    key = "on" if analysing else "off"
                    began = time.perf_counter()
                    lat, spent, commits = await phase(
                        store, followers, single, args.viewers, args.moves, f"{index}"
                    )
                    ended = time.perf_counter()
                    figures[f"viewer_{key}"] += lat
                    figures[f"single_{key}"] += spent
                    if analysing:
                        # every move of every board committed in the phase
                        moves = {("v.1", p): t for p, t in commits}
                        moves.update(
                            (k, t) for k, t in list(writer.committed.items()) if began <= t < ended
                        )
                        await asyncio.sleep(EVAL_GRACE_S)  # evaluations under way arrive
                        evals += [
                            (followers.eval_at[k] - t) * 1000
                            for k, t in moves.items()
                            if k in followers.eval_at
                            and followers.eval_at[k] <= ended + EVAL_GRACE_S
                        ]
                        asked += len(moves)
                signal_analysis(analyser, signal.SIGCONT)
                analyser.terminate()
                out, _ = analyser.communicate(timeout=STOP_S)
                analyser = None
                try:
                    counters.append(json.loads(out.strip().splitlines()[-1]))
                except (ValueError, IndexError):
                    errors.close()
                    said = (Path(tmp) / "analyse.err").read_text()[-2000:]
                    print(f"bench_analysis: the analysis ended without its summary:\n{said}")
        finally:
            if analyser is not None:  # the run failed: its analysis goes too, never left stopped
                signal_analysis(analyser, signal.SIGCONT)
                analyser.kill()
                analyser.wait(30)
            single.close()
            writer.stop.set()
            await followers.close()
            gateway.terminate()
            gateway.wait(10)
    analysed = sum(c.get("analysed", 0) for c in counters)
    skipped = sum(c.get("skipped", 0) for c in counters)
    return {
        "boards": boards,
        "viewer_off": (pct(figures["viewer_off"], 0.5), pct(figures["viewer_off"], 0.99)),
        "viewer_on": (pct(figures["viewer_on"], 0.5), pct(figures["viewer_on"], 0.99)),
        "single_off": statistics.median(figures["single_off"]),
        "single_on": statistics.median(figures["single_on"]),
        "eval": (pct(evals, 0.5), pct(evals, 0.99), len(evals), asked),
        "analysed": analysed,
        "skipped": skipped,
        "writer_moves": writer.moves,
    }


def main() -> int:
    if sys.argv[1:2] == ["--single-moves"]:
        return single_move_worker(sys.argv[2])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", default="4,100")
    parser.add_argument("--moves", type=int, default=5, help="v.1 moves per phase")
    parser.add_argument("--rounds", type=int, default=8, help="pairs of phases (off, on)")
    parser.add_argument("--viewers", type=int, default=20)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--movetime", type=int, default=200, help="ms")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--duty", type=float, default=0.25, help="the engine's share of the time (analyse --duty)"
    )
    parser.add_argument("--debug", action="store_true")
    parser.add_argument(
        "--results", default=None, help="also append the table to this file (make bench)"
    )
    args = parser.parse_args()
    lines: list[str] = []

    def out(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    engine = find_engine()
    if engine is None:
        out("bench_analysis: Stockfish is not installed (make stockfish); nothing measured")
        write_results(args.results, lines)
        return 1
    out(
        f"engine {engine}; budget: {args.threads} thread, 64 MiB hash, {args.nodes} nodes or "
        f"{args.movetime} ms a position, nice 10, idle class, searching {args.duty:.0%} of "
        "the time; "
        f"{args.viewers} viewers + 1 commentator; "
        f"{args.moves} moves x {args.rounds} phases each way"
    )
    out("")
    out(
        "| boards | move→viewer p50/p99 ms, off | on | p99 ratio | single move ms, off | on "
        "| ratio | move→evaluation p50/p99 ms (got) | analysed / skipped |"
    )
    out("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for boards in [int(b) for b in args.boards.split(",")]:
        r = asyncio.run(run_boards(boards, args))
        off, on = r["viewer_off"], r["viewer_on"]
        e50, e99, got, asked = r["eval"]
        out(
            f"| {boards} | {off[0]:.1f} / {off[1]:.1f} | {on[0]:.1f} / {on[1]:.1f} | "
            f"{on[1] / off[1]:.2f} | {r['single_off']:.2f} | {r['single_on']:.2f} | "
            f"{r['single_on'] / r['single_off']:.2f} | {e50:.0f} / {e99:.0f} ({got}/{asked}) | "
            f"{r['analysed']} / {r['skipped']} |"
        )
    write_results(args.results, lines)
    return 0


def write_results(path: str | None, lines: list[str]) -> None:
    """Append the run to ``path`` (bench/RESULTS.md, after bench/load.py's tables): the
    analysis on beside off, each ratio against the phases without it of the same run."""
    if not path:
        return
    section = [
        "",
        "## Analysis on and off (bench/bench_analysis.py)",
        "",
        "The single move and move→viewer with `candidates analyse` running beside the live "
        "path, against the phases of the same run with it stopped (SIGSTOP); goal: the "
        "single move and the viewers' p99 within 10 % (ratio <= 1.10).",
        "",
        *lines,
    ]
    with Path(path).open("a", encoding="utf-8") as handle:
        handle.write("\n".join(section) + "\n")


if __name__ == "__main__":
    sys.exit(main())
