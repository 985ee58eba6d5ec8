"""Games from score sheets (PGN) become events, as one all-or-nothing batch.

A result in the score sheet is a fact to import, not something to re-derive
from the final position: several games of the 2013 Candidates were lost on
time with the score ending before the flag fell. When the final position
itself ends the game (mate, stalemate, dead position), that termination and
its result are kept (Laws 5.1 a, 5.2: the game ends at once), and the
``ResultRecorded`` reason says where the sheet differs: another result in its
header, or moves recorded after the end (broadcasts record a move played
after a dead position). Such trailing moves are kept in the reason as the
sheet records them and are never played. Otherwise the game is finished with
termination ``imported`` and the sheet's result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess

from engine.clock.move_instants import derive_move_instants
from engine.clock.time_control import TimeControl, parse_time_control
from engine.errors import IllegalMove, MalformedCommand
from engine.events import (
    ClockReadingRecorded,
    Event,
    GameStarted,
    MovePlayed,
    ResultRecorded,
    clock_stream,
    game_stream,
)
from engine.game.state import Game, evolve, mover, outcome_of
from engine.rules import profile
from engine.side import Side
from engine.termination import Termination


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
    clocks_ms: Sequence[int | None] | None = None
    """The mover's recorded clock after each ply (``[%clk]``), if the sheet has them.
    When given (and ``move_at_ms`` is not), the move instants are derived from them
    (``engine.clock.move_instants``) and each is stored as a clock reading."""


def import_score_sheet(sheet: ScoreSheet, rules: str, by: str = "import") -> list[Event]:
    """Every event of the game, or IllegalMove naming the game and the move."""
    if sheet.result not in ("1-0", "0-1", "1/2-1/2", "*"):
        raise MalformedCommand(f"game {sheet.game}: unknown result {sheet.result!r}")
    stream = game_stream(sheet.game)
    board = chess.Board(sheet.initial_fen) if sheet.initial_fen else chess.Board()
    time_control = sheet.time_control or profile(rules).time_control
    move_at_ms = sheet.move_at_ms
    clocks = (
        sheet.clocks_ms if sheet.clocks_ms and any(c is not None for c in sheet.clocks_ms) else None
    )
    if move_at_ms is None and clocks is not None:
        control = _control_or_none(time_control)
        if control is not None:
            first = Side.to_move(board.turn)
            move_at_ms = derive_move_instants(control, sheet.at_ms, first, clocks)
        else:
            clocks = None
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
            time_control=time_control,
            rules=rules,
            initial_fen=sheet.initial_fen,
            move_times_known=move_at_ms is not None,
        )
    ]
    ended: tuple[str, str] | None = None
    trailing: list[str] = []
    for index, text in enumerate(sheet.moves):
        if ended is not None:
            # Laws 5.1 a / 5.2: the position ended the game; what the sheet records after
            # it was not a move of the game. Kept as recorded, never played.
            trailing = _as_written(board, sheet.moves[index:])
            break
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
        if not move:
            raise IllegalMove(
                f"game {sheet.game} ({sheet.white} - {sheet.black}): null move {text!r} at ply "
                f"{index + 1}: a pass is not a move of chess (Laws 1.1, 3)"
            )
        san = board.san(move)
        board.push(move)
        at = move_at_ms[index] if move_at_ms else sheet.at_ms
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
    readings = _readings(sheet, events, clocks, by) if clocks is not None else []
    if ended is not None:
        result, termination = ended
        notes = []
        if sheet.result not in (result, "*"):
            # Laws 5.1 a, 5.2 a-b: mate, stalemate and a dead position end the game at once;
            # the position is decisive over the header.
            notes.append(
                f"the score sheet says {sheet.result}; the position ended the game "
                f"({termination.replace('_', ' ')}, {result}), which decides (Laws 5.1 a, 5.2)"
            )
        if trailing:
            notes.append(
                f"recorded after the end: {' '.join(trailing)} "
                f"({len(trailing)} trailing move{'s' if len(trailing) > 1 else ''}, not played)"
            )
        reason = "; ".join(notes)
    elif sheet.result == "*":
        return events + readings
    else:
        result, termination, reason = (
            sheet.result,
            Termination.IMPORTED,
            "result from the score sheet",
        )
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
    return events + readings


def _as_written(board: chess.Board, moves: Sequence[str]) -> list[str]:
    """Trailing moves in SAN where the position allows them, else as the sheet has them."""
    after = board.copy(stack=False)
    out: list[str] = []
    for text in moves:
        try:
            move = chess.Move.from_uci(text)
            if move not in after.legal_moves:
                move = after.parse_san(text)
        except ValueError:
            try:
                move = after.parse_san(text)
            except ValueError:
                out.append(str(text))
                continue
        out.append(after.san(move))
        after.push(move)
    return out


def _control_or_none(tag: str) -> TimeControl | None:
    try:
        control = parse_time_control(tag)
    except MalformedCommand:
        return None
    return control if control.known else None


def _readings(
    sheet: ScoreSheet, events: list[Event], clocks: Sequence[int | None], by: str
) -> list[Event]:
    """Each recorded clock as a reading on the clock stream, beside the regulation clock."""
    readings: list[Event] = []
    state: Game | None = None
    shown: dict[Side, int] = {}
    for event in events:
        state = evolve(state, event)
        if not isinstance(event, MovePlayed) or state is None or state.clock is None:
            continue
        side = mover(state.initial_fen, event.ply)
        recorded = clocks[event.ply - 1] if event.ply - 1 < len(clocks) else None
        if recorded is None:
            continue
        shown[side] = recorded
        clock = state.clock
        readings.append(
            ClockReadingRecorded(
                originator_id=clock_stream(sheet.game),
                originator_version=len(readings) + 1,
                at_ms=event.at_ms,
                by=by,
                game=sheet.game,
                white_ms=shown.get(Side.WHITE, clock.control.initial_ms(Side.WHITE)),
                black_ms=shown.get(Side.BLACK, clock.control.initial_ms(Side.BLACK)),
                running=clock.running,
                model_white_ms=clock.remaining_ms(Side.WHITE),
                model_black_ms=clock.remaining_ms(Side.BLACK),
                ply=event.ply,
            )
        )
    return readings
