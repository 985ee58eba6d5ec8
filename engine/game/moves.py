"""The game's decisions: start a paired game, a move, a resignation, a declared result.

Each takes the folded state (``engine.game.state``) and the command and returns
the events to append, or raises with nothing appended.
"""

from __future__ import annotations

import chess

from engine.clock.time_control import parse_time_control
from engine.commands import Command
from engine.errors import (
    AlreadyRecorded,
    CommandRefused,
    Conflict,
    MalformedCommand,
    RuleViolation,
    UnknownGame,
)
from engine.events import Event, GameStarted, MovePlayed, ResultRecorded, game_stream
from engine.game.flags import flag_fall
from engine.game.record import require_no_pending_claim
from engine.game.state import (
    OTHER_SIDE,
    WIN_BY_SIDE,
    Game,
    _advance,
    _cached_board,
    outcome_of,
    parse_move,
    require_in_progress,
)
from engine.rules import DEFAULT_PROFILE, profile
from engine.tournament.tournament import Tournament, require_ruling_arbiter


def start_game(tournament: Tournament | None, existing: Game | None, cmd: Command) -> list[Event]:
    """Open a paired game (``<round>.<board>``), or a game with named players."""
    game_id: str = cmd["game"]
    if existing is not None:
        raise RuleViolation("3.3.7", f"game {game_id} has already been started")
    if tournament is not None:
        tournament.check_can_start(game_id)
    pairing = tournament.pairings().get(game_id) if tournament else None
    white, black = cmd.get("white"), cmd.get("black")
    if pairing is not None:
        if (white, black) not in ((None, None), pairing):
            raise MalformedCommand(
                f"game {game_id} is paired {pairing[0]} - {pairing[1]}, not {white} - {black}"
            )
        white, black = pairing
    elif white is None or black is None:
        hint = (
            "the lots have not been drawn yet"
            if tournament is not None and tournament.numbers is None
            else "it is not a paired game id (<round>.<board>)"
        )
        raise UnknownGame(f"game {game_id!r} has no players: {hint}; or give white and black")
    _check_players_and_stage(tournament, game_id, white, black, pairing, cmd.get("stage"))
    rules = tournament.rules if tournament else DEFAULT_PROFILE
    planned = tournament.planned_game(game_id) if tournament else None
    round_no, _, board_no = game_id.partition(".")
    fen = cmd.get("fen")
    if fen is not None:
        try:
            chess.Board(fen)
        except ValueError as exc:
            raise MalformedCommand(f"start_game: invalid FEN {fen!r}: {exc}") from None
    stage = cmd.get("stage") or (planned.stage if planned else "tournament")
    time_control = (
        cmd.get("time_control")
        or (planned.time_control if planned else None)
        or profile(rules).time_control_for(stage)
    )
    parse_time_control(time_control)  # a clear error for a control the clock cannot read
    return [
        GameStarted(
            originator_id=game_stream(game_id),
            originator_version=1,
            at_ms=cmd["at_ms"],
            by=cmd.get("by", "arbiter"),
            game=game_id,
            round=int(round_no) if round_no.isdigit() else 0,
            board=int(board_no) if board_no.isdigit() else 0,
            white=white,
            black=black,
            time_control=time_control,
            rules=rules,
            initial_fen=fen,
            stage=stage,
        )
    ]


def _check_players_and_stage(
    tournament: Tournament | None,
    game_id: str,
    white: str,
    black: str,
    pairing: tuple[str, str] | None,
    stage: str | None,
) -> None:
    """Two different players of the tournament; a paired game keeps its own stage (its
    stage decides the time control, 3.5.1 / 3.7.1-3.7.3, and the penalties)."""
    if white == black:
        raise MalformedCommand(f"start_game: {white!r} cannot play both sides of game {game_id}")
    if tournament is None:
        return
    if pairing is None:
        known = {p.id for p in tournament.players}
        unknown = [pid for pid in (white, black) if pid not in known]
        if unknown:
            raise MalformedCommand(
                f"start_game: {', '.join(map(repr, unknown))} not a player of "
                f"{tournament.id!r} (players: {', '.join(sorted(known))})"
            )
        return
    planned = tournament.planned_game(game_id)
    own = planned.stage if planned else "tournament"
    if stage is not None and stage != own:
        raise MalformedCommand(
            f"start_game: game {game_id} is a {own} game of {tournament.id!r}, not {stage!r}; "
            "leave 'stage' out"
        )


def check_ply(game: Game | None, cmd: Command) -> None:
    """``play_move`` with ``ply`` (the ply the move becomes): makes a retried move safe.

    The next ply goes on to the decision. A ply already recorded with the same move
    raises ``AlreadyRecorded`` (answered as a duplicate, nothing appended); with
    another move, or a ply beyond the next one, ``Conflict``: the sender's idea of
    the game is not the record's, and a move must never land on the wrong ply (a
    repeated ``Qg6`` would be read as the opponent's ``Qxg6``)."""
    ply = cmd.get("ply")
    if ply is None or game is None:
        return
    if ply < 1:
        raise MalformedCommand(f"play_move: field 'ply' must be >= 1, got {ply}")
    if ply == game.ply + 1:
        return
    if ply > game.ply + 1:
        raise Conflict(
            f"play_move for ply {ply} of game {game.game_id}, which has {game.ply} plies "
            f"recorded: the next move is ply {game.ply + 1}; nothing was appended"
        )
    board = chess.Board(game.initial_fen) if game.initial_fen else chess.Board()
    for uci in game.moves[: ply - 1]:
        board.push(chess.Move.from_uci(uci))
    recorded = game.moves[ply - 1]
    try:
        same = parse_move(board, cmd["move"], game.game_id).uci() == recorded
    except CommandRefused:
        same = False
    if same:
        raise AlreadyRecorded(
            f"ply {ply} of game {game.game_id} is already recorded as {game.sans[ply - 1]}: "
            "a repeat, nothing appended"
        )
    raise Conflict(
        f"ply {ply} of game {game.game_id} is recorded as {game.sans[ply - 1]}, not "
        f"{cmd['move']}; nothing was appended"
    )


def play_move(game: Game | None, cmd: Command) -> list[Event]:
    """A move completed on the board: legal, or refused with nothing appended."""
    g = require_in_progress(game, cmd["game"])
    require_no_pending_claim(g.record, g.game_id)
    late = flag_fall(g, cmd["at_ms"], cmd.get("by", "arbiter"))
    if late:  # 6.9: the flag fell before the move was completed; the move does not count
        return late
    board = _cached_board(g)
    move = parse_move(board, cmd["move"], g.game_id)
    san = board.san(move)
    board = _advance(g, move)
    events: list[Event] = [
        MovePlayed(
            originator_id=g.stream,
            originator_version=g.version + 1,
            at_ms=cmd["at_ms"],
            by=cmd.get("by", "arbiter"),
            uci=move.uci(),
            san=san,
            ply=g.ply + 1,
        )
    ]
    ended = outcome_of(board, g.rules)
    if ended is not None:
        events.append(
            ResultRecorded(
                originator_id=g.stream,
                originator_version=g.version + 2,
                at_ms=cmd["at_ms"],
                by=cmd.get("by", "arbiter"),
                result=ended[0],
                termination=ended[1],
            )
        )
    return events


def resign(game: Game | None, cmd: Command) -> list[Event]:
    """A player resigned (Laws 5.1 b): the opponent wins."""
    g = require_in_progress(game, cmd["game"])
    side: str = cmd["by"]
    late = flag_fall(g, cmd["at_ms"], side)
    if late:  # the flag fell before the resignation: the game had already ended (6.9)
        return late
    return [
        ResultRecorded(
            originator_id=g.stream,
            originator_version=g.version + 1,
            at_ms=cmd["at_ms"],
            by=side,
            result=WIN_BY_SIDE[OTHER_SIDE[side]],
            termination="resignation",
            reason=f"{side} resigned",
        )
    ]


def declare_result(tournament: Tournament | None, game: Game | None, cmd: Command) -> list[Event]:
    """The Chief Arbiter (or Deputy) records a result with a reason.

    3.9.2 b: "The players cannot draw a game by agreement." A declared draw
    whose reason is an agreement is refused.
    """
    g = require_in_progress(game, cmd["game"])
    result: str = cmd["result"]
    reason: str = cmd["reason"]
    require_ruling_arbiter(tournament, cmd["arbiter"], "declare a result")
    if result == "*":
        raise MalformedCommand("declare_result needs a final result (1-0, 0-1, 1/2-1/2)")
    termination = (cmd.get("termination") or "").lower()
    if result == "1/2-1/2" and ("agree" in reason.lower() or "agree" in termination):
        raise RuleViolation("3.9.2 b", "the players cannot draw a game by agreement")
    return [
        ResultRecorded(
            originator_id=g.stream,
            originator_version=g.version + 1,
            at_ms=cmd["at_ms"],
            by=cmd["arbiter"],
            result=result,
            termination=cmd.get("termination") or "arbiter_decision",
            reason=reason,
            arbiter=cmd["arbiter"],
        )
    ]
