"""Whether a side can still checkmate: the one test behind 6.9, 7.4 b, 12.3 b and 5.2 b.

A flag fall (Laws 2009 6.9), the losing illegal move (7.4 b), a game lost by
penalty with the draw test (12.3 b) and a claim of insufficient material (5.2 b)
all ask "can this side checkmate by any series of legal moves?". They ask it
here, so the answer and its approximation are said once (``docs/clocks.md``).
"""

from __future__ import annotations

import chess

from engine.side import Side


def can_checkmate(board: chess.Board, side: Side | str) -> bool:
    """Whether ``side`` could checkmate the opponent by some series of legal moves.

    Decided with python-chess ``has_insufficient_material``: it looks at the
    material and the colours of bishops, and counts the opponent's pieces that
    could block their own king (a helpmate test, not a material count: K+N can
    mate a K+R or a K with pawns with the opponent's help, so a flag fall there
    loses). It never says "cannot" when a mate exists. It can say "can" in
    exotic positions where the placement forbids any mate (locked pawn chains, a
    bishop that can never reach the mating diagonal): the Chief Arbiter corrects
    such a result with ``declare_result``.
    """
    return not board.has_insufficient_material(Side.of(side).colour)
