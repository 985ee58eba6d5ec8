"""The engine's evidence on a dead position (Laws 2009 5.2 b), by a bounded search.

A position "in which neither player can checkmate the opponent's king with any series
of legal moves" beyond insufficient material (a locked pawn chain, bishops that can
never reach a pawn) is drawn by the arbiter; ``search`` gives him the evidence: it
explores the positions reachable by legal moves of both sides, each once, up to a
budget, and answers ``dead`` (all explored, none a checkmate), ``not_dead`` (a line of
legal moves to a checkmate) or ``unproven`` (the budget spent first). Pure and
deterministic: no clock is read and the budget alone bounds the cost, so the same
position gives the same answer on any machine. The order of the search and what each
answer does to ``declare_result`` and the audit are in docs/claims.md ("Dead
positions").
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from enum import StrEnum

import chess

from engine.checkmate import can_checkmate
from engine.errors import RuleViolation
from engine.events import DeadPositionRecord
from engine.position_keys import PositionKey, position_key
from engine.side import Side


class Verdict(StrEnum):
    DEAD = "dead"
    """Every reachable position was explored: none is a checkmate."""
    NOT_DEAD = "not_dead"
    """A line of legal moves reaches a checkmate."""
    UNPROVEN = "unproven"
    """The budget was spent before either was shown."""


DEFAULT_BUDGET = 100_000
"""Positions a search may explore (about a few seconds of python-chess at most)."""


@dataclass(frozen=True)
class DeadPositionEvidence:
    """What the search found on one position."""

    verdict: Verdict
    fen: str
    """The position searched."""
    positions: int
    """Distinct positions reached (the one searched included)."""
    budget: int
    mating_line: tuple[str, ...] = ()
    """``not_dead``: the moves (SAN) from the position to a checkmate."""
    mating_side: Side | None = None
    """``not_dead``: the side that mates at the end of ``mating_line``."""

    def as_record(self) -> DeadPositionRecord:
        """The evidence as an event holds it (values only)."""
        record: DeadPositionRecord = {
            "verdict": self.verdict.value,
            "fen": self.fen,
            "positions": self.positions,
            "budget": self.budget,
            "summary": self.describe(),
        }
        if self.verdict == Verdict.NOT_DEAD:
            record["mating_line"] = list(self.mating_line)
            record["mating_side"] = self.mating_side.value if self.mating_side else None
        return record

    def describe(self) -> str:
        """One sentence for a message or a report."""
        if self.verdict == Verdict.DEAD:
            return (
                f"the engine explored every position reachable by legal moves "
                f"({self.positions}): none is a checkmate, the position is dead (Laws 2009 5.2 b)"
            )
        if self.verdict == Verdict.NOT_DEAD:
            side = self.mating_side.value if self.mating_side else "a side"
            first_ply = chess.Board(self.fen).ply() + 1
            line = line_text(self.mating_line, first_ply)
            return f"{side} can checkmate by a series of legal moves: {line}"
        return (
            f"the engine could not verify it: {self.positions} positions searched (its budget "
            f"of {self.budget}) without finding a checkmate or exploring them all"
        )


Parents = dict[PositionKey, tuple[PositionKey, chess.Move] | None]
"""Each position reached -> the one it was reached from and the move (None: the start)."""


def _potential(board: chess.Board) -> int:
    """How far the position is on the way to a mate: each queen and rook counts as a
    promoted pawn, each pawn by the ranks it has advanced."""
    heavy = chess.popcount(board.queens | board.rooks)
    advanced = 0
    for square in chess.scan_forward(board.pawns & board.occupied_co[chess.WHITE]):
        advanced += chess.square_rank(square) - 1
    for square in chess.scan_forward(board.pawns & board.occupied_co[chess.BLACK]):
        advanced += 6 - chess.square_rank(square)
    return 8 * heavy + advanced


def search(board: chess.Board, budget: int = DEFAULT_BUDGET) -> DeadPositionEvidence:
    """Whether either side can still checkmate from ``board``.

    A position is the Laws' (9.2: pieces, side to move, castling and en passant rights;
    the move counters aside). One where neither side can mate by its material
    (``can_checkmate``: no pawn, rook or queen left, none can come back) is not explored
    further. Breadth first, where a pawn's step and a promotion count as steps back
    towards the start: a pawn break and its promotion, the usual way out of a locked
    position, are met before the kings' wanderings."""
    if budget < 1:
        raise ValueError(f"the search budget must be at least 1 position, got {budget}")
    start = board.copy(stack=False)
    fen = start.fen()
    parents: Parents = {position_key(start): None}
    if start.is_checkmate():
        return DeadPositionEvidence(
            Verdict.NOT_DEAD, fen, 1, budget, (), Side.to_move(not start.turn)
        )
    frontier: list[tuple[int, int, int, chess.Board]] = [(0, 0, 0, start)]
    order = 0
    while frontier:
        _, _, depth, node = heapq.heappop(frontier)
        if not (can_checkmate(node, Side.WHITE) or can_checkmate(node, Side.BLACK)):
            continue  # no pawn, rook or queen: no mate, now or later
        here = position_key(node)
        for move in list(node.legal_moves):
            node.push(move)
            key = position_key(node)
            if key in parents:
                node.pop()
                continue
            parents[key] = (here, move)
            child = node.copy(stack=False)
            node.pop()
            if child.is_checkmate():
                line = _line(start, parents, key)
                return DeadPositionEvidence(
                    Verdict.NOT_DEAD,
                    fen,
                    len(parents),
                    budget,
                    line,
                    Side.to_move(node.turn),
                )
            if len(parents) >= budget:
                return DeadPositionEvidence(Verdict.UNPROVEN, fen, len(parents), budget)
            order += 1
            heapq.heappush(frontier, (depth + 1 - _potential(child), order, depth + 1, child))
    return DeadPositionEvidence(Verdict.DEAD, fen, len(parents), budget)


def _line(
    start: chess.Board,
    parents: dict[PositionKey, tuple[PositionKey, chess.Move] | None],
    end: PositionKey,
) -> tuple[str, ...]:
    """The moves from ``start`` to the position ``end``, as SAN."""
    moves: list[chess.Move] = []
    step = parents[end]
    while step is not None:
        previous, move = step
        moves.append(move)
        step = parents[previous]
    board = start.copy(stack=False)
    sans: list[str] = []
    for move in reversed(moves):
        sans.append(board.san(move))
        board.push(move)
    return tuple(sans)


def line_text(sans: tuple[str, ...] | list[str], first_ply: int = 1) -> str:
    """``1. f5 Kd7 2. fxe6+ ...``: SAN moves numbered from ``first_ply``, 1 = White's
    first."""
    out: list[str] = []
    for index, san in enumerate(sans):
        ply = first_ply + index
        number = (ply + 1) // 2
        if ply % 2 == 1:
            out.append(f"{number}. {san}")
        elif index == 0:
            out.append(f"{number}... {san}")
        else:
            out.append(san)
    return " ".join(out)


def declared_dead_position(
    board: chess.Board, game_id: str, result: str, scores: str | None
) -> DeadPositionRecord:
    """The evidence a draw declared for a dead position carries (``declare_result``
    with termination ``dead_position``), or a refusal: a dead position is a draw for
    both (5.2 b), and one from which a side can still mate is not dead (3.9.2 b: the
    players cannot draw by agreement, and no reason of the Laws draws it). ``dead`` and
    ``unproven`` (the arbiter's ruling, which the engine could not verify) are recorded."""
    if result != "1/2-1/2" or scores is not None:
        raise RuleViolation(
            "5.2 b",
            f"game {game_id}: a dead position is drawn (1/2-1/2, each player a half), "
            f"not {scores or result}",
        )
    evidence = search(board, DEFAULT_BUDGET)
    if evidence.verdict == Verdict.NOT_DEAD:
        raise RuleViolation(
            "5.2 b",
            f"game {game_id} is not a dead position: {evidence.describe()} "
            f"(from {evidence.fen}); the players cannot draw by agreement (3.9.2 b): nothing "
            "was recorded",
        )
    return evidence.as_record()
