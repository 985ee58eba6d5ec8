"""Every way the remaining games can end, scored through the event's own tie-break chain.

The games still to play, each won, drawn or lost, make the scenarios; each is scored
as the standings would score the finished event (``engine.standings.tiebreaks.rank``,
the same code), a tie for first naming its playoff. Up to two rounds' worth every
combination is scored, else a seeded sample; games decided by a withdrawal are never
varied. What is fixed is counted once, and a new result narrows the table without
scoring again (docs/needs.md)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from operator import itemgetter

from engine.game.state import Game
from engine.rules import profile
from engine.standings.tiebreaks import (
    HALF_POINTS,
    ScoredGame,
    Tally,
    annulled_players,
    expected_pairings,
    rank,
    ranked_players,
    round_robin_games,
    tally,
    withdrawn_behind,
)
from engine.tournament.pairing import table_size
from engine.tournament.tournament import Tournament

RESULTS = ("1-0", "1/2-1/2", "0-1")
"""The three results a remaining game can have, in the order scenarios number them."""
SAMPLE_SIZE = 3**7
"""Scenarios drawn when more than two rounds' worth of games remain."""
DEFAULT_SEED = 2013
POINTS = "points"
PLAYOFF = "playoff"
WITHDRAWAL = "withdrawal"
"""``decided_by`` when the criteria left a withdrawn player level with the first (3.1)."""


@dataclass(frozen=True)
class Pairing:
    """One remaining game: its id, round and players."""

    game: str
    round: int
    white: str
    black: str


@dataclass(frozen=True)
class Outcome:
    """How one scenario ends for first place."""

    winner: str | None
    playoff: tuple[str, ...]
    decided_by: str
    """``points``, the chain's criterion (``h2h``, ``wins``, ``sb``), ``withdrawal``, or
    ``playoff`` (no winner: the players of ``playoff`` play tie-break games)."""


@dataclass(frozen=True)
class ScenarioSpace:
    """What is fixed (the tally of the games so far) and what varies (the remaining games)."""

    tournament: str
    players: tuple[str, ...]
    counted: Tally
    remaining: tuple[Pairing, ...]
    chain: tuple[str, ...]
    first_place_by_games: bool
    withdrawn: frozenset[str]
    reductions: Mapping[str, Fraction]
    after_round: int | None
    """The last round whose results count (None: every result so far)."""

    @property
    def game_ids(self) -> tuple[str, ...]:
        return tuple(p.game for p in self.remaining)

    def outcome(self, choice: Sequence[int]) -> Outcome:
        """Score one scenario: ``choice[i]`` indexes ``RESULTS`` for ``remaining[i]``."""
        return Scorer(self).outcome(tuple(choice))


class Scorer:
    """Scores scenarios of one space (what does not change per scenario, computed once)."""

    def __init__(self, space: ScenarioSpace) -> None:
        self.space = space
        players = space.players
        self.index = {p: i for i, p in enumerate(players)}
        base = space.counted.half_points()
        self.base: list[int | Fraction] = [
            _whole(base[p] - 2 * space.reductions[p]) if p in space.reductions else base[p]
            for p in players
        ]
        self.deltas: list[tuple[tuple[int, int, int, int], ...]] = []
        for pairing in space.remaining:
            w = self.index.get(pairing.white, -1)
            b = self.index.get(pairing.black, -1)
            self.deltas.append(tuple((w, HALF_POINTS[r][0], b, HALF_POINTS[r][1]) for r in RESULTS))
        self.cache: dict[tuple[int, ...], Outcome] = {}

    def points_only(self, choice: tuple[int, ...]) -> tuple[int, ...]:
        """The players at the top on points (3.6.1) alone: the bench's baseline."""
        pts = list(self.base)
        for deltas, c in zip(self.deltas, choice, strict=True):
            w, dw, b, db = deltas[c]
            if w >= 0:
                pts[w] += dw
            if b >= 0:
                pts[b] += db
        top = max(pts)
        return tuple(i for i, v in enumerate(pts) if v == top)

    def outcome(self, choice: tuple[int, ...]) -> Outcome:
        found = self.cache.get(choice)
        if found is not None:
            return found
        top = self.points_only(choice)
        space = self.space
        if len(top) == 1:
            found = Outcome(space.players[top[0]], (), POINTS)
        else:
            found = self._ranked(choice)
        self.cache[choice] = found
        return found

    def _ranked(self, choice: tuple[int, ...]) -> Outcome:
        """A tie on points for first: the chain (3.7 a-c), withdrawals (3.1), playoff."""
        space = self.space
        games = [
            ScoredGame(p.game, p.round, p.white, p.black, RESULTS[c])
            for p, c in zip(space.remaining, choice, strict=True)
        ]
        ranking = rank(
            space.players,
            (),
            space.chain,
            space.first_place_by_games,
            space.reductions or None,
            counted=space.counted.with_games(games),
        )
        order = withdrawn_behind(ranking.tiers, space.withdrawn)
        first = order[0]
        if len(first) > 1:
            return Outcome(None, first, PLAYOFF)
        if len(ranking.tiers[0]) > 1:  # level after the chain with a withdrawn player
            return Outcome(first[0], (), WITHDRAWAL)
        decided = ranking.separating_criterion(first[0], order[1][0]) if len(order) > 1 else None
        return Outcome(first[0], (), decided or POINTS)


@dataclass(frozen=True)
class ScenarioTable:
    """Scenarios and their outcomes: ``choices[i]`` (indexes into ``RESULTS``, one per
    remaining game) ends as ``outcomes[i]``."""

    space: ScenarioSpace
    choices: tuple[tuple[int, ...], ...]
    outcomes: tuple[Outcome, ...]
    exhaustive: bool
    """True: every combination; False: a seeded sample of them."""
    seed: int | None
    combinations: int
    """3^(remaining games)."""

    def follow(self, newer: ScenarioSpace) -> ScenarioTable | None:
        """The table of ``newer`` when it is this space with results for some of the
        remaining games (and nothing else changed): the scenarios that agree with those
        results, with those games no longer varied. None when it is not."""
        old = self.space
        if not self.exhaustive:
            return None  # a sample is drawn again (seeded): narrowing would thin it out
        if (
            newer.players != old.players
            or newer.chain != old.chain
            or newer.withdrawn != old.withdrawn
            or dict(newer.reductions) != dict(old.reductions)
            or newer.first_place_by_games != old.first_place_by_games
        ):
            return None
        left = {p.game: p for p in newer.remaining}
        if any(old_p != left.get(old_p.game, old_p) for old_p in old.remaining) or not set(
            left
        ) <= {p.game for p in old.remaining}:
            return None
        decided = [i for i, p in enumerate(old.remaining) if p.game not in left]
        if not decided:
            return self if newer == old else _with_space(self, newer)
        # the results of the decided games, read from the newer tally
        results = _decided_results(old, newer, [old.remaining[i] for i in decided])
        if results is None:
            return None
        keep = [i for i, p in enumerate(old.remaining) if p.game in left]
        agrees = _picker(decided)
        wanted = tuple(results)
        narrow = _picker(keep)
        choices: list[tuple[int, ...]] = []
        outcomes: list[Outcome] = []
        for choice, outcome in zip(self.choices, self.outcomes, strict=True):
            if agrees(choice) == wanted:
                choices.append(narrow(choice))
                outcomes.append(outcome)
        return ScenarioTable(
            newer,
            tuple(choices),
            tuple(outcomes),
            self.exhaustive,
            self.seed,
            3 ** len(keep),
        )


def _whole(value: Fraction) -> int | Fraction:
    """An int where the value is whole (int arithmetic is many times faster)."""
    return int(value) if value.denominator == 1 else value


def _picker(indexes: Sequence[int]) -> Callable[[tuple[int, ...]], tuple[int, ...]]:
    """A function taking these positions of a choice, as a tuple (even one or none)."""
    if not indexes:
        return lambda _choice: ()
    if len(indexes) == 1:
        only = indexes[0]
        return lambda choice: (choice[only],)
    return itemgetter(*indexes)


def _with_space(table: ScenarioTable, space: ScenarioSpace) -> ScenarioTable:
    return ScenarioTable(
        space, table.choices, table.outcomes, table.exhaustive, table.seed, table.combinations
    )


def _decided_results(
    old: ScenarioSpace, newer: ScenarioSpace, decided: Sequence[Pairing]
) -> list[int] | None:
    """The result index of each decided game, when ``newer``'s tally is exactly ``old``'s
    plus those games (else None: something else changed too)."""
    for combo in product(range(3), repeat=len(decided)):
        games = [
            ScoredGame(p.game, p.round, p.white, p.black, RESULTS[c])
            for p, c in zip(decided, combo, strict=True)
        ]
        grown = old.counted.with_games(games)
        if grown.against == newer.counted.against and grown.wins == newer.counted.wins:
            return list(combo)
    return None


def scenario_space(
    tournament: Tournament,
    games: Iterable[Game],
    after_round: int | None = None,
    reductions: Mapping[str, Fraction] | None = None,
) -> ScenarioSpace:
    """The games counted so far (all results, or those of rounds up to ``after_round``;
    a loss by default after a withdrawal always counts, 3.1) and the games that remain."""
    scored = round_robin_games(tournament, games)
    counted = [g for g in scored if after_round is None or g.round <= after_round or g.by_default]
    done = {(g.round, frozenset((g.white, g.black))) for g in counted}
    players = tuple(ranked_players(tournament))
    annulled = annulled_players(tournament)
    ids = {
        (int(gid.split(".")[0]), frozenset(pair)): gid
        for gid, pair in tournament.round_robin_pairings().items()
    }
    remaining = tuple(
        Pairing(ids.get((r, frozenset((w, b))), f"{r}.?"), r, w, b)
        for r, w, b in expected_pairings(tournament)
        if (r, frozenset((w, b))) not in done and w not in annulled and b not in annulled
    )
    rules = profile(tournament.rules)
    return ScenarioSpace(
        tournament.id,
        players,
        tally(players, counted),
        remaining,
        tuple(rules.tiebreaks),
        rules.first_place_by_games,
        frozenset(w.player for w in tournament.withdrawals),
        dict(reductions or {}),
        after_round,
    )


def exhaustive_limit(players: int) -> int:
    """Two rounds' worth of games: up to this many remaining games, every combination."""
    return 2 * (table_size(players) // 2)


def scenarios(
    space: ScenarioSpace, seed: int = DEFAULT_SEED, sample_size: int = SAMPLE_SIZE
) -> ScenarioTable:
    """Every combination of the remaining games' results (at most two rounds' worth), or
    a seeded sample of ``sample_size`` of them, each scored (see the module docstring)."""
    scorer = Scorer(space)
    k = len(space.remaining)
    if k <= max(exhaustive_limit(len(space.players)), 0) or 3**k <= sample_size:
        choices = list(product(range(3), repeat=k))
        exhaustive, used_seed = True, None
    else:
        rng = random.Random(seed)
        choices = [tuple(rng.randrange(3) for _ in range(k)) for _ in range(sample_size)]
        exhaustive, used_seed = False, seed
    outcomes = tuple(scorer.outcome(c) for c in choices)
    return ScenarioTable(space, tuple(choices), outcomes, exhaustive, used_seed, 3**k)


def after_round_shown(space: ScenarioSpace, rounds: int) -> int:
    """The last round every game of which counts (what "after round N" names)."""
    if space.after_round is not None:
        return space.after_round
    first_open = min((p.round for p in space.remaining), default=rounds + 1)
    return first_open - 1


def results_of(table: ScenarioTable) -> list[dict[str, str]]:
    """Every scenario as ``{game id: result}``."""
    ids = table.space.game_ids
    name = RESULTS.__getitem__
    return [dict(zip(ids, map(name, choice), strict=True)) for choice in table.choices]


def counts(table: ScenarioTable) -> dict[str, tuple[int, int, int]]:
    """Per player: (scenarios won outright, scenarios in a playoff, scenarios where he
    cannot finish first)."""
    total = len(table.outcomes)
    outright = dict.fromkeys(table.space.players, 0)
    playoff = dict.fromkeys(table.space.players, 0)
    for outcome in table.outcomes:
        if outcome.winner is not None:
            outright[outcome.winner] += 1
        for p in outcome.playoff:
            playoff[p] += 1
    return {
        p: (outright[p], playoff[p], total - outright[p] - playoff[p]) for p in table.space.players
    }
