"""The tournament aggregate: players, arbiters, rules profile, pairing numbers.

Decisions check a command against the current state and return the events to
append; ``evolve`` folds an event into the state and never refuses.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from engine.commands import Command
from engine.errors import MalformedCommand, NotAnArbiter, RuleViolation, UnknownTournament
from engine.events import (
    TOURNAMENT_STREAM,
    Event,
    LotsDrawn,
    PlayerWithdrew,
    PlayoffStageStarted,
    RoundsReordered,
    SuddenDeathColourChosen,
    SuddenDeathPaired,
    TournamentCreated,
)
from engine.rules import DEFAULT_PROFILE, profile
from engine.tournament.drawing_of_lots import (
    Entrant,
    NoValidDrawing,
    draw_numbers,
    federation_violations,
)
from engine.tournament.pairing import Pairing, berger_schedule, is_bye
from engine.tournament.playoff import Playoff, PlayoffGame, Stage, SuddenDeathGame

ARBITER_ROLES = ("chief", "deputy", "advisor")
RULING_ROLES = ("chief", "deputy")
"""3.9.2 b: claims go through the Chief Arbiter or his Deputy."""


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    federation: str
    rating: float


@dataclass(frozen=True)
class Arbiter:
    id: str
    name: str
    role: str


@dataclass(frozen=True)
class Withdrawal:
    """A player's withdrawal and how it treats his games (3.1, 3.3.3)."""

    player: str
    rule: str
    """``defaults``, ``annulled`` or ``first_round_default`` (``engine.standings.withdrawal``)."""
    games_completed: int
    games_total: int
    effective_round: int
    at_ms: int
    reason: str


@dataclass(frozen=True)
class PlannedGame:
    """A game the tournament has paired: its players, stage and time control."""

    game: str
    white: str
    black: str
    stage: str
    time_control: str


@dataclass(frozen=True)
class Tournament:
    """State of the event, folded from the ``tournament`` stream."""

    version: int
    id: str
    name: str
    rules: str
    start_date: str
    cycles: int
    players: tuple[Player, ...]
    arbiters: tuple[Arbiter, ...]
    numbers: dict[str, int] | None = None
    seed: str | None = None
    withdrawals: tuple[Withdrawal, ...] = ()
    playoffs: tuple[Playoff, ...] = ()
    """One per place, in the order they were started (3.7.1.a, 3.7.4)."""
    round_order: tuple[int, ...] | None = None
    """``round_order[r-1]``: the table round played as round r (None: the table's order)."""

    def player(self, player_id: str) -> Player | None:
        return next((p for p in self.players if p.id == player_id), None)

    def arbiter(self, arbiter_id: str) -> Arbiter | None:
        return next((a for a in self.arbiters if a.id == arbiter_id), None)

    def schedule(self) -> list[Pairing]:
        """Every board of every round, byes included (numbers, not ids)."""
        table = berger_schedule(len(self.players), self.cycles)
        if self.round_order is None:
            return table
        played_as = {table_round: r for r, table_round in enumerate(self.round_order, start=1)}
        return sorted(
            (replace(p, round=played_as.get(p.round, p.round)) for p in table),
            key=lambda p: (p.round, p.board),
        )

    def pairings(self) -> dict[str, tuple[str, str]]:
        """game id -> (white id, black id) for every real game, once lots are drawn;
        then every playoff game whose colours are known (3.7.1.a-3.7.3)."""
        out = self.round_robin_pairings()
        out.update({g.game: (g.white, g.black) for g in self.playoff_games().values()})
        return out

    def round_robin_pairings(self) -> dict[str, tuple[str, str]]:
        """game id -> (white id, black id) of the round robin (3.1), byes left out."""
        if self.numbers is None:
            return {}
        by_number = {n: pid for pid, n in self.numbers.items()}
        size = len(self.players)
        return {
            p.game_id: (by_number[p.white], by_number[p.black])
            for p in self.schedule()
            if not is_bye(p, size)
        }

    def playoff_games(self) -> dict[str, PlannedGame]:
        """Every playoff game paired so far whose colours are known."""
        rules = profile(self.rules)
        out: dict[str, PlannedGame] = {}
        for playoff in self.playoffs:
            for stage in playoff.stages:
                for g in stage.games:
                    out[g.game] = PlannedGame(
                        g.game, g.white, g.black, stage.stage, stage.time_control
                    )
                for m in stage.matches:
                    if m.white is not None and m.black is not None:
                        out[m.game] = PlannedGame(
                            m.game, m.white, m.black, stage.stage, rules.sudden_death_time_control
                        )
        return out

    def planned_game(self, game_id: str) -> PlannedGame | None:
        """A playoff game's players, stage and time control (None for round-robin games)."""
        return self.playoff_games().get(game_id)

    def withdrawal(self, player_id: str) -> Withdrawal | None:
        return next((w for w in self.withdrawals if w.player == player_id), None)

    def playoff(self, place: int) -> Playoff | None:
        return next((p for p in self.playoffs if p.place == place), None)

    def check_can_start(self, game_id: str) -> None:
        """Refuse to start a game a withdrawal cancelled (3.1, 3.3.3) or whose colour
        is not chosen yet (3.7.3.a)."""
        pairing = self.round_robin_pairings().get(game_id)
        for pid in pairing or ():
            gone = self.withdrawal(pid)
            if gone is not None:
                raise RuleViolation(
                    "3.3.3" if gone.rule == "first_round_default" else "3.1",
                    f"game {game_id} is not played: {pid} withdrew ({gone.rule.replace('_', ' ')})",
                )
        for playoff in self.playoffs:
            for stage in playoff.stages:
                for m in stage.matches:
                    if m.game == game_id and m.white is None:
                        raise RuleViolation(
                            "3.7.3.a",
                            f"the colours of {game_id} are not known yet: {m.lot_winner} won the "
                            "lot and must choose a colour (choose_colour)",
                        )

    @property
    def rounds(self) -> int:
        return max((p.round for p in self.schedule()), default=0)


def require_ruling_arbiter(tournament: Tournament | None, arbiter_id: str, action: str) -> None:
    """3.9.2 b: only the Chief Arbiter or the Deputy may do this."""
    if tournament is None:
        return
    arbiter = tournament.arbiter(arbiter_id)
    if arbiter is None or arbiter.role not in RULING_ROLES:
        raise NotAnArbiter(
            f"{arbiter_id!r} is not the Chief Arbiter or a Deputy of {tournament.id!r} "
            f"and cannot {action} (article 3.9.2 b)"
        )


def _player(raw: object, index: int) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise MalformedCommand(f"players[{index}] must be an object")
    pid = raw.get("id")
    if not isinstance(pid, str) or not pid:
        raise MalformedCommand(f"players[{index}] needs a string 'id'")
    rating = raw.get("rating", 0)
    if isinstance(rating, bool) or not isinstance(rating, int | float):
        raise MalformedCommand(f"players[{index}] ({pid}): 'rating' must be a number")
    if not math.isfinite(rating) or not 0 <= rating <= MAX_RATING:
        # 3.7.3: the rating ranks the players of a sudden-death playoff; NaN cannot be ranked.
        raise MalformedCommand(
            f"players[{index}] ({pid}): 'rating' must be a number from 0 to {MAX_RATING}, "
            f"got {rating!r}"
        )
    return {
        "id": pid,
        "name": str(raw.get("name") or pid),
        "federation": str(raw.get("federation") or ""),
        "rating": rating,
    }


MAX_RATING = 10_000
"""No Elo rating comes near it; beyond it a rating is a typing error."""


def _check_start_date(start_date: str) -> None:
    """3.2: day 1 of the schedule; every later date (rounds, 3.3.3 withdrawals) counts from it."""
    try:
        date.fromisoformat(start_date)
    except ValueError:
        raise MalformedCommand(
            f"start_date {start_date!r} is not an ISO date (e.g. 2013-03-13): the schedule of "
            "article 3.2 counts from it"
        ) from None


def _check_arbiter_ids(arbiters: tuple[dict[str, Any], ...], player_ids: set[str]) -> None:
    """An arbiter is named once, and is not a player (3.9.2 b: claims go through him)."""
    ids = [a["id"] for a in arbiters]
    if len(set(ids)) != len(ids):
        raise MalformedCommand(f"arbiter ids must be unique: {ids}")
    both = sorted(player_ids.intersection(ids))
    if both:
        raise MalformedCommand(
            f"{', '.join(map(repr, both))}: an arbiter cannot also be a player of the tournament "
            "(article 3.9.2 b: the players' claims go through the arbiters)"
        )


def _arbiter(raw: object, index: int) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise MalformedCommand(f"arbiters[{index}] must be an object")
    aid, role = raw.get("id"), raw.get("role")
    if not isinstance(aid, str) or not aid:
        raise MalformedCommand(f"arbiters[{index}] needs a string 'id'")
    if role not in ARBITER_ROLES:
        raise MalformedCommand(
            f"arbiters[{index}] ({aid}): role must be one of {', '.join(ARBITER_ROLES)}"
        )
    return {"id": aid, "name": str(raw.get("name") or aid), "role": role}


def create_tournament(existing: Tournament | None, cmd: Command) -> list[Event]:
    if existing is not None:
        raise RuleViolation(
            "1.1", f"this store already holds the tournament {existing.id!r}; use a new store"
        )
    players = tuple(_player(p, i) for i, p in enumerate(cmd["players"]))
    if len(players) < 2:
        raise MalformedCommand("create_tournament needs at least 2 players")
    ids = [p["id"] for p in players]
    if len(set(ids)) != len(ids):
        raise MalformedCommand(f"player ids must be unique: {ids}")
    arbiters = tuple(_arbiter(a, i) for i, a in enumerate(cmd.get("arbiters") or []))
    _check_arbiter_ids(arbiters, set(ids))
    rules = cmd.get("rules", DEFAULT_PROFILE)
    profile(rules)
    cycles = cmd.get("cycles", 2)
    if cycles not in (1, 2):
        raise MalformedCommand(
            f"cycles must be 1 (single) or 2 (double round robin, article 3.1), got {cycles}"
        )
    _check_start_date(cmd["start_date"])
    return [
        TournamentCreated(
            originator_id=TOURNAMENT_STREAM,
            originator_version=1,
            at_ms=cmd.at_ms or 0,
            by=cmd.get("by", "organiser"),
            tournament=cmd["tournament"],
            name=cmd["name"],
            rules=rules,
            start_date=cmd["start_date"],
            cycles=cycles,
            players=players,
            arbiters=arbiters,
        )
    ]


def require_tournament(tournament: Tournament | None, tournament_id: str) -> Tournament:
    if tournament is None:
        raise UnknownTournament(f"no tournament has been created in this store ({tournament_id!r})")
    if tournament.id != tournament_id:
        raise UnknownTournament(
            f"this store holds tournament {tournament.id!r}, not {tournament_id!r}"
        )
    return tournament


def numbers_from_command(tournament: Tournament, raw: dict[str, Any]) -> dict[str, int]:
    """Check explicit pairing numbers: every player once, numbers 1..N once."""
    ids = {p.id for p in tournament.players}
    unknown = sorted(set(raw) - ids)
    if unknown:
        raise MalformedCommand(f"draw_lots: unknown player(s) {unknown}")
    missing = sorted(ids - set(raw))
    if missing:
        raise MalformedCommand(f"draw_lots: no number for player(s) {missing}")
    values = list(raw.values())
    if any(isinstance(n, bool) or not isinstance(n, int) for n in values) or sorted(values) != list(
        range(1, len(ids) + 1)
    ):
        raise MalformedCommand(
            f"draw_lots: numbers must be 1..{len(ids)}, each once; got {sorted(map(str, values))}"
        )
    return {pid: int(n) for pid, n in raw.items()}


def draw_lots(tournament: Tournament | None, cmd: Command) -> list[Event]:
    """3.4.1: the drawing of lots gives each player a Berger number.

    From a ``seed`` the numbers are drawn by ``engine.tournament.drawing_of_lots`` (reproducible,
    honouring 3.1). Explicit ``numbers`` record a draw made elsewhere (3.4.1: in
    the FIDE office) as given; with ``"check_federations": true`` they are
    refused when they break 3.1.
    """
    t = require_tournament(tournament, cmd["tournament"])
    if t.numbers is not None:
        raise RuleViolation("3.4.1", "the lots for pairings and colours have already been drawn")
    entrants = [Entrant(p.id, p.federation) for p in t.players]
    seed: str | None = cmd.get("seed")
    if (cmd.get("numbers") is None) == (seed is None):
        raise MalformedCommand("draw_lots needs either 'seed' or 'numbers' ({player: n}), not both")
    if seed is not None:
        try:
            numbers = draw_numbers(entrants, seed)
        except NoValidDrawing as impossible:
            raise RuleViolation("3.1", f"{impossible}; give the numbers explicitly") from None
    else:
        numbers = numbers_from_command(t, cmd["numbers"])
        violations = federation_violations(entrants, numbers)
        if violations and cmd.get("check_federations", False):
            raise RuleViolation(
                "3.1", "these numbers break the federation rule: " + "; ".join(violations)
            )
    return [
        LotsDrawn(
            originator_id=TOURNAMENT_STREAM,
            originator_version=t.version + 1,
            at_ms=cmd.at_ms or 0,
            by=cmd.get("by", "chief"),
            numbers=numbers,
            seed=seed,
        )
    ]


def reorder_rounds(
    tournament: Tournament | None, game_of: Callable[[str], object | None], cmd: Command
) -> list[Event]:
    """3.2: the rounds of the pairing table are played in another order (a change of the
    playing schedule, or an import whose games follow the table in another order):
    round r of the event plays the table's round ``order[r-1]``. ``order`` is a
    permutation of the rounds; a round that has a game started keeps its table round."""
    t = require_tournament(tournament, cmd["tournament"])
    if t.numbers is None:
        raise RuleViolation("3.4.1", "the rounds are ordered once the lots are drawn")
    order = cmd["order"]
    if any(isinstance(r, bool) or not isinstance(r, int) for r in order) or sorted(order) != list(
        range(1, t.rounds + 1)
    ):
        raise MalformedCommand(
            f"reorder_rounds: order must list the table's rounds 1..{t.rounds} once each, "
            f"got {order!r}"
        )
    current = t.round_order or tuple(range(1, t.rounds + 1))
    if tuple(order) == current:
        raise MalformedCommand("reorder_rounds: the rounds are already played in this order")
    boards = len(t.players) // 2
    started = [
        f"{r}.{b}"
        for r, (now, then) in enumerate(zip(current, order, strict=True), start=1)
        if now != then
        for b in range(1, boards + 1)
        if game_of(f"{r}.{b}") is not None
    ]
    if started:
        raise RuleViolation(
            "3.2",
            f"round(s) with a game already started cannot change their pairings: "
            f"{', '.join(started)}",
        )
    return [
        RoundsReordered(
            originator_id=TOURNAMENT_STREAM,
            originator_version=t.version + 1,
            at_ms=cmd.at_ms or 0,
            by=cmd.get("by", "chief"),
            order=tuple(order),
            reason=cmd["reason"],
        )
    ]


def evolve(state: Tournament | None, event: Event) -> Tournament | None:
    """Fold one event of the tournament stream."""
    match event:
        case TournamentCreated():
            return Tournament(
                version=event.originator_version,
                id=event.tournament,
                name=event.name,
                rules=event.rules,
                start_date=event.start_date,
                cycles=event.cycles,
                players=tuple(
                    Player(p["id"], p["name"], p["federation"], p["rating"]) for p in event.players
                ),
                arbiters=tuple(Arbiter(a["id"], a["name"], a["role"]) for a in event.arbiters),
            )
        case LotsDrawn() if state is not None:
            return replace(
                state,
                version=event.originator_version,
                numbers=dict(event.numbers),
                seed=event.seed,
            )
        case RoundsReordered() if state is not None:
            return replace(state, version=event.originator_version, round_order=tuple(event.order))
        case PlayerWithdrew() if state is not None:
            gone = Withdrawal(
                player=event.player,
                rule=event.rule,
                games_completed=event.games_completed,
                games_total=event.games_total,
                effective_round=event.effective_round,
                at_ms=event.at_ms,
                reason=event.reason,
            )
            return replace(
                state, version=event.originator_version, withdrawals=(*state.withdrawals, gone)
            )
        case PlayoffStageStarted() if state is not None:
            stage = Stage(
                stage=event.stage,
                series=event.series,
                players=tuple(event.players),
                numbers=dict(event.numbers),
                games=tuple(
                    PlayoffGame(g["game"], g["round"], g["board"], g["white"], g["black"])
                    for g in event.games
                ),
                time_control=event.time_control,
            )
            return _with_playoff(state, event, event.place, lambda p: (*p.stages, stage))
        case SuddenDeathPaired() if state is not None:
            match = SuddenDeathGame(
                match=event.match,
                game=event.game,
                players=(event.players[0], event.players[1]),
                lot_winner=event.lot_winner,
            )
            return _with_playoff(
                state,
                event,
                event.place,
                lambda p: (
                    *p.stages[:-1],
                    replace(p.stages[-1], matches=(*p.stages[-1].matches, match)),
                ),
            )
        case SuddenDeathColourChosen() if state is not None:

            def choose(m: SuddenDeathGame) -> SuddenDeathGame:
                if m.game != event.game:
                    return m
                return replace(m, white=event.white, black=event.black)

            return _with_playoff(
                state,
                event,
                event.place,
                lambda p: tuple(
                    replace(st, matches=tuple(choose(m) for m in st.matches)) for st in p.stages
                ),
            )
    if state is not None:
        return replace(state, version=event.originator_version)
    return state


def _with_playoff(
    state: Tournament,
    event: Event,
    place: int,
    stages: Callable[[Playoff], tuple[Stage, ...]],
) -> Tournament:
    """The state with the playoff for ``place`` given new stages (created on its first stage)."""
    current = state.playoff(place)
    if current is None:
        assert isinstance(event, PlayoffStageStarted)
        current = Playoff(place=place, players=tuple(event.players))
        playoffs = (*state.playoffs, current)
    else:
        playoffs = state.playoffs
    updated = replace(current, stages=stages(current))
    return replace(
        state,
        version=event.originator_version,
        playoffs=tuple(updated if p.place == place else p for p in playoffs),
    )
