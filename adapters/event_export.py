"""The whole event out of a store: PGN with ``[%clk]``.

Clock times are the regulation clock after each move (the time control
applied to the recorded instants, ``projections.clock``), as ``candidates
pgn`` writes them; a game whose clock is unknown is exported without
``[%clk]``.
"""

from __future__ import annotations

from adapters.store import Store
from engine.events import game_stream
from engine.game.state import Game
from projections.clock import move_clocks
from projections.event_pgn import (
    event_pgn,
)


def clock_after_ply(store: Store, game: Game) -> dict[int, int]:
    """Ply -> the mover's clock just after that move: the regulation clock of the time
    control (``projections.clock.move_clocks``, the same as ``candidates pgn``)."""
    clocks = move_clocks(store.stream(game_stream(game.game_id)))
    return {ply: ms for ply, ms in enumerate(clocks, start=1) if ms is not None}


def event_games(store: Store) -> list[Game]:
    return [g for g in (store.game(i) for i in store.game_ids()) if g is not None]


def store_event_pgn(store: Store, site: str = "?") -> str:
    games = event_games(store)
    clocks = {g.game_id: clock_after_ply(store, g) for g in games}
    return event_pgn(games, store.tournament(), clocks, site)
