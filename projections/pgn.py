"""PGN export of a game: the seven standard tags, TimeControl, the moves, the result."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import chess
import chess.pgn

from engine.game.state import Game
from projections.clock import clock_text

PGN_TERMINATION = {
    "time_forfeit": "time forfeit",
    "flag_fall_draw": "time forfeit",
    "arbiter_decision": "adjudication",
    "default": "abandoned",
    "illegal_moves": "rules infraction",
    "incorrect_claims": "rules infraction",
    "penalty": "rules infraction",
    "imported": "normal",
}
"""Our termination names -> the PGN standard's Termination values (8.1.1.7); else normal."""


def pgn_date(at_ms: int) -> str:
    return datetime.fromtimestamp(at_ms / 1000, tz=UTC).strftime("%Y.%m.%d")


def game_pgn(
    game: Game,
    *,
    event: str = "?",
    site: str = "?",
    names: dict[str, str] | None = None,
    clocks_ms: Sequence[int | None] | None = None,
) -> str:
    """The game as PGN text (export format).

    ``clocks_ms``: the mover's clock after each ply (``projections.clock.move_clocks``),
    written as ``[%clk h:mm:ss]`` after every move (PGN supplement, 2001).
    """
    names = names or {}
    board = chess.Board(game.initial_fen) if game.initial_fen else chess.Board()
    pgn = chess.pgn.Game()
    pgn.headers["Event"] = event
    pgn.headers["Site"] = site
    pgn.headers["Date"] = pgn_date(game.started_at_ms) if game.started_at_ms else "????.??.??"
    pgn.headers["Round"] = game.game_id
    pgn.headers["White"] = names.get(game.white, game.white)
    pgn.headers["Black"] = names.get(game.black, game.black)
    pgn.headers["Result"] = game.result
    pgn.headers["TimeControl"] = game.time_control
    if game.initial_fen:
        pgn.setup(board)
    if game.termination:
        pgn.headers["Termination"] = PGN_TERMINATION.get(game.termination, "normal")
    node: chess.pgn.GameNode = pgn
    for index, uci in enumerate(game.moves):
        node = node.add_variation(chess.Move.from_uci(uci))
        clock_ms = clocks_ms[index] if clocks_ms and index < len(clocks_ms) else None
        if clock_ms is not None:
            node.comment = f"[%clk {clock_text(clock_ms)}]"
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=True)
    return pgn.accept(exporter)
