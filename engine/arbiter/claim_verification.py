"""What the position says about a draw claim, for the arbiter to see.

Each claim is verified the moment it is made, and the verification is stored
with it (``DrawClaimed.verified`` and ``evidence``). The arbiter rules; the
verification is what the engine could establish from the moves:

- ``threefold_repetition`` (Laws 9.2): the position now (9.2 b), or after the
  written intended move (9.2 a), has occurred at least three times with the
  same player to move, the same pieces on the same squares and the same
  rights (castling rights still held, en passant when a capture is legal).
  The evidence lists every ply where it occurred. *Interpretation*: a
  castling right still held but not usable now makes positions different,
  as the 2014+ text says; the 2009 text ("the same possible moves") is
  silent on it (laws-of-chess.md, "Not confirmed" 5).
- ``fifty_moves`` (Laws 9.3): the last 50 moves by each player (100 plies),
  now or after the intended move, had no pawn move and no capture.
- ``stalemate`` (5.2 a) and ``insufficient_material`` (5.2 b, 9.6): the
  position is already a finished game; the claim is confirmed when it is.
  A move that would produce them is simply played (the game then ends by
  itself), so no intended move is taken for these. Dead positions other than
  those python-chess calls insufficient material are left to the arbiter.
- ``perpetual_check`` (3.9.2 b): not a rule of the Laws, a judgement. The
  evidence is the run of consecutive checks by one side and the positions
  repeated during it; the verdict is None (the arbiter's judgement), or
  False when neither side gave check with its last move.
- ``theoretical_draw`` (3.9.2 b): no verdict; the Chief Arbiter decides
  after consulting the Technical Advisor.

The position is rebuilt from the game's moves with python-chess; nothing
here reads a clock or a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import chess

from engine.checkmate import can_checkmate
from engine.game.state import Game, position
from engine.position_keys import PositionKey, position_key
from engine.side import SIDES, Side
from engine.termination import Termination


class ClaimKind(StrEnum):
    """The grounds of a draw claim (3.9.2 b); an accepted claim's kind is the game's
    termination (``engine.termination.Termination`` has the same values)."""

    THREEFOLD_REPETITION = Termination.THREEFOLD_REPETITION.value
    FIFTY_MOVES = Termination.FIFTY_MOVES.value
    PERPETUAL_CHECK = Termination.PERPETUAL_CHECK.value
    STALEMATE = Termination.STALEMATE.value
    INSUFFICIENT_MATERIAL = Termination.INSUFFICIENT_MATERIAL.value
    THEORETICAL_DRAW = Termination.THEORETICAL_DRAW.value


THREEFOLD, FIFTY, PERPETUAL = (
    ClaimKind.THREEFOLD_REPETITION,
    ClaimKind.FIFTY_MOVES,
    ClaimKind.PERPETUAL_CHECK,
)
STALEMATE, INSUFFICIENT, THEORETICAL = (
    ClaimKind.STALEMATE,
    ClaimKind.INSUFFICIENT_MATERIAL,
    ClaimKind.THEORETICAL_DRAW,
)
CLAIM_KINDS = tuple(ClaimKind)
"""The claims of 3.9.2 b: the five named cases, then other theoretical draws."""

FIFTY_MOVES_PLIES = 100
"""Laws 9.3: "the last 50 consecutive moves have been made by each player"."""


@dataclass(frozen=True)
class Verification:
    """The verdict (None: the arbiter's judgement) and what it rests on."""

    verified: bool | None
    evidence: dict[str, Any]


@dataclass(frozen=True)
class _Ply:
    """The position after ``ply`` moves (0: the starting position)."""

    ply: int
    label: str
    """``start`` or the move that produced it: ``12. Nf3``, ``12... Nf6``."""
    key: PositionKey
    check: bool
    halfmove_clock: int


class History:
    """Every position of a game from its start (and after an intended move),
    light enough to build for each claim: keys, checks and move counts for
    all, FEN text only for the positions the evidence shows."""

    def __init__(self, game: Game, intended: chess.Move | None = None) -> None:
        self.start = chess.Board(game.initial_fen) if game.initial_fen else chess.Board()
        self.moves = [chess.Move.from_uci(uci) for uci in game.moves]
        sans = list(game.sans)
        board = self.start.copy()
        self.plies = [_Ply(0, "start", position_key(board), board.is_check(), board.halfmove_clock)]
        for move in self.moves:
            board.push(move)
            self._add(board)
        self.fens = {len(self.moves): board.fen()}
        self.intended = intended
        if intended is not None:
            sans.append(board.san(intended))
            board.push(intended)
            self.moves.append(intended)
            self._add(board)
            self.fens[len(self.moves)] = board.fen()
        self.sans = sans

    def _add(self, board: chess.Board) -> None:
        self.plies.append(
            _Ply(
                len(self.plies),
                "",
                position_key(board),
                board.is_check(),
                board.halfmove_clock,
            )
        )

    def label(self, ply: int) -> str:
        """The move that produced the position after ``ply`` moves, numbered
        as on the score sheet (``12. Nf3``, ``12... Nf6``), or ``start``."""
        if ply == 0:
            return "start"
        k = ply - 1 + (0 if self.start.turn == chess.WHITE else 1)
        dots = "." if k % 2 == 0 else "..."
        san = self.sans[ply - 1] if ply - 1 < len(self.sans) else self.moves[ply - 1].uci()
        text = f"{self.start.fullmove_number + k // 2}{dots} {san}"
        if self.intended is not None and ply == len(self.moves):
            text += " (intended)"
        return text

    def fen(self, ply: int) -> str:
        """FEN of the position after ``ply`` moves."""
        if ply not in self.fens:
            board = self.start.copy()
            for move in self.moves[:ply]:
                board.push(move)
            self.fens[ply] = board.fen()
        return self.fens[ply]

    def occurrences(self, at: _Ply, upto: int) -> dict[str, Any]:
        """Where the position ``at`` stood among the first ``upto`` + 1 positions."""
        same = [p.ply for p in self.plies[: upto + 1] if p.key == at.key]
        return {
            "fen": self.fen(at.ply),
            "count": len(same),
            "plies": tuple(same),
            "after": tuple(self.label(p) for p in same),
        }


def _threefold(history: History) -> Verification:
    plies = history.plies
    with_intended = history.intended is not None
    now_at = plies[-2] if with_intended else plies[-1]
    now = history.occurrences(now_at, now_at.ply)
    after = history.occurrences(plies[-1], plies[-1].ply) if with_intended else None
    basis = None
    if now["count"] >= 3:
        basis = "now"
    elif after is not None and after["count"] >= 3:
        basis = "after_intended_move"
    return Verification(
        basis is not None,
        {
            "rule": "9.2 a" if basis == "after_intended_move" else "9.2 b",
            "basis": basis,
            "now": now,
            "after_intended_move": after,
        },
    )


def _quiet_run(history: History, at: _Ply) -> dict[str, Any]:
    since = at.ply - at.halfmove_clock
    return {
        "fen": history.fen(at.ply),
        "plies_without_pawn_move_or_capture": at.halfmove_clock,
        "moves_each": at.halfmove_clock // 2,
        "since_ply": since if since >= 0 else None,
        "since": history.label(since) if since >= 0 else "before the starting position",
    }


def _fifty(history: History) -> Verification:
    plies = history.plies
    with_intended = history.intended is not None
    now_at = plies[-2] if with_intended else plies[-1]
    now = _quiet_run(history, now_at)
    after = _quiet_run(history, plies[-1]) if with_intended else None
    basis = None
    if now_at.halfmove_clock >= FIFTY_MOVES_PLIES:
        basis = "now"
    elif with_intended and plies[-1].halfmove_clock >= FIFTY_MOVES_PLIES:
        basis = "after_intended_move"
    return Verification(
        basis is not None,
        {
            "rule": "9.3 a" if basis == "after_intended_move" else "9.3 b",
            "basis": basis,
            "now": now,
            "after_intended_move": after,
        },
    )


def _check_run(plies: list[_Ply], mover_is_white: list[bool], white: bool) -> list[_Ply]:
    """The most recent moves by one side that all gave check, oldest first."""
    run: list[_Ply] = []
    for entry in reversed(plies[1:]):
        if mover_is_white[entry.ply] != white:
            continue
        if not entry.check:
            break
        run.append(entry)
    return list(reversed(run))


def _perpetual(history: History) -> Verification:
    plies = history.plies
    # mover_is_white[p]: whether the move that produced ply p was White's.
    white_first = history.start.turn == chess.WHITE
    mover_is_white = [False] + [white_first == (number % 2 == 1) for number in range(1, len(plies))]
    runs = {side: _check_run(plies, mover_is_white, side is Side.WHITE) for side in SIDES}
    moved_last = Side.WHITE if mover_is_white[-1] else Side.BLACK
    side = max(SIDES, key=lambda s: (len(runs[s]), s == moved_last))
    run = runs[side]
    if not run:
        return Verification(
            False,
            {
                "rule": "3.9.2 b",
                "checking_side": None,
                "consecutive_checks": 0,
                "checks": (),
                "check_plies": (),
                "repetitions": (),
                "most_repeated": 0,
                "note": "neither side gave check with its last move",
            },
        )
    window = plies[run[0].ply - 1 :]
    seen: dict[PositionKey, list[_Ply]] = {}
    for entry in window:
        seen.setdefault(entry.key, []).append(entry)
    repeated = sorted(
        (entries for entries in seen.values() if len(entries) >= 2), key=lambda e: e[0].ply
    )
    repetitions = tuple(
        {
            "fen": history.fen(entries[0].ply),
            "count": len(entries),
            "plies": tuple(e.ply for e in entries),
            "after": tuple(history.label(e.ply) for e in entries),
        }
        for entries in repeated
    )
    return Verification(
        None,
        {
            "rule": "3.9.2 b",
            "checking_side": side,
            "consecutive_checks": len(run),
            "checks": tuple(history.label(e.ply) for e in run),
            "check_plies": tuple(e.ply for e in run),
            "repetitions": repetitions,
            "most_repeated": max((len(e) for e in repeated), default=1),
        },
    )


def material(board: chess.Board, color: chess.Color) -> str:
    """The pieces of one side, strongest first: ``KRBPP``."""
    order = (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)
    return "".join(
        chess.piece_symbol(kind).upper() * len(board.pieces(kind, color)) for kind in order
    )


def materials(board: chess.Board) -> dict[str, str]:
    return {side: material(board, side.colour) for side in SIDES}


def verify(game: Game, kind: ClaimKind, intended: chess.Move | None = None) -> Verification:
    """The verification of a claim of ``kind`` in the game's current position
    (and, for 9.2 a / 9.3 a, after the intended move)."""
    if kind == THREEFOLD:
        return _threefold(History(game, intended))
    if kind == FIFTY:
        return _fifty(History(game, intended))
    if kind == PERPETUAL:
        return _perpetual(History(game))
    board = position(game)
    if kind == STALEMATE:
        return Verification(
            board.is_stalemate(),
            {
                "rule": "5.2 a",
                "fen": board.fen(),
                "in_check": board.is_check(),
                "legal_moves": board.legal_moves.count(),
            },
        )
    if kind == INSUFFICIENT:
        evidence: dict[str, Any] = {
            "rule": "5.2 b / 9.6",
            "fen": board.fen(),
            "material": materials(board),
            "white_can_mate": can_checkmate(board, Side.WHITE),
            "black_can_mate": can_checkmate(board, Side.BLACK),
        }
        dead = board.is_insufficient_material()
        if not dead:
            evidence["note"] = (
                "mating material remains; a dead position of another kind "
                "(e.g. blocked pawns) is the arbiter's judgement"
            )
        return Verification(dead, evidence)
    return Verification(
        None,
        {
            "rule": "3.9.2 b",
            "fen": board.fen(),
            "material": materials(board),
            "note": "the Chief Arbiter decides after consulting the Technical Advisor",
        },
    )
