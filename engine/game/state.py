"""The game aggregate: start, moves checked with python-chess, endings.

State is folded from the ``game/<id>`` stream; decisions return the events to
append. The position itself is never stored in state or events: it is
rebuilt from the UCI moves (and cached, keyed by the move list) whenever a
decision needs it.

Endings decided by the position (FIDE Laws of Chess 2009):
- 5.1 a checkmate: the player who mated wins (``checkmate``);
- 5.2 a stalemate: drawn (``stalemate``);
- 5.2 b / 9.6 dead position: drawn when neither player can mate by any legal
  sequence. The engine recognises the dead positions python-chess calls
  insufficient material (K v K, K+N v K, K+B v K, K+B v K+B with bishops on
  one colour), named ``insufficient_material``. Blocked-pawn dead positions
  are left to a claim and the arbiter.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

import chess

from engine.clock.regulation import Clock
from engine.clock.time_control import parse_time_control
from engine.errors import (
    GameNotInProgress,
    IllegalMove,
    MalformedCommand,
    OutOfOrder,
    UnknownGame,
)
from engine.events import (
    AlertRaised,
    ClaimAdvised,
    ClaimRuled,
    ClockAdjusted,
    DrawClaimed,
    Event,
    FlagRuled,
    GameStarted,
    IllegalMoveRecorded,
    MovePlayed,
    MovesCorrected,
    PresenceRecorded,
    ResultCorrected,
    ResultRecorded,
    game_stream,
)
from engine.game.fen import fen as fen_text
from engine.game.record import ArbiterRecord
from engine.rules import profile
from engine.side import SIDES, Side
from engine.termination import Termination
from engine.timefmt import format_instant

FLAG_FALL = "flag_fall"
"""The alert kind of a fallen flag the arbiters must rule on (Laws 2009 6.8)."""


class GameStatus(StrEnum):
    """Where a game stands; the values are those the projections have always shown."""

    NOT_STARTED = "not_started"
    IN_PROGRESS = "in_progress"
    FINISHED = "finished"


NOT_STARTED, IN_PROGRESS, FINISHED = GameStatus

WIN_BY_SIDE = {side: side.win for side in SIDES}
OTHER_SIDE = {side: side.opponent for side in SIDES}


@dataclass(frozen=True)
class Game:
    """State of one game, folded from its stream."""

    version: int
    game_id: str
    round: int
    board: int
    white: str
    black: str
    time_control: str
    rules: str
    initial_fen: str | None
    started_at_ms: int
    status: GameStatus = IN_PROGRESS
    moves: tuple[str, ...] = ()
    """UCI moves, in order."""
    sans: tuple[str, ...] = ()
    result: str = "*"
    termination: str | None = None
    scores: str | None = None
    """The players' own scores where the ruling gave each his own (``engine.scores``)."""
    last_at_ms: int = 0
    stage: str = "tournament"
    """``tournament``, or the playoff stage (3.7.1.a rapid, 3.7.2 blitz, 3.7.3 sudden death)."""
    record: ArbiterRecord = field(default_factory=ArbiterRecord)
    """Draw claims and rulings, incorrect claims and illegal moves (engine.game.record)."""
    clock: Clock | None = None
    """The regulation clock (``engine.clock.regulation``); None when it is unknown (no time
    control, or a score sheet imported without clock comments)."""
    corrections: tuple[MovesCorrected | ResultCorrected, ...] = ()
    """The arbiter's corrections of the record, in order (each keeps what it replaced)."""
    running_at_end: Side | None = None
    """The side whose clock ran when the result was recorded: it runs again if the
    arbiter withdraws the result (``ResultCorrected`` with no result)."""
    flag_rulings: tuple[FlagRuled, ...] = ()
    """The arbiter's rulings on flags (Laws 2009 6.8), in order."""
    open_flag_alerts: tuple[str, ...] = ()
    """``flag_fall`` alerts raised on this game and not ruled on yet (``source:side:moves``),
    so the flag check on a timer raises each once."""
    present: tuple[str, ...] | None = None
    """The players at the board at the start (Laws 2009 6.6 a); None when not recorded."""
    tags: dict[str, str] | None = None
    """The imported score sheet's tags, kept as read (``GameStarted.tags``)."""
    date_known: bool = True
    """False when the score sheet gave no day: ``started_at_ms`` is not a date."""

    def absent_at_start(self) -> tuple[str, ...]:
        """The players recorded as not at the board when the game started (6.6 a)."""
        if self.present is None:
            return ()
        return tuple(p for p in (self.white, self.black) if p not in self.present)

    @property
    def is_playoff(self) -> bool:
        """3.7.1.b applies to every tie-break game."""
        return self.stage != "tournament"

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def stream(self) -> str:
        return game_stream(self.game_id)

    def side_to_move(self) -> Side:
        return Side.to_move(_cached_board(self).turn)

    def player_side(self, who: str) -> Side | None:
        """The side ``who`` names: ``white``, ``black``, or one of the two players."""
        if who in SIDES:
            return Side(who)
        if who == self.white:
            return Side.WHITE
        if who == self.black:
            return Side.BLACK
        return None


_positions: dict[tuple[str | None, tuple[str, ...]], chess.Board] = {}
"""The latest position of recently used games, keyed by (initial FEN, moves).

A board in this cache is never changed once it is there (python-chess changes a
board even to answer some questions: ``san``, ``is_repetition`` push and pop
moves), so threads may share the cache: the gateway reads positions while
commands are decided. Whoever needs to work on a position gets a copy
(``position``); a decision caches the board it built for the next state
(``remember``) only once it is done with it."""


def _cached_board(game: Game) -> chess.Board:
    """The game's current position, shared: read ``fen()`` and ``turn`` only."""
    key = (game.initial_fen, game.moves)
    board = _positions.get(key)
    if board is None:
        before = _positions.get((game.initial_fen, game.moves[:-1])) if game.moves else None
        if before is not None:  # one move on from a cached position (a follower's next move)
            board = _copied(before)
            board.push(chess.Move.from_uci(game.moves[-1]))
        else:
            board = chess.Board(game.initial_fen) if game.initial_fen else chess.Board()
            for uci in game.moves:
                board.push(chess.Move.from_uci(uci))
        remember(game.initial_fen, game.moves, board)
    return board


def remember(initial_fen: str | None, moves: tuple[str, ...], board: chess.Board) -> None:
    """Cache the position after ``moves``; the caller never changes ``board`` again."""
    if len(_positions) > 256:
        _positions.clear()
    _positions[(initial_fen, moves)] = board


def _copied(board: chess.Board) -> chess.Board:
    """A copy of a board with its move stack that the caller may change.

    ``Board.copy`` copies each move of the stack (``copy.copy``, a few microseconds
    a move: most of a decision's time late in a game); the moves are never changed,
    so the copy shares them and copies only the lists."""
    copy = board.copy(stack=False)
    copy.move_stack = list(board.move_stack)
    copy._stack = list(board._stack)
    return copy


def position(game: Game) -> chess.Board:
    """The current position, with its move stack (a copy the caller may change)."""
    return _copied(_cached_board(game))


_fens: dict[tuple[str | None, tuple[str, ...]], str] = {}
"""The FEN of the positions in ``_positions`` (python-chess builds it square by square)."""


def position_fen(game: Game) -> str:
    """FEN of the current position (no copy of the board)."""
    key = (game.initial_fen, game.moves)
    fen = _fens.get(key)
    if fen is None:
        fen = fen_text(_cached_board(game))
        if len(_fens) > 256:
            _fens.clear()
        _fens[key] = fen
    return fen


def parse_move(board: chess.Board, text: str, game_id: str) -> chess.Move:
    """A legal move from UCI or SAN text; IllegalMove naming the move and position."""

    def where() -> str:
        return f"in game {game_id} at ply {board.ply() + 1} (position {board.fen()})"

    try:
        move = chess.Move.from_uci(text)
    except ValueError:
        move = None
    if move is not None:
        if move and board.is_legal(move):
            return move
        raise IllegalMove(f"illegal move {text!r} {where()}{_null_note(move)}")
    try:
        move = board.parse_san(text)
    except chess.IllegalMoveError:
        raise IllegalMove(f"illegal move {text!r} {where()}") from None
    except chess.AmbiguousMoveError:
        raise IllegalMove(f"ambiguous move {text!r} {where()}") from None
    except ValueError:
        raise IllegalMove(f"cannot read move {text!r} (neither UCI nor SAN) {where()}") from None
    if not move:
        raise IllegalMove(f"illegal move {text!r} {where()}{_null_note(move)}")
    wrong = _marks_wrong(board, move, text)
    if wrong:
        raise IllegalMove(f"{wrong} {where()}")
    return move


CASTLING_TEXTS = frozenset({"O-O", "O-O-O", "0-0", "0-0-0"})
"""Castling, the one SAN with a hyphen (PGN 8.2.3.3; zeros as some score sheets write it)."""


def _marks_wrong(board: chess.Board, move: chess.Move, text: str) -> str:
    """Why SAN ``text`` misstates the legal ``move``, or "": a check mark (``+``) on a move
    that gives no check, a mate mark (``#``) on one that does not mate (Laws 2009 3.9 and
    5.1 a: the board decides, not the text), or a hyphen outside castling (``N-f6``,
    ``e2-e4``: long algebraic, not SAN). A missing mark is no fault: the canonical SAN,
    marks included, is what is stored (``board.san``)."""
    body = text.rstrip("+#")
    mark = text[len(body) :]
    if "-" in body and body not in CASTLING_TEXTS:
        canonical = board.san(move)
        return (
            f"{text!r} is not SAN (a hyphen only castles): write {canonical!r}, or "
            f"{move.uci()!r} in UCI"
        )
    if not mark:
        return ""
    if mark not in ("+", "#"):
        return f"{text!r} carries {mark!r}: a move is marked '+' (check) or '#' (mate), once"
    gives_check = board.gives_check(move)
    if mark == "+" and not gives_check:
        return f"{text!r} is marked check but {board.san(move)!r} gives no check"
    if mark == "#":
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if not mate:
            return f"{text!r} is marked mate but {board.san(move)!r} does not mate"
    return ""


def _null_note(move: chess.Move) -> str:
    """``--``, ``Z0``, ``0000``, ``@@@@`` read as a null move (a pass). A pass is not a
    move of chess (Laws 2009 1.1: the players move alternately; 3 says what a move is),
    so it is refused wherever a move is read: commands, corrections and score sheets."""
    return ": a null move (a pass) is not a move of chess (Laws 1.1, 3)" if not move else ""


def outcome_of(board: chess.Board, rules: str) -> tuple[str, str] | None:
    """(result, termination) when the position itself ends the game, else None."""
    if board.is_checkmate():
        return Side.to_move(board.turn).opponent.win, Termination.CHECKMATE
    if board.is_stalemate():
        return "1/2-1/2", Termination.STALEMATE
    if board.is_insufficient_material():
        return "1/2-1/2", Termination.INSUFFICIENT_MATERIAL
    rp = profile(rules)
    if rp.automatic_seventyfive_moves and board.is_seventyfive_moves():
        return "1/2-1/2", Termination.SEVENTYFIVE_MOVES
    if rp.automatic_fivefold_repetition and board.is_fivefold_repetition():
        return "1/2-1/2", Termination.FIVEFOLD_REPETITION
    return None


def require_game(game: Game | None, game_id: str) -> Game:
    if game is None:
        raise UnknownGame(f"game {game_id!r} has not been started")
    return game


def require_in_time_order(game: Game | None, command: str, at_ms: int) -> None:
    """A game's events are recorded in the order they happened (Laws 6.7 a: the clock
    runs from one event to the next): a command dated before the game's last recorded
    event would run its clock backwards, so it is refused. Equal instants are allowed."""
    if game is None or game.status != IN_PROGRESS:
        return  # the decision itself reports an unknown or finished game
    if at_ms < game.last_at_ms:
        raise OutOfOrder(
            f"{command} at {format_instant(at_ms)} is earlier than the last recorded event of "
            f"game {game.game_id} ({format_instant(game.last_at_ms)}): a game's events are "
            "recorded in time order"
        )


def require_in_progress(game: Game | None, game_id: str) -> Game:
    g = require_game(game, game_id)
    if g.status != IN_PROGRESS:
        raise GameNotInProgress(f"game {game_id} is finished ({g.result}, {g.termination})")
    return g


def evolve(state: Game | None, event: Event) -> Game | None:
    """Fold one event of a game stream."""
    match event:
        case GameStarted():
            return Game(
                version=event.originator_version,
                game_id=event.game,
                round=event.round,
                board=event.board,
                white=event.white,
                black=event.black,
                time_control=event.time_control,
                rules=event.rules,
                initial_fen=event.initial_fen,
                started_at_ms=event.at_ms,
                last_at_ms=event.at_ms,
                stage=event.stage,
                clock=_starting_clock(event),
                tags=event.tags,
                date_known=event.date_known,
            )
    if state is None:
        return None
    match event:
        case MovePlayed():
            clock = state.clock
            if clock is not None:
                clock = clock.complete_move(mover(state.initial_fen, event.ply), event.at_ms)
            return replace(
                state,
                version=event.originator_version,
                moves=(*state.moves, event.uci),
                sans=(*state.sans, event.san),
                last_at_ms=event.at_ms,
                clock=clock,
            )
        case ResultRecorded():
            running = state.clock.running or state.clock.paused if state.clock else None
            return replace(
                state,
                version=event.originator_version,
                status=FINISHED,
                result=event.result,
                termination=event.termination,
                scores=event.scores,
                last_at_ms=event.at_ms,
                record=state.record.game_ended(),
                clock=state.clock.stop(event.at_ms) if state.clock else None,
                running_at_end=running,
                open_flag_alerts=(),
            )
        case MovesCorrected():
            return _moves_corrected(state, event)
        case ResultCorrected():
            reopened = event.result is None
            clock = state.clock
            if reopened and clock is not None:
                clock = clock.reopen(state.running_at_end, event.at_ms)
            return replace(
                state,
                version=event.originator_version,
                status=IN_PROGRESS if reopened else FINISHED,
                result=event.result or "*",
                termination=event.termination,
                scores=None,
                last_at_ms=max(state.last_at_ms, event.at_ms),
                clock=clock,
                corrections=(*state.corrections, event),
            )
        case FlagRuled():
            ruled = SIDES if event.side not in SIDES else (Side(event.side),)
            clock = state.clock
            if clock is not None and event.decision != "fallen":
                clock = clock.at(event.at_ms)  # the fall the ruling answers is behind it
                for side in ruled:  # 6.10 a not fallen, 6.11 play on: the moves count again
                    clock = clock.without_fall(side)
            return replace(
                state,
                version=event.originator_version,
                last_at_ms=max(state.last_at_ms, event.at_ms),
                flag_rulings=(*state.flag_rulings, event),
                clock=clock,
                open_flag_alerts=tuple(
                    key for key in state.open_flag_alerts if key.split(":")[1] not in ruled
                ),
            )
        case AlertRaised() if event.kind == FLAG_FALL and "key" in event.details:
            return replace(
                state,
                version=event.originator_version,
                open_flag_alerts=(*state.open_flag_alerts, str(event.details["key"])),
            )
        case DrawClaimed() | ClaimAdvised() | ClaimRuled() | IllegalMoveRecorded():
            return replace(
                state,
                version=event.originator_version,
                last_at_ms=event.at_ms,
                record=state.record.evolve(event),
                clock=_clock_at_claim(state.clock, event),
            )
        case PresenceRecorded():
            return replace(state, version=event.originator_version, present=event.present)
        case ClockAdjusted():
            clock = state.clock
            if clock is not None:
                clock = clock.adjust(Side.of(event.side), event.delta_ms, event.at_ms)
            return replace(state, version=event.originator_version, clock=clock)
    return replace(state, version=event.originator_version)


def _moves_corrected(state: Game, event: MovesCorrected) -> Game:
    """The corrected line replaces the moves after ``from_ply``; the clock's move
    counters follow it, then the times the arbiter set, if any (6.13, 7.4 a)."""
    moves = (*state.moves[: event.from_ply], *event.uci)
    sans = (*state.sans[: event.from_ply], *event.san)
    clock = state.clock
    if clock is not None:
        counts = dict.fromkeys(SIDES, 0)
        for ply in range(1, len(moves) + 1):
            counts[mover(state.initial_fen, ply)] += 1
        clock = clock.recount(counts, mover(state.initial_fen, len(moves) + 1), event.at_ms)
        if event.white_ms is not None:
            clock = clock.set_remaining(Side.WHITE, event.white_ms, event.at_ms)
        if event.black_ms is not None:
            clock = clock.set_remaining(Side.BLACK, event.black_ms, event.at_ms)
    return replace(
        state,
        version=event.originator_version,
        moves=moves,
        sans=sans,
        last_at_ms=max(state.last_at_ms, event.at_ms),
        clock=clock,
        corrections=(*state.corrections, event),
        open_flag_alerts=(),
    )


def mover(initial_fen: str | None, ply: int) -> Side:
    """The side that made the ``ply``-th move (1-based) of a game from ``initial_fen``."""
    first_black = initial_fen is not None and initial_fen.split()[1:2] == ["b"]
    white_moves = (ply % 2 == 1) != first_black
    return Side.WHITE if white_moves else Side.BLACK


def _clock_at_claim(clock: Clock | None, event: Event) -> Clock | None:
    """A claim stops the clocks (6.12 b, 9.5); the ruling starts them again."""
    if clock is None:
        return None
    if isinstance(event, DrawClaimed):
        return clock.pause(event.at_ms)
    if isinstance(event, ClaimRuled):
        return clock.resume(event.at_ms)
    return clock


def _starting_clock(event: GameStarted) -> Clock | None:
    """The regulation clock at the start, or None when it cannot be known."""
    if not event.move_times_known:
        return None
    try:
        control = parse_time_control(event.time_control)
    except MalformedCommand:
        return None
    if not control.known:
        return None
    return Clock.start(
        control,
        event.at_ms,
        mover(event.initial_fen, 1),
        increment_on_control_move=event.increment_on_control_move,
    )
