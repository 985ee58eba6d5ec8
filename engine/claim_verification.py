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
from typing import Any

import chess

from engine.game import Game

THREEFOLD, FIFTY, PERPETUAL = "threefold_repetition", "fifty_moves", "perpetual_check"
STALEMATE, INSUFFICIENT, THEORETICAL = "stalemate", "insufficient_material", "theoretical_draw"
CLAIM_KINDS = (THREEFOLD, FIFTY, PERPETUAL, STALEMATE, INSUFFICIENT, THEORETICAL)
"""The claims of 3.9.2 b: the five named cases, then other theoretical draws."""

FIFTY_MOVES_PLIES = 100
"""Laws 9.3: "the last 50 consecutive moves have been made by each player"."""

PositionKey = tuple[str, bool, int, int | None]


@dataclass(frozen=True)
class Verification:
    """The verdict (None: the arbiter's judgement) and what it rests on."""

    verified: bool | None
    evidence: dict[str, Any]


def position_key(board: chess.Board) -> PositionKey:
    """Laws 9.2 "same position": player to move, pieces on squares, castling
    rights held, and an en-passant square only when the capture is legal."""
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.clean_castling_rights(), ep)


@dataclass(frozen=True)
class _Ply:
    """The position after ``ply`` moves (0: the starting position)."""

    ply: int
    label: str
    """``start`` or the move that produced it: ``12. Nf3``, ``12... Nf6``."""
    key: PositionKey
    fen: str
    check: bool
    halfmove_clock: int


def _entry(board: chess.Board, ply: int, label: str) -> _Ply:
    key = position_key(board)
    return _Ply(ply, label, key, board.fen(), board.is_check(), board.halfmove_clock)


def _label(board: chess.Board, move: chess.Move) -> str:
    """The move in score-sheet form, numbered from the position it is played in."""
    dots = "." if board.turn == chess.WHITE else "..."
    return f"{board.fullmove_number}{dots} {board.san(move)}"


def history(game: Game, intended: chess.Move | None = None) -> list[_Ply]:
    """Every position of the game, from the start, and after the intended move."""
    board = chess.Board(game.initial_fen) if game.initial_fen else chess.Board()
    plies = [_entry(board, 0, "start")]
    moves = [chess.Move.from_uci(uci) for uci in game.moves]
    if intended is not None:
        moves.append(intended)
    for number, move in enumerate(moves, start=1):
        label = _label(board, move)
        if intended is not None and number == len(moves):
            label += " (intended)"
        board.push(move)
        plies.append(_entry(board, number, label))
    return plies


def _occurrences(plies: list[_Ply], at: _Ply) -> dict[str, Any]:
    same = [p for p in plies if p.key == at.key]
    return {
        "fen": at.fen,
        "count": len(same),
        "plies": tuple(p.ply for p in same),
        "after": tuple(p.label for p in same),
    }


def _threefold(plies: list[_Ply], with_intended: bool) -> Verification:
    now_plies = plies[:-1] if with_intended else plies
    now = _occurrences(now_plies, now_plies[-1])
    after = _occurrences(plies, plies[-1]) if with_intended else None
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


def _quiet_run(plies: list[_Ply], at: _Ply) -> dict[str, Any]:
    since = at.ply - at.halfmove_clock
    return {
        "fen": at.fen,
        "plies_without_pawn_move_or_capture": at.halfmove_clock,
        "moves_each": at.halfmove_clock // 2,
        "since_ply": since if since >= 0 else None,
        "since": plies[since].label if 0 <= since < len(plies) else "before the starting position",
    }


def _fifty(plies: list[_Ply], with_intended: bool) -> Verification:
    now_at = plies[-2] if with_intended else plies[-1]
    now = _quiet_run(plies, now_at)
    after = _quiet_run(plies, plies[-1]) if with_intended else None
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


def _perpetual(game: Game, plies: list[_Ply]) -> Verification:
    first = chess.Board(game.initial_fen) if game.initial_fen else chess.Board()
    # mover_is_white[p]: whether the move that produced ply p was White's.
    mover_is_white = [False] + [
        (first.turn == chess.WHITE) == (number % 2 == 1) for number in range(1, len(plies))
    ]
    runs = {side: _check_run(plies, mover_is_white, side == "white") for side in ("white", "black")}
    moved_last = "white" if mover_is_white[-1] else "black"
    side = max(("white", "black"), key=lambda s: (len(runs[s]), s == moved_last))
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
            "fen": entries[0].fen,
            "count": len(entries),
            "plies": tuple(e.ply for e in entries),
            "after": tuple(e.label for e in entries),
        }
        for entries in repeated
    )
    return Verification(
        None,
        {
            "rule": "3.9.2 b",
            "checking_side": side,
            "consecutive_checks": len(run),
            "checks": tuple(e.label for e in run),
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
    return {"white": material(board, chess.WHITE), "black": material(board, chess.BLACK)}


def verify(game: Game, kind: str, intended: chess.Move | None = None) -> Verification:
    """The verification of a claim of ``kind`` in the game's current position
    (and, for 9.2 a / 9.3 a, after the intended move)."""
    if kind == THREEFOLD:
        return _threefold(history(game, intended), intended is not None)
    if kind == FIFTY:
        return _fifty(history(game, intended), intended is not None)
    plies = history(game)
    board = chess.Board(plies[-1].fen)
    if kind == PERPETUAL:
        return _perpetual(game, plies)
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
            "white_can_mate": not board.has_insufficient_material(chess.WHITE),
            "black_can_mate": not board.has_insufficient_material(chess.BLACK),
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
