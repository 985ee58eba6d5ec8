"""Qualification (2.3 list, tie-break chain, reserves, replacements) on a full-size list.

    .venv/bin/python bench/bench_qualification.py [--players N] [--repeat R]

Builds a FIDE-like list of N rated players (ratings 2400-2850, so many
averages are level and the chain of 2.3 runs: games in 2011, then the March
2012 list), ten withdrawals, and times ``parse_qualification`` + ``qualify``
(exact Fractions and Decimals throughout). The baseline, measured in the same
run, is Python's ``sorted`` of the same players by the same chain as plain
tuples of floats and ints: the least any ranking must cost. Prints both and
their ratio.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.qualification.inputs import parse_qualification  # noqa: E402
from engine.qualification.qualification import qualify  # noqa: E402


def build(players: int, seed: int = 2012) -> dict[str, Any]:
    rnd = random.Random(seed)
    rows: list[dict[str, Any]] = [
        {"id": name, "july_2011": {"rating": 2700}, "january_2012": {"rating": 2700}}
        for name in ("cup1", "cup2", "cup3", "champion", "challenger")
    ]
    for i in range(players):
        july = rnd.randint(2400, 2850)
        rows.append(
            {
                "id": f"p{i:05d}",
                "july_2011": {"rating": july, "inactive": rnd.random() < 0.03},
                "january_2012": {"rating": july + rnd.randint(-30, 30)},
                "march_2012": {"rating": july + rnd.randint(-40, 40), "games": i % 23},
                "games_2011": 10 + i * 7919 % 90,
            }
        )
    return {
        "start_date": "2012-10-20",
        "world_cup_2011": ["cup1", "cup2", "cup3"],
        "world_championship_match_2012": {
            "champion": "champion",
            "challenger": "challenger",
            "loser": "challenger",
        },
        "players": rows,
        "withdrawals": [],
    }


def baseline(raw: dict[str, Any]) -> float:
    start = time.perf_counter()
    keyed = []
    for p in raw["players"][5:]:
        july, january = p["july_2011"], p["january_2012"]
        ratings = [e["rating"] for e in (july, january) if not e.get("inactive")]
        if not ratings:
            continue
        march = p["march_2012"]
        avg = sum(ratings) / len(ratings)
        keyed.append((-avg, -p["games_2011"], -march["rating"], -march["games"], p["id"]))
    keyed.sort()
    return time.perf_counter() - start


def engine(raw: dict[str, Any]) -> tuple[float, int]:
    start = time.perf_counter()
    result = qualify(parse_qualification(raw))
    return time.perf_counter() - start, len(result.reserves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    raw = build(args.players)
    # Ten withdrawals of rated qualifiers and their replacements, well in time.
    first = qualify(parse_qualification(raw))
    chain = [p.player for p in first.field if p.article == "2.3"] + list(first.reserves[:7])
    raw["withdrawals"] = [
        {"player": pid, "on": f"2012-0{1 + n // 3}-{10 + n:02d}"} for n, pid in enumerate(chain)
    ]
    base = statistics.median(baseline(raw) for _ in range(args.repeat))
    runs = [engine(raw) for _ in range(args.repeat)]
    took = statistics.median(t for t, _ in runs)
    reserves = runs[0][1]
    print(f"players on the list:        {args.players}")
    print(f"withdrawals replaced:       {len(raw['withdrawals'])}")
    print(f"reserves left:              {reserves}")
    print(f"baseline sorted() tuples:   {base * 1000:8.2f} ms")
    print(f"parse + qualify (exact):    {took * 1000:8.2f} ms")
    print(f"ratio engine / baseline:    {took / base:8.1f}x")


if __name__ == "__main__":
    main()
