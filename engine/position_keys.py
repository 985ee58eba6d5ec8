"""Positions as the Laws compare them, keyed for speed (bitboards, not FEN text).

``position_key`` is Laws 2009 9.2's "same position" (the player to move, the pieces on
their squares, the castling rights held, an en passant capture only when it can be
made); ``placement_key`` the pieces on their squares only, what an electronic board can
see. The claims' verification (9.2), the dead-position search (5.2 b) and the DGT
reconstruction compare positions through these two alone."""

from __future__ import annotations

import chess

PlacementKey = tuple[int, int, int, int, int, int, int, int]
"""Pieces on squares, as bitboards: compared far faster than FEN text."""
PositionKey = tuple[int, int, int, int, int, int, int, int, bool, int, int | None]


def placement_key(board: chess.BaseBoard) -> PlacementKey:
    """The pieces on their squares only (what an electronic board can see)."""
    return (
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        board.occupied_co[chess.WHITE],
        board.occupied_co[chess.BLACK],
    )


def position_key(board: chess.Board) -> PositionKey:
    """Laws 2009 9.2 "same position": player to move, pieces on squares, castling
    rights held, and an en passant square only when the capture is legal."""
    ep = board.ep_square if board.has_legal_en_passant() else None
    rights = board.clean_castling_rights() if board.castling_rights else 0
    return (*placement_key(board), board.turn, rights, ep)
