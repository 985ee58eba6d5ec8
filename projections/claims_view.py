"""The claims part of the ``game`` query object: every draw claim with its
verification and status, and the per-side counters of incorrect claims and
illegal moves, as the arbiters, the gateway and the audit see them.

A claim: ``{id, by, claimant, kind, at, ply, intended_move, intended_uci,
status: pending|accepted|rejected|lapsed, verified: true|false|null,
evidence: {...}, advice: {opinion, advisor, reason, at} | null, ruling:
{decision, arbiter, verified, override, reason, at} | null}``.
"""

from __future__ import annotations

from typing import Any, TypedDict

from engine.game.record import ArbiterRecord, Claim, SideCounts
from engine.timefmt import format_instant
from projections.shapes import PerSide


class AdviceShown(TypedDict):
    """The Technical Advisor's opinion on a claim."""

    opinion: str
    advisor: str
    reason: str
    at: str


class RulingShown(TypedDict):
    """The arbiter's ruling on a claim."""

    decision: str
    arbiter: str
    verified: bool | None
    override: bool
    reason: str
    at: str


class ClaimShown(TypedDict):
    """One draw claim with its verification and status."""

    id: str
    by: str
    claimant: str
    kind: str
    at: str
    ply: int
    intended_move: str | None
    intended_uci: str | None
    status: str
    verified: bool | None
    evidence: dict[str, object]
    """What the verification found: its keys depend on the claim's kind (an open map)."""
    advice: AdviceShown | None
    ruling: RulingShown | None


class ClaimsPart(TypedDict):
    """``claims``, ``incorrect_claims`` and ``illegal_moves`` of the game object."""

    claims: list[ClaimShown]
    incorrect_claims: PerSide
    illegal_moves: PerSide


def _plain(value: Any) -> Any:
    """Tuples as lists, so the object reads the same before and after storage."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def claim_view(claim: Claim) -> ClaimShown:
    advice = claim.advice
    ruling = claim.ruling
    return {
        "id": claim.id,
        "by": claim.side,
        "claimant": claim.claimant,
        "kind": claim.kind,
        "at": format_instant(claim.at_ms),
        "ply": claim.ply,
        "intended_move": claim.intended_san,
        "intended_uci": claim.intended_uci,
        "status": claim.status,
        "verified": claim.verified,
        "evidence": {str(k): _plain(v) for k, v in claim.evidence.items()},
        "advice": None
        if advice is None
        else {
            "opinion": advice.opinion,
            "advisor": advice.advisor,
            "reason": advice.reason,
            "at": format_instant(advice.at_ms),
        },
        "ruling": None
        if ruling is None
        else {
            "decision": ruling.decision,
            "arbiter": ruling.arbiter,
            "verified": ruling.verified,
            "override": ruling.override,
            "reason": ruling.reason,
            "at": format_instant(ruling.at_ms),
        },
    }


def claims_view(record: ArbiterRecord) -> ClaimsPart:
    """``claims``, ``incorrect_claims`` and ``illegal_moves`` of the game object."""
    return {
        "claims": [claim_view(c) for c in record.claims],
        "incorrect_claims": per_side(record.incorrect_claims),
        "illegal_moves": per_side(record.illegal_moves),
    }


def per_side(counts: SideCounts) -> PerSide:
    return {"white": counts.white, "black": counts.black}
