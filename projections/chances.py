"""Each player's chance of finishing first: the scenarios weighted by how likely they are.

A game in progress takes its analysis' win/draw/loss odds when there is one; a game
not yet played, FIDE's rating expectancy with a draw rate fitted to the event; a
playoff, a seeded simulation of its own procedure. With every combination scored
the chance is exact, else completions are drawn and scored through the same chain.
The model is stated with every answer (``model``) and in docs/needs.md."""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from engine.tournament.playoff import MAX_BLITZ_SERIES, bracket
from projections.scenarios import RESULTS, Outcome, ScenarioTable, Scorer

FIDE_TABLE = (
    (3, 50), (10, 51), (17, 52), (25, 53), (32, 54), (39, 55), (46, 56), (53, 57),
    (61, 58), (68, 59), (76, 60), (83, 61), (91, 62), (98, 63), (106, 64), (113, 65),
    (121, 66), (129, 67), (137, 68), (145, 69), (153, 70), (162, 71), (170, 72),
    (179, 73), (188, 74), (197, 75), (206, 76), (215, 77), (225, 78), (235, 79),
    (245, 80), (256, 81), (267, 82), (278, 83), (290, 84), (302, 85), (315, 86),
    (328, 87), (344, 88), (357, 89), (374, 90), (391, 91), (411, 92),
)  # fmt: skip
"""FIDE Rating Regulations, table 8.1 b: the largest rating difference of each
scoring probability (in hundredths) of the higher-rated player."""
_BOUNDS = [d for d, _ in FIDE_TABLE]
MAX_DIFFERENCE = 400
"""8.54: a difference of more than 400 points counts as 400."""
PRIOR_GAMES = 20
RAPID_DRAW_RATE = 0.40
BLITZ_DRAW_RATE = 0.30
ARMAGEDDON_DRAW_RATE = 0.20
SIMULATIONS = 2000
PLAYOFF_SIMULATIONS = 2000

WDL = tuple[float, float, float]


def expected_score(rating: float | None, opponent: float | None) -> float:
    """The player's expected score from FIDE's table 8.1 b (an unrated pair: 0.5)."""
    if not rating or not opponent:
        return 0.5
    diff = min(abs(rating - opponent), MAX_DIFFERENCE)
    higher = FIDE_TABLE[min(bisect_left(_BOUNDS, diff), len(FIDE_TABLE) - 1)][1] / 100
    return higher if rating >= opponent else 1 - higher


def level_draw_rate(average_rating: float) -> float:
    """The draw rate a round robin of this level is expected to have: 0.25 at 2300 rising
    to 0.60 from 2767 on (world-elite round robins draw about three games in five)."""
    return max(0.25, min(0.60, 0.25 + 0.35 * (average_rating - 2300) / 467))


def wdl_from(expected: float, draw_rate: float) -> WDL:
    """White wins, draws, loses for White's expected score and a draw rate."""
    d = min(draw_rate, 2 * min(expected, 1 - expected))
    return (expected - d / 2, d, 1 - expected - d / 2)


def normalised(value: Sequence[float]) -> WDL:
    total = float(sum(value))
    if len(value) != 3 or total <= 0 or any(v < 0 for v in value):
        raise ValueError(f"a win/draw/loss triple of non-negative numbers, got {value!r}")
    return (value[0] / total, value[1] / total, value[2] / total)


@dataclass
class Model:
    """The probabilities the chances are computed from, and how they were obtained."""

    ratings: Mapping[str, float | None]
    draw_rate: float
    draw_rate_source: str
    games: dict[str, WDL] = field(default_factory=dict)
    """Each varied game's (white wins, draw, black wins)."""
    sources: dict[str, str] = field(default_factory=dict)
    """Each varied game's source: ``analysis`` or ``ratings``."""


def fit_draw_rate(draws: int, games: int, ratings: Mapping[str, float | None]) -> tuple[float, str]:
    """The draw rate for the games not yet played, and a sentence saying how."""
    rated = [r for r in ratings.values() if r]
    average = sum(rated) / len(rated) if rated else 2300.0
    prior = level_draw_rate(average)
    rate = (draws + PRIOR_GAMES * prior) / (games + PRIOR_GAMES)
    return rate, (
        f"{draws} draws in {games} games of the event, weighed with {PRIOR_GAMES} games "
        f"at {prior:.2f} for its average rating {average:.0f}"
    )


def model_for(
    table: ScenarioTable,
    ratings: Mapping[str, float | None],
    draws: int,
    games: int,
    wdl: Mapping[str, Sequence[float]] | None = None,
) -> Model:
    """The probabilities of every varied game (analysis first, else ratings)."""
    rate, source = fit_draw_rate(draws, games, ratings)
    model = Model(ratings, rate, source)
    for pairing in table.space.remaining:
        given = (wdl or {}).get(pairing.game)
        if given is not None:
            model.games[pairing.game] = normalised(given)
            model.sources[pairing.game] = "analysis"
        else:
            e = expected_score(ratings.get(pairing.white), ratings.get(pairing.black))
            model.games[pairing.game] = wdl_from(e, rate)
            model.sources[pairing.game] = "ratings"
    return model


# --- the playoff -------------------------------------------------------------------


Pair = tuple[float, float]
"""(a wins, a wins or draws) of one game between two players: cumulative thresholds."""


def _thresholds(
    players: Sequence[str], ratings: Mapping[str, float | None], draw_rate: float
) -> dict[tuple[str, str], Pair]:
    out: dict[tuple[str, str], Pair] = {}
    for a in players:
        for b in players:
            if a != b:
                w, d, _ = wdl_from(expected_score(ratings.get(a), ratings.get(b)), draw_rate)
                out[(a, b)] = (w, w + d)
    return out


def _stage(
    rng: random.Random, players: Sequence[str], odds: Mapping[tuple[str, str], Pair]
) -> list[str]:
    """3.7.1.a / 3.7.2: two games against each other tied player; those tied for first."""
    score = dict.fromkeys(players, 0.0)
    for i, a in enumerate(players):
        for b in players[i + 1 :]:
            win, not_loss = odds[(a, b)]
            for _ in range(2):
                x = rng.random()
                s = 1.0 if x < win else 0.5 if x < not_loss else 0.0
                score[a] += s
                score[b] += 1 - s
    top = max(score.values())
    return [p for p in players if score[p] == top]


def _sudden_death(
    rng: random.Random, seeds: Sequence[str], odds: Mapping[tuple[str, str], Pair]
) -> str:
    """3.7.3: the bracket of the seeds; a draw is a win for Black (3.7.3.a)."""
    winners: dict[int, str] = {}
    for match in bracket(seeds):
        a, b = (winners[s] if isinstance(s, int) else s for s in match.sides)
        black = a if rng.random() < 0.5 else b  # the winner of the lot takes Black
        white = b if black == a else a
        winners[match.match] = white if rng.random() < odds[(white, black)][0] else black
    return winners[max(winners)] if winners else seeds[0]


def playoff_odds(
    players: Sequence[str],
    ratings: Mapping[str, float | None],
    seed: int,
    runs: int = PLAYOFF_SIMULATIONS,
) -> dict[str, float]:
    """Each tied player's chance of winning the tie-break games (3.7.1-3.7.3), simulated."""
    group = tuple(sorted(players))
    known = tuple((p, ratings.get(p)) for p in group)
    return dict(_simulated(group, known, seed, runs))


@lru_cache(maxsize=4096)
def _simulated(
    group: tuple[str, ...], ratings: tuple[tuple[str, float | None], ...], seed: int, runs: int
) -> tuple[tuple[str, float], ...]:
    rated = dict(ratings)
    rng = random.Random(f"{seed}:{','.join(group)}")
    rapid = _thresholds(group, rated, RAPID_DRAW_RATE)
    blitz = _thresholds(group, rated, BLITZ_DRAW_RATE)
    armageddon = _thresholds(group, rated, ARMAGEDDON_DRAW_RATE)
    seeds_all = sorted(group, key=lambda p: (-(rated.get(p) or 0), p))
    won = dict.fromkeys(group, 0)
    for _ in range(runs):
        alive = _stage(rng, group, rapid)
        series = 0
        while len(alive) > 1 and series < MAX_BLITZ_SERIES:
            alive = _stage(rng, alive, blitz)
            series += 1
        if len(alive) > 1:
            seeds = [p for p in seeds_all if p in alive]
            alive = [_sudden_death(rng, seeds, armageddon)]
        won[alive[0]] += 1
    return tuple((p, n / runs) for p, n in won.items())


# --- the chances -------------------------------------------------------------------


@dataclass
class Chances:
    first: dict[str, float]
    """Each player's chance of finishing first (outright, or by winning the playoff)."""
    outright: dict[str, float]
    playoff: dict[str, float]
    """The chance of playing the playoff for first place."""
    exact: bool
    simulations: int
    playoffs: dict[tuple[str, ...], dict[str, float]]


class PlayoffOdds:
    """Playoff odds per tied group, simulated once each."""

    def __init__(self, ratings: Mapping[str, float | None], seed: int) -> None:
        self.ratings, self.seed = ratings, seed
        self.known: dict[tuple[str, ...], dict[str, float]] = {}

    def __call__(self, group: tuple[str, ...]) -> dict[str, float]:
        key = tuple(sorted(group))
        found = self.known.get(key)
        if found is None:
            found = self.known[key] = playoff_odds(key, self.ratings, self.seed)
        return found


def chances(
    table: ScenarioTable, model: Model, seed: int, simulations: int = SIMULATIONS
) -> Chances:
    """Exact over every combination when the table has them all; else ``simulations``
    seeded completions scored through the same chain."""
    players = table.space.players
    first = dict.fromkeys(players, 0.0)
    outright = dict.fromkeys(players, 0.0)
    playoff = dict.fromkeys(players, 0.0)
    odds = PlayoffOdds(model.ratings, seed)
    probs = [model.games[p.game] for p in table.space.remaining]

    def add(outcome: Outcome, weight: float) -> None:
        if outcome.winner is not None:
            first[outcome.winner] += weight
            outright[outcome.winner] += weight
            return
        for p, share in odds(outcome.playoff).items():
            first[p] += weight * share
            playoff[p] += weight

    if table.exhaustive:
        for choice, outcome in zip(table.choices, table.outcomes, strict=True):
            weight = 1.0
            for wdl, c in zip(probs, choice, strict=True):
                weight *= wdl[c]
            if weight:
                add(outcome, weight)
        done = 0
    else:
        rng = random.Random(seed)
        scorer = Scorer(table.space)
        for _ in range(simulations):
            drawn: list[int] = []
            for w, d, _ in probs:
                x = rng.random()
                drawn.append(0 if x < w else 1 if x < w + d else 2)
            add(scorer.outcome(tuple(drawn)), 1 / simulations)
        done = simulations
    return Chances(first, outright, playoff, table.exhaustive, done, odds.known)


def results_count(results: Sequence[str]) -> tuple[int, int]:
    """(draws, decided games) among finished results."""
    draws = sum(r == "1/2-1/2" for r in results)
    return draws, sum(r in RESULTS for r in results)
