"""The arbiters' record of a game as PGN comments, each at the ply it happened after.

``ply_comments`` folds a game's stream; each event type with a describer in
``DESCRIBERS`` adds a sentence a reader of the game understands, with the players'
and arbiters' names (``projections.names``), never the engine's ids or codes. A new
kind of record gets its comment by adding a describer."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
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
from engine.scores import game_points, is_individual, nearest_pgn_result, score_text
from engine.timefmt import clock_text, format_instant
from projections.names import Names, possessive

Describer = Callable[[Any, Names], str | None]
"""An event and the names of its tournament and game -> a comment in words, or None."""

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


def _duration(ms: int) -> str:
    seconds = abs(ms) // 1000
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"


def _sentence(text: str) -> str:
    """A comment is a sentence: a capital first, a full stop last."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def describe_claim(event: DrawClaimed, names: Names) -> str:
    verb = "claim" if event.side == "both" else "claims"
    text = f"{names.side(event.side)} {verb} a draw by {words(event.grounds)} (claim {event.claim}"
    if event.intended_san:
        text += f", writing {event.intended_san}"
    verdict = {True: "verified", False: "not verified", None: "for the arbiter to judge"}
    return _sentence(text + f"; {verdict[event.verified]})")


def describe_advice(event: ClaimAdvised, names: Names) -> str:
    return _sentence(
        f"{names.arbiter(event.advisor)} advises on claim {event.claim}: {words(event.opinion)}"
    )


def describe_ruling(event: ClaimRuled, names: Names) -> str:
    side = names.claims.get(event.claim) if isinstance(names, GameNames) else None
    whose = f"{possessive(names.side_name(side))} claim" if side in ("white", "black") else "claim"
    text = f"{names.arbiter(event.arbiter)} {event.decision} {whose} {event.claim}"
    if event.override:
        text += " (overriding the verification)"
    if event.reason:
        text += f": {event.reason}"
    return _sentence(text)


def describe_illegal_move(event: IllegalMoveRecorded, names: Names) -> str:
    move = f" ({event.move})" if event.move else ""
    return _sentence(
        f"Illegal move{move} by {names.side(event.side)}, recorded by "
        f"{names.arbiter(event.arbiter)} (number {event.count} in this game)"
    )


def describe_clock_adjustment(event: ClockAdjusted, names: Names) -> str:
    change = "added" if event.delta_ms > 0 else "took"
    onto = "to" if event.delta_ms > 0 else "from"
    text = (
        f"{names.arbiter(event.arbiter)} {change} {_duration(event.delta_ms)} {onto} "
        f"{possessive(names.side_name(event.side))} clock"
    )
    return _sentence(text + (f" ({event.reason})" if event.reason else ""))


def describe_flag_ruling(event: FlagRuled, names: Names) -> str:
    """The arbiter's ruling on a flag (Laws 2009 6.8, 6.9, 6.10 a, 6.11), in words."""
    who = names.arbiter(event.arbiter)
    if event.decision == "both_fallen":
        last = bool(event.evidence.get("last_period"))
        text = (
            f"{who}: both flags down, which fell first cannot be established "
            f"(Laws 2009 6.11): {'drawn in the last period' if last else 'play goes on'}"
        )
    else:
        ruled = "fallen" if event.decision == "fallen" else "not fallen"
        text = f"{who} rules {possessive(names.side_name(event.side))} flag {ruled}"
    if event.override:
        text += " (against the evidence)"
    return text + (f": {event.reason}" if event.reason else "")


def describe_result(event: ResultRecorded, names: Names) -> str | None:
    """A result the arbiter declared says why, and a result that gives each player his own
    score says what each scored (the PGN Result can only hold the nearest legal result);
    others are the Result and Termination tags (an accepted claim has its ruling's comment)."""
    parts: list[str] = []
    if event.arbiter is not None and event.termination == "arbiter_decision":
        reason = f": {event.reason}" if event.reason else ""
        parts.append(
            _sentence(f"{names.arbiter(event.arbiter)} declared the result {event.result}{reason}")
        )
    if is_individual(event.result, event.scores):
        parts.append(scores_comment(event.result, event.scores, event.reason, names))
    return " ".join(parts) or None


def scores_comment(result: str, scores: str | None, reason: str, names: Names) -> str:
    """``Kramnik (White) scores 0 and Carlsen (Black) 1/2 (...)``: each player's own score,
    beside the nearest legal PGN result (Laws 2009 12.3 b; 6.6 a double default)."""
    points = game_points(result, scores)
    assert points is not None
    white, black = (score_text(v) for v in points)
    why = f" ({reason})" if reason else ""
    return _sentence(
        f"{names.side('white')} scores {white} and {names.side('black')} {black}{why}; "
        f"the PGN result {nearest_pgn_result(result, scores)} is the nearest the format allows"
    )


def correction_comment(event: MovesCorrected | ResultCorrected, names: Names) -> str:
    """A correction in words (Laws 2009 7.4 a, 6.13): who, when, what it replaced, why."""
    who = f"{names.arbiter(event.arbiter)} ({format_instant(event.at_ms)})"
    if isinstance(event, MovesCorrected):
        was = " ".join(event.replaced_san) or "no move"
        now = " ".join(event.san) or "no move"
        text = f"{who} corrected the moves after ply {event.from_ply}: they were {was}, now {now}"
        if event.white_ms is not None or event.black_ms is not None:
            shown = [
                f"{possessive(names.side_name(side))} {clock_text(ms)}"
                for side, ms in (("white", event.white_ms), ("black", event.black_ms))
                if ms is not None
            ]
            text += "; clocks set to " + ", ".join(shown)
    else:
        was = f"{event.replaced_result} ({words(event.replaced_termination or '')})"
        now = (
            f"{event.result} ({words(event.termination or '')})"
            if event.result
            else "withdrawn, play resumed"
        )
        text = f"{who} corrected the result: {was}, now {now}"
    reason = event.reason.rstrip(". ")
    return f"{_sentence(text)} Reason: {reason}."


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


@dataclass(frozen=True)
class GameNames(Names):
    """The names, and who made each claim of the game so far (claim id -> side), so a
    ruling names the claimant: "rejected Svidler's claim 1"."""

    claims: dict[str, str] = field(default_factory=dict)


def ply_comments(events: Iterable[Event], names: Names | None = None) -> dict[int, list[str]]:
    """Ply -> the comments of what happened after that move (0: before any move), in
    sentences with the names of ``names`` (ids where none are given).

    A correction of the moves is written after the last move that stood (before
    the first move when the whole line was replaced); the moves it put in their
    place count from there."""
    base = names or Names()
    claims: dict[str, str] = {}
    context = GameNames(
        players=base.players,
        arbiters=base.arbiters,
        white=base.white,
        black=base.black,
        games=base.games,
        claims=claims,
    )
    comments: dict[int, list[str]] = {}
    ply = 0
    for event in events:
        if isinstance(event, MovePlayed):
            ply = event.ply
            continue
        if isinstance(event, DrawClaimed):
            claims[event.claim] = event.side
        describe = DESCRIBERS.get(type(event).__name__)
        text = describe(event, context) if describe is not None else None
        at = getattr(event, "ply", None)
        if isinstance(event, MovesCorrected):
            at, ply = event.from_ply, event.from_ply + len(event.uci)
        if text:
            comments.setdefault(at if isinstance(at, int) else ply, []).append(text)
    return comments
