"""A gateway's restart on a long log, with and without its kept state, in one run.

    .venv/bin/python bench/bench_restart.py [--boards N] [--seconds S] [--store URL]

N boards (default 100) each send a clock reading a second for S seconds (default
600: 60,000 readings), as the DGT boards of a big event do; then a gateway (the
reading of the store before it listens: ``Gateway.open``) starts on that log:

- without kept state: it reads the whole log for the games and the alerts raised
  (what every start did before kept projections, and what a first start does);
- with kept state: a gateway ran and stopped (keeping its state), one more second
  of readings came in, and the gateway starts again: it reads only that second.

The flag check of ``candidates serve`` (``FlagWatch``) is timed the same way. Both
starts build every game object (the snapshot the clients need): that part is the
same in both, and is printed as the floor. Prints milliseconds and the ratio.
``--store`` takes a SQLite path or a PostgreSQL URL (default: a fresh SQLite file).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.gateway.follower import Follower, Resumed  # noqa: E402
from adapters.gateway.server import Gateway  # noqa: E402
from adapters.store import Store  # noqa: E402
from adapters.store.kept import kept_recorder  # noqa: E402
from adapters.watch.flags import FlagWatch  # noqa: E402
from bench.common import T0_MS, handle, lots_drawn  # noqa: E402
from engine.timefmt import format_instant  # noqa: E402

BATCH = 1000


def setup(store: Store, boards: int) -> list[str]:
    """A tournament with its lots drawn and ``boards`` games between named players."""
    players = lots_drawn(store)
    games = [f"b.{n}" for n in range(1, boards + 1)]
    white, black = players[0]["id"], players[1]["id"]
    for game in games:
        start = {"cmd": "start_game", "game": game, "white": white, "black": black}
        handle(store, {**start, "at": format_instant(T0_MS)})
    return games


def readings(store: Store, games: list[str], first_s: int, seconds: int) -> None:
    """A clock reading a second from every board (within the tolerance: no alerts)."""
    pending: list[dict[str, object]] = []
    for second in range(first_s, first_s + seconds):
        for game in games:
            pending.append(
                {
                    "cmd": "clock_reading",
                    "game": game,
                    "at": format_instant(T0_MS + second * 1000),
                    "white_ms": 7_200_000 - second * 1000,
                    "black_ms": 7_200_000,
                    "running": "white",
                }
            )
            if len(pending) >= BATCH:
                store.execute_many(pending)
                pending = []
    if pending:
        store.execute_many(pending)


def gateway_start(url: str, keep: bool) -> tuple[float, int]:
    """(ms to read the store before listening, events read from the log)."""

    async def start() -> tuple[float, int]:
        gateway = Gateway(url, public_delay_s=0, keep=keep)
        try:
            began = time.perf_counter()
            await gateway.open()
            elapsed = (time.perf_counter() - began) * 1000
            return elapsed, gateway.stats.folded_at_start
        finally:
            await gateway.close()  # keeps the state it read (with keep), as a stopping gateway

    return asyncio.run(start())


def objects_only(url: str) -> float:
    """The floor: the store opened, every game object and the standings, nothing read
    from the log."""
    with Store(url) as store:
        follower = Follower(store)
        follower.start()  # warm, as a restart after a stop is
        resumed = Resumed(store.last_seq(), dict(follower.game_ids), dict(follower.standings))
    began = time.perf_counter()
    with Store(url) as store:
        Follower(store).start(resumed)
    return (time.perf_counter() - began) * 1000


def flag_start(url: str, keep: bool) -> tuple[float, int]:
    with Store(url) as store:
        watch = FlagWatch(store, keep=keep)
        began = time.perf_counter()
        watch.fold()
        elapsed = (time.perf_counter() - began) * 1000
        watch.save(force=True)
        return elapsed, watch.folded


def drop_kept(url: str) -> None:
    with Store(url) as store:
        recorder = kept_recorder(store)
        for record in recorder.records():
            recorder.drop(record.name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=100)
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--store", default=None, help="SQLite path or postgresql:// URL")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.store or str(Path(tmp) / "bench.sqlite")
        with Store(url) as store:
            if store.last_seq():
                raise SystemExit(f"bench: {url} is not empty")
            games = setup(store, args.boards)
            began = time.perf_counter()
            readings(store, games, 1, args.seconds)
            written_s = time.perf_counter() - began
            length = store.last_seq()
        cold, cold_flags = [], []
        warm, warm_flags = [], []
        cold_read = warm_read = flags_cold_read = flags_warm_read = 0
        for run in range(args.runs):
            drop_kept(url)
            ms, cold_read = gateway_start(url, keep=True)  # nothing kept: the whole log
            cold.append(ms)
            ms, flags_cold_read = flag_start(url, keep=True)
            cold_flags.append(ms)
            with Store(url) as store:  # one more second of readings after the kept position
                readings(store, games, args.seconds + 1 + run, 1)
            ms, warm_read = gateway_start(url, keep=True)
            warm.append(ms)
            ms, flags_warm_read = flag_start(url, keep=True)
            warm_flags.append(ms)
        floor = objects_only(url)
    backend = "PostgreSQL" if url.startswith("postgres") else "SQLite"
    print(
        f"{args.boards} boards, a clock reading a second for {args.seconds} s: a log of "
        f"{length} events ({length / written_s:,.0f} events/s written), {backend}"
    )
    cold_ms, warm_ms = statistics.median(cold), statistics.median(warm)
    print(f"gateway start, nothing kept     {cold_ms:9.1f} ms  ({cold_read} events read)")
    print(
        f"gateway start, kept state       {warm_ms:9.1f} ms  ({warm_read} events read)"
        f"  x{cold_ms / warm_ms:.1f} faster"
    )
    print(f"  of which open + game objects  {floor:9.1f} ms  (the snapshot: the same in both)")
    cold_f, warm_f = statistics.median(cold_flags), statistics.median(warm_flags)
    print(f"flag check start, nothing kept  {cold_f:9.1f} ms  ({flags_cold_read} events read)")
    print(
        f"flag check start, kept state    {warm_f:9.1f} ms  ({flags_warm_read} events read)"
        f"  x{cold_f / max(warm_f, 1e-3):.1f} faster"
    )


if __name__ == "__main__":
    main()
