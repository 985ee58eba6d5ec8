"""The incident book judged again from the events, for the audit (pure).

Every act of the book is listed as an arbiter ruling (``arbiter_ruling``,
severity ``info``: the engine checked it when it was made), and the book is
checked against the games it changed:

- an ``IncidentRecorded`` carries a penalty that fits its kind
  (``engine.arbiter.incidents.PENALTIES_FITTING``: Laws 2009 12.3 b fixes
  ``game_lost``; 3.9.1 allows only a warning);
- every result a penalty recorded (termination ``penalty``: 13.4 d, f) has its
  incident: the same game, instant and result;
- every clock adjustment an incident made (its reason names ``incident N``) has
  that incident, with the same side and time (13.4 b, c);
- every result by ``default`` has a default ruling (Laws 2009 6.6 a) or a
  withdrawal (3.1, 3.3.3) at the same instant.

A mismatch is a ``rule`` finding: the store holds a consequence no ruling
explains, or a ruling the rules do not allow (a store edited by hand). The game
judge (``engine.audit.games``) leaves these results and adjustments to this
module instead of listing them as overrides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.arbiter.incidents import PENALTIES_FITTING
from engine.audit.findings import INFO, RULE, Finding
from engine.events import (
    ClockAdjusted,
    DefaultRuled,
    Event,
    IncidentRecorded,
    LeavePermitted,
    PlayerReturned,
    PlayerWithdrew,
    ResultRecorded,
    WithdrawalReasonRuled,
    stream_game_id,
)
from engine.termination import Termination
from engine.timefmt import format_instant

BOOK_TERMINATIONS = frozenset({Termination.PENALTY, Termination.DEFAULT})
"""Results a ruling of the book (13.4 d, f; 6.6 a) or a withdrawal (3.1, 3.3.3) made."""
INCIDENT_REASON = re.compile(r"^incident (\d+):")
"""How a consequence names its incident (``engine.arbiter.incidents``)."""


def ruling_text(event: Event) -> str | None:
    """One line for an act of the incident book, or None for another event."""
    match event:
        case IncidentRecorded():
            who = event.player or "a person who is not a player"
            where = f" in game {event.game}" if event.game else ""
            penalty = f", penalty {event.penalty}" if event.penalty else ""
            return (
                f"{event.arbiter}: incident {event.incident}, {event.kind} ({event.article}) "
                f"by {who}{where}{penalty}"
            )
        case LeavePermitted():
            return (
                f"{event.arbiter} let {event.player} leave the playing area with "
                f"{event.accompanied_by} (3.9.2 c)"
            )
        case PlayerReturned():
            return f"{event.player} returned to the playing area (3.9.2 c)"
        case DefaultRuled():
            return (
                f"{event.arbiter} ruled game {event.game} lost by default by {event.player}, "
                f"{event.result} (Laws 2009 6.6 a)"
            )
        case WithdrawalReasonRuled():
            verdict = "satisfactory" if event.satisfactory else "not satisfactory"
            return (
                f"{event.arbiter} ruled {event.player}'s reason for withdrawing {verdict} (3.3.4)"
            )
    return None


def judge_book(events: Iterable[Event]) -> list[Finding]:
    """The book's rulings and the consistency of their consequences (module docstring)."""
    findings: list[Finding] = []
    incidents: dict[str, IncidentRecorded] = {}
    defaults: set[tuple[str, int]] = set()
    withdrawals: set[int] = set()
    consequences: list[Event] = []
    for event in events:
        text = ruling_text(event)
        if text is not None:
            findings.append(Finding(INFO, "arbiter_ruling", text, event))
        if isinstance(event, IncidentRecorded):
            incidents[event.incident] = event
            fitting = PENALTIES_FITTING.get(event.kind)
            if fitting is None or (event.penalty is not None and event.penalty not in fitting):
                findings.append(
                    Finding(
                        RULE,
                        "penalty_does_not_fit",
                        f"incident {event.incident}: the penalty {event.penalty} does not fit a "
                        f"{event.kind} incident ({event.article})",
                        event,
                    )
                )
            elif event.kind == "device_sounded" and event.penalty != "game_lost":
                findings.append(
                    Finding(
                        RULE,
                        "penalty_does_not_fit",
                        f"incident {event.incident}: a sounding device loses the game "
                        "(Laws 2009 12.3 b), recorded without that penalty",
                        event,
                    )
                )
        elif isinstance(event, DefaultRuled):
            defaults.add((event.game, event.at_ms))
        elif isinstance(event, PlayerWithdrew):
            withdrawals.add(event.at_ms)
        elif isinstance(event, ResultRecorded | ClockAdjusted):
            consequences.append(event)
    for event in consequences:
        problem = _unexplained(event, incidents, defaults, withdrawals)
        if problem is not None:
            findings.append(Finding(RULE, "unexplained_penalty", problem, event))
    return findings


def _unexplained(
    event: Event,
    incidents: dict[str, IncidentRecorded],
    defaults: set[tuple[str, int]],
    withdrawals: set[int],
) -> str | None:
    game = stream_game_id(event.originator_id)
    when = format_instant(event.at_ms)
    if isinstance(event, ResultRecorded) and event.termination == Termination.PENALTY:
        if any(
            i.game == game and i.at_ms == event.at_ms and i.result == event.result
            for i in incidents.values()
        ):
            return None
        return (
            f"game {game}: {event.result} by a penalty at {when} with no incident in the "
            "book that gave it (Laws 2009 13.4 d, f)"
        )
    if isinstance(event, ResultRecorded) and event.termination == Termination.DEFAULT:
        if (str(game), event.at_ms) in defaults or event.at_ms in withdrawals:
            return None
        return (
            f"game {game}: {event.result} by default at {when} with no default ruling "
            "(Laws 2009 6.6 a) or withdrawal (3.1, 3.3.3) behind it"
        )
    named = INCIDENT_REASON.match(event.reason) if isinstance(event, ClockAdjusted) else None
    if not isinstance(event, ClockAdjusted) or named is None:
        return None
    incident = incidents.get(named.group(1))
    expected = None
    if incident is not None and incident.penalty_ms is not None:
        sign = 1 if incident.penalty == "time_added" else -1
        expected = (incident.game, incident.penalty_side, sign * incident.penalty_ms)
    if expected == (game, event.side, event.delta_ms):
        return None
    return (
        f"game {game}: {event.side}'s clock {event.delta_ms / 1000:+g} s at {when} names "
        f"incident {named.group(1)}, which gave no such penalty (Laws 2009 13.4 b, c)"
    )
