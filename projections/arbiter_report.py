"""The Chief Arbiter's report: every incident, ruling, penalty, claim and flag, in time order.

FIDE asks the Chief Arbiter of an event for a report of what the arbiters ruled on;
this projection folds the stored events into that list, one entry per arbiter's act
or rule's consequence, each with its article and a summary in words with people's
names. ``SOURCES`` maps an event type to the function that makes its entry, so a new
kind of ruling is one more function and one more line (docs/incidents.md)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypedDict

from engine.arbiter.penalties import PENALTIES
from engine.events import (
    ClaimAdvised,
    ClaimRuled,
    ClockAdjusted,
    DefaultRuled,
    DrawClaimed,
    Event,
    FlagRuled,
    IllegalMoveRecorded,
    IncidentRecorded,
    LeavePermitted,
    MovesCorrected,
    PlayerReturned,
    PlayerWithdrew,
    ResultCorrected,
    ResultRecorded,
    WithdrawalReasonRuled,
    stream_game_id,
)
from engine.termination import ON_TIME, Termination
from engine.timefmt import format_instant
from projections.names import Names, possessive


class Entry(TypedDict):
    """One line of the report: when, what kind, which game and people, the article, and
    what happened in words."""

    at: str
    category: str
    type: str
    game: str | None
    player: str | None
    arbiter: str | None
    article: str
    summary: str


ReportSource = Callable[[Event, Names], Entry | None]

BOOK_TERMINATIONS = frozenset({Termination.PENALTY, Termination.DEFAULT})
"""Results that an incident (13.4 d, f), a default (6.6 a) or a withdrawal (3.1) decided:
their own entry states the result."""

FLAG_TERMINATIONS = frozenset(ON_TIME)
"""Results a flag fall decided (Laws 2009 6.9)."""


def entry(
    event: Event,
    category: str,
    article: str,
    summary: str,
    *,
    player: str | None = None,
    arbiter: str | None = None,
    game: str | None = None,
) -> Entry:
    return {
        "at": format_instant(event.at_ms),
        "category": category,
        "type": type(event).__name__,
        "game": game if game is not None else stream_game_id(event.originator_id),
        "player": player,
        "arbiter": arbiter if arbiter is not None else event.by,
        "article": article,
        "summary": summary,
    }


def _minutes(ms: int) -> str:
    seconds = ms / 1000
    return f"{seconds / 60:g} min" if seconds % 60 == 0 else f"{seconds:g} s"


def incident(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, IncidentRecorded)
    who = names.player(event.player) if event.player else "a person who is not a player"
    where = f" in game {event.game}" if event.game else ""
    by = names.arbiter(event.arbiter)
    text = (
        f"incident {event.incident}: {event.kind.replace('_', ' ')} ({who}{where}), "
        f"recorded by {by}: "
    )
    text += event.details
    article = event.article
    if event.penalty is not None:
        penalty = event.penalty.replace("_", " ")
        if event.penalty_ms is not None and event.penalty_side is not None:
            whose = possessive(names.in_game(event.game).side_name(event.penalty_side))
            penalty += f" ({_minutes(event.penalty_ms)}, {whose} clock)"
        if event.points is not None:
            penalty += f" ({event.points} point)"
        if event.result is not None:
            penalty += f"; result {event.result}"
            if event.scores:
                penalty += f", each player's own score {event.scores}"
        text += f". Penalty: {penalty}"
        article += f"; {PENALTIES.get(event.penalty, 'Laws 2009 13.4')}"
    return entry(
        event,
        "incident",
        article,
        text,
        player=event.player,
        arbiter=event.arbiter,
        game=event.game,
    )


def leave(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, LeavePermitted)
    return entry(
        event,
        "permission",
        "3.9.2 c",
        f"{names.player(event.player)} left the playing area with the permission of "
        f"{names.arbiter(event.arbiter)}, accompanied by {names.arbiter(event.accompanied_by)}",
        player=event.player,
        arbiter=event.arbiter,
        game=event.game,
    )


def back(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, PlayerReturned)
    return entry(
        event,
        "permission",
        "3.9.2 c",
        f"{names.player(event.player)} returned to the playing area with "
        f"{names.arbiter(event.accompanied_by)} after {_minutes(event.at_ms - event.left_at_ms)}",
        player=event.player,
        game=event.game,
    )


def default(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, DefaultRuled)
    return entry(
        event,
        "ruling",
        "Laws 2009 6.6 a; 3.3.7",
        f"{names.player(event.player)} ({event.side}) was not at the board at the start; "
        f"{names.arbiter(event.arbiter)} ruled the game lost by default, {event.result} "
        f"(default time {_minutes(event.default_time_ms)})",
        player=event.player,
        arbiter=event.arbiter,
        game=event.game,
    )


def withdrawal_reason(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, WithdrawalReasonRuled)
    verdict = (
        "satisfactory"
        if event.satisfactory
        else "not satisfactory: excluded from the next World Championship cycle"
    )
    return entry(
        event,
        "ruling",
        "3.3.4",
        f"{possessive(names.player(event.player))} reason for withdrawing is {verdict} "
        f"({event.reason})",
        player=event.player,
        arbiter=event.arbiter,
    )


def claim(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, DrawClaimed)
    verified = {True: "verified", False: "not verified", None: "for the arbiter's judgement"}
    made = entry(
        event,
        "claim",
        "3.9.2 b",
        f"{names.in_game(event.game).side(event.side)} claimed a draw "
        f"({event.grounds.replace('_', ' ')}, claim {event.claim}) at ply {event.ply}: "
        f"{verified[event.verified]}",
        player=event.by,
        game=event.game,
    )
    made["arbiter"] = None  # the player claims; the ruling names the arbiter
    return made


def advice(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, ClaimAdvised)
    return entry(
        event,
        "claim",
        "3.9.2 b",
        f"the opinion of {names.arbiter(event.advisor)} on claim {event.claim}: {event.opinion}"
        + (f" ({event.reason})" if event.reason else ""),
        arbiter=event.advisor,
        game=event.game,
    )


def claim_ruling(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, ClaimRuled)
    text = f"{names.arbiter(event.arbiter)} {event.decision} claim {event.claim}"
    if event.override:
        text += " against the verification"
    if event.reason:
        text += f" ({event.reason})"
    return entry(event, "ruling", "3.9.2 b", text, arbiter=event.arbiter, game=event.game)


def illegal_move(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, IllegalMoveRecorded)
    move = f" ({event.move})" if event.move else ""
    return entry(
        event,
        "penalty",
        "Laws 2009 7.4",
        f"illegal move{move} by {names.in_game(event.game).side(event.side)}, recorded by "
        f"{names.arbiter(event.arbiter)} (number {event.count} in this game)",
        player=event.player,
        arbiter=event.arbiter,
        game=event.game,
    )


ARTICLE_IN_REASON = re.compile(
    r"(Laws \d{4} [\d.]+(?: [a-g]\b)?(?: \([^)]*\))?|3\.[\d.]+[a-z.\d]*)"
)
"""An article a reason names (``Laws 2009 13.4 c``, ``Laws 2009 7.4 b``, ``3.7.1.b.3``)."""


def clock(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, ClockAdjusted)
    named = ARTICLE_IN_REASON.findall(event.reason)
    return entry(
        event,
        "clock",
        named[-1] if named else "Laws 2009 6.10 b, 6.13",
        f"{names.arbiter(event.arbiter)}: "
        f"{possessive(names.in_game(_game_of(event)).side_name(event.side))} clock "
        f"{event.delta_ms / 1000:+g} s: {event.reason}",
        arbiter=event.arbiter,
    )


def result(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, ResultRecorded)
    if event.termination in FLAG_TERMINATIONS:
        both = event.termination == Termination.BOTH_FLAGS_FALLEN
        return entry(
            event,
            "flag",
            "Laws 2009 6.11" if both else "Laws 2009 6.9",
            f"flag fell: {event.result} ({event.reason or event.termination})",
        )
    if event.arbiter is None:
        return None  # the board, a resignation, an import: not an arbiter's act
    if event.termination in BOOK_TERMINATIONS:
        return None  # the incident, default or withdrawal entry states the result
    summary = (
        f"{names.arbiter(event.arbiter)} declared {event.result} ({event.termination}): "
        f"{event.reason}"
    )
    if event.termination == Termination.DEAD_POSITION:
        return entry(
            event,
            "result",
            "Laws 2009 5.2 b, 13.1",
            summary + dead_position_evidence(event),
            arbiter=event.arbiter,
        )
    return entry(event, "result", "Laws 2009 13.1", summary, arbiter=event.arbiter)


def dead_position_evidence(event: ResultRecorded) -> str:
    """What the engine's search said of a draw declared for a dead position (Laws 2009
    5.2 b): dead, or the arbiter's ruling it could not verify; nothing for a draw
    recorded before the search existed."""
    evidence = event.evidence
    if evidence is None:
        return ""
    if evidence["verdict"] == "dead":
        return f". The engine: {evidence['summary']}"
    if evidence["verdict"] == "unproven":
        return f". The arbiter's ruling, which the engine could not verify: {evidence['summary']}"
    return ""


def withdrawal(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, PlayerWithdrew)
    return entry(
        event,
        "withdrawal",
        "3.3.3" if event.rule == "first_round_default" else "3.1",
        f"{names.player(event.player)} withdrew after {event.games_completed} of "
        f"{event.games_total} games "
        f"({event.rule.replace('_', ' ')}): {event.reason}",
        player=event.player,
        arbiter=event.arbiter,
    )


def moves_corrected(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, MovesCorrected)
    was = " ".join(event.replaced_san) or "nothing"
    now = " ".join(event.san) or "nothing"
    return entry(
        event,
        "correction",
        "Laws 2009 7.4 a, 6.13",
        f"{names.arbiter(event.arbiter)} corrected the moves after ply {event.from_ply}: "
        f"{was} -> {now} ({event.reason})",
        arbiter=event.arbiter,
        game=event.game,
    )


def result_corrected(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, ResultCorrected)
    now = f"{event.result} ({event.termination})" if event.result else "withdrawn, play resumes"
    return entry(
        event,
        "correction",
        "Laws 2009 13.1",
        f"{names.arbiter(event.arbiter)} corrected the result: {event.replaced_result} "
        f"({event.replaced_termination}) -> {now} ({event.reason})",
        arbiter=event.arbiter,
        game=event.game,
    )


def flag_ruling(event: Event, names: Names) -> Entry | None:
    assert isinstance(event, FlagRuled)
    who = names.arbiter(event.arbiter)
    if event.decision == "both_fallen":  # Laws 2009 6.11: the order cannot be established
        last = bool(event.evidence.get("last_period"))
        text = f"{who} ruled both flags fallen, which fell first unknown"
        text += " (a draw in the last period)" if last else " (play goes on: not the last period)"
        article = "Laws 2009 6.8, 6.11"
    else:
        whose = possessive(names.in_game(event.game).side_name(event.side))
        text = f"{who} ruled {whose} flag {event.decision.replace('_', ' ')}"
        article = (
            "Laws 2009 6.8, 6.9, 6.10 a" if event.decision == "fallen" else "Laws 2009 6.8, 6.10 a"
        )
    if event.override:
        text += " against the regulation clock" if event.decision == "not_fallen" else ""
        text += "" if event.decision == "not_fallen" else " against the evidence"
    if event.reason:
        text += f" ({event.reason})"
    return entry(event, "flag", article, text, arbiter=event.arbiter, game=event.game)


SOURCES: dict[str, ReportSource] = {
    "IncidentRecorded": incident,
    "LeavePermitted": leave,
    "PlayerReturned": back,
    "DefaultRuled": default,
    "WithdrawalReasonRuled": withdrawal_reason,
    "DrawClaimed": claim,
    "ClaimAdvised": advice,
    "ClaimRuled": claim_ruling,
    "IllegalMoveRecorded": illegal_move,
    "ClockAdjusted": clock,
    "ResultRecorded": result,
    "PlayerWithdrew": withdrawal,
    "MovesCorrected": moves_corrected,
    "ResultCorrected": result_corrected,
    "FlagRuled": flag_ruling,
}
"""Event type name -> its entry in the report. Extend here for a new kind of ruling."""


def _game_of(event: Event) -> str | None:
    return stream_game_id(event.originator_id)


def report_entries(events: Iterable[Event], names: Names | None = None) -> list[Entry]:
    """The report's entries in time order (stored order within one instant), in words
    with the players' and arbiters' names (``projections.names``; ids without them)."""
    names = names or Names()
    out: list[tuple[int, int, Entry]] = []
    for order, event in enumerate(events):
        source = SOURCES.get(type(event).__name__)
        if source is None:
            continue
        made = source(event, names)
        if made is not None:
            out.append((event.at_ms, order, made))
    out.sort(key=lambda item: (item[0], item[1]))
    return [e for _, _, e in out]
