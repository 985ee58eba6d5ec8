"""A position as text: FEN and EPD, as python-chess writes them, built faster.

python-chess builds the board part square by square (a ``Piece`` made and named for
each of the 64 squares): most of what a move's game object cost. Here the pieces are
read from the board's bitboards (at most 32 set bits) and each rank written with its
runs of empty squares; the other fields are python-chess's own. The text is the
same as ``Board.fen()`` and ``Board.epd(en_passant="legal")`` (tests compare them on
every position of the 2013 games and on random games).
"""

from __future__ import annotations

import chess

EMPTY = tuple(str(n) for n in range(9))
"""The digit of a run of n empty squares."""


def board_fen(board: chess.Board) -> str:
    """The board part of the FEN (``Board.board_fen()``)."""
    cells: list[str | None] = [None] * 64
    white = board.occupied_co[chess.WHITE]
    for pieces, upper, lower in (
        (board.pawns, "P", "p"),
        (board.knights, "N", "n"),
        (board.bishops, "B", "b"),
        (board.rooks, "R", "r"),
        (board.queens, "Q", "q"),
        (board.kings, "K", "k"),
    ):
        while pieces:
            square = (pieces & -pieces).bit_length() - 1
            cells[square] = upper if white >> square & 1 else lower
            pieces &= pieces - 1
    ranks = []
    for start in range(56, -8, -8):
        rank: list[str] = []
        empty = 0
        for cell in cells[start : start + 8]:
            if cell is None:
                empty += 1
                continue
            if empty:
                rank.append(EMPTY[empty])
                empty = 0
            rank.append(cell)
        if empty:
            rank.append(EMPTY[empty])
        ranks.append("".join(rank))
    return "/".join(ranks)


def epd(board: chess.Board) -> str:
    """Board, side to move, castling rights and the en passant square only when a
    capture there is legal (``Board.epd(en_passant="legal")``)."""
    square = board.ep_square
    legal = square is not None and board.has_legal_en_passant()
    passant = chess.SQUARE_NAMES[square] if square is not None and legal else "-"
    turn = "w" if board.turn == chess.WHITE else "b"
    return f"{board_fen(board)} {turn} {board.castling_xfen()} {passant}"


def fen(board: chess.Board) -> str:
    """The FEN (``Board.fen()``): the EPD, the halfmove clock and the move number."""
    return f"{epd(board)} {board.halfmove_clock} {board.fullmove_number}"
