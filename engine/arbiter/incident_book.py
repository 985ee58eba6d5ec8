"""The Chief Arbiter's incident book: the state folded from the ``incidents`` stream.

What the arbiters rule on beyond claims, illegal moves and clocks: incidents of
the playing conditions (3.9.1, 3.9.2 a, 3.9.2 c) and of the players' conduct
(Laws 2009 12.3 b, 12.6) with the penalties of 13.4, the players out of the
playing area with permission (3.9.2 c), games lost by default (Laws 2009
6.6 a), and rulings on withdrawal reasons (3.3.4). ``evolve`` never refuses;
the decisions are in ``engine.arbiter.incidents``, ``engine.arbiter.default_time``
and ``engine.arbiter.withdrawal_reasons``.

All durations are integer milliseconds; points are ``fractions.Fraction``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from engine.events import (
    DefaultRuled,
    Event,
    IncidentRecorded,
    LeavePermitted,
    PlayerReturned,
    WithdrawalReasonRuled,
)


@dataclass(frozen=True)
class Leave:
    """A player out of the playing area with the Chief Arbiter's permission (3.9.2 c)."""

    player: str
    left_at_ms: int
    arbiter: str
    accompanied_by: str
    game: str | None


@dataclass(frozen=True)
class PointsReduction:
    """13.4 e: points taken from a player, from the round of the incident on."""

    player: str
    points: Fraction
    round: int | None
    """The round of the incident's game; None (outside a game) counts in every table."""
    incident: str


@dataclass(frozen=True)
class ReasonRuling:
    """3.3.4: whether a withdrawn player's reason was satisfactory."""

    player: str
    satisfactory: bool
    arbiter: str
    reason: str
    at_ms: int


@dataclass(frozen=True)
class IncidentBook:
    """State of the ``incidents`` stream."""

    version: int = 0
    incidents: tuple[IncidentRecorded, ...] = ()
    out: tuple[Leave, ...] = ()
    """Players out of the playing area now, in the order they left."""
    reductions: tuple[PointsReduction, ...] = ()
    reason_rulings: tuple[ReasonRuling, ...] = field(default=())

    def next_incident_id(self) -> str:
        return str(len(self.incidents) + 1)

    def leave_of(self, player: str) -> Leave | None:
        return next((leave for leave in self.out if leave.player == player), None)

    def warnings_of(self, player: str) -> int:
        """13.4 a: warnings given to the player so far."""
        return sum(1 for i in self.incidents if i.player == player and i.penalty == "warning")

    def reason_ruling(self, player: str) -> ReasonRuling | None:
        return next((r for r in reversed(self.reason_rulings) if r.player == player), None)

    def points_reduced(self, after_round: int | None = None) -> dict[str, Fraction]:
        """13.4 e: the points taken from each player in the rounds up to ``after_round``."""
        out: dict[str, Fraction] = {}
        for r in self.reductions:
            if after_round is None or r.round is None or r.round <= after_round:
                out[r.player] = out.get(r.player, Fraction(0)) + r.points
        return out


def evolve(state: IncidentBook | None, event: Event) -> IncidentBook:
    """Fold one event of the ``incidents`` stream."""
    book = state or IncidentBook()
    book = replace(book, version=event.originator_version)
    match event:
        case IncidentRecorded():
            reductions = book.reductions
            if event.penalty == "points_reduced" and event.player and event.points:
                reductions = (
                    *reductions,
                    PointsReduction(
                        event.player, Fraction(event.points), event.round, event.incident
                    ),
                )
            return replace(book, incidents=(*book.incidents, event), reductions=reductions)
        case LeavePermitted():
            leave = Leave(
                event.player, event.at_ms, event.arbiter, event.accompanied_by, event.game
            )
            return replace(book, out=(*book.out, leave))
        case PlayerReturned():
            return replace(book, out=tuple(x for x in book.out if x.player != event.player))
        case WithdrawalReasonRuled():
            ruling = ReasonRuling(
                event.player, event.satisfactory, event.arbiter, event.reason, event.at_ms
            )
            return replace(book, reason_rulings=(*book.reason_rulings, ruling))
        case DefaultRuled():
            return book
    return book
