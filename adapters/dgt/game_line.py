"""The game line the board is read into: its moves, provisional until confirmed.

The reconstructor (``adapters.dgt.reconstruct``) keeps the game as a python-chess
``Board`` and the placement after each ply. Every move is provisional until the
evidence that it is complete (the next move, the lever, quiet time, the end of the
input: ``_confirm``); a provisional last move can still be corrected to a sibling
or withdrawn (rule 4, ``_correction``); an earlier placement of the game takes
moves back, remembered so that putting them back on the board redoes them (rule 8,
``_takeback_or_redo``), as are moves offered to follow (``offer_continuation``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import chess

from adapters.dgt.lines import siblings, successors
from adapters.dgt.observations import (
    MoveConfirmed,
    MoveCorrected,
    MoveSeen,
    Observation,
    TakebackSeen,
)
from engine.position_keys import PlacementKey as Key
from engine.position_keys import placement_key


@dataclass
class GameLine:
    """The moves read from a board, the placement after each, which are provisional."""

    board: chess.Board = field(init=False)
    provisional_from: int | None = field(init=False, default=None)
    """Ply index (0-based) of the first unconfirmed move, if any."""
    _placements: list[Key] = field(init=False, default_factory=list)
    _redo: list[chess.Move] = field(init=False, default_factory=list)
    _successors: dict[Key, chess.Move] | None = field(init=False, default=None)
    _last_change_ms: int = field(init=False, default=0)
    _pressed_ply: int = field(init=False, default=0)
    """Plies completed by a lever press: rule 7 never rewrites them."""

    def start_line(self, start_fen: str | None, moves: Sequence[str]) -> None:
        """The game from ``start_fen`` after ``moves``, all of them confirmed."""
        self.board = chess.Board(start_fen) if start_fen else chess.Board()
        self._placements = [placement_key(self.board)]
        for uci in moves:
            self.board.push_uci(uci)
            self._placements.append(placement_key(self.board))
        self.provisional_from = None
        self._successors = None
        self._redo = []
        self._pressed_ply = len(moves)

    def start_over(self) -> None:
        """A new game from the start position (the start array was set up)."""
        self._pressed_ply = 0
        self.board = chess.Board()
        self._placements = [placement_key(self.board)]
        self._successors = None
        self._redo = []
        self.provisional_from = None

    # --- reading ------------------------------------------------------------

    @property
    def ply(self) -> int:
        return len(self.board.move_stack)

    @property
    def uci_moves(self) -> list[str]:
        return [m.uci() for m in self.board.move_stack]

    @property
    def confirmed_moves(self) -> list[str]:
        moves = self.uci_moves
        return moves if self.provisional_from is None else moves[: self.provisional_from]

    @property
    def placement(self) -> str:
        return self.board.board_fen()

    def _sibling_map(self) -> dict[Key, chess.Move]:
        """Placements of the other legal moves from the position before the provisional
        move (rule 4), when the provisional move is the last one."""
        if self.provisional_from is None or self.provisional_from != self.ply - 1:
            return {}
        return siblings(self.board)

    def _successor_map(self) -> dict[Key, chess.Move]:
        if self._successors is None:
            self._successors = successors(self.board)
        return self._successors

    def _push(self, move: chess.Move, at_ms: int) -> MoveSeen:
        """Play ``move`` on the game, provisional until the evidence that it is complete
        (``_confirm``): no move is complete by its kind (a knight put down one square
        off, a bishop a square short, are legal moves the hand is still making)."""
        san = self.board.san(move)
        self.board.push(move)
        self._placements.append(placement_key(self.board))
        self._successors = None
        self._last_change_ms = at_ms
        if self.provisional_from is None:
            self.provisional_from = self.ply - 1
        return MoveSeen(at_ms, move.uci(), san, self.ply, True)

    def _pop(self) -> chess.Move:
        move = self.board.pop()
        self._placements.pop()
        self._pressed_ply = min(self._pressed_ply, self.ply)
        self._successors = None
        if self.provisional_from is not None and self.provisional_from >= self.ply:
            self.provisional_from = None
        return move

    def _confirm(self, at_ms: int, reason: str) -> list[Observation]:
        if self.provisional_from is None:
            return []
        out: list[Observation] = [
            MoveConfirmed(at_ms, ply + 1, self.board.move_stack[ply].uci(), reason)
            for ply in range(self.provisional_from, self.ply)
        ]
        self.provisional_from = None
        return out

    def _play(self, moves: Sequence[chess.Move], at_ms: int) -> list[Observation]:
        out: list[Observation] = []
        for move in moves:
            # A new move confirms everything before it.
            out.extend(self._confirm(at_ms, "next_move"))
            out.append(self._push(move, at_ms))
        self._redo.clear()
        return out

    # --- rules 4 and 8 ------------------------------------------------------

    def _correction(self, placement: Key, at_ms: int) -> list[Observation] | None:
        """Rule 4: the placement of a sibling of the provisional last move (that one,
        instead), or of the position before it (the move is withdrawn); None if neither."""
        if self.provisional_from is None or self.provisional_from != self.ply - 1:
            return None
        last = self.board.move_stack[-1]
        if placement == self._placements[-2]:
            self._pop()
            self._last_change_ms = at_ms
            return [MoveCorrected(at_ms, self.ply + 1, last.uci(), None, None, False)]
        parent = self.board.copy()
        parent.pop()
        for move in parent.legal_moves:
            if move == last:
                continue
            parent.push(move)
            hit = placement_key(parent) == placement
            parent.pop()
            if hit:
                self._pop()
                seen = self._push(move, at_ms)
                self._redo.clear()
                return [
                    MoveCorrected(at_ms, seen.ply, last.uci(), seen.uci, seen.san, seen.provisional)
                ]
        return None

    def offer_continuation(self, moves: Sequence[str]) -> None:
        """Moves known to follow the current position (the record, when the arbiter
        entered moves the board missed): a placement along them is followed like a
        redo after a takeback."""
        board = self.board.copy(stack=False)
        known: list[chess.Move] = []
        for uci in moves:
            move = chess.Move.from_uci(uci)
            if move not in board.legal_moves:
                break
            board.push(move)
            known.append(move)
        self._redo = known

    def _takeback_or_redo(self, placement: Key, at_ms: int) -> list[Observation] | None:
        """Rule 8: the placement along the moves taken back (or offered): they are
        played again; an earlier placement of the game: a takeback to it. None if
        neither."""
        # Redo: the board went forward again along moves taken back.
        if self._redo:
            probe = self.board.copy(stack=False)
            for i, move in enumerate(self._redo):
                probe.push(move)
                if placement_key(probe) == placement:
                    redo = self._redo[: i + 1]
                    rest = self._redo[i + 1 :]
                    out = self._play(redo, at_ms)
                    self._redo = rest
                    return out
        for ply in range(len(self._placements) - 2, -1, -1):
            if self._placements[ply] == placement:
                from_ply = self.ply
                undone: list[chess.Move] = []
                while self.ply > ply:
                    undone.append(self._pop())
                undone.reverse()
                self._redo = undone + self._redo
                self._last_change_ms = at_ms
                return [TakebackSeen(at_ms, from_ply, ply, tuple(m.uci() for m in undone))]
        return None
