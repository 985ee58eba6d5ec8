"""The arbiter rules on a flag: ``rule_flag``.

``rule_flag {game, side, arbiter, at, decision: "fallen"|"not_fallen", reason?}``.

FIDE Laws of Chess 2009, 6.8: a flag is fallen when the arbiter observes it (or
a player validly claims it); 6.10 a: the clock's indication is conclusive unless
the clock is evidently defective; 6.9: the player whose flag fell loses, unless
the opponent cannot checkmate by any series of legal moves (then drawn). (Our
wording of the rules.)

- ``fallen``: the arbiter observed the flag. ``FlagRuled`` then a
  ``ResultRecorded`` at ``at``: ``time_forfeit``, or ``flag_fall_draw`` when the
  opponent cannot mate (the helpmate test of
  ``engine.clock.regulation.can_checkmate``).
- ``not_fallen``: the flag is dismissed, the game goes on. Dismissing a flag the
  regulation clock shows (its time at zero at ``at``) overrules the engine's
  model: it needs a reason (say what the clock on the table showed) and is listed
  as an override by ``candidates audit``. The arbiter then sets the clock with
  ``adjust_clock`` if the model must follow the table.

Either decision needs the Chief Arbiter or a Deputy, a game in progress, and an
instant no earlier than the game's last event. The ruling keeps the evidence the
engine had (``engine.game.flags.flag_evidence``) and closes the side's open
``flag_fall`` alerts.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.clock.regulation import flag_fall_result
from engine.commands import Command, command
from engine.errors import (
    GameNotInProgress,
    MalformedCommand,
    UnknownGame,
)
from engine.events import ClockReadingRecorded, Event, FlagRuled, ResultRecorded
from engine.fields import Instant
from engine.game.flags import flag_evidence, flag_key
from engine.game.state import Game, position, require_in_progress
from engine.side import Side
from engine.tournament.tournament import RULING_ROLES, Tournament, require_ruling_arbiter
from engine.world import World

DECISIONS = ("fallen", "not_fallen")


@command(
    "rule_flag",
    summary="The Chief Arbiter or a Deputy rules a flag fallen (the result follows, Laws 6.9) "
    "or not (the game goes on; a regulation-clock flag needs a reason) (Laws 6.8, 6.10 a).",
    roles=RULING_ROLES,
    events=(FlagRuled, ResultRecorded),
    in_time_order=True,
    refusals=(
        (UnknownGame, "", "the game has not been started"),
        (GameNotInProgress, "", "the game is finished"),
        (
            MalformedCommand,
            "6.10 a",
            "a decision other than fallen or not_fallen, or a regulation-clock flag dismissed "
            "without a reason",
        ),
    ),
    notes={
        "side": "the side whose flag is ruled on: `white` or `black`",
        "decision": "`fallen` (the flag fell: the game is decided, Laws 2009 6.9) or "
        "`not_fallen` (the flag is dismissed; dismissing the regulation clock's zero needs a "
        "`reason`)",
        "reason": "why, in words; required to dismiss a flag the regulation clock shows fallen "
        "(6.10 a)",
    },
)
@dataclass(frozen=True, kw_only=True)
class RuleFlag(Command):
    game: str
    side: Side
    arbiter: str
    at_ms: Instant
    decision: str
    reason: str | None = None

    def decide(self, world: World) -> list[Event]:
        log = world.clock_log(self.game)
        return rule_flag(
            world.tournament(), world.game(self.game), self, log.last if log is not None else None
        )


def rule_flag(
    tournament: Tournament | None,
    game: Game | None,
    cmd: RuleFlag,
    device: ClockReadingRecorded | None = None,
) -> list[Event]:
    """Record the arbiter's ruling on ``side``'s flag (6.8, 6.9, 6.10 a)."""
    g = require_in_progress(game, cmd.game)
    arbiter = cmd.arbiter
    require_ruling_arbiter(tournament, arbiter, "rule on a flag")
    decision = cmd.decision
    if decision not in DECISIONS:
        raise MalformedCommand(
            f"rule_flag: decision must be 'fallen' or 'not_fallen', got {decision!r}"
        )
    side = cmd.side
    at_ms = cmd.at_ms
    reason = (cmd.reason or "").strip()
    evidence = flag_evidence(g, side, at_ms, device)
    regulation_shows = g.clock is not None and g.clock.remaining_ms(side, at_ms) == 0
    ruled_on = [key for key in g.open_flag_alerts if key.split(":")[1] == side]
    if regulation_shows:
        ruled_on.append(flag_key(g, "regulation", side))
    evidence["alerts"] = list(dict.fromkeys(ruled_on))  # answered: not raised again
    override = decision == "not_fallen" and regulation_shows
    if override and not reason:
        raise MalformedCommand(
            f"rule_flag: the regulation clock shows {side}'s time at zero in game {g.game_id}; "
            "dismissing that flag needs a reason (what the clock on the table showed, "
            "Laws 2009 6.10 a)"
        )
    ruled = FlagRuled(
        originator_id=g.stream,
        originator_version=g.version + 1,
        at_ms=at_ms,
        by=arbiter,
        game=g.game_id,
        side=side,
        arbiter=arbiter,
        decision=decision,
        reason=reason,
        evidence=evidence,
        override=override,
    )
    if decision == "not_fallen":
        return [ruled]
    result, termination = flag_fall_result(position(g), side)
    why = f"{side}'s flag fell, observed by the arbiter (Laws 2009 6.8, 6.9)"
    if termination == "flag_fall_draw":
        why += "; drawn: the opponent cannot checkmate by any series of legal moves"
    return [
        ruled,
        ResultRecorded(
            originator_id=g.stream,
            originator_version=g.version + 2,
            at_ms=at_ms,
            by=arbiter,
            result=result,
            termination=termination,
            reason=f"{why}: {reason}" if reason else why,
            arbiter=arbiter,
        ),
    ]
