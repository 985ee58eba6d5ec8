"""Rule 7 of the reconstruction: a move the board confirmed wrongly, found and put right.

Evidence that a move is complete (the next move, quiet time) can mislead: a knight
put down a square off, then moved on after the quiet confirmed it, leaves the game
one ply off the board. ``find_recovery`` looks for the one line from one or two plies
back that the board shows (never behind a lever press, Laws 2009 6.7 a); several
candidates go to the arbiter. The reconstructor lets it wait for evidence, then
rewrites the line and the store feed proposes the arbiter's correction (docs/dgt.md,
section 4, rule 7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess

from adapters.dgt.lines import lines_to
from adapters.dgt.observations import LineRecovered
from adapters.dgt.placements import changed_squares, puts_down
from engine.position_keys import PlacementKey as Key
from engine.position_keys import placement_key


@dataclass(frozen=True)
class Recovery:
    """A line from ``back`` plies ago that leads to ``placement``, where the game's
    moves since do not."""

    back: int
    line: list[chess.Move]
    placement: Key


@dataclass(frozen=True)
class Ambiguous:
    """More than one line of the shortest length leads there: the arbiter decides."""

    lines: list[list[str]]
    """The candidate lines, in UCI."""


def find_recovery(
    board: chess.Board,
    placements: Sequence[Key],
    placement: Key,
    *,
    recover_plies: int,
    pressed_ply: int,
    max_nodes: int,
) -> Recovery | Ambiguous | None:
    """The recovery that explains ``placement`` on the game ``board`` (its placements
    ply by ply: ``placements``), reaching back at most ``recover_plies`` and never to
    a ply at or before ``pressed_ply`` (completed by a lever press)."""
    if not puts_down(placements[-1], placement):
        # Only pieces missing: a hand in the air (a capture, a lifted piece), no move.
        return None
    ply = len(board.move_stack)
    for back in range(1, min(recover_plies, ply - pressed_ply) + 1):
        parent = board.copy()
        for _ in range(back):
            parent.pop()
        lines = lines_to(
            parent,
            placement,
            (back, back + 1),
            changed=changed_squares(placements[ply - back], placement),
            not_first=board.move_stack[ply - back],
            max_nodes=max_nodes,
        )
        if len(lines) == 1:
            return Recovery(back, lines[0], placement)
        if lines:
            return Ambiguous([[m.uci() for m in line] for line in lines])
    return None


def extended(recovery: Recovery, board: chess.Board, placement: Key) -> Recovery | None:
    """The board went on from a waiting recovery: its line and one more move that
    leads to ``placement``, or None."""
    if placement == recovery.placement:
        return None
    ahead = board.copy()
    for _ in range(recovery.back):
        ahead.pop()
    for move in recovery.line:
        ahead.push(move)
    for move in ahead.legal_moves:
        ahead.push(move)
        hit = placement_key(ahead) == placement
        ahead.pop()
        if hit:
            return Recovery(recovery.back, [*recovery.line, move], placement)
    return None


def line_recovered(board: chess.Board, recovery: Recovery, at_ms: int) -> LineRecovered:
    """What taking the recovery does to the game ``board``: the plies it replaces, from
    which ply, with the line played instead."""
    from_ply = len(board.move_stack) - recovery.back + 1
    parent = board.copy()
    for _ in range(recovery.back):
        parent.pop()
    replaced = board.move_stack[from_ply - 1 :]
    replaced_san = parent.variation_san(replaced)
    played_san = parent.variation_san(recovery.line)
    message = (
        f"the board shows {played_san} at ply {from_ply} where {replaced_san} was "
        f"confirmed: the line is corrected from ply {from_ply}"
    )
    return LineRecovered(
        at_ms,
        from_ply,
        tuple(m.uci() for m in replaced),
        tuple(m.uci() for m in recovery.line),
        message,
    )
