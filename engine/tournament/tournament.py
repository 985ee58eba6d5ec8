"""The tournament aggregate: players, arbiters, rules profile, pairing numbers.

Decisions check a command against the current state and return the events to
append; ``evolve`` folds an event into the state and never refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from engine.errors import NotAnArbiter, RuleViolation, UnknownTournament
from engine.events import (
    BoardsRenumbered,
    Event,
    LotsDrawn,
    PlayerWithdrew,
    PlayoffStageStarted,
    RoundsReordered,
    SuddenDeathColourChosen,
    SuddenDeathPaired,
    TournamentCreated,
)
from engine.rules import profile
from engine.tournament.pairing import Pairing, berger_schedule, is_bye
from engine.tournament.playoff import Playoff, PlayoffGame, Stage, SuddenDeathGame

ARBITER_ROLES = ("chief", "deputy", "advisor")
RULING_ROLES = ("chief", "deputy")
"""The arbiters who rule: the Chief Arbiter and his Deputy (3.9.2 b names them for draw
claims; Laws 2009 13.1-13.4 give the arbiter every other ruling)."""

ARBITER_ARTICLE = "Laws 2009 13.1"
"""The article an arbiter-only command cites when anyone else sends it: "The arbiter shall
see that the Laws of Chess are strictly observed" (13.1; his penalties 13.4). Draw claims
cite 3.9.2 b, which routes them through the Chief Arbiter or his Deputy."""


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    federation: str
    rating: float
    fide_id: str = ""
    """The FIDE identification number, as given (empty when unknown)."""
    title: str = ""
    """The FIDE title (``GM``, ``IM`` ...), empty when none was given."""


def short_name(name: str) -> str:
    """``Svidler`` for ``"Svidler, Peter"``; a name without a comma whole (``Ding Liren``,
    ``Gukesh D``). The rule of ``projections.names.display_name``, here so that the
    engine's own reasons name a player the same way."""
    surname, comma, _ = name.partition(",")
    return surname.strip() if comma and surname.strip() else name.strip()


FIDE_TITLES = ("GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM")
"""The titles a player may be given (FIDE Handbook B.01), as PGN's WhiteTitle writes them."""


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
    site: str = ""
    city: str = ""
    country: str = ""
    """Where the event is played, as ``create_tournament`` gave it (PGN ``Site``)."""
    board_order: dict[str, tuple[int, ...]] | None = None
    """Round (as played) -> the published board of each table board (``BoardsRenumbered``)."""

    def pgn_site(self) -> str:
        """The PGN Site tag: ``site`` as given, else ``City COUNTRY``, else ``?``."""
        return self.site or " ".join(p for p in (self.city, self.country) if p) or "?"

    def player(self, player_id: str) -> Player | None:
        return next((p for p in self.players if p.id == player_id), None)

    def known_as(self, player_id: str) -> str:
        """How a reader knows the player: his surname as registered (``Svidler`` for
        ``"Svidler, Peter"``; a name without a comma whole); the id when unknown."""
        found = self.player(player_id)
        return short_name(found.name) if found is not None else player_id

    def arbiter(self, arbiter_id: str) -> Arbiter | None:
        return next((a for a in self.arbiters if a.id == arbiter_id), None)

    def schedule(self) -> list[Pairing]:
        """Every board of every round, byes included (numbers, not ids)."""
        table = berger_schedule(len(self.players), self.cycles)
        if self.round_order is None and not self.board_order:
            return table
        played_as = {table_round: r for r, table_round in enumerate(self.round_order or ())}
        played_as = {t: r + 1 for t, r in played_as.items()}
        rounds = [replace(p, round=played_as.get(p.round, p.round)) for p in table]
        boards = self.board_order or {}
        renumbered = [
            replace(p, board=boards[str(p.round)][p.board - 1]) if str(p.round) in boards else p
            for p in rounds
        ]
        return sorted(renumbered, key=lambda p: (p.round, p.board))

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


def require_ruling_arbiter(
    tournament: Tournament | None, arbiter_id: str, action: str, article: str = ARBITER_ARTICLE
) -> None:
    """Only the Chief Arbiter or the Deputy may do this (Laws 2009 13.1; 3.9.2 b for a
    ruling on a draw claim, which passes ``article``)."""
    if tournament is None:
        return
    arbiter = tournament.arbiter(arbiter_id)
    if arbiter is None or arbiter.role not in RULING_ROLES:
        raise NotAnArbiter(
            f"{arbiter_id!r} is not the Chief Arbiter or a Deputy of {tournament.id!r} "
            f"and cannot {action} (article {article})"
        )


def require_tournament(tournament: Tournament | None, tournament_id: str | None) -> Tournament:
    """The tournament a command names (None: the one it is decided on)."""
    if tournament is None:
        raise UnknownTournament(f"no tournament has been created in this store ({tournament_id!r})")
    if tournament_id is not None and tournament.id != tournament_id:
        raise UnknownTournament(
            f"this store holds tournament {tournament.id!r}, not {tournament_id!r}"
        )
    return tournament


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
                    Player(
                        p["id"],
                        p["name"],
                        p["federation"],
                        p["rating"],
                        str(p.get("fide_id") or ""),
                        str(p.get("title") or ""),
                    )
                    for p in event.players
                ),
                arbiters=tuple(Arbiter(a["id"], a["name"], a["role"]) for a in event.arbiters),
                site=event.site,
                city=event.city,
                country=event.country,
            )
        case LotsDrawn() if state is not None:
            return replace(
                state,
                version=event.originator_version,
                numbers=dict(event.numbers),
                seed=event.seed,
            )
        case BoardsRenumbered() if state is not None:
            return replace(
                state,
                version=event.originator_version,
                board_order={r: tuple(b) for r, b in event.boards.items()},
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
