"""The ``game`` query object of the contract, folded from a game's events.

The same fold serves the CLI, the gateway snapshots, replay and audit. The
board part (FEN, SAN and UCI lists, ply, status, result, termination) comes
from the game aggregate's own fold, so what the arbiter sees is what the
engine decided on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.events import Event, FlagRuled, MovesCorrected, ResultCorrected
from engine.game import state as games
from engine.game.state import Game
from engine.game.state import position_fen as current_fen
from engine.timefmt import format_instant
from projections.claims_view import claims_view
from projections.clock import clock_view

NAMES = Mapping[str, str]


def fold_game(events: Iterable[Event]) -> Game | None:
    """The game's state after these events (of its ``game/<id>`` stream)."""
    state: Game | None = None
    for event in events:
        state = games.evolve(state, event)
    return state


def not_started_view(game_id: str, white: str, black: str, time_control: str) -> dict[str, Any]:
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


def game_view(game: Game, at_ms: int | None = None) -> dict[str, Any]:
    """The contract's ``game`` object for a started game.

    ``clock`` is the regulation clock (``projections.clock.clock_view``) at
    ``at_ms``, default the game's last event; a fallen flag shows there.
    """
    view = not_started_view(game.game_id, game.white, game.black, game.time_control)
    view.update(
        round=game.round,
        board=game.board,
        moves=list(game.sans),
        uci=list(game.moves),
        fen=position_fen(game),
        ply=game.ply,
        status=game.status,
        result=game.result,
        termination=game.termination,
        clock=clock_view(game, at_ms),
    )
    view.update(claims_view(game.record))
    view["corrections"] = [correction_view(c) for c in game.corrections]
    view["flag_rulings"] = [flag_ruling_view(r) for r in game.flag_rulings]
    view["open_flag_alerts"] = list(game.open_flag_alerts)
    if game.scores:  # each player's own score, beside the nearest PGN result (12.3 b)
        view["scores"] = game.scores
    return view


def correction_view(event: MovesCorrected | ResultCorrected) -> dict[str, Any]:
    """One correction by the arbiter, with what it replaced (``corrections`` of ``game``)."""
    common = {"at": format_instant(event.at_ms), "arbiter": event.arbiter, "reason": event.reason}
    if isinstance(event, MovesCorrected):
        clock = None
        if event.white_ms is not None or event.black_ms is not None:
            clock = {"white_ms": event.white_ms, "black_ms": event.black_ms}
        return {
            "kind": "moves",
            **common,
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
        **common,
        "result": event.result,
        "termination": event.termination,
        "replaced_result": event.replaced_result,
        "replaced_termination": event.replaced_termination,
    }


def flag_ruling_view(event: FlagRuled) -> dict[str, Any]:
    """One ruling on a flag (``flag_rulings`` of ``game``)."""
    return {
        "at": format_instant(event.at_ms),
        "side": event.side,
        "decision": event.decision,
        "arbiter": event.arbiter,
        "reason": event.reason,
        "override": event.override,
    }
