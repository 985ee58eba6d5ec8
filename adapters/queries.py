"""Queries of the contract answered from a store (CLI and gateway share them)."""

from __future__ import annotations

from typing import Any

from adapters.store import Store
from engine.errors import UnknownGame
from engine.rules import profile
from projections.game_view import game_view, not_started_view
from projections.pgn import game_pgn


def game_object(store: Store, game_id: str) -> dict[str, Any]:
    """The contract's ``game`` object: a started game, or a paired one not yet started."""
    game = store.game(game_id)
    if game is not None:
        return game_view(game)
    tournament = store.tournament()
    pairing = tournament.pairings().get(game_id) if tournament else None
    if tournament is None or pairing is None:
        raise UnknownGame(f"no game {game_id!r} in this store")
    return not_started_view(game_id, *pairing, profile(tournament.rules).time_control)


def game_pgn_text(store: Store, game_id: str) -> str:
    game = store.game(game_id)
    if game is None:
        raise UnknownGame(f"no game {game_id!r} in this store")
    tournament = store.tournament()
    names = {p.id: p.name for p in tournament.players} if tournament else {}
    event = tournament.name if tournament else "?"
    return game_pgn(game, event=event, names=names)
