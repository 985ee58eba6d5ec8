"""Games from score sheets (PGN) become events, as one all-or-nothing batch.

A result in the score sheet is a fact to import, not something to re-derive
from the final position: several games of the 2013 Candidates were lost on
time with the score ending before the flag fell. When the final position
itself ends the game (mate, stalemate, dead position) and the sheet agrees,
that termination is kept; otherwise the game is finished with termination
``imported`` and the sheet's result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess

from engine.errors import IllegalMove, MalformedCommand, RuleViolation
from engine.events import Event, GameStarted, MovePlayed, ResultRecorded, game_stream
from engine.game import outcome_of
from engine.rules import profile


@dataclass(frozen=True)
class ScoreSheet:
    """One finished game as a score sheet records it."""

    game: str
    round: int
    board: int
    white: str
    black: str
    result: str
    moves: Sequence[str]
    """SAN or UCI, in order."""
    at_ms: int
    """When the game started."""
    move_at_ms: Sequence[int] | None = None
    """When each move was completed, if known (from clock comments)."""
    time_control: str | None = None
    initial_fen: str | None = None


def import_score_sheet(sheet: ScoreSheet, rules: str, by: str = "import") -> list[Event]:
    """Every event of the game, or IllegalMove naming the game and the move."""
    if sheet.result not in ("1-0", "0-1", "1/2-1/2", "*"):
        raise MalformedCommand(f"game {sheet.game}: unknown result {sheet.result!r}")
    stream = game_stream(sheet.game)
    board = chess.Board(sheet.initial_fen) if sheet.initial_fen else chess.Board()
    events: list[Event] = [
        GameStarted(
            originator_id=stream,
            originator_version=1,
            at_ms=sheet.at_ms,
            by=by,
            game=sheet.game,
            round=sheet.round,
            board=sheet.board,
            white=sheet.white,
            black=sheet.black,
            time_control=sheet.time_control or profile(rules).time_control,
            rules=rules,
            initial_fen=sheet.initial_fen,
        )
    ]
    ended: tuple[str, str] | None = None
    for index, text in enumerate(sheet.moves):
        if ended is not None:
            raise IllegalMove(
                f"game {sheet.game}: move {text!r} at ply {index + 1} comes after the game "
                f"ended ({ended[1]})"
            )
        try:
            move = chess.Move.from_uci(text)
            if move not in board.legal_moves:
                raise ValueError
        except ValueError:
            try:
                move = board.parse_san(text)
            except ValueError:
                raise IllegalMove(
                    f"game {sheet.game} ({sheet.white} - {sheet.black}): illegal move {text!r} "
                    f"at ply {index + 1} (position {board.fen()})"
                ) from None
        san = board.san(move)
        board.push(move)
        at = sheet.move_at_ms[index] if sheet.move_at_ms else sheet.at_ms
        events.append(
            MovePlayed(
                originator_id=stream,
                originator_version=len(events) + 1,
                at_ms=at,
                by=by,
                uci=move.uci(),
                san=san,
                ply=index + 1,
            )
        )
        ended = outcome_of(board, rules)
    last_at = events[-1].at_ms
    if ended is not None:
        if sheet.result not in (ended[0], "*"):
            raise RuleViolation(
                "5",
                f"game {sheet.game}: the score sheet says {sheet.result} but the final "
                f"position is {ended[1]} ({ended[0]})",
            )
        result, termination, reason = ended[0], ended[1], ""
    elif sheet.result == "*":
        return events
    else:
        result, termination, reason = sheet.result, "imported", "result from the score sheet"
    events.append(
        ResultRecorded(
            originator_id=stream,
            originator_version=len(events) + 1,
            at_ms=last_at,
            by=by,
            result=result,
            termination=termination,
            reason=reason,
        )
    )
    return events
