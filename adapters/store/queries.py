"""Queries of the contract answered from a store (CLI and gateway share them).

Each reads through ``Reads`` (``adapters.store.reads``): a store (its default
tournament), one tournament's view, or an in-memory world answer alike."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypedDict, cast

from adapters.store.names import logical_event
from adapters.store.openings import opening_of
from adapters.store.reads import Reads
from adapters.store.registry import StoreReads
from engine.errors import MalformedCommand, RuleViolation, UnknownGame, UnknownTournament
from engine.events import INCIDENTS_STREAM, Event, IncidentRecorded, game_stream, split_stream
from engine.game.state import Game
from engine.rules import profile
from engine.standings.tiebreaks import is_complete, round_robin_games
from engine.timefmt import format_instant
from engine.tournament.pairing import table_size
from engine.tournament.schedule import known_schedule, tournament_schedule
from engine.tournament.tournament import Tournament
from projections.arbiter_report import Entry, report_entries
from projections.clock import ClockRow, clock_report, device_view, game_at
from projections.game_view import GameObject, OpeningShown, game_view, not_started_view
from projections.names import Names
from projections.needs import Needs, NeedsInputs, compute
from projections.pairings import Pairings, pairings
from projections.scenarios import ScenarioTable
from projections.shapes import EventWire, Number
from projections.standings import Crosstable, Standings, crosstable, standings
from projections.trf import trf_players, trf_text


class EntrantListed(TypedDict):
    """A player of the event: title, federation, rating, FIDE id, drawn number (3.4)."""

    id: str
    name: str
    title: str | None
    federation: str
    rating: Number
    fide_id: str | None
    number: int | None


class ArbiterListed(TypedDict):
    id: str
    name: str
    role: str


class TournamentObject(TypedDict):
    """The event: name, place, rules, dates, its players and arbiters."""

    tournament: str
    name: str
    site: str
    city: str | None
    country: str | None
    rules: str
    start_date: str | None
    cycles: int
    rounds: int
    players: list[EntrantListed]
    arbiters: list[ArbiterListed]


class OutOfArea(TypedDict):
    """A player out of the playing area now, with whom (3.9.2 c)."""

    player: str
    since: str
    accompanied_by: str | None
    arbiter: str | None
    game: str | None
    name: str
    accompanied_by_name: str | None


class IncidentBook(TypedDict):
    """A tournament's incident book: its entries in time order with their articles, every
    incident as recorded, who is out of the playing area now."""

    tournament: str
    entries: list[Entry]
    incidents: list[EventWire]
    out: list[OutOfArea]


class ScheduleDayShown(TypedDict):
    """One day of the event: arrival, a round, a rest day, the closing (3.2)."""

    day: int
    date: str
    kind: str
    round: int | None
    title: str


class Schedule(TypedDict):
    """The days of the event (3.2) from its start date."""

    tournament: str
    name: str
    total_days: int
    days: list[ScheduleDayShown]


class ArbiterReport(TypedDict):
    """The Chief Arbiter's report: every incident, ruling, penalty, claim and flag of the
    event in time order, with the article of each, and how many of each category."""

    tournament: str
    name: str
    rules: str
    laws: str
    arbiters: list[ArbiterListed]
    counts: dict[str, int]
    entries: list[Entry]


def _view(source: Reads) -> Reads:
    """A store's default tournament (its streams under the engine's names, docs/scale.md);
    a world that is not a store as it is."""
    return source.registry.view() if isinstance(source, StoreReads) else source


def one_look(source: Reads) -> AbstractContextManager[object]:
    """Reads made together look at the store once (``StateCache.session``); a world that is
    not a store (an in-memory one) is read as it is."""
    session = getattr(source, "session", None)
    look: AbstractContextManager[object] = session() if session is not None else nullcontext()
    return look


def game_object(store: Reads, game_id: str, at_ms: int | None = None) -> GameObject:
    """The contract's ``game`` object: a started game, or a paired one not yet started.

    With ``at_ms``, the game as it stood at that instant and its clocks then
    (the regulation clock, and under ``clock.device`` the physical clock's last
    reading run on to that instant).
    """
    if at_ms is not None:
        return _game_object_at(store, game_id, at_ms)
    with one_look(store):  # one look at the store for the whole object
        return _game_object_now(store, game_id)


def _game_object_now(store: Reads, game_id: str) -> GameObject:
    game = store.game(game_id)
    if game is not None:
        view = game_view(game)
        view["opening"] = opening_object(game)
        log = store.clock_log(game_id)
        if log is not None and log.last is not None:
            view["clock"]["device"] = device_view([log.last], log.last.at_ms)
        return view
    tournament = store.tournament()
    pairing = tournament.pairings().get(game_id) if tournament else None
    if tournament is None or pairing is None:
        raise UnknownGame(f"no game {game_id!r} in this store")
    planned = tournament.planned_game(game_id)
    time_control = planned.time_control if planned else profile(tournament.rules).time_control
    return not_started_view(game_id, *pairing, time_control)


def _game_object_at(store: Reads, game_id: str, at_ms: int) -> GameObject:
    events = _view(store).stream(game_stream(game_id))
    game = game_at(events, at_ms)
    if game is None:
        raise UnknownGame(f"no game {game_id!r} in this store")
    if at_ms < game.started_at_ms:
        raise UnknownGame(
            f"game {game_id} started at {format_instant(game.started_at_ms)}, "
            f"after {format_instant(at_ms)}"
        )
    view = game_view(game, at_ms)
    view["opening"] = opening_object(game)
    found = store.reading_at(game_id, at_ms)
    ended = game.last_at_ms if game.status == "finished" else None
    view["clock"]["device"] = device_view([found[0]], at_ms, ended) if found else None
    return view


def opening_object(game: Game) -> OpeningShown | None:
    """The game object's ``opening``: ECO code, name and the ply it was reached at (the
    openings table, ``adapters.store.openings``), or None."""
    found = opening_of(game.initial_fen, game.moves)
    return None if found is None else {"eco": found.eco, "name": found.name, "ply": found.ply}


def game_clock_report(store: Reads, game_id: str) -> list[ClockRow]:
    """Per ply, the recorded clock next to the regulation clock (``projections.clock``)."""
    events = _view(store).stream(game_stream(game_id))
    if not events:
        raise UnknownGame(f"no game {game_id!r} in this store")
    return clock_report(events, store.readings(game_id))


def tournament_object(store: Reads) -> TournamentObject:
    """The event: name, place, rules, dates, its players (with their drawn numbers once
    the lots are drawn, 3.4) and arbiters."""
    tournament = _require_tournament(store)
    numbers = tournament.numbers or {}
    return {
        "tournament": tournament.id,
        "name": tournament.name,
        "site": tournament.pgn_site(),
        "city": tournament.city or None,
        "country": tournament.country or None,
        "rules": tournament.rules,
        "start_date": tournament.start_date,
        "cycles": tournament.cycles,
        "rounds": tournament.rounds,
        "players": [
            {
                "id": p.id,
                "name": p.name,
                "title": p.title or None,
                "federation": p.federation,
                "rating": p.rating,
                "fide_id": p.fide_id or None,
                "number": numbers.get(p.id),
            }
            for p in tournament.players
        ],
        "arbiters": [{"id": a.id, "name": a.name, "role": a.role} for a in tournament.arbiters],
    }


def standings_object(store: Reads, after_round: int | None = None) -> Standings:
    """The contract's ``standings`` object after a round (every finished game when None)."""
    with one_look(store):  # one look at the store for every game
        tournament = _require_tournament(store)
        if after_round is not None and not 0 <= after_round <= tournament.rounds:
            raise MalformedCommand(
                f"after_round must be between 0 and {tournament.rounds}, got {after_round}"
            )
        book = store.incident_book()
        return standings(tournament, _all_games(store), after_round, book=book)


def needs_inputs(
    store: Reads,
    after_round: int | None = None,
    wdl: Mapping[str, Sequence[float]] | None = None,
) -> NeedsInputs:
    """What the ``needs`` object is computed from (``projections.needs``): the tournament,
    its games, the points the arbiters took (13.4 e); ``wdl``: game -> win/draw/loss of a
    game in progress, from an analysis (refused for a game the tournament does not pair)."""
    with one_look(store):
        tournament = _require_tournament(store)
        if after_round is not None and not 0 <= after_round <= tournament.rounds:
            raise MalformedCommand(
                f"after_round must be between 0 and {tournament.rounds}, got {after_round}"
            )
        unknown = sorted(set(wdl or {}) - set(tournament.pairings()))
        if unknown:
            raise MalformedCommand(
                f"win/draw/loss given for {', '.join(unknown)}: not games of {tournament.id}"
            )
        book = store.incident_book()
        games = tuple(_all_games(store))
    if tournament.numbers is None and not is_complete(
        tournament, round_robin_games(tournament, games)
    ):
        raise RuleViolation(
            "3.4.1",
            "the lots have not been drawn: the games still to play, and so what each player "
            "needs, are not known yet (draw_lots)",
        )
    reductions = book.points_reduced(after_round) if book is not None else {}
    return NeedsInputs(tournament, games, after_round, reductions, dict(wdl or {}))


def needs_object(
    store: Reads,
    after_round: int | None = None,
    wdl: Mapping[str, Sequence[float]] | None = None,
    previous: ScenarioTable | None = None,
) -> tuple[Needs, ScenarioTable]:
    """The ``needs`` object (``projections.needs``) and its scored scenarios (to narrow
    at the next result: ``previous``)."""
    return compute(needs_inputs(store, after_round, wdl), previous)


def crosstable_object(store: Reads, after_round: int | None = None) -> Crosstable:
    """Every player's results against every opponent (see ``projections.standings``)."""
    tournament = _require_tournament(store)
    return crosstable(tournament, _all_games(store), after_round, book=store.incident_book())


def pairings_object(store: Reads, only_round: int | None = None) -> Pairings:
    """Each round's boards with colours, players and results so far (``projections.pairings``)."""
    tournament = _require_tournament(store)
    if only_round is not None and not 1 <= only_round <= tournament.rounds:
        raise MalformedCommand(f"round must be between 1 and {tournament.rounds}, got {only_round}")
    days = known_schedule(tournament)
    dates = {d.round: d.date.isoformat() for d in days if d.round is not None}
    return pairings(tournament, store.game, dates, only_round)


def trf_report(store: Reads) -> str:
    """The event as a FIDE Tournament Report File (TRF16, ``projections.trf``)."""
    tournament = _require_tournament(store)
    games = _all_games(store)
    if tournament.numbers is None and not any(g.status == "finished" for g in games):
        raise MalformedCommand(
            "a tournament report lists the players by their drawn numbers: draw the lots first "
            "(draw_lots, article 3.4.1)"
        )
    days = known_schedule(tournament)
    dates: dict[int, str] = {d.round: d.date.isoformat() for d in days if d.round is not None}
    for game in games:  # the day a round was played, where it was (never an unknown day)
        if game.stage == "tournament" and game.started_at_ms > 0:
            played = format_instant(game.started_at_ms)[:10]
            dates[game.round] = min(dates.get(game.round, played), played)
    rounds = tournament.rounds
    round_dates = [dates.get(r) for r in range(1, rounds + 1)]
    chief = [a.name for a in tournament.arbiters if a.role == "chief"]
    deputies = [a.name for a in tournament.arbiters if a.role == "deputy"]
    rules = profile(tournament.rules)
    cycles = "double" if tournament.cycles == 2 else "single"
    records = [
        ("012", tournament.name),
        ("022", getattr(tournament, "city", "") or getattr(tournament, "site", "")),
        ("032", getattr(tournament, "country", "")),
        ("042", (round_dates[0] or tournament.start_date or "").replace("-", "/")),
        ("052", (round_dates[-1] or "").replace("-", "/")),
        ("062", str(len(tournament.players))),
        ("072", str(sum(1 for p in tournament.players if p.rating))),
        ("092", f"Individual: round robin ({cycles}), Berger tables"),
        ("102", chief[0] if chief else ""),
        *(("112", name) for name in deputies),
        ("122", rules.time_control),
    ]
    fide = {p.id: (p.fide_id, p.title) for p in tournament.players}
    players = trf_players(
        crosstable(tournament, games),
        standings(tournament, games),
        rounds,
        pairings(tournament, store.game, dates),
        fide,
    )
    if tournament.numbers is None:
        records.append(("###", "starting numbers by rating: the drawing of lots is not recorded"))
    return trf_text(records, round_dates, players)


def schedule_object(store: Reads) -> Schedule:
    """The 22 days of 3.2 (for this event's number of rounds) from its start date."""
    tournament, days = tournament_schedule(_require_tournament(store))
    return {
        "tournament": tournament.id,
        "name": tournament.name,
        "total_days": len(days),
        "days": [
            {
                "day": d.day,
                "date": d.date.isoformat(),
                "kind": d.kind,
                "round": d.round,
                "title": d.title,
            }
            for d in days
        ],
    }


def _require_tournament(store: Reads) -> Tournament:
    tournament = store.tournament()
    if tournament is None:
        raise UnknownTournament(
            "no tournament in this store: create one (create_tournament) or import a PGN file"
        )
    return tournament


def _all_games(store: Reads) -> list[Game]:
    """The games the standings read: every ``<round>.<board>`` of the round robin (by id,
    without scanning the log) and every playoff game paired so far."""
    tournament = _require_tournament(store)
    boards = table_size(len(tournament.players)) // 2
    ids = [f"{r}.{b}" for r in range(1, tournament.rounds + 1) for b in range(1, boards + 1)]
    ids += [gid for playoff in tournament.playoffs for gid in playoff.game_ids()]
    out: list[Game] = []
    for game_id in ids:
        game = store.game(game_id)
        if game is not None:
            out.append(game)
    return out


def decision_events(store: Reads) -> Iterator[Event]:
    """Every stored event of the tournament but the physical clocks' readings, in global
    order (what the arbiters decided and what followed; the readings are tens of
    thousands), under the engine's stream names. In a store of several tournaments the
    others' events are left out; the store's own streams (boards) go with its first."""
    view = _view(store)
    namespace = getattr(view, "namespace", None)
    source: Any = getattr(view, "cache", store)
    for _, event in source.events_since(0, skip_streams=("clock/",)):
        if split_stream(event.originator_id)[0] == namespace:
            yield logical_event(event, namespace)


def incidents_object(store: Reads) -> IncidentBook:
    """The incident book: its entries in time order with their articles, every incident
    as recorded, and who is out of the playing area now, with whom (3.9.2 c)."""
    tournament = _require_tournament(store)
    recorded = _view(store).stream(INCIDENTS_STREAM)
    book = store.incident_book()
    names = Names.of(tournament)
    return {
        "tournament": tournament.id,
        "entries": report_entries(recorded, names),
        "incidents": [
            cast(EventWire, e.to_wire()) for e in recorded if isinstance(e, IncidentRecorded)
        ],
        "out": [
            {
                "player": leave.player,
                "since": format_instant(leave.left_at_ms),
                "accompanied_by": leave.accompanied_by,
                "arbiter": leave.arbiter,
                "game": leave.game,
                "name": names.full(leave.player),
                "accompanied_by_name": names.arbiter(leave.accompanied_by),
            }
            for leave in (book.out if book is not None else ())
        ],
    }


def report_object(store: Reads) -> ArbiterReport:
    """The Chief Arbiter's report (``projections.arbiter_report``): every incident, ruling,
    penalty, claim and flag of the event in time order, with the article of each."""
    tournament = _require_tournament(store)
    entries = report_entries(decision_events(store), Names.of(tournament))
    counts: dict[str, int] = {}
    for item in entries:
        counts[item["category"]] = counts.get(item["category"], 0) + 1
    return {
        "tournament": tournament.id,
        "name": tournament.name,
        "rules": tournament.rules,
        "laws": profile(tournament.rules).laws_edition,
        "arbiters": [{"id": a.id, "name": a.name, "role": a.role} for a in tournament.arbiters],
        "counts": counts,
        "entries": entries,
    }
