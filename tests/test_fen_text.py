"""The position as text (``engine.game.fen``) is exactly python-chess's FEN and EPD.

The game object's ``fen`` and the openings table's keys are built from the board's
bitboards instead of square by square; every position of the 2013 Candidates, of random games
(captures en passant, promotions, castling rights lost one by one) and of Chess960
starts (X-FEN castling letters) must read as python-chess writes it.
"""

from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.pgn

from engine.game.fen import board_fen, epd, fen

GAMES_2013 = Path(__file__).parents[1] / "replay_logs" / "sources" / "candidates-2013.pgn"


def same_text(board: chess.Board) -> None:
    assert board_fen(board) == board.board_fen()
    assert epd(board) == board.epd(en_passant="legal")
    assert fen(board) == board.fen()


def test_every_position_of_the_2013_candidates() -> None:
    positions = 0
    with GAMES_2013.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            board = game.board()
            same_text(board)
            for move in game.mainline_moves():
                board.push(move)
                same_text(board)
                positions += 1
    assert positions > 4_000  # 56 games


def test_random_games_with_en_passant_promotions_and_castling_rights() -> None:
    rng = random.Random(28)
    seen = {"en passant": 0, "promotion": 0, "rights lost": 0}
    for _ in range(30):
        board = chess.Board()
        for _ply in range(120):
            moves = list(board.legal_moves)
            if not moves:
                break
            # captures en passant and promotions first when there are any, so they occur
            special = [m for m in moves if board.is_en_passant(m) or m.promotion]
            move = rng.choice(special) if special and rng.random() < 0.7 else rng.choice(moves)
            seen["en passant"] += board.is_en_passant(move)
            seen["promotion"] += bool(move.promotion)
            rights = board.castling_rights
            board.push(move)
            seen["rights lost"] += board.castling_rights != rights
            same_text(board)
    assert all(count > 5 for count in seen.values()), seen


def test_chess960_starts_write_their_castling_files() -> None:
    for number in range(0, 960, 7):
        board = chess.Board.from_chess960_pos(number)
        same_text(board)
        board.push(next(iter(board.legal_moves)))
        same_text(board)
