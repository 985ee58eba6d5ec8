"""The arbiters' record of a game as PGN comments, each at the ply it happened after.

``ply_comments(events)`` folds a game's stream: a move sets the ply, and every
event that has a describer in ``DESCRIBERS`` (by event type name) adds a
comment at the current ply (or at the ``ply`` the event names itself: a claim
or an illegal move is recorded with the moves played when it was made). A new
kind of record (a correction, an incident) gets its comment by adding a
describer: ``DESCRIBERS["IncidentRecorded"] = describe_incident``. The arbiter's
corrections (``correct_moves``, ``correct_result``: Laws 2009 7.4 a) are
written so, naming the arbiter, the instant, what was replaced and the reason.

Comments are plain words a reader of the game understands ("White claims a
draw by threefold repetition"), not the engine's codes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engine.events import (
    ClaimAdvised,
    ClaimRuled,
    ClockAdjusted,
    DrawClaimed,
    Event,
    FlagRuled,
    IllegalMoveRecorded,
    MovePlayed,
    MovesCorrected,
    ResultCorrected,
    ResultRecorded,
)
from engine.timefmt import clock_text, format_instant

Describer = Callable[[Any], str | None]

WORDS = {
    "threefold_repetition": "threefold repetition",
    "fifty_moves": "the fifty-move rule",
    "perpetual_check": "perpetual check",
    "stalemate": "stalemate",
    "insufficient_material": "insufficient material",
    "theoretical_draw": "a theoretical draw",
    "not_draw": "not a draw",
    "draw": "a draw",
}
"""Engine names -> words, for comments and the pages."""


def words(name: str) -> str:
    return WORDS.get(name, name.replace("_", " "))


def _side(side: str) -> str:
    return {"white": "White", "black": "Black", "both": "Both players"}.get(side, side)


def _duration(ms: int) -> str:
    seconds = abs(ms) // 1000
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"


def describe_claim(event: DrawClaimed) -> str:
    verb = "claim" if event.side == "both" else "claims"
    text = f"{_side(event.side)} {verb} a draw by {words(event.grounds)} (claim {event.claim}"
    if event.intended_san:
        text += f", writing {event.intended_san}"
    verdict = {True: "verified", False: "not verified", None: "for the arbiter to judge"}
    return text + f"; {verdict[event.verified]})"


def describe_advice(event: ClaimAdvised) -> str:
    return f"Technical Advisor on claim {event.claim}: {words(event.opinion)}"


def describe_ruling(event: ClaimRuled) -> str:
    text = f"Arbiter {event.arbiter} {event.decision} claim {event.claim}"
    if event.override:
        text += " (overriding the verification)"
    if event.reason:
        text += f": {event.reason}"
    return text


def describe_illegal_move(event: IllegalMoveRecorded) -> str:
    move = f" ({event.move})" if event.move else ""
    return (
        f"Illegal move{move} by {_side(event.side)}, recorded by arbiter {event.arbiter} "
        f"(number {event.count} in this game)"
    )


def describe_clock_adjustment(event: ClockAdjusted) -> str:
    change = "added to" if event.delta_ms > 0 else "taken from"
    text = f"Arbiter {event.arbiter}: {_duration(event.delta_ms)} {change} {event.side}'s clock"
    return text + (f" ({event.reason})" if event.reason else "")


def describe_flag_ruling(event: FlagRuled) -> str:
    """The arbiter's ruling on a flag (Laws 2009 6.8, 6.9, 6.10 a, 6.11), in words."""
    if event.decision == "both_fallen":
        last = bool(event.evidence.get("last_period"))
        text = (
            f"Arbiter {event.arbiter}: both flags down, which fell first cannot be established "
            f"(Laws 2009 6.11): {'drawn in the last period' if last else 'play goes on'}"
        )
    else:
        ruled = "fallen" if event.decision == "fallen" else "not fallen"
        text = f"Arbiter {event.arbiter} rules {_side(event.side)}'s flag {ruled}"
    if event.override:
        text += " (against the evidence)"
    return text + (f": {event.reason}" if event.reason else "")


def describe_result(event: ResultRecorded) -> str | None:
    """A result the arbiter declared says why; others are the Result and Termination tags
    (an accepted claim has its ruling's comment)."""
    if event.arbiter is None or event.termination != "arbiter_decision":
        return None
    reason = f": {event.reason}" if event.reason else ""
    return f"Result {event.result} declared by arbiter {event.arbiter}{reason}"


def correction_comment(event: MovesCorrected | ResultCorrected) -> str:
    """A correction in words (Laws 2009 7.4 a, 6.13): who, when, what it replaced, why."""
    who = f"{event.arbiter}, {format_instant(event.at_ms)}"
    if isinstance(event, MovesCorrected):
        was = " ".join(event.replaced_san) or "no move"
        now = " ".join(event.san) or "no move"
        text = (
            f"Corrected by the arbiter ({who}): the moves after ply {event.from_ply} were "
            f"{was}, now {now}"
        )
        if event.white_ms is not None or event.black_ms is not None:
            shown = [
                f"{side} {clock_text(ms)}"
                for side, ms in (("white", event.white_ms), ("black", event.black_ms))
                if ms is not None
            ]
            text += "; clock set to " + ", ".join(shown)
    else:
        was = f"{event.replaced_result} ({event.replaced_termination})"
        now = f"{event.result} ({event.termination})" if event.result else "withdrawn, play resumed"
        text = f"Result corrected by the arbiter ({who}): {was}, now {now}"
    reason = event.reason.rstrip(". ")
    return f"{text}. Reason: {reason}."


DESCRIBERS: dict[str, Describer] = {
    "DrawClaimed": describe_claim,
    "ClaimAdvised": describe_advice,
    "ClaimRuled": describe_ruling,
    "IllegalMoveRecorded": describe_illegal_move,
    "ClockAdjusted": describe_clock_adjustment,
    "FlagRuled": describe_flag_ruling,
    "ResultRecorded": describe_result,
    "MovesCorrected": correction_comment,
    "ResultCorrected": correction_comment,
}


def ply_comments(events: Iterable[Event]) -> dict[int, list[str]]:
    """Ply -> the comments of what happened after that move (0: before any move).

    A correction of the moves is written after the last move that stood (before
    the first move when the whole line was replaced); the moves it put in their
    place count from there."""
    comments: dict[int, list[str]] = {}
    ply = 0
    for event in events:
        if isinstance(event, MovePlayed):
            ply = event.ply
            continue
        describe = DESCRIBERS.get(type(event).__name__)
        text = describe(event) if describe is not None else None
        at = getattr(event, "ply", None)
        if isinstance(event, MovesCorrected):
            at, ply = event.from_ply, event.from_ply + len(event.uci)
        if text:
            comments.setdefault(at if isinstance(at, int) else ply, []).append(text)
    return comments
