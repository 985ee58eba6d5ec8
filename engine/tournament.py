"""The tournament aggregate: players, arbiters, rules profile, pairing numbers.

Decisions check a command against the current state and return the events to
append; ``evolve`` folds an event into the state and never refuses.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from engine.commands import Command
from engine.errors import MalformedCommand, NotAnArbiter, RuleViolation, UnknownTournament
from engine.events import TOURNAMENT_STREAM, Event, LotsDrawn, TournamentCreated
from engine.pairing import Pairing, berger_schedule, is_bye
from engine.rules import DEFAULT_PROFILE, profile

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

    def player(self, player_id: str) -> Player | None:
        return next((p for p in self.players if p.id == player_id), None)

    def arbiter(self, arbiter_id: str) -> Arbiter | None:
        return next((a for a in self.arbiters if a.id == arbiter_id), None)

    def schedule(self) -> list[Pairing]:
        """Every board of every round, byes included (numbers, not ids)."""
        return berger_schedule(len(self.players), self.cycles)

    def pairings(self) -> dict[str, tuple[str, str]]:
        """game id -> (white id, black id) for every real game, once lots are drawn."""
        if self.numbers is None:
            return {}
        by_number = {n: pid for pid, n in self.numbers.items()}
        size = len(self.players)
        return {
            p.game_id: (by_number[p.white], by_number[p.black])
            for p in self.schedule()
            if not is_bye(p, size)
        }

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
    return {
        "id": pid,
        "name": str(raw.get("name") or pid),
        "federation": str(raw.get("federation") or ""),
        "rating": rating,
    }


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
    rules = cmd.get("rules", DEFAULT_PROFILE)
    profile(rules)
    cycles = cmd.get("cycles", 2)
    if cycles < 1:
        raise MalformedCommand(f"cycles must be at least 1, got {cycles}")
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
    """3.4.1: the drawing of lots gives each player a Berger number."""
    t = require_tournament(tournament, cmd["tournament"])
    if t.numbers is not None:
        raise RuleViolation("3.4.1", "the lots for pairings and colours have already been drawn")
    if cmd.get("numbers") is None:
        raise MalformedCommand("draw_lots needs 'numbers' ({player: n})")
    numbers = numbers_from_command(t, cmd["numbers"])
    return [
        LotsDrawn(
            originator_id=TOURNAMENT_STREAM,
            originator_version=t.version + 1,
            at_ms=cmd.at_ms or 0,
            by=cmd.get("by", "chief"),
            numbers=numbers,
            seed=None,
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
    if state is not None:
        return replace(state, version=event.originator_version)
    return state
