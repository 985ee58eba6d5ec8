"""The default time (FIDE Laws of Chess 2009, 6.6 a) and no postponement (3.3.7).

The default time is 0 minutes unless a profile says otherwise. ``start_game`` may
record who was at the board, a missing player raising an ``absent_at_start`` alert;
``rule_default`` then records the game lost by the absent player (``0-0`` when both
were absent), and a game ruled by default is never started again (3.3.7). Without a
ruling the game goes on: the arbiter is sovereign. The refusals are in
docs/incidents.md."""

from __future__ import annotations

from dataclasses import dataclass

from engine.arbiter.incident_book import IncidentBook
from engine.arbiter.incidents import require_arbiter
from engine.commands import Command, command
from engine.errors import GameNotInProgress, MalformedCommand, RuleViolation, UnknownGame
from engine.events import INCIDENTS_STREAM, DefaultRuled, Event, ResultRecorded
from engine.fields import Instant
from engine.game import state as games
from engine.game.state import OTHER_SIDE, WIN_BY_SIDE, Game, mover
from engine.rules import profile
from engine.standings.tiebreaks import DEFAULT_TERMINATION
from engine.timefmt import format_instant
from engine.tournament.tournament import RULING_ROLES, Tournament
from engine.world import World

ARTICLE = "6.6 a"


@command(
    "rule_default",
    summary="An arbiter declares a game lost by a player absent at its start (Laws 2009 6.6 a; "
    "3.3.7: no postponement).",
    roles=RULING_ROLES,
    events=(DefaultRuled, ResultRecorded),
    in_time_order=True,
    refusals=(
        (UnknownGame, "", "the game has not been started"),
        (GameNotInProgress, "", "the game is finished"),
        (MalformedCommand, "", "the player does not play the game"),
        (
            RuleViolation,
            "6.6 a",
            "the start did not record who was present, the player was "
            "present or has moved, or the default time has not passed",
        ),
    ),
    notes={
        "player": "the absent player: a player's id, or `white` / `black`",
    },
)
@dataclass(frozen=True, kw_only=True)
class RuleDefault(Command):
    game: str
    player: str
    """The absent player (id, or ``white``/``black``)."""
    arbiter: str
    at_ms: Instant

    def decide(self, world: World) -> list[Event]:
        return rule_default(world.tournament(), world.incident_book(), world.game(self.game), self)


def rule_default(
    tournament: Tournament | None, book: IncidentBook | None, game: Game | None, cmd: RuleDefault
) -> list[Event]:
    """Declare a game lost by a player absent at its start (Laws 2009 6.6 a)."""
    g = games.require_in_progress(game, cmd.game)
    arbiter = cmd.arbiter
    if tournament is not None:
        require_arbiter(
            tournament, arbiter, ("chief", "deputy"), "rule a game lost by default", "6.6 a"
        )
    side = g.player_side(cmd.player)
    if side is None:
        raise MalformedCommand(
            f"rule_default: {cmd.player!r} does not play game {g.game_id} ({g.white} - {g.black})"
        )
    player = g.white if side == "white" else g.black
    if g.present is None:
        raise RuleViolation(
            ARTICLE,
            f"the start of game {g.game_id} did not record who was at the board "
            "(start_game's 'present'); record the result with declare_result",
        )
    if player in g.present:
        raise RuleViolation(ARTICLE, f"{player} was at the board when game {g.game_id} started")
    moved = sum(1 for ply in range(1, g.ply + 1) if mover(g.initial_fen, ply) == side)
    if moved:
        raise RuleViolation(
            ARTICLE, f"{player} has arrived: he made {moved} move(s) in game {g.game_id}"
        )
    at_ms = cmd.at_ms
    default_ms = profile(g.rules).default_time_ms
    if at_ms < g.started_at_ms + default_ms:
        raise RuleViolation(
            ARTICLE,
            f"the default time of {default_ms // 60_000} min has not passed: {player} may "
            f"arrive until {format_instant(g.started_at_ms + default_ms)}",
        )
    opponent = OTHER_SIDE[side]
    both = (g.white if opponent == "white" else g.black) in g.absent_at_start()
    result = "0-0" if both else WIN_BY_SIDE[opponent]
    minutes = f"{default_ms // 60_000} min"
    named = tournament.known_as(player) if tournament is not None else player
    reason = f"Laws 2009 6.6 a: {named} was not at the board at the start (default time {minutes})"
    if both:
        reason += "; neither player was"
    current = book or IncidentBook()
    return [
        DefaultRuled(
            originator_id=INCIDENTS_STREAM,
            originator_version=current.version + 1,
            at_ms=at_ms,
            by=arbiter,
            game=g.game_id,
            player=player,
            side=side,
            arbiter=arbiter,
            default_time_ms=default_ms,
            result=result,
        ),
        ResultRecorded(
            originator_id=g.stream,
            originator_version=g.version + 1,
            at_ms=at_ms,
            by=arbiter,
            result=result,
            termination=DEFAULT_TERMINATION,
            reason=reason,
            arbiter=arbiter,
        ),
    ]
