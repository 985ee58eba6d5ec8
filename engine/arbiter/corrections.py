"""The arbiter corrects the record: ``correct_moves`` and ``correct_result``.

The store is append-only and the arbiter is sovereign: what got in wrong (a move
wrongly recorded, a board's misread, a result recorded by mistake) is put right by a
new event that keeps what it replaces, never by editing the past (Laws 2009 7.4 a,
6.13, 13.1; 3.9.2 b). Both need the Chief Arbiter or a Deputy and a reason, and are
held to the game's time order; docs/corrections.md gives the commands and their
refusals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.commands import Command, command
from engine.errors import (
    GameNotInProgress,
    IllegalMove,
    MalformedCommand,
    RuleViolation,
    UnknownGame,
)
from engine.events import Event, MovesCorrected, ResultCorrected, ResultRecorded
from engine.fields import Instant, ResultText
from engine.game.record import require_no_pending_claim
from engine.game.state import (
    FINISHED,
    Game,
    outcome_of,
    parse_move,
    position,
    require_game,
    require_in_progress,
)
from engine.side import Side
from engine.timefmt import format_instant
from engine.tournament.tournament import RULING_ROLES, Tournament, require_ruling_arbiter
from engine.world import World

POSITION_ENDINGS = frozenset(
    {"checkmate", "stalemate", "insufficient_material", "seventyfive_moves", "fivefold_repetition"}
)
"""Terminations the position itself decides: a correction cannot contradict them."""


@command(
    "correct_moves",
    summary="The Chief Arbiter or a Deputy replaces the moves after from_ply, keeping the "
    "replaced ones; sets the clock or recounts it (Laws 7.4 a, 6.13).",
    roles=RULING_ROLES,
    events=(MovesCorrected, ResultRecorded),
    refusals=(
        (UnknownGame, "", "the game has not been started"),
        (
            GameNotInProgress,
            "",
            "the game is finished: withdraw the result first (correct_result with result null)",
        ),
        (RuleViolation, "9.5", "a draw claim is pending"),
        (IllegalMove, "", "a replacement move is not legal where it stands"),
        (
            MalformedCommand,
            "",
            "no reason, a correction dated before the game's last event, from_ply outside the "
            "recorded moves, a negative time, or moves that are already recorded",
        ),
    ),
    notes={
        "reason": "why, in words, for the record",
        "from_ply": "the moves after this ply are replaced (0: from the first move)",
        "moves": "the moves that replace them, SAN or UCI, in order",
        "white_ms": "White's clock display after the last replacement move, milliseconds",
        "black_ms": "Black's clock display after the last replacement move, milliseconds",
    },
)
@dataclass(frozen=True, kw_only=True)
class CorrectMoves(Command):
    game: str
    arbiter: str
    reason: str
    at_ms: Instant
    from_ply: int
    moves: list[Any]
    white_ms: int | None = None
    black_ms: int | None = None

    def decide(self, world: World) -> list[Event]:
        return correct_moves(world.tournament(), world.game(self.game), self)


@command(
    "correct_result",
    summary="The Chief Arbiter or a Deputy replaces a result recorded by mistake, or "
    "withdraws it (null reopens the game), keeping the replaced one (3.9.2 b).",
    roles=RULING_ROLES,
    events=(ResultCorrected,),
    refusals=(
        (UnknownGame, "", "the game has not been started"),
        (GameNotInProgress, "", "the game has no result to correct"),
        (RuleViolation, "3.9.2 b", "a draw by agreement"),
        (
            RuleViolation,
            "5",
            "a result by the position (checkmate, stalemate ...) that the final position does not "
            "show",
        ),
        (
            MalformedCommand,
            "",
            "no reason, '*', a termination with a withdrawn result, or the result already recorded",
        ),
    ),
    notes={
        "reason": "why, in words, for the record",
        "result": "the result that replaces the recorded one: `1-0`, `0-1` or `1/2-1/2`; null "
        "withdraws the result (the game goes back to in progress)",
        "termination": "how the game ended, in words (`time forfeit`, `default` ...)",
    },
)
@dataclass(frozen=True, kw_only=True)
class CorrectResult(Command):
    game: str
    arbiter: str
    reason: str
    at_ms: Instant
    result: ResultText | None
    termination: str | None = None

    def decide(self, world: World) -> list[Event]:
        return correct_result(world.tournament(), world.game(self.game), self)


def _reason(cmd: CorrectMoves | CorrectResult) -> str:
    reason = cmd.reason.strip()
    if not reason:
        raise MalformedCommand(f"{cmd.cmd} needs a reason (what was wrong, how it was found)")
    return reason


def _in_time_order(game: Game, cmd: CorrectMoves | CorrectResult) -> int:
    at_ms = cmd.at_ms
    if at_ms < game.last_at_ms:
        raise MalformedCommand(
            f"{cmd.cmd} at {format_instant(at_ms)} is earlier than the last recorded event of "
            f"game {game.game_id} ({format_instant(game.last_at_ms)}): a correction is recorded "
            "when it is made, after what it corrects"
        )
    return at_ms


def _times(cmd: CorrectMoves) -> tuple[int | None, int | None]:
    white, black = cmd.white_ms, cmd.black_ms
    for name, value in (("white_ms", white), ("black_ms", black)):
        if value is not None and value < 0:
            raise MalformedCommand(f"correct_moves: {name} cannot be negative, got {value}")
    return white, black


def correct_moves(
    tournament: Tournament | None, game: Game | None, cmd: CorrectMoves
) -> list[Event]:
    """Replace the moves after ``from_ply`` (Laws 2009 7.4 a, 6.13)."""
    existing = require_game(game, cmd.game)
    if existing.status == FINISHED:
        raise GameNotInProgress(
            f"game {existing.game_id} is finished ({existing.result}, {existing.termination}): "
            "withdraw the result first (correct_result with result null), then correct the moves"
        )
    g = require_in_progress(existing, cmd.game)
    arbiter = cmd.arbiter
    require_ruling_arbiter(tournament, arbiter, "correct the moves")
    reason = _reason(cmd)
    at_ms = _in_time_order(g, cmd)
    require_no_pending_claim(g.record, g.game_id, "the moves cannot be corrected")
    from_ply = cmd.from_ply
    if not 0 <= from_ply <= g.ply:
        raise MalformedCommand(
            f"correct_moves: from_ply must be between 0 and {g.ply} (the moves recorded in game "
            f"{g.game_id}), got {from_ply}"
        )
    texts = cmd.moves
    board = position(g)
    for _ in range(g.ply - from_ply):
        board.pop()
    uci: list[str] = []
    san: list[str] = []
    for index, text in enumerate(texts):
        if not isinstance(text, str) or not text:
            raise MalformedCommand(
                f"correct_moves: moves[{index}] must be a move in UCI or SAN, got {text!r}"
            )
        move = parse_move(board, text, g.game_id)
        san.append(board.san(move))
        uci.append(move.uci())
        board.push(move)
    white_ms, black_ms = _times(cmd)
    replaced_uci = g.moves[from_ply:]
    if tuple(uci) == replaced_uci and white_ms is None and black_ms is None:
        raise MalformedCommand(
            f"correct_moves: the moves after ply {from_ply} of game {g.game_id} are already "
            f"{' '.join(g.sans[from_ply:]) or '(none)'}; nothing to correct"
        )
    clock = g.clock
    events: list[Event] = [
        MovesCorrected(
            originator_id=g.stream,
            originator_version=g.version + 1,
            at_ms=at_ms,
            by=arbiter,
            game=g.game_id,
            arbiter=arbiter,
            reason=reason,
            from_ply=from_ply,
            uci=tuple(uci),
            san=tuple(san),
            replaced_uci=replaced_uci,
            replaced_san=g.sans[from_ply:],
            white_ms=white_ms,
            black_ms=black_ms,
            replaced_white_ms=clock.remaining_ms(Side.WHITE, at_ms) if clock else None,
            replaced_black_ms=clock.remaining_ms(Side.BLACK, at_ms) if clock else None,
        )
    ]
    ended = outcome_of(board, g.rules)
    if ended is not None:
        events.append(
            ResultRecorded(
                originator_id=g.stream,
                originator_version=g.version + 2,
                at_ms=at_ms,
                by=arbiter,
                result=ended[0],
                termination=ended[1],
                reason="the corrected line ends the game",
            )
        )
    return events


def correct_result(
    tournament: Tournament | None, game: Game | None, cmd: CorrectResult
) -> list[Event]:
    """Replace a result recorded by mistake, or withdraw it (``result`` null)."""
    g = require_game(game, cmd.game)
    arbiter = cmd.arbiter
    require_ruling_arbiter(tournament, arbiter, "correct a result")
    reason = _reason(cmd)
    if g.status != FINISHED:
        raise GameNotInProgress(
            f"game {g.game_id} has no result to correct (it is {g.status.replace('_', ' ')}); "
            "a result is recorded with declare_result"
        )
    at_ms = _in_time_order(g, cmd)
    result = cmd.result
    termination = cmd.termination
    if result is None:
        if termination is not None:
            raise MalformedCommand(
                "correct_result: a withdrawn result (result null) has no termination"
            )
    else:
        if result == "*":
            raise MalformedCommand(
                "correct_result: give a final result (1-0, 0-1, 1/2-1/2), or null to withdraw it"
            )
        if termination is None:  # the way it ended stands; only the result was wrong
            kept = g.termination
            termination = kept if kept and kept not in POSITION_ENDINGS else "arbiter_decision"
        words = f"{reason} {termination}".lower()
        if result == "1/2-1/2" and "agree" in words:
            raise RuleViolation("3.9.2 b", "the players cannot draw a game by agreement")
        shown = outcome_of(position(g), g.rules)
        if termination in POSITION_ENDINGS and shown != (result, termination):
            raise RuleViolation(
                "5",
                f"game {g.game_id}: the final position does not show {result} by {termination}",
            )
        if (result, termination) == (g.result, g.termination):
            raise MalformedCommand(
                f"correct_result: game {g.game_id} is already {result} ({termination}); "
                "nothing to correct"
            )
    return [
        ResultCorrected(
            originator_id=g.stream,
            originator_version=g.version + 1,
            at_ms=at_ms,
            by=arbiter,
            game=g.game_id,
            arbiter=arbiter,
            reason=reason,
            result=result,
            termination=termination,
            replaced_result=g.result,
            replaced_termination=g.termination,
            replaced_at_ms=g.last_at_ms,
        )
    ]
