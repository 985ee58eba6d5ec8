"""The arbiter's record of one game: draw claims, their rulings, the counters.

Part of the game's state (``Game.record``), folded from the claim and irregularity
events of the game's stream; the decisions that produce them live in
``engine.arbiter.draw_claims`` and ``engine.arbiter.illegal_moves``, this module only
applies them. A claim is ``pending`` (the game paused, no move accepted), then
``accepted``, ``rejected``, or ``lapsed`` when the game ends otherwise (3.9.2 b, Laws
9.5; docs/claims.md)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from engine.errors import RuleViolation
from engine.events import ClaimAdvised, ClaimRuled, DrawClaimed, Event, IllegalMoveRecorded
from engine.side import Side

PENDING, ACCEPTED, REJECTED, LAPSED = "pending", "accepted", "rejected", "lapsed"


@dataclass(frozen=True)
class SideCounts:
    """A count per side (incorrect claims, illegal moves)."""

    white: int = 0
    black: int = 0

    def of(self, side: str) -> int:
        """The count of ``side``; ValueError for anything that is not a side."""
        return self.white if Side.of(side) is Side.WHITE else self.black

    def with_count(self, side: str, count: int) -> SideCounts:
        if Side.of(side) is Side.WHITE:
            return replace(self, white=count)
        return replace(self, black=count)

    def as_dict(self) -> dict[str, int]:
        return {Side.WHITE: self.white, Side.BLACK: self.black}


@dataclass(frozen=True)
class Advice:
    """The Technical Advisor's opinion on a claim (3.9.2 b)."""

    opinion: str
    advisor: str
    reason: str
    at_ms: int


@dataclass(frozen=True)
class Ruling:
    """The Chief Arbiter's (or Deputy's) decision on a claim."""

    decision: str
    arbiter: str
    verified: bool | None
    override: bool
    reason: str
    at_ms: int


@dataclass(frozen=True)
class Claim:
    """One draw claim, its verification and what became of it."""

    id: str
    side: str
    claimant: str
    kind: str
    ply: int
    at_ms: int
    intended_uci: str | None
    intended_san: str | None
    verified: bool | None
    evidence: dict[str, Any]
    status: str = PENDING
    advice: Advice | None = None
    ruling: Ruling | None = None

    @property
    def is_pending(self) -> bool:
        return self.status == PENDING

    def describe(self) -> str:
        """``claim 2 (threefold_repetition by black)``, for messages."""
        return f"claim {self.id} ({self.kind} by {self.side})"


@dataclass(frozen=True)
class ArbiterRecord:
    """Claims in the order made, and the per-side counters of one game."""

    claims: tuple[Claim, ...] = ()
    incorrect_claims: SideCounts = field(default_factory=SideCounts)
    """Rejected claims that count as incorrect (Laws 9.5; 3.7.1.b.3)."""
    illegal_moves: SideCounts = field(default_factory=SideCounts)
    """Completed illegal moves recorded by the arbiter (Laws 2009 7.4; 2023 7.5)."""

    def claim(self, claim_id: str) -> Claim | None:
        return next((c for c in self.claims if c.id == claim_id), None)

    def pending_claim(self) -> Claim | None:
        return next((c for c in self.claims if c.is_pending), None)

    def next_claim_id(self) -> str:
        """Claims are numbered 1, 2, ... per game (ids given by a command are kept)."""
        used = {c.id for c in self.claims}
        number = len(self.claims) + 1
        while str(number) in used:
            number += 1
        return str(number)

    def _with_claim(self, claim_id: str, **changes: Any) -> tuple[Claim, ...]:
        return tuple(replace(c, **changes) if c.id == claim_id else c for c in self.claims)

    def evolve(self, event: Event) -> ArbiterRecord:
        """Apply one claim or irregularity event (never refuses)."""
        match event:
            case DrawClaimed():
                claim = Claim(
                    id=event.claim,
                    side=event.side,
                    claimant=event.by,
                    kind=event.grounds,
                    ply=event.ply,
                    at_ms=event.at_ms,
                    intended_uci=event.intended_uci,
                    intended_san=event.intended_san,
                    verified=event.verified,
                    evidence=event.evidence,
                )
                return replace(self, claims=(*self.claims, claim))
            case ClaimAdvised():
                advice = Advice(event.opinion, event.advisor, event.reason, event.at_ms)
                return replace(self, claims=self._with_claim(event.claim, advice=advice))
            case ClaimRuled():
                ruling = Ruling(
                    decision=event.decision,
                    arbiter=event.arbiter,
                    verified=event.verified,
                    override=event.override,
                    reason=event.reason,
                    at_ms=event.at_ms,
                )
                status = ACCEPTED if event.decision == ACCEPTED else REJECTED
                updated = replace(
                    self, claims=self._with_claim(event.claim, status=status, ruling=ruling)
                )
                ruled = self.claim(event.claim)
                if status == REJECTED and event.incorrect_claims and ruled is not None:
                    counts = self.incorrect_claims.with_count(ruled.side, event.incorrect_claims)
                    updated = replace(updated, incorrect_claims=counts)
                return updated
            case IllegalMoveRecorded():
                return replace(
                    self, illegal_moves=self.illegal_moves.with_count(event.side, event.count)
                )
        return self

    def game_ended(self) -> ArbiterRecord:
        """A claim still pending when the game ends some other way lapses."""
        if self.pending_claim() is None:
            return self
        return replace(
            self,
            claims=tuple(replace(c, status=LAPSED) if c.is_pending else c for c in self.claims),
        )


def require_no_pending_claim(
    record: ArbiterRecord, game_id: str, action: str = "no move can be made"
) -> None:
    """While a claim is pending the game is paused (interpretation of Laws 9.5 and
    6.12: the clocks are stopped for the claim and the arbiter decides when play
    resumes): nothing but the ruling moves the game on."""
    pending = record.pending_claim()
    if pending is not None:
        raise RuleViolation(
            "9.5",
            f"{pending.describe()} is pending in game {game_id}: the game is paused "
            f"and {action} until the arbiter rules on it",
        )
