"""Clock readings: fold rate and the load time of a game with 10,000 readings.

Prints, for one game holding N clock readings (default 10,000) in a fresh
SQLite store:

- the rate at which readings are recorded through ``Store.execute_many``
  (groups of 100, one save each);
- readings folded per second (``engine.game.reconciliation.evolve`` over decoded
  events), and read + decoded + folded from the store;
- the time to load the game for a decision and answer "clock at t"
  (``Store.game`` + ``Store.clock_log`` + ``clock_view``: what ``play_move``
  and ``clock_reading`` need), and the time of ``candidates game ID --at T``
  (which also finds the device clock at T by binary search of the readings);
- the baseline measured in the same run: msgpack decoding of the same stored
  readings, and each figure as a ratio to it.

    .venv/bin/python bench/bench_clock.py [--readings N] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgpack

from adapters.store import Store
from adapters.store.queries import game_object
from engine.events import clock_stream
from engine.game import reconciliation
from projections.clock import clock_view
from tests.helpers import T0_MS, at, paired_tournament


def median_time(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def build(path: str, readings: int) -> float:
    """A game with 20 moves and ``readings`` readings (two a second, so that 10,000 fit
    in White's 120 min); returns the time spent recording them."""
    with Store(path) as store:
        paired_tournament(store)
        store.handle({"cmd": "start_game", "game": "1.1", "at": at(0)})
        cycle = ["Nf3", "Nf6", "Ng1", "Ng8"]
        for i in range(20):
            store.handle({"cmd": "play_move", "game": "1.1", "move": cycle[i % 4], "at": at(i + 1)})
        white = store.reads.game("1.1").clock.remaining_ms("white")
        batch = []
        start = time.perf_counter()
        for i in range(readings):
            batch.append(
                {
                    "cmd": "clock_reading",
                    "game": "1.1",
                    "at": at(21 + i / 2),
                    "white_ms": max(0, white - i * 500),
                    "black_ms": 7_190_000,
                    "running": "white",
                    "by": "dgt:31337",
                }
            )
            if len(batch) == 100:
                answers = store.execute_many(batch)
                assert all(a["ok"] for a in answers), answers[0]
                batch = []
        if batch:
            store.execute_many(batch)
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--readings", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = args.readings
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/bench.sqlite"
        record_s = build(path, n)
        stream = clock_stream("1.1")
        with Store(path) as store:
            stored = store.app.recorder.select_events(stream)
            events = store.cache.stream(stream)
        assert len(stored) == n

        def baseline() -> None:
            for record in stored:
                msgpack.unpackb(record.state, raw=False, use_list=False, strict_map_key=False)

        def fold() -> None:
            state = None
            for event in events:
                state = reconciliation.evolve(state, event)

        def read_and_fold() -> None:
            with Store(path) as store:
                state = None
                for event in store.cache.stream(stream):
                    state = reconciliation.evolve(state, event)

        at_ms = T0_MS + (21 + n // 4) * 1000

        def load_for_decision() -> None:
            with Store(path) as store:
                game = store.reads.game("1.1")
                store.reads.clock_log("1.1")
                clock_view(game, at_ms)

        def query_at() -> None:
            with Store(path) as store:
                game_object(store.reads, "1.1", at_ms)

        def open_empty() -> None:
            with Store(path) as store:
                store.reads.tournament()

        # Interleaved rounds, medians: the machine is shared, so each round
        # measures every figure and its baseline under the same load.
        actions = [baseline, fold, read_and_fold, load_for_decision, query_at, open_empty]
        times: list[list[float]] = [[] for _ in actions]
        for _ in range(args.repeat):
            for index, action in enumerate(actions):
                times[index].append(median_time(action, 1))
        base, fold_s, read_fold_s, decision_s, query_s, open_s = (
            statistics.median(t) for t in times
        )

    print(f"clock readings in one game: {n}")
    print(f"recorded via execute_many (100 a save): {n / record_s:,.0f} readings/s")
    print(
        f"baseline, msgpack decoding of the {n} stored readings: {base * 1000:.1f} ms "
        f"({n / base:,.0f}/s)"
    )
    print(
        f"readings folded (reconciliation.evolve): {n / fold_s:,.0f} readings/s "
        f"= {fold_s / base:.2f}x baseline"
    )
    print(
        f"readings read + decoded + folded from the store: {n / read_fold_s:,.0f} readings/s "
        f"= {read_fold_s / base:.2f}x baseline"
    )
    print(f"opening the store (reference, no game loaded): {open_s * 1000:.1f} ms")
    print(
        f"load game + clock log + clock at t (decision path): {decision_s * 1000:.1f} ms "
        f"= {decision_s / base:.3f}x baseline"
    )
    print(
        f"game --at T, device clock by binary search: {query_s * 1000:.1f} ms "
        f"= {query_s / base:.2f}x baseline"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
