"""Queries of the contract answered from a store (CLI and gateway share them)."""

from __future__ import annotations

from typing import Any

from adapters.store import Store
from engine.errors import MalformedCommand, UnknownGame, UnknownTournament
from engine.game import Game
from engine.pairing import table_size
from engine.rules import profile
from engine.schedule import schedule_view, tournament_schedule
from engine.tournament import Tournament
from projections.game_view import game_view, not_started_view
from projections.pgn import game_pgn
from projections.standings import crosstable, standings


def game_object(store: Store, game_id: str) -> dict[str, Any]:
    """The contract's ``game`` object: a started game, or a paired one not yet started."""
    game = store.game(game_id)
    if game is not None:
        return game_view(game)
    tournament = store.tournament()
    pairing = tournament.pairings().get(game_id) if tournament else None
    if tournament is None or pairing is None:
        raise UnknownGame(f"no game {game_id!r} in this store")
    planned = tournament.planned_game(game_id)
    time_control = planned.time_control if planned else profile(tournament.rules).time_control
    return not_started_view(game_id, *pairing, time_control)


def game_pgn_text(store: Store, game_id: str) -> str:
    game = store.game(game_id)
    if game is None:
        raise UnknownGame(f"no game {game_id!r} in this store")
    tournament = store.tournament()
    names = {p.id: p.name for p in tournament.players} if tournament else {}
    event = tournament.name if tournament else "?"
    return game_pgn(game, event=event, names=names)


def standings_object(store: Store, after_round: int | None = None) -> dict[str, Any]:
    """The contract's ``standings`` object after a round (every finished game when None)."""
    tournament = _require_tournament(store)
    if after_round is not None and not 0 <= after_round <= tournament.rounds:
        raise MalformedCommand(
            f"after_round must be between 0 and {tournament.rounds}, got {after_round}"
        )
    return standings(tournament, _all_games(store), after_round)


def crosstable_object(store: Store, after_round: int | None = None) -> dict[str, Any]:
    """Every player's results against every opponent (see ``projections.standings``)."""
    tournament = _require_tournament(store)
    return crosstable(tournament, _all_games(store), after_round)


def schedule_object(store: Store) -> dict[str, Any]:
    """The 22 days of 3.2 (for this event's number of rounds) from its start date."""
    tournament = _require_tournament(store)
    return schedule_view(tournament_schedule(tournament))


def _require_tournament(store: Store) -> Tournament:
    tournament = store.tournament()
    if tournament is None:
        raise UnknownTournament(
            "no tournament in this store: create one (create_tournament) or import a PGN file"
        )
    return tournament


def _all_games(store: Store) -> list[Game]:
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
