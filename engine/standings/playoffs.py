"""The arbiter's playoff commands (3.4.2, 3.7.1.a-3.7.4).

``start_playoff`` starts the rapid games for the players level after 3.7 a-c on a
place, after a new drawing of colours (3.4.2); ``advance_playoff`` starts what comes
next while they stay tied (blitz series, 3.7.2, then the sudden-death bracket,
3.7.3); ``choose_colour`` records the lot winner's colour in a sudden-death game.
Each playoff game is then played with ``start_game`` like any other. The stages and
the lots are in docs/tournament.md, "Playoffs" and "The drawing of lots"."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.commands import Command, command
from engine.errors import (
    MalformedCommand,
    RuleViolation,
    UnknownTournament,
)
from engine.events import (
    TOURNAMENT_STREAM,
    Event,
    PlayoffPairing,
    PlayoffStageStarted,
    SuddenDeathColourChosen,
    SuddenDeathPaired,
)
from engine.fields import Identifier, Instant
from engine.game.state import FINISHED
from engine.rules import profile
from engine.side import Side
from engine.standings.tiebreaks import (
    Lookup,
    expected_pairings,
    is_complete,
    rank,
    ranked_players,
    round_robin_games,
    round_robin_states,
    withdrawn_behind,
)
from engine.tournament.drawing_of_lots import seeded_order
from engine.tournament.playoff import (
    BLITZ,
    CHOOSE_COLOUR,
    DECIDED,
    PAIR_SUDDEN_DEATH,
    PLAY_GAMES,
    RAPID,
    SUDDEN_DEATH,
    Progress,
    bracket,
    evaluate,
    refine,
    stage_pairings,
    sudden_death_game_id,
    tier_at,
)
from engine.tournament.tournament import (
    RULING_ROLES,
    Tournament,
    require_ruling_arbiter,
    require_tournament,
)
from engine.world import World

STAGE_ARTICLE = {RAPID: "3.7.1.a", BLITZ: "3.7.2", SUDDEN_DEATH: "3.7.3.a"}


@command(
    "start_playoff",
    summary="An arbiter starts the playoff for a tied place: rapid games, colours drawn (3.7.1).",
    roles=RULING_ROLES,
    events=(PlayoffStageStarted,),
    refusals=(
        (UnknownTournament, "", "no tournament, or another tournament's id"),
        (
            RuleViolation,
            "3.7",
            "the last round is not finished, no player holds the place, or the place is not tied",
        ),
        (RuleViolation, "3.7.1.a", "the playoff for the place has already started"),
        (
            RuleViolation,
            "3.7.4",
            "the place waits for a higher place's playoff, or is inside a tie that starts higher",
        ),
        (
            MalformedCommand,
            "",
            "a place below 1 or beyond the field; neither or both of 'seed' and 'numbers'",
        ),
    ),
    notes={
        "place": "the place in dispute (1 = first)",
        "seed": "the seed of a reproducible drawing of the playoff's lots",
        "numbers": "`{player: n}`: the playoff's numbers drawn elsewhere, each of 1..N once",
    },
)
@dataclass(frozen=True, kw_only=True)
class StartPlayoff(Command):
    tournament: str
    arbiter: str
    at_ms: Instant
    place: int = 1
    seed: Identifier | None = None
    numbers: dict[str, Any] | None = None

    def decide(self, world: World) -> list[Event]:
        book = world.incident_book()
        # Laws 2009 13.4 e: the points the arbiters took count in the tie a playoff breaks.
        reductions = book.points_reduced() if book is not None else None
        return start_playoff(world.tournament(), world.game, self, reductions)


@command(
    "advance_playoff",
    summary="An arbiter moves a playoff on: blitz, then sudden death (3.7.2, 3.7.3).",
    roles=RULING_ROLES,
    events=(PlayoffStageStarted, SuddenDeathPaired),
    refusals=(
        (UnknownTournament, "", "no tournament, or another tournament's id"),
        (RuleViolation, "3.7.1.a", "no playoff for the place yet"),
        (RuleViolation, "3.7.3", "the playoff is decided"),
        (
            RuleViolation,
            "3.7.1",
            "the games of the current stage are not finished (3.7.2 for blitz, 3.7.3 for sudden "
            "death)",
        ),
        (RuleViolation, "3.7.3.a", "a lot winner has not chosen a colour yet"),
        (
            MalformedCommand,
            "3.7.3.a",
            "both 'seed' and 'lot_winner', or a lot winner who is not one of the two players",
        ),
    ),
    notes={
        "place": "the place in dispute (1 = first)",
        "seed": "the seed of a reproducible drawing of the next stage's lots",
        "numbers": "`{player: n}`: the next stage's numbers drawn elsewhere, each of 1..N once",
        "lot_winner": "the player who won the lot of a sudden-death game",
    },
)
@dataclass(frozen=True, kw_only=True)
class AdvancePlayoff(Command):
    tournament: str
    arbiter: str
    at_ms: Instant
    place: int = 1
    seed: Identifier | None = None
    numbers: dict[str, Any] | None = None
    lot_winner: str | None = None

    def decide(self, world: World) -> list[Event]:
        return advance_playoff(world.tournament(), world.game, self)


@command(
    "choose_colour",
    summary="Records the colour chosen by the winner of a sudden-death game's lot (3.7.3.a).",
    roles=RULING_ROLES,
    events=(SuddenDeathColourChosen,),
    refusals=(
        (UnknownTournament, "", "no tournament, or another tournament's id"),
        (RuleViolation, "3.7.3.a", "the colour has already been chosen"),
        (
            MalformedCommand,
            "3.7.3.a",
            "not a sudden-death game of a playoff, or a player other than the lot winner",
        ),
    ),
    notes={
        "game": "the sudden-death game of the playoff (3.7.3 a)",
        "colour": "the colour the lot winner chooses: `white` or `black`",
    },
)
@dataclass(frozen=True, kw_only=True)
class ChooseColour(Command):
    tournament: str
    game: str
    colour: Side
    arbiter: str
    at_ms: Instant

    def decide(self, world: World) -> list[Event]:
        return choose_colour(world.tournament(), self)


def playoff_results(tournament: Tournament, lookup: Lookup) -> dict[str, str]:
    """game id -> result of every finished playoff game."""
    out: dict[str, str] = {}
    for playoff in tournament.playoffs:
        for game_id in playoff.game_ids():
            game = lookup(game_id)
            if game is not None and game.status == FINISHED:
                out[game_id] = game.result
    return out


def current_order(
    tournament: Tournament, lookup: Lookup, reductions: Mapping[str, Fraction] | None = None
) -> tuple[list[tuple[str, ...]], dict[int, Progress], dict[str, str]]:
    """The order after 3.7 a-c and the playoffs so far; refuses while round-robin games remain."""
    states = round_robin_states(tournament, lookup)
    scored = round_robin_games(tournament, states.values())
    done = {(g.round, frozenset((g.white, g.black))) for g in scored}
    missing = [
        (r, w, b) for r, w, b in expected_pairings(tournament) if (r, frozenset((w, b))) not in done
    ]
    if tournament.numbers is None and not is_complete(tournament, scored):
        # no table to name the games still to play (an imported event off the Berger
        # table): the results say whether every pair has played its games
        raise RuleViolation(
            "3.7",
            "tie-break games come after the last round: not every pair of players has "
            f"played its {tournament.cycles} game(s) yet",
        )
    if tournament.numbers is not None and missing:
        raise RuleViolation(
            "3.7",
            f"tie-break games come after the last round: {len(missing)} round-robin game(s) "
            f"still to finish, e.g. round {missing[0][0]} {missing[0][1]} - {missing[0][2]}",
        )
    rules = profile(tournament.rules)
    ranking = rank(
        ranked_players(tournament),
        scored,
        rules.tiebreaks,
        rules.first_place_by_games,
        reductions,
    )
    results = playoff_results(tournament, lookup)
    tiers = withdrawn_behind(ranking.tiers, (w.player for w in tournament.withdrawals))
    order, progress = refine(tiers, tournament.playoffs, results)
    return order, progress, results


def _place(cmd: StartPlayoff | AdvancePlayoff) -> int:
    place = cmd.place
    if place < 1:
        raise MalformedCommand(f"place must be 1 or more, got {place}")
    return int(place)


def _colour_numbers(
    players: tuple[str, ...],
    cmd: StartPlayoff | AdvancePlayoff,
    place: int,
    stage: str,
    series: int,
) -> tuple[dict[str, int], str | None]:
    """3.4.2 / 3.7.1.a: the new drawing of colours among the tied players."""
    seed, numbers = cmd.seed, cmd.numbers
    if (seed is None) == (numbers is None):
        raise MalformedCommand(
            "the drawing of colours needs either 'seed' or 'numbers' ({player: n}), not both"
        )
    if seed is not None:
        purpose = f"playoff:{place}:{stage}{series}"
        ordered = seeded_order(seed, purpose, players)
        return {p: n for n, p in enumerate(ordered, start=1)}, seed
    if not isinstance(numbers, dict) or set(numbers) != set(players):
        raise MalformedCommand(
            f"numbers must give each of {', '.join(players)} a number, got {numbers!r}"
        )
    values = list(numbers.values())
    if any(isinstance(n, bool) or not isinstance(n, int) for n in values) or sorted(values) != list(
        range(1, len(players) + 1)
    ):
        raise MalformedCommand(f"numbers must be 1..{len(players)}, each once; got {values}")
    return {p: int(n) for p, n in numbers.items()}, None


def _stage_event(
    t: Tournament,
    cmd: StartPlayoff | AdvancePlayoff,
    place: int,
    stage: str,
    series: int,
    players: tuple[str, ...],
) -> PlayoffStageStarted:
    rules = profile(t.rules)
    numbers, seed = _colour_numbers(players, cmd, place, stage, series)
    games = stage_pairings(place, stage, series, numbers)
    return PlayoffStageStarted(
        originator_id=TOURNAMENT_STREAM,
        originator_version=t.version + 1,
        at_ms=cmd.at_ms,
        by=cmd.arbiter,
        place=place,
        stage=stage,
        series=series,
        players=players,
        seed=seed,
        numbers=numbers,
        games=tuple(
            PlayoffPairing(game=g.game, round=g.round, board=g.board, white=g.white, black=g.black)
            for g in games
        ),
        time_control=rules.rapid_time_control if stage == RAPID else rules.blitz_time_control,
        arbiter=cmd.arbiter,
    )


def start_playoff(
    tournament: Tournament | None,
    lookup: Lookup,
    cmd: StartPlayoff,
    reductions: Mapping[str, Fraction] | None = None,
) -> list[Event]:
    """3.7.1.a (and 3.7.4 for another place): start the rapid games of a tie after 3.7 a-c."""
    t = require_tournament(tournament, cmd.tournament)
    require_ruling_arbiter(t, cmd.arbiter, "start a playoff")
    place = _place(cmd)
    if place > len(t.players):
        raise MalformedCommand(f"there is no place {place} among {len(t.players)} players")
    if t.playoff(place) is not None:
        raise RuleViolation(
            "3.7.1.a", f"the playoff for place {place} has started; use advance_playoff"
        )
    order, progress, _ = current_order(t, lookup, reductions)
    found = tier_at(order, place)
    if found is None:
        raise RuleViolation("3.7", f"no player holds place {place}")
    start, tier = found
    for prog in progress.values():
        if prog.action != DECIDED and set(tier) == set(prog.players):
            raise RuleViolation(
                "3.7.4",
                f"place {place} waits for the playoff for place {prog.place}, still in progress",
            )
    if len(tier) == 1:
        raise RuleViolation("3.7", f"place {place} is decided: {tier[0]} is not tied")
    if start != place:
        raise RuleViolation(
            "3.7.4",
            f"place {place} is part of the tie of {', '.join(tier)} for places {start}-"
            f"{start + len(tier) - 1}: start the playoff for place {start}",
        )
    return [_stage_event(t, cmd, place, RAPID, 1, tier)]


def advance_playoff(
    tournament: Tournament | None, lookup: Lookup, cmd: AdvancePlayoff
) -> list[Event]:
    """3.7.2 / 3.7.3: start the next blitz series, or the sudden-death bracket and its games."""
    t = require_tournament(tournament, cmd.tournament)
    require_ruling_arbiter(t, cmd.arbiter, "run a playoff")
    place = _place(cmd)
    playoff = t.playoff(place)
    if playoff is None:
        raise RuleViolation("3.7.1.a", f"no playoff for place {place} yet: use start_playoff")
    prog = evaluate(playoff, playoff_results(t, lookup))
    if prog.action == DECIDED:
        raise RuleViolation("3.7.3", f"the playoff for place {place} is decided: {prog.players[0]}")
    if prog.action == PLAY_GAMES:
        article = STAGE_ARTICLE[prog.stage or RAPID]
        raise RuleViolation(
            article,
            f"the {prog.stage} games {', '.join(prog.pending)} are not finished",
        )
    if prog.action == CHOOSE_COLOUR:
        raise RuleViolation(
            "3.7.3.a",
            f"the winner of the lot of {', '.join(prog.pending)} has not chosen a colour yet",
        )
    if prog.action == PAIR_SUDDEN_DEATH:
        return _pair_sudden_death(t, cmd, place, prog.to_pair, t.version + 1)
    # START_STAGE
    if prog.stage == BLITZ:
        return [_stage_event(t, cmd, place, BLITZ, prog.series, prog.players)]
    ratings = {p.id: p.rating for p in t.players}
    numbers = t.numbers or {}
    seeds = tuple(sorted(prog.players, key=lambda p: (-ratings[p], numbers.get(p, 0), p)))
    stage_event = PlayoffStageStarted(
        originator_id=TOURNAMENT_STREAM,
        originator_version=t.version + 1,
        at_ms=cmd.at_ms,
        by=cmd.arbiter,
        place=place,
        stage=SUDDEN_DEATH,
        series=1,
        players=seeds,
        seed=None,
        numbers={p: i for i, p in enumerate(seeds, start=1)},
        games=(),
        time_control=profile(t.rules).sudden_death_time_control,
        arbiter=cmd.arbiter,
    )
    first_round = [
        (m.match, str(m.sides[0]), str(m.sides[1]))
        for m in bracket(seeds)
        if m.round == min(x.round for x in bracket(seeds))
    ]
    return [stage_event, *_pair_sudden_death(t, cmd, place, tuple(first_round), t.version + 2)]


def _pair_sudden_death(
    t: Tournament,
    cmd: AdvancePlayoff,
    place: int,
    matches: tuple[tuple[int, str, str], ...],
    version: int,
) -> list[Event]:
    """3.7.3.a: each game of the bracket round, with the lot for the choice of colour."""
    seed, lot_winner = cmd.seed, cmd.lot_winner
    if (seed is None) == (lot_winner is None):
        raise MalformedCommand(
            "the lot of a sudden-death game needs either 'seed' or 'lot_winner', not both"
        )
    if lot_winner is not None and len(matches) != 1:
        raise MalformedCommand(
            f"{len(matches)} sudden-death games are paired now: give a 'seed' for their lots"
        )
    events: list[Event] = []
    for offset, (match, a, b) in enumerate(matches):
        game_id = sudden_death_game_id(place, match)
        if lot_winner is not None:
            if lot_winner not in (a, b):
                raise MalformedCommand(f"lot_winner must be {a} or {b}, got {lot_winner!r}")
            winner = lot_winner
        elif seed is not None:  # one of the two, checked above
            winner = seeded_order(seed, f"lot:{game_id}", (a, b))[0]
        events.append(
            SuddenDeathPaired(
                originator_id=TOURNAMENT_STREAM,
                originator_version=version + offset,
                at_ms=cmd.at_ms,
                by=cmd.arbiter,
                place=place,
                match=match,
                game=game_id,
                players=(a, b),
                seed=seed,
                lot_winner=winner,
                arbiter=cmd.arbiter,
            )
        )
    return events


def choose_colour(tournament: Tournament | None, cmd: ChooseColour) -> list[Event]:
    """3.7.3.a: "The player who wins the drawing of lots, may choose the colour"."""
    t = require_tournament(tournament, cmd.tournament)
    require_ruling_arbiter(t, cmd.arbiter, "record a choice of colour")
    game_id = cmd.game
    for playoff in t.playoffs:
        for stage in playoff.stages:
            for m in stage.matches:
                if m.game != game_id:
                    continue
                if m.white is not None:
                    raise RuleViolation(
                        "3.7.3.a", f"{m.lot_winner} has already chosen the colour of {game_id}"
                    )
                other = m.players[1] if m.lot_winner == m.players[0] else m.players[0]
                colour = cmd.colour
                winner_white = colour == Side.WHITE
                white, black = (m.lot_winner, other) if winner_white else (other, m.lot_winner)
                return [
                    SuddenDeathColourChosen(
                        originator_id=TOURNAMENT_STREAM,
                        originator_version=t.version + 1,
                        at_ms=cmd.at_ms,
                        by=cmd.arbiter,
                        place=playoff.place,
                        game=game_id,
                        player=m.lot_winner,
                        colour=colour,
                        white=white,
                        black=black,
                        arbiter=cmd.arbiter,
                    )
                ]
    raise MalformedCommand(f"{game_id!r} is not a sudden-death game of a playoff (3.7.3.a)")
