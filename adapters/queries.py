"""Queries of the contract answered from a store (CLI and gateway share them)."""

from __future__ import annotations

from typing import Any

from adapters.store import Store
from engine.errors import UnknownGame
from engine.events import game_stream
from engine.rules import profile
from engine.timefmt import format_instant
from projections.clock import clock_report, device_view, game_at, move_clocks
from projections.game_view import game_view, not_started_view
from projections.pgn import game_pgn


def game_object(store: Store, game_id: str, at_ms: int | None = None) -> dict[str, Any]:
    """The contract's ``game`` object: a started game, or a paired one not yet started.

    With ``at_ms``, the game as it stood at that instant and its clocks then
    (the regulation clock, and under ``clock.device`` the physical clock's last
    reading run on to that instant).
    """
    if at_ms is not None:
        return _game_object_at(store, game_id, at_ms)
    game = store.game(game_id)
    if game is not None:
        view = game_view(game)
        log = store.clock_log(game_id)
        if log is not None and log.last is not None:
            view["clock"]["device"] = device_view([log.last], log.last.at_ms)
        return view
    tournament = store.tournament()
    pairing = tournament.pairings().get(game_id) if tournament else None
    if tournament is None or pairing is None:
        raise UnknownGame(f"no game {game_id!r} in this store")
    return not_started_view(game_id, *pairing, profile(tournament.rules).time_control)


def _game_object_at(store: Store, game_id: str, at_ms: int) -> dict[str, Any]:
    events = store.stream(game_stream(game_id))
    game = game_at(events, at_ms)
    if game is None:
        raise UnknownGame(f"no game {game_id!r} in this store")
    if at_ms < game.started_at_ms:
        raise UnknownGame(
            f"game {game_id} started at {format_instant(game.started_at_ms)}, "
            f"after {format_instant(at_ms)}"
        )
    view = game_view(game, at_ms)
    found = store.reading_at(game_id, at_ms)
    ended = game.last_at_ms if game.status == "finished" else None
    view["clock"]["device"] = device_view([found[0]], at_ms, ended) if found else None
    return view


def game_clock_report(store: Store, game_id: str) -> list[dict[str, Any]]:
    """Per ply, the recorded clock next to the regulation clock (``projections.clock``)."""
    events = store.stream(game_stream(game_id))
    if not events:
        raise UnknownGame(f"no game {game_id!r} in this store")
    return clock_report(events, store.readings(game_id))


def game_pgn_text(store: Store, game_id: str) -> str:
    game = store.game(game_id)
    if game is None:
        raise UnknownGame(f"no game {game_id!r} in this store")
    tournament = store.tournament()
    names = {p.id: p.name for p in tournament.players} if tournament else {}
    event = tournament.name if tournament else "?"
    clocks = move_clocks(store.stream(game_stream(game_id)))
    return game_pgn(game, event=event, names=names, clocks_ms=clocks)
