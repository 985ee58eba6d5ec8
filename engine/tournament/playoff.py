"""Tie-break games for a place (3.7.1.a-3.7.4): stages, brackets, progress.

Pure rules, no I/O. The players still level after 3.7 a-c play rapid games
(3.7.1.a), then up to three blitz series (3.7.2), then a seeded sudden-death bracket
(3.7.3, draw = Black wins); standing inside a stage is by its points only, and the
final order puts the players in reverse order of elimination. Game ids are
``P<place>-<stage>...``; the stages and brackets are in docs/tournament.md,
"Playoffs"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from engine.scores import POINTS as RESULT_POINTS
from engine.tournament.pairing import berger_schedule, is_bye

RAPID, BLITZ, SUDDEN_DEATH = "rapid", "blitz", "sudden_death"
MAX_BLITZ_SERIES = 3
"""3.7.2: the blitz games are "repeated ... for a maximum of two (2) more times"."""

DECIDED = "decided"
PLAY_GAMES = "play_games"
CHOOSE_COLOUR = "choose_colour"
START_STAGE = "start_stage"
PAIR_SUDDEN_DEATH = "pair_sudden_death"


@dataclass(frozen=True)
class PlayoffGame:
    """One rapid or blitz game of a stage."""

    game: str
    round: int
    board: int
    white: str
    black: str


@dataclass(frozen=True)
class SuddenDeathGame:
    """One game of the sudden-death bracket; colours unknown until the lot winner chooses."""

    match: int
    game: str
    players: tuple[str, str]
    lot_winner: str
    white: str | None = None
    black: str | None = None


@dataclass(frozen=True)
class Stage:
    """One stage of a playoff: rapid, a blitz series, or the sudden-death bracket."""

    stage: str
    series: int
    players: tuple[str, ...]
    """For sudden death: the initial ranking (seed 1 first)."""
    numbers: Mapping[str, int]
    games: tuple[PlayoffGame, ...]
    time_control: str
    matches: tuple[SuddenDeathGame, ...] = ()


@dataclass(frozen=True)
class Playoff:
    """Every stage played so far for one place."""

    place: int
    players: tuple[str, ...]
    stages: tuple[Stage, ...] = ()

    def game_ids(self) -> list[str]:
        out: list[str] = []
        for stage in self.stages:
            out.extend(g.game for g in stage.games)
            out.extend(m.game for m in stage.matches)
        return out


def stage_game_id(place: int, stage: str, series: int, round_no: int, board: int) -> str:
    """``P1-rapid-1.1``, ``P1-blitz2-3.1`` (the id of one rapid or blitz game)."""
    name = stage if stage == RAPID else f"{stage}{series}"
    return f"P{place}-{name}-{round_no}.{board}"


def sudden_death_game_id(place: int, match: int) -> str:
    return f"P{place}-{SUDDEN_DEATH}-{match}"


def stage_pairings(
    place: int, stage: str, series: int, numbers: Mapping[str, int]
) -> tuple[PlayoffGame, ...]:
    """3.7.1.a / 3.7.2: two games between each pair of tied players, colours from the numbers."""
    by_number = {n: pid for pid, n in numbers.items()}
    size = len(numbers)
    return tuple(
        PlayoffGame(
            game=stage_game_id(place, stage, series, p.round, p.board),
            round=p.round,
            board=p.board,
            white=by_number[p.white],
            black=by_number[p.black],
        )
        for p in berger_schedule(size, cycles=2)
        if not is_bye(p, size)
    )


# --- results -----------------------------------------------------------------

POINTS = RESULT_POINTS
"""(White's, Black's) points of each result (``engine.scores``)."""


def is_finished(result: str | None) -> bool:
    return result in POINTS


def stage_scores(stage: Stage, results: Mapping[str, str]) -> dict[str, Fraction]:
    """Each player's points in the finished games of a rapid or blitz stage."""
    scores = {p: Fraction(0) for p in stage.players}
    for g in stage.games:
        result = results.get(g.game)
        if result in POINTS:
            white, black = POINTS[result]
            scores[g.white] += white
            scores[g.black] += black
    return scores


def sudden_death_winner(game: SuddenDeathGame, result: str | None) -> str | None:
    """3.7.3.a: "In case of a draw the player with the black pieces is declared the winner"."""
    if game.white is None or game.black is None or result is None:
        return None
    if result == "1-0":
        return game.white
    if result in ("0-1", "1/2-1/2"):
        return game.black
    return None


@dataclass(frozen=True)
class BracketMatch:
    """One match of the sudden-death bracket: each side is a seed's player or a match's winner."""

    match: int
    round: int
    sides: tuple[str | int, str | int]
    """A player id, or the number of the match whose winner plays here."""


def seeding_positions(size: int) -> list[int]:
    """Standard seeded draw of a power-of-two size: [1, 4, 2, 3] for 4, [1, 8, 4, 5, 2, 7, 3, 6]."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [x for seed in order for x in (seed, total - seed)]
    return order


def bracket(seeds: Sequence[str]) -> list[BracketMatch]:
    """3.7.3.b-e: the matches of the single-elimination bracket, byes to the top seeds.

    >>> [(m.match, m.sides) for m in bracket(["a", "b", "c"])]
    [(1, ('b', 'c')), (2, ('a', 1))]
    """
    size = 1
    while size < len(seeds):
        size *= 2
    slots: list[str | int | None] = [
        seeds[s - 1] if s <= len(seeds) else None for s in seeding_positions(size)
    ]
    matches: list[BracketMatch] = []
    round_no = 0
    while len(slots) > 1:
        round_no += 1
        nxt: list[str | int | None] = []
        for a, b in zip(slots[0::2], slots[1::2], strict=True):
            if a is None or b is None:
                nxt.append(a if b is None else b)
                continue
            match = BracketMatch(len(matches) + 1, round_no, (a, b))
            matches.append(match)
            nxt.append(match.match)
        slots = nxt
    return matches


# --- progress ------------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    """Where a playoff stands: what must be done next, and the order known so far."""

    place: int
    action: str
    """``play_games``, ``choose_colour``, ``start_stage``, ``pair_sudden_death`` or ``decided``."""
    stage: str | None
    """The stage being played, or the one to start next; None once decided."""
    series: int
    players: tuple[str, ...]
    """The players still in contention."""
    games: tuple[str, ...]
    """The current stage's game ids (sudden death: paired so far)."""
    pending: tuple[str, ...]
    """Games of the current stage not finished yet (or waiting for a colour)."""
    tiers: tuple[tuple[str, ...], ...]
    """The group's order as known: players in contention first (one tier), then
    the eliminated, later eliminations first; players in one tier share places."""
    to_pair: tuple[tuple[int, str, str], ...] = field(default=())
    """For ``pair_sudden_death``: the bracket matches to pair next (match, player, player)."""


def _score_tiers(players: Sequence[str], scores: Mapping[str, Fraction]) -> list[tuple[str, ...]]:
    values = sorted({scores[p] for p in players}, reverse=True)
    return [tuple(p for p in players if scores[p] == v) for v in values]


def next_stage_after(stage: Stage) -> tuple[str, int]:
    """The stage that follows a rapid or blitz stage that left a tie (3.7.2, 3.7.3)."""
    if stage.stage == RAPID:
        return BLITZ, 1
    if stage.stage == BLITZ and stage.series < MAX_BLITZ_SERIES:
        return BLITZ, stage.series + 1
    return SUDDEN_DEATH, 1


def evaluate(playoff: Playoff, results: Mapping[str, str]) -> Progress:
    """The playoff's progress from its stages and the results of its games."""
    eliminated: list[tuple[str, ...]] = []  # tiers, latest elimination first
    contenders = playoff.players
    if not playoff.stages:
        return Progress(playoff.place, START_STAGE, RAPID, 1, contenders, (), (), (contenders,))
    for stage in playoff.stages:
        if stage.stage == SUDDEN_DEATH:
            return _evaluate_sudden_death(playoff.place, stage, results, eliminated)
        ids = tuple(g.game for g in stage.games)
        pending = tuple(g.game for g in stage.games if not is_finished(results.get(g.game)))
        if pending:
            return Progress(
                playoff.place,
                PLAY_GAMES,
                stage.stage,
                stage.series,
                stage.players,
                ids,
                pending,
                (stage.players, *eliminated),
            )
        tiers = _score_tiers(stage.players, stage_scores(stage, results))
        contenders = tiers[0]
        eliminated = tiers[1:] + eliminated
        if len(contenders) == 1:
            return Progress(
                playoff.place, DECIDED, None, 0, contenders, ids, (), (contenders, *eliminated)
            )
    last = playoff.stages[-1]
    stage_name, series = next_stage_after(last)
    return Progress(
        playoff.place,
        START_STAGE,
        stage_name,
        series,
        contenders,
        (),
        (),
        (contenders, *eliminated),
    )


def _evaluate_sudden_death(
    place: int, stage: Stage, results: Mapping[str, str], eliminated: list[tuple[str, ...]]
) -> Progress:
    paired = {m.match: m for m in stage.matches}
    winners: dict[int, str] = {}
    losers_by_round: dict[int, list[str]] = {}
    ids = tuple(m.game for m in stage.matches)
    alive = list(stage.players)
    for round_no in sorted({m.round for m in bracket(stage.players)}):
        round_matches = [m for m in bracket(stage.players) if m.round == round_no]
        to_pair: list[tuple[int, str, str]] = []
        pending: list[str] = []
        waiting_colour = False
        for bm in round_matches:
            sides = [winners[s] if isinstance(s, int) else s for s in bm.sides]
            game = paired.get(bm.match)
            if game is None:
                to_pair.append((bm.match, str(sides[0]), str(sides[1])))
                continue
            winner = sudden_death_winner(game, results.get(game.game))
            if winner is None:
                pending.append(game.game)
                waiting_colour = waiting_colour or game.white is None
                continue
            winners[bm.match] = winner
            loser = sides[1] if winner == sides[0] else sides[0]
            losers_by_round.setdefault(round_no, []).append(loser)
            alive.remove(loser)
        if to_pair or pending:
            tiers = [tuple(alive)]
            for r in sorted(losers_by_round, reverse=True):
                tiers.append(tuple(losers_by_round[r]))
            if pending:
                action = CHOOSE_COLOUR if waiting_colour else PLAY_GAMES
            else:
                action = PAIR_SUDDEN_DEATH
            return Progress(
                place,
                action,
                SUDDEN_DEATH,
                1,
                tuple(alive),
                ids,
                tuple(pending),
                (*tiers, *eliminated),
                tuple(to_pair),
            )
    tiers = [tuple(alive)]
    for r in sorted(losers_by_round, reverse=True):
        tiers.append(tuple(losers_by_round[r]))
    return Progress(place, DECIDED, None, 0, tuple(alive), ids, (), (*tiers, *eliminated))


def refine(
    tiers: Sequence[tuple[str, ...]], playoffs: Sequence[Playoff], results: Mapping[str, str]
) -> tuple[list[tuple[str, ...]], dict[int, Progress]]:
    """The order after 3.7 a-c refined by each playoff, in the order they were started.

    A playoff replaces the tier of exactly its players by its own tiers (the
    winner, the players still in contention, the eliminated).
    """
    order = list(tiers)
    progress: dict[int, Progress] = {}
    for playoff in playoffs:
        prog = evaluate(playoff, results)
        progress[playoff.place] = prog
        for index, tier in enumerate(order):
            if set(tier) == set(playoff.players):
                order[index : index + 1] = [t for t in prog.tiers if t]
                break
    return order, progress


def tier_at(order: Sequence[tuple[str, ...]], place: int) -> tuple[int, tuple[str, ...]] | None:
    """(first place of the tier, tier) of the tier holding ``place`` (1-based)."""
    start = 1
    for tier in order:
        if start <= place < start + len(tier):
            return start, tier
        start += len(tier)
    return None
