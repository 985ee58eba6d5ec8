"""The ``needs`` object: what each player needs to finish first, and the chances of each.

One object for ``candidates needs --format json``, the gateway's ``needs`` frame and
``/api/needs``: the games varied and how (every combination or a sample), the
scenarios scored through the event's tie-break chain, and per player the scenarios he
wins or plays off in, the shortest condition in words (``projections.needs_words``)
and his chance (``projections.chances``). The fields are in docs/needs.md."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Annotated, Any, Literal, NotRequired, TypedDict, cast

from msgspec import Meta

from engine.game.state import Game
from engine.tournament.tournament import Tournament
from projections.chances import (
    ARMAGEDDON_DRAW_RATE,
    BLITZ_DRAW_RATE,
    RAPID_DRAW_RATE,
    chances,
    model_for,
    results_count,
)
from projections.names import Names
from projections.needs_words import (
    Conditions,
    NeedsWords,
    decided_by,
    needs_in_words,
    tiebreak_words,
)
from projections.scenarios import (
    DEFAULT_SEED,
    ScenarioTable,
    after_round_shown,
    counts,
    results_of,
    scenario_space,
    scenarios,
)
from projections.shapes import Count, Criterion, Decisive, Ordinal, Probability

SCENARIOS_IN_FRAME = 729
"""The most scenarios a ``needs`` frame lists (3^6); beyond, only /api/needs lists them."""


ScenarioDecidedBy = Literal["points", "h2h", "wins", "sb", "koya", "withdrawal", "playoff"]
LevelDecidedBy = Literal["h2h", "wins", "sb", "koya", "withdrawal"]


class RemainingGame(TypedDict):
    """A game still to play that the scenarios vary, with its expected results."""

    game: str
    round: Ordinal
    white: str
    black: str
    probabilities: Annotated[list[Probability], Meta(min_length=3, max_length=3)]
    source: Literal["analysis", "ratings"]


class Method(TypedDict):
    """Every combination of the remaining results, or a seeded sample."""

    kind: Literal["every combination", "sample"]
    scenarios: Count
    combinations: Ordinal
    seed: int | None


class Scenario(TypedDict):
    """One combination of results, scored through the tie-break chain."""

    results: dict[str, Decisive]
    winner: str | None
    playoff: list[str]
    decided_by: ScenarioDecidedBy


class PlayerNeeds(NeedsWords):
    """One player's entry: the scenarios he wins outright, those with a playoff for first,
    those where he cannot finish first; the conditions in words; his chances."""

    name: str
    display: Annotated[str, Meta(description="the display name (projections.names)")]
    decided_by: Annotated[
        list[LevelDecidedBy],
        Meta(description="the criteria that put the player first level on points"),
    ]
    outright: Count
    playoff: Count
    not_first: Count
    chance: Probability
    chance_outright: Probability
    chance_playoff: Probability


class ChanceModel(TypedDict):
    """The model of the chances, stated."""

    exact: bool
    simulations: Count
    seed: int
    expectancy: str
    draw_rate: Probability
    draw_rate_source: str
    in_progress: str
    playoff: str


class Needs(TypedDict):
    """What each player needs to finish first, and the chances of each (`candidates needs
    --format json`, `/api/needs`, the `needs` frame; docs/needs.md)."""

    tournament: str
    after_round: Count
    rounds: Ordinal
    rules: str
    criteria: list[Criterion]
    tiebreak: Annotated[
        str, Meta(description="the tie-break for first place in words, once for the panel")
    ]
    games: list[RemainingGame]
    method: Method
    scenarios: list[Scenario]
    scenarios_omitted: NotRequired[
        Annotated[
            Count,
            Meta(description="the `needs` frame only: how many scenarios /api/needs lists"),
        ]
    ]
    players: dict[str, PlayerNeeds]
    chances: ChanceModel
    decided: str | None
    warning: Annotated[
        str | None,
        Meta(description="the rounds asked about (after_round) are not the record's"),
    ]


@dataclass(frozen=True)
class NeedsInputs:
    """What the ``needs`` object is computed from, read from a store at one position
    (immutable: it may be computed in another thread)."""

    tournament: Tournament
    games: tuple[Game, ...]
    after_round: int | None = None
    reductions: Mapping[str, Fraction] = field(default_factory=dict)
    """13.4 e: points taken by the arbiters (they count in the tie)."""
    wdl: Mapping[str, Sequence[float]] = field(default_factory=dict)
    """Games in progress: win/draw/loss from an analysis."""


def compute(
    inputs: NeedsInputs, previous: ScenarioTable | None = None, seed: int = DEFAULT_SEED
) -> tuple[Needs, ScenarioTable]:
    """The ``needs`` object and the scored scenarios (``previous``: the last ones, which a
    new result only narrows)."""
    table = needs_table(
        inputs.tournament,
        inputs.games,
        inputs.after_round,
        inputs.reductions,
        seed,
        previous,
    )
    return needs_object(inputs.tournament, inputs.games, table, inputs.wdl, seed), table


def needs_table(
    tournament: Tournament,
    games: Iterable[Game],
    after_round: int | None = None,
    reductions: Mapping[str, Fraction] | None = None,
    seed: int = DEFAULT_SEED,
    previous: ScenarioTable | None = None,
) -> ScenarioTable:
    """The scored scenarios; from ``previous`` when the new results only narrow it."""
    space = scenario_space(tournament, games, after_round, reductions)
    if previous is not None and previous.seed in (None, seed):
        followed = previous.follow(space)
        if followed is not None:
            return followed
    return scenarios(space, seed)


def needs_object(
    tournament: Tournament,
    games: Sequence[Game],
    table: ScenarioTable,
    wdl: Mapping[str, Sequence[float]] | None = None,
    seed: int = DEFAULT_SEED,
) -> Needs:
    """The contract's ``needs`` object for a scored table (see the module docstring)."""
    space = table.space
    players = {p.id: p for p in tournament.players}
    names = Names.of(tournament).displayed()
    ratings = {pid: p.rating for pid, p in players.items()}
    last = after_round_shown(space, tournament.rounds) if space.after_round is not None else None
    played = [
        g.result
        for g in games
        if g.stage == "tournament"
        and g.status == "finished"
        and g.termination != "default"
        and (last is None or g.round <= last)
    ]
    draws, decided = results_count(played)
    model = model_for(table, ratings, draws, decided, wdl)
    odds = chances(table, model, seed)
    conditions = Conditions(table)
    per_player: dict[str, PlayerNeeds] = {}
    for pid, (outright, playoff, not_first) in counts(table).items():
        words = needs_in_words(table, conditions, pid, names, odds.first[pid])
        per_player[pid] = {
            "name": players[pid].name if pid in players else pid,
            "display": names.get(pid, pid),
            "decided_by": cast(
                list[LevelDecidedBy], decided_by(conditions.decided.get(pid, ()), space.chain)
            ),
            "outright": outright,
            "playoff": playoff,
            "not_first": not_first,
            **words,
            "chance": round(odds.first[pid], 4),
            "chance_outright": round(odds.outright[pid], 4),
            "chance_playoff": round(odds.playoff[pid], 4),
        }
    scenario_list: list[Scenario] = [
        {
            "results": cast(dict[str, Decisive], results),
            "winner": outcome.winner,
            "playoff": list(outcome.playoff),
            "decided_by": cast(ScenarioDecidedBy, outcome.decided_by),
        }
        for results, outcome in zip(results_of(table), table.outcomes, strict=True)
    ]
    decided_winner = table.outcomes[0].winner if not space.remaining and table.outcomes else None
    return {
        "tournament": tournament.id,
        "after_round": after_round_shown(space, tournament.rounds),
        "rounds": tournament.rounds,
        "rules": tournament.rules,
        "criteria": cast(list[Criterion], list(space.chain)),
        "tiebreak": tiebreak_words(space.chain, space.first_place_by_games),
        "games": [
            {
                "game": p.game,
                "round": p.round,
                "white": p.white,
                "black": p.black,
                "probabilities": [round(x, 4) for x in model.games[p.game]],
                "source": "analysis" if model.sources[p.game] == "analysis" else "ratings",
            }
            for p in space.remaining
        ],
        "method": {
            "kind": "every combination" if table.exhaustive else "sample",
            "scenarios": len(table.outcomes),
            "combinations": table.combinations,
            "seed": table.seed,
        },
        "scenarios": scenario_list,
        "players": per_player,
        "chances": {
            "exact": odds.exact,
            "simulations": odds.simulations,
            "seed": seed,
            "expectancy": "FIDE Rating Regulations table 8.1 b (a difference over 400 "
            "counts as 400, 8.54); no advantage for White",
            "draw_rate": round(model.draw_rate, 4),
            "draw_rate_source": model.draw_rate_source,
            "in_progress": "the position's win/draw/loss from analysis when given, "
            "else as a game not yet played",
            "playoff": "3.7.1.a rapid (draw rate "
            f"{RAPID_DRAW_RATE}), up to three blitz series 3.7.2 ({BLITZ_DRAW_RATE}), "
            "sudden death 3.7.3 (seeded by rating, a draw wins for Black, the lot's "
            f"winner takes Black; {ARMAGEDDON_DRAW_RATE}); expectancy from the same table, "
            "simulated with the seed",
        },
        "decided": decided_winner,
        "warning": rounds_warning(space.after_round, space.remaining, games, last),
    }


def _spans(rounds: Iterable[int]) -> str:
    """``round 3``, ``rounds 2-13``, ``rounds 2, 4-5``."""
    ordered = sorted(set(rounds))
    spans: list[str] = []
    start = prev = ordered[0]
    for r in [*ordered[1:], None]:
        if r is not None and r == prev + 1:
            prev = r
            continue
        spans.append(str(start) if start == prev else f"{start}-{prev}")
        if r is not None:
            start = prev = r
    return ("round " if len(ordered) == 1 else "rounds ") + ", ".join(spans)


def rounds_warning(
    asked: int | None,
    remaining: Sequence[Any],
    games: Sequence[Game],
    shown: int | None,
) -> str | None:
    """When the record's rounds are not the rounds asked about (``--after-round N``): the
    rounds up to N not yet played (their games are varied with the rest), or the results
    after N on the record that the answer leaves out. None when they agree."""
    if asked is None:
        return None
    unplayed = sorted({p.round for p in remaining if p.round <= asked})
    later = sorted(
        {
            g.round
            for g in games
            if g.stage == "tournament" and g.status == "finished" and g.round > asked
        }
    )
    parts: list[str] = []
    if unplayed:
        parts.append(
            f"after round {asked} was asked, but {_spans(unplayed)} "
            f"{'is' if len(unplayed) == 1 else 'are'} not played on the record: "
            f"{'its' if len(unplayed) == 1 else 'their'} games are varied with the rest "
            f"({len(remaining)} remaining games)"
        )
    if later:
        parts.append(
            f"the results of {_spans(later)} on the record are left out: the answer is as "
            f"the event stood after round {shown if shown is not None else asked}"
        )
    return "; ".join(parts) or None


def for_frame(needs: Needs) -> Needs:
    """The object as the ``needs`` frame carries it: the scenarios listed when they are
    at most ``SCENARIOS_IN_FRAME`` (else ``scenarios`` is empty and
    ``scenarios_omitted`` says how many /api/needs lists)."""
    out: Needs = {**needs}
    if len(out["scenarios"]) > SCENARIOS_IN_FRAME:
        out["scenarios_omitted"] = len(out["scenarios"])
        out["scenarios"] = []
    return out
