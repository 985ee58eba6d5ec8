"""Lines of legal moves that lead from the game's position to a placement.

What the reconstructor (``adapters.dgt.reconstruct``) asks of the moves: the
placement each legal move leads to (rule 3), those of the other moves from the
position before the last one (rule 4), two plies at once (rule 5), and the
bounded search of longer lines (rule 5b after a reconnection, rule 7's
recovery, ``adapters.dgt.recovery``). Each takes a python-chess ``Board`` and
leaves it as it was.
"""

from __future__ import annotations

from collections.abc import Iterable

import chess

from engine.position_keys import PlacementKey as Key
from engine.position_keys import placement_key


def successors(board: chess.Board) -> dict[Key, chess.Move]:
    """The placement each legal move leads to (the first move in python-chess's order,
    if two lead to one placement)."""
    found: dict[Key, chess.Move] = {}
    for move in board.legal_moves:
        board.push(move)
        found.setdefault(placement_key(board), move)
        board.pop()
    return found


def siblings(board: chess.Board) -> dict[Key, chess.Move]:
    """The placements of the other legal moves from the position before the last move."""
    parent = board.copy()
    last = parent.pop()
    found: dict[Key, chess.Move] = {}
    for move in parent.legal_moves:
        if move != last:
            parent.push(move)
            found.setdefault(placement_key(parent), move)
            parent.pop()
    return found


def two_plies(board: chess.Board, placement: Key) -> list[chess.Move] | None:
    """A move and the reply that lead to ``placement`` (the first found), or None."""
    mover = board.turn
    # After two plies the mover's men changed only by the first move, less at most
    # one captured by the reply: prune first moves that cannot lead there.
    target_mover = placement[6] if mover == chess.WHITE else placement[7]
    for first in list(board.legal_moves):
        board.push(first)
        occupied = board.occupied_co[mover]
        if target_mover & ~occupied or chess.popcount(occupied & ~target_mover) > 1:
            board.pop()
            continue
        found = None
        for second in board.legal_moves:
            board.push(second)
            hit = placement_key(board) == placement
            board.pop()
            if hit:
                found = [first, second]
                break
        board.pop()
        if found:
            return found
    return None


def lines_to(
    board: chess.Board,
    target: Key,
    lengths: Iterable[int],
    *,
    changed: int,
    max_nodes: int,
    not_first: chess.Move | None = None,
) -> list[list[chess.Move]]:
    """Lines of legal moves from ``board`` to the placement ``target``: the shortest
    length of ``lengths`` (tried in order) that has any, two lines at most (more than
    one: the order of the moves is unknowable).

    Bounded: every move of a line touches a square of ``changed`` (a move that
    touches none would have to be undone later: no detours), the first move is not
    ``not_first`` (the game's own, when looking for another line), and at most
    ``max_nodes`` moves are tried in all. ``board`` is searched in place and left
    as it was."""
    found: list[list[chess.Move]] = []
    path: list[chess.Move] = []
    nodes = 0

    def search(depth: int) -> None:
        nonlocal nodes
        for move in list(board.legal_moves):
            if len(found) > 1 or nodes >= max_nodes:
                return
            if not path and move == not_first:
                continue
            if not (chess.BB_SQUARES[move.from_square] | chess.BB_SQUARES[move.to_square]) & (
                changed
            ):
                continue
            nodes += 1
            board.push(move)
            path.append(move)
            if depth == 1:
                if placement_key(board) == target:
                    found.append(list(path))
            else:
                search(depth - 1)
            board.pop()
            path.pop()

    for length in lengths:
        search(length)
        if found:
            break
    return found
