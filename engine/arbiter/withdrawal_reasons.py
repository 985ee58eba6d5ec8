"""Rulings on a withdrawn player's reason (3.3.4).

3.3.4: "Players that fail to provide a satisfactory reason for withdrawal,
after they have signed the player's contract, will be excluded from the next
World Championship cycle."

``rule_withdrawal_reason {player, satisfactory, arbiter, reason, at}``: the
Chief Arbiter records whether the reason of a player who has withdrawn (3.1,
3.3.3) or been expelled (13.4 g) is satisfactory (``WithdrawalReasonRuled`` in
the incident book). The standings' notes show it. A later ruling replaces an
earlier one and keeps it in the book (a decision of FIDE on appeal, a
correction). Refused for a player who has not withdrawn.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.arbiter.incident_book import IncidentBook
from engine.arbiter.incidents import require_arbiter, require_event
from engine.commands import Command, command
from engine.errors import MalformedCommand, RuleViolation
from engine.events import INCIDENTS_STREAM, Event, WithdrawalReasonRuled
from engine.fields import Instant
from engine.tournament.tournament import Tournament
from engine.world import World


@command(
    "rule_withdrawal_reason",
    summary="The Chief Arbiter rules whether a withdrawn player's reason is satisfactory (3.3.4).",
    roles=("chief",),
    events=(WithdrawalReasonRuled,),
    refusals=(
        (MalformedCommand, "", "not a player of the tournament, or no reason"),
        (RuleViolation, "3.3.4", "the player has not withdrawn"),
    ),
    notes={
        "player": "the withdrawn player: a player's id",
        "satisfactory": "`true` if the reason for the withdrawal is satisfactory, `false` if "
        "not (3.3.4)",
        "reason": "why, in words, for the record",
    },
)
@dataclass(frozen=True, kw_only=True)
class RuleWithdrawalReason(Command):
    player: str
    satisfactory: bool
    arbiter: str
    reason: str
    at_ms: Instant

    def decide(self, world: World) -> list[Event]:
        return rule_withdrawal_reason(world.tournament(), world.incident_book(), self)


def rule_withdrawal_reason(
    tournament: Tournament | None, book: IncidentBook | None, cmd: RuleWithdrawalReason
) -> list[Event]:
    """3.3.4: the Chief Arbiter rules on the reason for a withdrawal."""
    t = require_event(tournament)
    arbiter = cmd.arbiter
    require_arbiter(t, arbiter, ("chief",), "rule on a withdrawal's reason", "3.3.4")
    player = cmd.player
    if t.player(player) is None:
        raise MalformedCommand(f"rule_withdrawal_reason: {player!r} is not a player of {t.id!r}")
    if t.withdrawal(player) is None:
        raise RuleViolation(
            "3.3.4", f"{player} has not withdrawn: there is no reason for withdrawal to rule on"
        )
    reason = cmd.reason.strip()
    if not reason:
        raise MalformedCommand("rule_withdrawal_reason needs the 'reason' the ruling rests on")
    current = book or IncidentBook()
    return [
        WithdrawalReasonRuled(
            originator_id=INCIDENTS_STREAM,
            originator_version=current.version + 1,
            at_ms=cmd.at_ms,
            by=arbiter,
            player=player,
            satisfactory=cmd.satisfactory,
            arbiter=arbiter,
            reason=reason,
        )
    ]
