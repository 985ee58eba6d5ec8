"""Rule 1 of the reconstruction: a result signalled on the board.

Two conventions of broadcast boards, neither a move: the kings carried to the
centre squares (d5+e4, light, White won; d4+e5, dark, Black won; d4+e4 or d5+e5
side by side, a draw: the two kings stand adjacent, so no legal position looks
like it), and a result ("magic") piece put on the board. Either raises a
``result_signalled`` alert (``adapters.dgt.board_alerts``) that awaits the
arbiter's confirmation.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess

RESULT_SIGNALS = {
    frozenset((chess.D5, chess.E4)): "1-0",
    frozenset((chess.D4, chess.E5)): "0-1",
    frozenset((chess.D4, chess.E4)): "1/2-1/2",
    frozenset((chess.D5, chess.E5)): "1/2-1/2",
}
"""Kings on the centre squares: light squares White won, dark Black won, side by side a draw."""

CENTRE = (
    chess.BB_SQUARES[chess.D4]
    | chess.BB_SQUARES[chess.D5]
    | chess.BB_SQUARES[chess.E4]
    | chess.BB_SQUARES[chess.E5]
)


def result_signal(placement: str) -> str | None:
    """The result the kings on the centre squares signal, or None."""
    base = chess.BaseBoard(placement)
    kings = base.pieces(chess.KING, chess.WHITE) | base.pieces(chess.KING, chess.BLACK)
    if len(base.pieces(chess.KING, chess.WHITE)) != 1 or len(kings) != 2:
        return None
    return RESULT_SIGNALS.get(frozenset(kings))


def before_signal(
    passing: Sequence[tuple[str, int]], signal: str, current: str
) -> Sequence[tuple[str, int]]:
    """The passing placements before the kings were carried to the centre: the ones
    after differ from the signal only on the kings' squares and the centre."""
    final = chess.BaseBoard(signal)
    here = chess.BaseBoard(current)
    involved = final.kings | here.kings | CENTRE
    end = 0
    for i, (placement, _) in enumerate(passing):
        board = chess.BaseBoard(placement)
        if any(
            board.piece_at(sq) != final.piece_at(sq)
            for sq in chess.SQUARES
            if not chess.BB_SQUARES[sq] & involved
        ):
            end = i + 1
    return passing[:end]
