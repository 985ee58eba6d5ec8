"""The tournament founded: its creation (1.1, 3.1), the drawing of lots (3.4.1) and the
order its rounds are played in (3.2).

The decisions on the tournament stream before play; the state they build is
``engine.tournament.tournament.Tournament``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from engine.commands import Command, command
from engine.errors import (
    MalformedCommand,
    RuleViolation,
    UnknownTournament,
)
from engine.events import (
    TOURNAMENT_STREAM,
    ArbiterEntry,
    BoardsRenumbered,
    Event,
    LotsDrawn,
    PlayerEntry,
    RoundsReordered,
    TournamentCreated,
)
from engine.fields import Identifier, Instant
from engine.rules import DEFAULT_PROFILE, profile
from engine.tournament.drawing_of_lots import (
    Entrant,
    NoValidDrawing,
    draw_numbers,
    federation_violations,
)
from engine.tournament.tournament import (
    ARBITER_ROLES,
    FIDE_TITLES,
    Tournament,
    require_tournament,
)
from engine.world import World


@command(
    "create_tournament",
    summary="The organiser creates the tournament: players, arbiters, rules, start date (1.1).",
    events=(TournamentCreated,),
    refusals=(
        (
            RuleViolation,
            "1.1",
            "a tournament of that id already exists in the store (each has its own id)",
        ),
        (
            MalformedCommand,
            "3.1",
            "fewer than 2 players, a player or arbiter named twice, an arbiter who plays, cycles "
            "other than 1 or 2, an unknown rules profile or a start date that is not ISO",
        ),
    ),
    notes={
        "name": "the tournament's name",
        "rules": "the rules profile (`docs/import.md`): `candidates-2012` (default), "
        "`candidates-2012-unsupervised`, `candidates-2016`, `candidates-2018`, `candidates-2022`, "
        "`candidates-2024`, `fide-2023`, or `round-robin` (a round robin that is not a "
        "Candidates: FIDE's round-robin tie-breaks, no prize table, a playoff left to the "
        "organiser)",
        "start_date": "day 1 of the schedule (3.2), an ISO date; left out when unknown (no "
        "schedule is then given)",
        "cycles": "1 (single) or 2 (double round robin, 3.1)",
        "players": "`[{id, name, federation, rating, fide_id?, title?}]`: the entrants. `id`: "
        "the player's id in every command (`carlsen`); `name`: as registered, `Surname, Given` "
        "(`Carlsen, Magnus`: reports and comments call him `Carlsen`); `federation`: the FIDE "
        "three-letter code (`NOR`); `rating`: the rating the regulations use (2.3 and 3.7.3: "
        "the average of two lists, so it may be fractional); `fide_id` (optional): the FIDE "
        "identification number, written as `WhiteFideId`/`BlackFideId` and in the rating "
        "report; `title` (optional): the FIDE title (`GM`, `IM`, `FM`, `CM`, `WGM`, `WIM`, "
        "`WFM`, `WCM`), written as `WhiteTitle`/`BlackTitle`",
        "arbiters": "`[{id, name, role}]`, role `chief`, `deputy` or `advisor`",
        "site": "where the event is played, as the PGN `Site` tag gives it (`London ENG`)",
        "city": "the host city (`London`)",
        "country": "the host country, a FIDE federation code (`ENG`)",
        "at": "when the tournament was created (default: none recorded)",
        "by": "who created it, for the record (default `organiser`)",
    },
)
@dataclass(frozen=True, kw_only=True)
class CreateTournament(Command):
    tournament: str
    name: str
    rules: str = DEFAULT_PROFILE
    start_date: str | None = None
    """Day 1 of the schedule (3.2), an ISO date; left out (null) when it is not known (an
    event imported from games whose dates are ``????``): no schedule is then given."""
    cycles: int = 2
    players: list[Any]
    arbiters: list[Any] | None = None
    site: str = ""
    """Where the event is played, as the PGN ``Site`` tag gives it (e.g. ``London ENG``)."""
    city: str = ""
    country: str = ""
    """The host city and country (a FIDE federation code, e.g. ``ENG``)."""
    at_ms: Instant | None = None
    by: str = "organiser"

    def decide(self, world: World) -> list[Event]:
        return create_tournament(world.tournament(), self)


@command(
    "draw_lots",
    summary="The drawing of lots gives each player a pairing number, seeded or given (3.4.1).",
    events=(LotsDrawn,),
    refusals=(
        (UnknownTournament, "", "no tournament, or another tournament's id"),
        (RuleViolation, "3.4.1", "the lots have already been drawn"),
        (
            MalformedCommand,
            "3.4.1",
            "neither or both of 'seed' and 'numbers'; numbers that do not give every player 1..N "
            "once",
        ),
        (
            RuleViolation,
            "3.1",
            "no draw from the seed, or the given numbers, keeps players of one federation apart "
            "in the first rounds (with check_federations)",
        ),
    ),
    notes={
        "seed": "the seed of a reproducible drawing of lots",
        "numbers": "`{player: n}`: numbers drawn elsewhere, each of 1..N once",
        "check_federations": "refuse given numbers that break the federation rule (3.1)",
        "at": "when the lots were drawn",
        "by": "who drew them, for the record",
    },
)
@dataclass(frozen=True, kw_only=True)
class DrawLots(Command):
    tournament: str
    seed: Identifier | None = None
    numbers: dict[str, Any] | None = None
    check_federations: bool = False
    at_ms: Instant | None = None
    by: str = "chief"

    def decide(self, world: World) -> list[Event]:
        return draw_lots(world.tournament(), self)


TITLE = re.compile(r"[A-Z]{1,4}")
"""A title as FIDE and PGN write it: GM, IM, WGM ... (national titles such as NM pass too)."""


def _player(raw: object, index: int) -> PlayerEntry:
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
    fide_id = raw.get("fide_id") or None  # kept only when given: older events lack them
    valid_id = isinstance(fide_id, str | int) and not isinstance(fide_id, bool)
    if fide_id is not None and not (valid_id and str(fide_id).isdigit()):
        raise MalformedCommand(
            f"players[{index}] ({pid}): 'fide_id' must be the FIDE id's digits, got {fide_id!r}"
        )
    title = raw.get("title") or None
    if title is not None and not (isinstance(title, str) and TITLE.fullmatch(title)):
        raise MalformedCommand(
            f"players[{index}] ({pid}): 'title' must be a title as FIDE writes it "
            f"({', '.join(FIDE_TITLES)}), got {title!r}"
        )
    player = PlayerEntry(
        id=pid,
        name=str(raw.get("name") or pid),
        federation=str(raw.get("federation") or ""),
        rating=rating,
    )
    if fide_id is not None:
        player["fide_id"] = str(fide_id)
    if title is not None:
        player["title"] = title
    return player


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


def _check_arbiter_ids(arbiters: tuple[ArbiterEntry, ...], player_ids: set[str]) -> None:
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


def _arbiter(raw: object, index: int) -> ArbiterEntry:
    if not isinstance(raw, dict):
        raise MalformedCommand(f"arbiters[{index}] must be an object")
    aid, role = raw.get("id"), raw.get("role")
    if not isinstance(aid, str) or not aid:
        raise MalformedCommand(f"arbiters[{index}] needs a string 'id'")
    if role not in ARBITER_ROLES:
        raise MalformedCommand(
            f"arbiters[{index}] ({aid}): role must be one of {', '.join(ARBITER_ROLES)}"
        )
    return ArbiterEntry(id=aid, name=str(raw.get("name") or aid), role=role)


def create_tournament(existing: Tournament | None, cmd: CreateTournament) -> list[Event]:
    if existing is not None:
        raise RuleViolation(
            "1.1",
            f"this store already holds a tournament {existing.id!r}; give the new one another "
            "id (a store holds several tournaments, each under its own id)",
        )
    players = tuple(_player(p, i) for i, p in enumerate(cmd.players))
    if len(players) < 2:
        raise MalformedCommand("create_tournament needs at least 2 players")
    ids = [p["id"] for p in players]
    if len(set(ids)) != len(ids):
        raise MalformedCommand(f"player ids must be unique: {ids}")
    arbiters = tuple(_arbiter(a, i) for i, a in enumerate(cmd.arbiters or []))
    _check_arbiter_ids(arbiters, set(ids))
    rules = cmd.rules
    profile(rules)
    cycles = cmd.cycles
    if cycles not in (1, 2):
        raise MalformedCommand(
            f"cycles must be 1 (single) or 2 (double round robin, article 3.1), got {cycles}"
        )
    if cmd.start_date is not None:
        _check_start_date(cmd.start_date)
    return [
        TournamentCreated(
            originator_id=TOURNAMENT_STREAM,
            originator_version=1,
            at_ms=cmd.at_ms or 0,
            by=cmd.by,
            tournament=cmd.tournament,
            name=cmd.name,
            rules=rules,
            start_date=cmd.start_date or "",
            cycles=cycles,
            players=players,
            arbiters=arbiters,
            site=cmd.site,
            city=cmd.city,
            country=cmd.country,
        )
    ]


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


def draw_lots(tournament: Tournament | None, cmd: DrawLots) -> list[Event]:
    """3.4.1: the drawing of lots gives each player a Berger number.

    From a ``seed`` the numbers are drawn by ``engine.tournament.drawing_of_lots`` (reproducible,
    honouring 3.1). Explicit ``numbers`` record a draw made elsewhere (3.4.1: in
    the FIDE office) as given; with ``"check_federations": true`` they are
    refused when they break 3.1.
    """
    t = require_tournament(tournament, cmd.tournament)
    if t.numbers is not None:
        raise RuleViolation("3.4.1", "the lots for pairings and colours have already been drawn")
    entrants = [Entrant(p.id, p.federation) for p in t.players]
    seed = cmd.seed
    if (cmd.numbers is None) == (seed is None):
        raise MalformedCommand("draw_lots needs either 'seed' or 'numbers' ({player: n}), not both")
    if seed is not None:
        try:
            numbers = draw_numbers(entrants, seed)
        except NoValidDrawing as impossible:
            raise RuleViolation("3.1", f"{impossible}; give the numbers explicitly") from None
    else:
        numbers = numbers_from_command(t, cmd.numbers or {})
        violations = federation_violations(entrants, numbers)
        if violations and cmd.check_federations:
            raise RuleViolation(
                "3.1", "these numbers break the federation rule: " + "; ".join(violations)
            )
    return [
        LotsDrawn(
            originator_id=TOURNAMENT_STREAM,
            originator_version=t.version + 1,
            at_ms=cmd.at_ms or 0,
            by=cmd.by,
            numbers=numbers,
            seed=seed,
        )
    ]


@command(
    "reorder_rounds",
    summary="The rounds of the pairing table are played in another order (3.2).",
    events=(RoundsReordered,),
    refusals=(
        (UnknownTournament, "", "no tournament, or another tournament's id"),
        (RuleViolation, "3.4.1", "the lots have not been drawn"),
        (
            MalformedCommand,
            "",
            "an order that does not list the table's rounds once each, or the order already played",
        ),
        (RuleViolation, "3.2", "a round whose place would change has games started already"),
    ),
    notes={
        "order": "`order[r-1]`: the table's round played as round r, each round once (`[1, 2, "
        "3, 4, 5, 7, 6, ...]`)",
        "reason": "why, in words, for the record",
        "at": "when the order was changed",
        "by": "who changed it, for the record (default `chief`)",
    },
)
@dataclass(frozen=True, kw_only=True)
class ReorderRounds(Command):
    tournament: str | None = None
    """None: the store's only tournament (as for any command)."""
    order: list[Any]
    """``order[r-1]``: the table's round played as round r; each round once."""
    reason: str
    at_ms: Instant | None = None
    by: str = "chief"

    def decide(self, world: World) -> list[Event]:
        return reorder_rounds(world.tournament(), world.game, self)


def reorder_rounds(
    tournament: Tournament | None, game_of: Callable[[str], object | None], cmd: ReorderRounds
) -> list[Event]:
    """3.2: the rounds of the pairing table are played in another order (a change of the
    playing schedule, or an import whose games follow the table in another order):
    round r of the event plays the table's round ``order[r-1]``. ``order`` is a
    permutation of the rounds; a round that has a game started keeps its table round."""
    t = require_tournament(tournament, cmd.tournament)
    if t.numbers is None:
        raise RuleViolation("3.4.1", "the rounds are ordered once the lots are drawn")
    order = cmd.order
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
            by=cmd.by,
            order=tuple(order),
            reason=cmd.reason,
        )
    ]


@command(
    "renumber_boards",
    summary="The boards of rounds are numbered as the organisers published them (3.2).",
    events=(BoardsRenumbered,),
    refusals=(
        (RuleViolation, "3.4.1", "the lots have not been drawn"),
        (MalformedCommand, "", "not a round of the tournament, or not its boards 1..N once each"),
        (RuleViolation, "3.2", "a round with a game started already"),
    ),
    notes={
        "boards": 'round as played (`"2"`) -> the published board of each table board, in '
        "table order: `[3, 1, 4, 2]` plays the table's board 1 as board 3",
        "reason": "why, in words, for the record",
        "at": "when the boards were renumbered",
        "by": "who renumbered them, for the record (default `chief`)",
    },
)
@dataclass(frozen=True, kw_only=True)
class RenumberBoards(Command):
    tournament: str | None = None
    """None: the store's only tournament (as for any command)."""
    boards: dict[str, Any]
    """Round (as played, ``"2"``) -> the published board of each table board, in table
    order: ``[3, 1, 4, 2]`` plays the table's board 1 as board 3."""
    reason: str
    at_ms: Instant | None = None
    by: str = "chief"

    def decide(self, world: World) -> list[Event]:
        return renumber_boards(world.tournament(), world.game, self)


def renumber_boards(
    tournament: Tournament | None, game_of: Callable[[str], object | None], cmd: RenumberBoards
) -> list[Event]:
    """3.2: the organisers publish a round's boards in another order than the pairing
    table's; the game ids (``<round>.<board>``) follow the published boards. Each round
    named gets a permutation of its boards; a round with a game started keeps its ids."""
    t = require_tournament(tournament, cmd.tournament)
    if t.numbers is None:
        raise RuleViolation("3.4.1", "the boards are numbered once the lots are drawn")
    size = len(t.players) + len(t.players) % 2
    count = size // 2
    boards: dict[str, tuple[int, ...]] = {}
    for round_no, order in cmd.boards.items():
        if not str(round_no).isdigit() or not 1 <= int(round_no) <= t.rounds:
            raise MalformedCommand(
                f"renumber_boards: {round_no!r} is not a round of {t.id!r} (1..{t.rounds})"
            )
        valid = isinstance(order, list) and all(
            isinstance(b, int) and not isinstance(b, bool) for b in order
        )
        if not valid or sorted(order) != list(range(1, count + 1)):
            raise MalformedCommand(
                f"renumber_boards: round {round_no} must list its boards 1..{count} once "
                f"each, got {order!r}"
            )
        boards[str(int(round_no))] = tuple(order)
    started = [
        f"{r}.{b}" for r in boards for b in range(1, count + 1) if game_of(f"{r}.{b}") is not None
    ]
    if started:
        raise RuleViolation(
            "3.2", f"round(s) with a game already started keep their boards: {', '.join(started)}"
        )
    return [
        BoardsRenumbered(
            originator_id=TOURNAMENT_STREAM,
            originator_version=t.version + 1,
            at_ms=cmd.at_ms or 0,
            by=cmd.by,
            boards=boards,
            reason=cmd.reason,
        )
    ]
