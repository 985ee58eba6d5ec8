"""Replay of the whole bundled 2013 sample vs plain msgpack decoding of the same log.

    .venv/bin/python bench/bench_replay.py [--log FILE] [--store sqlite|postgresql://...]

Measures, in one run, on the same file:

- baseline: msgpack decoding of every object of the log (``msgpack.Unpacker``),
  nothing else;
- read: the log parsed into records (form checks included);
- verify: every hash link recomputed (SHA-256 over the canonical bytes);
- replay: ``candidates replay --speed max`` minus printing: the log read,
  every event appended to a fresh store (links computed again by the store,
  batches of 500 in one transaction), then the state of every game projected.

Prints events per second and seconds for the whole event for each, and the
replay's ratio to the baseline.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import msgpack

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.formats.replay import Pace, replay, state_at  # noqa: E402
from adapters.formats.replay_log import event_classes, read_log, verify_links  # noqa: E402
from adapters.store import Store  # noqa: E402
from tools.sample import SAMPLE_LOG  # noqa: E402


def best_of(runs: int, work) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", default=str(SAMPLE_LOG))
    parser.add_argument("--store", default="sqlite", help="sqlite (a temporary file) or a URL")
    parser.add_argument("--runs", type=int, default=3, help="best of N for the fast parts")
    args = parser.parse_args()

    data = Path(args.log).read_bytes()
    log = read_log(args.log)
    events = len(log.records)

    def decode() -> None:
        for _ in msgpack.Unpacker(
            __import__("io").BytesIO(data), raw=False, use_list=False, strict_map_key=False
        ):
            pass

    classes = event_classes()
    decode_s = best_of(args.runs, decode)
    read_s = best_of(args.runs, lambda: read_log(args.log))
    verify_s = best_of(args.runs, lambda: verify_links(log.records, classes))

    with tempfile.TemporaryDirectory(prefix="bench-replay-") as tmp:
        url = str(Path(tmp) / "replay.sqlite") if args.store == "sqlite" else args.store
        started = time.perf_counter()
        with Store(url) as store:
            replay(store, read_log(args.log).records, Pace(None))
            appended_s = time.perf_counter() - started
            state = state_at(store, None)
        replay_s = time.perf_counter() - started

    print(
        f"log: {args.log} ({len(data) / 1e6:.2f} MB, {events} events, {len(state['games'])} games)"
    )
    rows = [
        ("msgpack decoding (baseline)", decode_s),
        ("read into records", read_s),
        ("verify every hash link", verify_s),
        ("replay: append to a fresh store", appended_s),
        ("replay + project every game", replay_s),
    ]
    for label, seconds in rows:
        print(f"  {label:<34} {events / seconds:>12,.0f} events/s  {seconds:8.3f} s for the event")
    print(f"ratio: replay is {replay_s / decode_s:,.0f}x slower than plain msgpack decoding")
    print(f"store: {args.store}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
