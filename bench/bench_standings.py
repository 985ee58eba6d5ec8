"""Standings of a whole event from the store vs the pure projection alone.

    .venv/bin/python bench/bench_standings.py [--repeat N] [--store postgresql://...?schema=S]

The store must be empty (default: a temporary SQLite file); for PostgreSQL
give a schema of your own (``?schema=``), since the run leaves its events there.

Imports the 2013 Candidates (56 games) into a fresh store, then times
``standings_object(store)`` (what the CLI and the gateway call: bring every
game's state up to date from the store, then fold the standings, tie-breaks,
playoff needs and prizes) against the baseline measured in the same run: the
pure projection ``standings(tournament, games)`` over states already in
memory. Prints both times per call and their ratio.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.formats.pgn_import import import_pgn  # noqa: E402
from adapters.store import Store  # noqa: E402
from adapters.store.queries import _all_games, standings_object  # noqa: E402
from bench.common import timed  # noqa: E402
from projections.standings import standings  # noqa: E402

SOURCE = ROOT / "replay_logs" / "sources" / "candidates-2013.pgn"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--store", default=None, help="default: a temporary SQLite file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.store or str(Path(tmp) / "bench.sqlite")
        with Store(url) as store:
            import_pgn(store, SOURCE)
            tournament = store.reads.tournament()
            games = _all_games(store.reads)
            pure = timed(lambda: standings(tournament, games), args.repeat)
            warm = timed(lambda: standings_object(store.reads), args.repeat)
        with Store(url) as cold_store:
            start = time.perf_counter()
            table = standings_object(cold_store.reads)
            cold = time.perf_counter() - start
    assert table["winner"] == {"player": "carlsen", "decided_by": "wins"}
    print(f"standings of 56 games, median of {args.repeat} calls")
    print(f"  baseline: pure projection over states in memory  {pure * 1000:8.2f} ms")
    print(f"  standings_object, states cached (catch-up reads)  {warm * 1000:8.2f} ms")
    print(f"  standings_object, fresh process (fold every game)  {cold * 1000:8.2f} ms")
    print(f"  ratio cached/baseline {warm / pure:.1f}x, fresh/baseline {cold / pure:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
