"""What each player needs: the scenarios through the full tie-break chain, and an update.

    .venv/bin/python bench/bench_needs.py [--repeat N]

Imports the 2013 Candidates (56 games) into a temporary SQLite store, then times,
each the median of ``--repeat`` runs:

- the 6,561 scenarios of rounds 13-14 (after round 12) scored through the full
  chain (points, 3.7 a-c over the whole tied group, withdrawals, playoff:
  ``projections.scenarios.scenarios``), against the baseline measured in the same
  run: the bare points-only count of the same scenarios (the players at the top on
  points, 3.6.1, for each combination, nothing else). The goal: under 1 s.
- the same scenarios through ``rank`` for every scenario (the standings' ranking
  of every player, no shortcut for a clear leader): what the chain costs without
  the scorer's precomputation.
- the whole ``needs`` object (scenarios, words, chances) after round 12, and
  after round 11 (a seeded sample: more than two rounds left).
- an update after a result: the table of round 12 narrowed by one round-13 result
  (2,187 scenarios left), then the object (words, chances) built: what the gateway
  computes when a result arrives. The goal: under 100 ms. Beside it, the same
  object computed from nothing (no previous table).

Prints each figure in wall time and in this process's CPU time (steadier on a shared
machine), and the CPU ratio to the baseline.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from itertools import product
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.pgn_import import import_pgn  # noqa: E402
from adapters.queries import _all_games  # noqa: E402
from adapters.store import Store  # noqa: E402
from bench.common import timed  # noqa: E402
from engine.standings.tiebreaks import ScoredGame, rank  # noqa: E402
from projections.needs import needs_object, needs_table  # noqa: E402
from projections.scenarios import RESULTS, Scorer, scenario_space, scenarios  # noqa: E402

SOURCE = ROOT / "replay_logs" / "sources" / "candidates-2013.pgn"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Store(str(Path(tmp) / "bench.sqlite")) as store:
        import_pgn(store, SOURCE)
        tournament = store.tournament()
        assert tournament is not None
        games = _all_games(store)
    space = scenario_space(tournament, games, 12)
    combos = list(product(range(3), repeat=len(space.remaining)))

    def points_only() -> None:
        scorer = Scorer(space)
        for c in combos:
            scorer.points_only(c)

    def every_rank() -> None:
        for c in combos:
            played = [
                ScoredGame(p.game, p.round, p.white, p.black, RESULTS[r])
                for p, r in zip(space.remaining, c, strict=True)
            ]
            rank(space.players, (), space.chain, counted=space.counted.with_games(played))

    table12 = scenarios(space)
    ties = sum(o.winner is None or o.decided_by != "points" for o in table12.outcomes)
    round13 = sorted((g for g in games if g.round == 13), key=lambda g: g.game_id)
    after_one = [g for g in games if g.round <= 12 or g.game_id == round13[0].game_id]

    def update() -> None:
        narrowed = needs_table(tournament, after_one, None, previous=table12)
        assert len(narrowed.outcomes) == 3**7
        needs_object(tournament, after_one, narrowed)

    def from_nothing() -> None:
        needs_object(tournament, after_one, needs_table(tournament, after_one, None))

    def whole(after: int) -> Callable[[], object]:
        return lambda: needs_object(tournament, games, needs_table(tournament, games, after))

    update()  # the playoff odds of each tied group are simulated once, then kept
    rows = [
        ("baseline: points only (3.6.1), 6,561 scenarios", points_only, args.repeat, None),
        ("full chain (3.7 a-c, 3.1, playoff), 6,561", lambda: scenarios(space), args.repeat, 1),
        ("rank() of every scenario, no shortcut", every_rank, max(1, args.repeat // 2), None),
        ("needs object after round 12 (6,561)", whole(12), 3, None),
        ("needs object after round 11 (sampled)", whole(11), 3, None),
        ("update after a round-13 result (2,187)", update, args.repeat, 0.1),
        ("  the same object from nothing", from_nothing, 3, None),
    ]
    print(f"scenarios after round 12: {len(combos)} ({ties} level on points for first)")
    print(f"{'':46} {'wall ms':>9} {'cpu ms':>9} {'x baseline':>10}  goal")
    base_cpu = 0.0
    for label, fn, repeat, goal_s in rows:
        wall = timed(fn, repeat)
        cpu = timed(fn, repeat, time.process_time)
        base_cpu = base_cpu or cpu
        goal = f"under {goal_s * 1000:.0f} ms" if goal_s else ""
        print(f"{label:46} {wall * 1000:9.1f} {cpu * 1000:9.1f} {cpu / base_cpu:10.1f}  {goal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
