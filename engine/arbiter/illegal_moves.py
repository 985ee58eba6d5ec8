"""Illegal moves recorded by the arbiter (Laws 2009 7.4; 2014+ 7.5): ``record_illegal_move``.

The engine never plays an illegal move, so the position before it stands (7.4 a);
the record counts it and applies the penalty of the game's rules profile: time to the
opponent, or the game lost at the losing count, drawn when the opponent could not
checkmate (``engine.checkmate``). The penalties by profile are in docs/claims.md."""

from __future__ import annotations

from dataclasses import dataclass

from engine.arbiter.draw_claims import ordinal
from engine.checkmate import can_checkmate
from engine.commands import Command, command
from engine.errors import (
    MalformedCommand,
    RuleViolation,
    UnknownGame,
)
from engine.events import ClockAdjusted, Event, IllegalMoveRecorded, ResultRecorded
from engine.fields import Instant
from engine.game import state as games
from engine.game.state import IN_PROGRESS, OTHER_SIDE, WIN_BY_SIDE, Game, position
from engine.rules import profile
from engine.side import Side
from engine.termination import Termination
from engine.tournament.tournament import RULING_ROLES, Tournament, require_ruling_arbiter
from engine.world import World


@command(
    "record_illegal_move",
    summary="An arbiter records a completed illegal move and its penalty is applied (Laws 7.4).",
    roles=RULING_ROLES,
    events=(IllegalMoveRecorded, ClockAdjusted, ResultRecorded),
    in_time_order=True,
    refusals=(
        (UnknownGame, "", "the game has not been started"),
        (RuleViolation, "7.4", "the game has ended (3.7.1.b.4 in a playoff game)"),
        (MalformedCommand, "", "'by' is not white, black or a player of the game"),
    ),
    notes={
        "by": "who made the move: `white`, `black` or the player's id",
        "move": "the illegal move as written, SAN or UCI, for the record",
    },
)
@dataclass(frozen=True, kw_only=True)
class RecordIllegalMove(Command):
    game: str
    by: str
    """The side (``white``, ``black``) or the player who made the move."""
    arbiter: str
    move: str | None = None
    at_ms: Instant

    def decide(self, world: World) -> list[Event]:
        return record_illegal_move(world.tournament(), world.game(self.game), self)


def record_illegal_move(
    tournament: Tournament | None, game: Game | None, cmd: RecordIllegalMove
) -> list[Event]:
    """The arbiter records a completed illegal move and applies the penalty."""
    g = games.require_game(game, cmd.game)
    arbiter = cmd.arbiter
    if g.status != IN_PROGRESS:
        article = "3.7.1.b.4" if g.is_playoff else "7.4"
        raise RuleViolation(
            article,
            f"game {g.game_id} has ended ({g.result}, {g.termination}): no irregularity "
            "can be recorded once a game is over",
        )
    require_ruling_arbiter(tournament, arbiter, "record an illegal move")
    side = g.player_side(cmd.by)
    if side is None:
        raise MalformedCommand(
            f"record_illegal_move: 'by' must be white, black or a player of game "
            f"{g.game_id} ({g.white} - {g.black}); got {cmd.by!r}"
        )
    penalties = profile(g.rules).penalties_for(g.stage)
    count = g.record.illegal_moves.of(side) + 1
    at_ms = cmd.at_ms
    opponent = OTHER_SIDE[side]
    article = penalties.illegal_move_article
    events: list[Event] = [
        IllegalMoveRecorded(
            originator_id=g.stream,
            originator_version=g.version + 1,
            at_ms=at_ms,
            by=arbiter,
            game=g.game_id,
            side=side,
            player=g.white if side is Side.WHITE else g.black,
            arbiter=arbiter,
            count=count,
            ply=g.ply,
            move=cmd.move,
        )
    ]
    if count >= penalties.illegal_move_loses_at:
        board = position(g)
        can_mate = can_checkmate(board, opponent)
        result = WIN_BY_SIDE[opponent] if can_mate else "1/2-1/2"
        reason = f"{ordinal(count)} illegal move by {side} ({article})"
        if not can_mate:
            reason += f"; drawn, as {opponent} cannot checkmate by any series of legal moves"
        events.append(
            ResultRecorded(
                originator_id=g.stream,
                originator_version=g.version + 2,
                at_ms=at_ms,
                by=arbiter,
                result=result,
                termination=Termination.ILLEGAL_MOVES,
                reason=reason,
                arbiter=arbiter,
            )
        )
    elif penalties.illegal_move_ms:
        events.append(
            ClockAdjusted(
                originator_id=g.stream,
                originator_version=g.version + 2,
                at_ms=at_ms,
                by=arbiter,
                side=opponent,
                delta_ms=penalties.illegal_move_ms,
                reason=f"{ordinal(count)} illegal move by {side} ({article})",
                arbiter=arbiter,
            )
        )
    return events
