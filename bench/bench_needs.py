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

Prints the figures and their ratios to the baseline.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
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

    baseline = timed(points_only, args.repeat)
    full = timed(lambda: scenarios(space), args.repeat)
    ranked = timed(every_rank, max(1, args.repeat // 2))
    table12 = scenarios(space)
    ties = sum(o.winner is None or o.decided_by != "points" for o in table12.outcomes)
    whole12 = timed(lambda: needs_object(tournament, games, needs_table(tournament, games, 12)), 3)
    whole11 = timed(lambda: needs_object(tournament, games, needs_table(tournament, games, 11)), 3)

    round13 = sorted((g for g in games if g.round == 13), key=lambda g: g.game_id)
    after_one = [g for g in games if g.round <= 12 or g.game_id == round13[0].game_id]

    def update() -> None:
        narrowed = needs_table(tournament, after_one, None, previous=table12)
        assert len(narrowed.outcomes) == 3**7
        needs_object(tournament, after_one, narrowed)

    def from_nothing() -> None:
        needs_object(tournament, after_one, needs_table(tournament, after_one, None))

    update()  # the playoff odds of each tied group are simulated once, then kept
    narrowed_s = timed(update, args.repeat)
    fresh_s = timed(from_nothing, 3)
    ms = 1000
    print(f"scenarios after round 12: {len(combos)} ({ties} level on points for first)")
    print(f"  baseline, points only (3.6.1):        {baseline * ms:8.1f} ms")
    print(
        f"  full chain (3.7 a-c, 3.1, playoff):    {full * ms:8.1f} ms  "
        f"x{full / baseline:.1f} the baseline  (goal: under 1000 ms)"
    )
    print(
        f"  rank() of every scenario, no shortcut: {ranked * ms:8.1f} ms  "
        f"x{ranked / baseline:.1f} the baseline"
    )
    print(f"needs object after round 12 (6,561):    {whole12 * ms:8.1f} ms")
    print(f"needs object after round 11 (sampled):  {whole11 * ms:8.1f} ms")
    print(
        f"update after a round-13 result (2,187): {narrowed_s * ms:8.1f} ms  "
        f"x{narrowed_s / baseline:.1f} the baseline  (goal: under 100 ms)"
    )
    print(
        f"  the same object from nothing:         {fresh_s * ms:8.1f} ms  "
        f"x{fresh_s / narrowed_s:.1f} the update"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
