"""Cost of the Chief Arbiter's report (``candidates report``) on a whole event.

    .venv/bin/python bench/bench_report.py [--runs R] [--incidents N]

The store is the shipped 2013 replay log (every move of the 56 games and the
clocks' readings, ``replay_logs/candidates-2013.msgpack``) imported into a
fresh SQLite file, plus N incidents recorded through the engine (a warning
each, without a game: every game of the event is over). The report reads
every stored event but the physical clocks' readings, which it skips before
decoding (``Store.events_since(skip_streams=
("clock/",))``). The baseline, measured in the same run, decodes every event
of the store (``Store.events_since(0)``) and builds the same entries. Prints
the figures and their ratio.
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

from adapters.formats.replay_log import import_log, read_log  # noqa: E402
from adapters.store import Store  # noqa: E402
from adapters.store.queries import report_object  # noqa: E402
from engine.timefmt import format_instant  # noqa: E402
from projections.arbiter_report import report_entries  # noqa: E402

LOG = ROOT / "replay_logs" / "candidates-2013.msgpack"


def timed(fn: object, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--incidents", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Store(str(Path(tmp) / "b.sqlite")) as store:
        import_log(store, read_log(str(LOG)))
        tournament = store.reads.tournament()
        assert tournament is not None
        players = [p.id for p in tournament.players]
        at_ms = max(e.at_ms for _, e in store.cache.events_since(0)) + 1000
        for i in range(args.incidents):
            answer = store.handle(
                {
                    "cmd": "record_incident",
                    "player": players[i % len(players)],
                    "kind": "disturbance",
                    "arbiter": next(a.id for a in tournament.arbiters if a.role == "chief"),
                    "details": f"bench incident {i}",
                    "penalty": "warning",
                    "at": format_instant(at_ms + i * 1000),
                }
            )
            assert answer["ok"], answer
        total = store.cache.count()
        report = report_object(store.reads)

        def baseline() -> None:
            report_entries(e for _, e in store.cache.events_since(0))

        ours = timed(lambda: report_object(store.reads), args.runs)
        base = timed(baseline, args.runs)
    mine, theirs = statistics.median(ours), statistics.median(base)
    print(f"store: {total} events, report: {len(report['entries'])} entries")
    print(
        f"candidates report (clock readings skipped): {mine * 1000:8.1f} ms (median of {args.runs})"
    )
    print(f"baseline (every event decoded):              {theirs * 1000:8.1f} ms")
    print(f"ratio: {mine / theirs:.2f}")


if __name__ == "__main__":
    main()
