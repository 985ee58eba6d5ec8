"""Placements: what a DGT board shows, as the reconstructor compares it.

A placement is the piece part of a FEN, read in normal orientation (field 0 =
a8). It is compared by its key (``PlacementKey``: one bitboard per piece kind
and colour, as the arbiter's claim verification keys positions), so that the
placement one legal move leads to, an earlier placement of the game and the
board's own are compared in one step (``adapters.dgt.reconstruct``).
"""

from __future__ import annotations

import chess

from engine.position_keys import PlacementKey as Key
from engine.position_keys import placement_key

START_PLACEMENT = chess.STARTING_BOARD_FEN


def placement_text_key(placement: str) -> Key:
    """The key of a placement given as text (the piece part of a FEN)."""
    return placement_key(chess.BaseBoard(placement))


START_KEY = placement_text_key(START_PLACEMENT)


def square_diff(expected: str, found: str) -> list[dict[str, str | None]]:
    """Squares whose piece differs between two placements, a1..h8 order."""
    a = chess.BaseBoard(expected)
    b = chess.BaseBoard(found)
    out: list[dict[str, str | None]] = []
    for sq in chess.SQUARES:
        pa, pb = a.piece_at(sq), b.piece_at(sq)
        if pa != pb:
            out.append(
                {
                    "square": chess.square_name(sq),
                    "expected": pa.symbol() if pa else None,
                    "found": pb.symbol() if pb else None,
                }
            )
    return out


def puts_down(current: Key, placement: Key) -> bool:
    """Does ``placement`` show a piece where ``current`` has none, or another one?
    (If not, it only lacks pieces of ``current``: a hand holds them.)"""
    return any(theirs & ~mine for mine, theirs in zip(current, placement, strict=True))


def changed_squares(before: Key, after: Key) -> int:
    """The squares (a bitboard) whose piece differs between two placements."""
    changed = 0
    for mine, theirs in zip(before, after, strict=True):
        changed |= mine ^ theirs
    return changed
