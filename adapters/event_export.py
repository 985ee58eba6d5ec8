"""The whole event out of a store: PGN with ``[%clk]``, and the crosstable.

Clock times come from the readings stored on each game's ``clock/<id>``
stream: a reading taken after ply p (its ``ply`` field) gives the clock of
the side that made move p. A game without readings is exported without
``[%clk]``.
"""

from __future__ import annotations

from typing import Any

from adapters.replay import standings
from adapters.store import Store
from engine.events import clock_stream
from engine.game import Game
from projections.event_pgn import (
    crosstable,
    event_pgn,
    render_crosstable,
)


def clock_after_ply(store: Store, game: Game) -> dict[int, int]:
    """Ply -> the mover's remaining time just after that move, from the stored readings."""
    white_moves_first = game.initial_fen is None or " w " in game.initial_fen
    out: dict[int, int] = {}
    for event in store.stream(clock_stream(game.game_id)):
        ply = getattr(event, "ply", None)
        white_ms = getattr(event, "white_ms", None)
        black_ms = getattr(event, "black_ms", None)
        if not isinstance(ply, int) or ply < 1 or ply in out:
            continue
        white_moved = (ply % 2 == 1) == white_moves_first
        remaining = white_ms if white_moved else black_ms
        if isinstance(remaining, int):
            out[ply] = remaining
    return out


def event_games(store: Store) -> list[Game]:
    return [g for g in (store.game(i) for i in store.game_ids()) if g is not None]


def store_event_pgn(store: Store, site: str = "?") -> str:
    games = event_games(store)
    clocks = {g.game_id: clock_after_ply(store, g) for g in games}
    return event_pgn(games, store.tournament(), clocks, site)


def store_crosstable(store: Store) -> str:
    tournament = store.tournament()
    if tournament is None:
        return "No tournament in this store.\n"
    table: Any = standings(store)
    order = None
    decided = None
    if isinstance(table, dict) and table.get("rows"):
        order = [row["player"] for row in table["rows"]]
        winner = table.get("winner")
        if isinstance(winner, dict) and winner.get("player"):
            player = tournament.player(str(winner["player"]))
            name = player.name if player else winner["player"]
            decided = f"First place: {name} (decided by {winner.get('decided_by')})"
    games = event_games(store)
    latest = max((g.last_at_ms for g in games), default=None)
    return render_crosstable(tournament, crosstable(tournament, games, order), decided, latest)
