"""Cost of the flag check on a timer and of a correction, against baselines of the same run.

    .venv/bin/python bench/bench_flag_check.py [--plies N] [--ticks T]

A round of four games in progress, N plies each, on SQLite. ``candidates serve``
sends one ``check_flags`` for every game in progress each second
(``adapters.watch.flags``): one tick is measured (nothing fell, so nothing is
appended), against the baseline of one ``play_move`` decided and appended (the
commonest command). Then ``correct_moves`` replacing the last ten plies of a game,
against the same baseline. Prints milliseconds and ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.store import Store  # noqa: E402
from adapters.watch.flags import FlagWatch  # noqa: E402
from bench.common import T0_MS, handle, lots_drawn  # noqa: E402
from engine.timefmt import format_instant  # noqa: E402

CYCLE = ["Nf3", "Nf6", "Ng1", "Ng8"]


def setup(store: Store, plies: int) -> int:
    lots_drawn(store)
    at = T0_MS
    for board in range(1, 5):
        handle(store, {"cmd": "start_game", "game": f"1.{board}", "at": format_instant(T0_MS)})
    for ply in range(plies):
        for board in range(1, 5):
            at += 1000
            move = CYCLE[ply % 4]
            cmd = {"cmd": "play_move", "game": f"1.{board}", "move": move}
            handle(store, {**cmd, "at": format_instant(at)})
    return at


def timed(action, runs: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=80)
    parser.add_argument("--ticks", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "bench.sqlite"))
        now = {"ms": setup(store, args.plies)}
        watch = FlagWatch(store, wall_clock=lambda: now["ms"])
        watch.tick()  # the first tick reads the log once

        def tick() -> None:
            now["ms"] += 1000
            answer = watch.tick()
            assert answer is not None and answer["events"] == []

        tick_ms = timed(tick, args.ticks)
        plies = {"n": args.plies}

        def move() -> None:
            now["ms"] += 1000
            plies["n"] += 1
            cmd = {"cmd": "play_move", "game": "1.1", "move": CYCLE[(plies["n"] - 1) % 4]}
            handle(store, {**cmd, "at": format_instant(now["ms"])})

        move_ms = timed(move, args.ticks)

        def correct() -> None:
            now["ms"] += 1000
            game = store.reads.game("1.2")
            assert game is not None
            moves = [CYCLE[i % 4] for i in range(game.ply - 10, game.ply)]
            cmd = {
                "cmd": "correct_moves",
                "game": "1.2",
                "arbiter": "chief",
                "reason": "bench",
                "from_ply": game.ply - 10,
                "moves": moves,
                "white_ms": 3_600_000 + now["ms"] % 1000,
            }
            handle(store, {**cmd, "at": format_instant(now["ms"])})

        correct_ms = timed(correct, max(5, args.ticks // 5))
        store.close()
    print(f"four games of {args.plies} plies, SQLite")
    print(f"baseline: play_move decided and appended   {move_ms:8.3f} ms")
    tick_ratio, correct_ratio = tick_ms / move_ms, correct_ms / move_ms
    print(f"flag check tick (4 games, nothing fell)    {tick_ms:8.3f} ms  x{tick_ratio:.2f}")
    print(f"correct_moves of the last 10 plies         {correct_ms:8.3f} ms  x{correct_ratio:.2f}")


if __name__ == "__main__":
    main()
