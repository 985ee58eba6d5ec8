"""The ``game`` query object of the contract, folded from a game's events.

The same fold serves the CLI, the gateway snapshots, replay and audit. The
board part (FEN, SAN and UCI lists, ply, status, result, termination) comes
from the game aggregate's own fold, so what the arbiter sees is what the
engine decided on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Literal, NotRequired, TypedDict, cast

from msgspec import Meta

from engine.events import Event, FlagRuled, MovesCorrected, ResultCorrected
from engine.game import state as games
from engine.game.state import Game, GameStatus
from engine.game.state import position_fen as current_fen
from engine.timefmt import format_instant
from projections.claims_view import ClaimShown, claims_view
from projections.clock import ClockObject, clock_view
from projections.shapes import Count, Ordinal, PerSide, PgnResult
from projections.time_use import TimeUse


class OpeningShown(TypedDict):
    """The named opening reached latest along the moves."""

    eco: str
    name: str
    ply: Ordinal


class ClockPair(TypedDict):
    white_ms: int | None
    black_ms: int | None


class CorrectionShown(TypedDict):
    """One correction of the record by the arbiter, with what it replaced: of the moves
    (``kind`` ``moves``) or of the result (``kind`` ``result``)."""

    kind: Literal["moves", "result"]
    at: str
    arbiter: str
    reason: str
    from_ply: NotRequired[int]
    moves: NotRequired[list[str]]
    replaced_moves: NotRequired[list[str]]
    clock: NotRequired[ClockPair | None]
    replaced_clock: NotRequired[ClockPair]
    result: NotRequired[str | None]
    termination: NotRequired[str | None]
    replaced_result: NotRequired[str | None]
    replaced_termination: NotRequired[str | None]


class FlagRulingShown(TypedDict):
    """One ruling on a flag."""

    at: str
    side: str
    decision: str
    arbiter: str
    reason: str
    override: bool


class GameObject(TypedDict):
    """One game: players, moves, position, status, clock and claims (`candidates game ID
    --format json`, the gateway's game objects)."""

    game: str
    round: int | None
    board: int | None
    white: str
    black: str
    time_control: str | None
    moves: list[str]
    uci: list[str]
    fen: str
    ply: Count
    status: GameStatus
    result: PgnResult
    termination: str | None
    clock: ClockObject
    claims: list[ClaimShown]
    incorrect_claims: PerSide
    illegal_moves: PerSide
    corrections: list[CorrectionShown]
    flag_rulings: list[FlagRulingShown]
    open_flag_alerts: list[str]
    opening: Annotated[
        OpeningShown | None,
        Meta(
            description="the named opening reached latest along the moves (the Lichess "
            "openings table, docs/analysis.md); null before one is reached"
        ),
    ]
    scores: NotRequired[
        Annotated[str, Meta(description="each player's own score, where it is not a result")]
    ]
    tournament: NotRequired[
        Annotated[str, Meta(description="the game's tournament, when it is not the store's first")]
    ]
    time_use: NotRequired[
        Annotated[
            TimeUse,
            Meta(
                description="`/api/games/{id}` only: per move, the time the mover spent and "
                "the clock left (docs/analysis.md)"
            ),
        ]
    ]


NAMES = Mapping[str, str]


def fold_game(events: Iterable[Event]) -> Game | None:
    """The game's state after these events (of its ``game/<id>`` stream)."""
    state: Game | None = None
    for event in events:
        state = games.evolve(state, event)
    return state


def not_started_view(game_id: str, white: str, black: str, time_control: str) -> GameObject:
    """A paired game that has no events yet."""
    round_no, _, board_no = game_id.partition(".")
    return {
        "game": game_id,
        "round": int(round_no) if round_no.isdigit() else None,
        "board": int(board_no) if board_no.isdigit() else None,
        "white": white,
        "black": black,
        "time_control": time_control,
        "moves": [],
        "uci": [],
        "fen": position_fen(None),
        "ply": 0,
        "status": games.NOT_STARTED,
        "result": "*",
        "termination": None,
        "clock": {"white_ms": None, "black_ms": None, "running": None, "at": None},
        "claims": [],
        "incorrect_claims": {"white": 0, "black": 0},
        "illegal_moves": {"white": 0, "black": 0},
        "corrections": [],
        "flag_rulings": [],
        "open_flag_alerts": [],
        "opening": None,
    }


def position_fen(game: Game | None) -> str:
    if game is None:
        return "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    return current_fen(game)


def game_view(game: Game, at_ms: int | None = None) -> GameObject:
    """The contract's ``game`` object for a started game.

    ``clock`` is the regulation clock (``projections.clock.clock_view``) at
    ``at_ms``, default the game's last event; a fallen flag shows there.
    """
    claims = claims_view(game.record)
    view: GameObject = {
        "game": game.game_id,
        "round": game.round,
        "board": game.board,
        "white": game.white,
        "black": game.black,
        "time_control": game.time_control,
        "moves": list(game.sans),
        "uci": list(game.moves),
        "fen": position_fen(game),
        "ply": game.ply,
        "status": game.status,
        "result": cast(PgnResult, game.result),
        "termination": game.termination,
        "clock": clock_view(game, at_ms),
        "claims": claims["claims"],
        "incorrect_claims": claims["incorrect_claims"],
        "illegal_moves": claims["illegal_moves"],
        "corrections": [correction_view(c) for c in game.corrections],
        "flag_rulings": [flag_ruling_view(r) for r in game.flag_rulings],
        "open_flag_alerts": list(game.open_flag_alerts),
        "opening": None,
    }
    if game.scores:  # each player's own score, beside the nearest PGN result (12.3 b)
        view["scores"] = game.scores
    return view


def correction_view(event: MovesCorrected | ResultCorrected) -> CorrectionShown:
    """One correction by the arbiter, with what it replaced (``corrections`` of ``game``)."""
    at = format_instant(event.at_ms)
    if isinstance(event, MovesCorrected):
        clock: ClockPair | None = None
        if event.white_ms is not None or event.black_ms is not None:
            clock = {"white_ms": event.white_ms, "black_ms": event.black_ms}
        return {
            "kind": "moves",
            "at": at,
            "arbiter": event.arbiter,
            "reason": event.reason,
            "from_ply": event.from_ply,
            "moves": list(event.san),
            "replaced_moves": list(event.replaced_san),
            "clock": clock,
            "replaced_clock": {
                "white_ms": event.replaced_white_ms,
                "black_ms": event.replaced_black_ms,
            },
        }
    return {
        "kind": "result",
        "at": at,
        "arbiter": event.arbiter,
        "reason": event.reason,
        "result": event.result,
        "termination": event.termination,
        "replaced_result": event.replaced_result,
        "replaced_termination": event.replaced_termination,
    }


def flag_ruling_view(event: FlagRuled) -> FlagRulingShown:
    """One ruling on a flag (``flag_rulings`` of ``game``)."""
    return {
        "at": format_instant(event.at_ms),
        "side": event.side,
        "decision": event.decision,
        "arbiter": event.arbiter,
        "reason": event.reason,
        "override": event.override,
    }
