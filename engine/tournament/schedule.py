"""The schedule of the event (3.2), as days and as an iCalendar file (RFC 5545).

3.2 lists 22 days for 14 rounds: arrivals, opening ceremony and players'
meeting, rounds 1-3, a free day, rounds 4-6, a free day, rounds 7-9, a free
day, rounds 10-12, a free day, rounds 13-14, tie-breaks and closing ceremony,
departures. For any number of rounds the same pattern holds: a free day
after every third round except the last. Day 1 (arrivals) is the
tournament's ``start_date``.

"The playing schedule can be changed only upon the approval of the FIDE
President": the schedule is computed from the start date, not stored.

Calendar entries are all-day events (the regulations give days, not hours).
The iCalendar text is deterministic: the ``DTSTAMP`` of every entry is the
start date, and each ``UID`` is ``<tournament>-day-<n>@candidates``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from engine.errors import MalformedCommand
from engine.tournament.tournament import Tournament

ARRIVAL, OPENING, ROUND, FREE, CLOSING, DEPARTURE = (
    "arrival",
    "opening",
    "round",
    "free",
    "tiebreaks_closing",
    "departure",
)
FREE_DAY_EVERY = 3
"""3.2: a free day after rounds 3, 6, 9 and 12."""

TITLES = {
    ARRIVAL: "Arrivals",
    OPENING: "Opening Ceremony & Players Meeting",
    FREE: "Free day",
    CLOSING: "Tiebreaks / Closing ceremony",
    DEPARTURE: "Departures",
}


@dataclass(frozen=True)
class ScheduleDay:
    """One day of the event."""

    day: int
    """1-based: day 1 is the arrival."""
    date: date
    kind: str
    round: int | None = None

    @property
    def title(self) -> str:
        return f"Round {self.round}" if self.kind == ROUND else TITLES[self.kind]


def schedule(start_date: str, rounds: int) -> list[ScheduleDay]:
    """Every day of 3.2 from the arrival day, for ``rounds`` rounds. An unknown start date
    (an event imported from games whose dates are ``????``) gives no schedule: a clear
    refusal, never days counted from an invented one."""
    if not start_date:
        raise MalformedCommand(
            "the event's start date is unknown (its games carry no date): no schedule of "
            "article 3.2 can be given; import with --start-date to state it"
        )
    try:
        first = date.fromisoformat(start_date)
    except ValueError:
        raise MalformedCommand(
            f"start date {start_date!r} is not an ISO date (e.g. 2013-03-13)"
        ) from None
    kinds: list[tuple[str, int | None]] = [(ARRIVAL, None), (OPENING, None)]
    for r in range(1, rounds + 1):
        kinds.append((ROUND, r))
        if r % FREE_DAY_EVERY == 0 and r < rounds:
            kinds.append((FREE, None))
    kinds += [(CLOSING, None), (DEPARTURE, None)]
    return [
        ScheduleDay(n, first + timedelta(days=n - 1), kind, r)
        for n, (kind, r) in enumerate(kinds, start=1)
    ]


def tournament_schedule(tournament: Tournament) -> tuple[Tournament, list[ScheduleDay]]:
    return tournament, schedule(tournament.start_date, tournament.rounds)


def known_schedule(tournament: Tournament) -> list[ScheduleDay]:
    """The days of 3.2 when the start date is known; none when it is not (the pairings and
    the rating report then show no dates rather than invented ones)."""
    return schedule(tournament.start_date, tournament.rounds) if tournament.start_date else []


def _escape(text: str) -> str:
    """RFC 5545 3.3.11 TEXT escaping."""
    return text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def _fold(line: str) -> str:
    """RFC 5545 3.1: lines longer than 75 octets continue on lines starting with a space."""
    out: list[str] = []
    current = ""
    for char in line:
        limit = 75 if not out else 74
        if len((current + char).encode()) > limit:
            out.append(current)
            current = char
        else:
            current += char
    out.append(current)
    return "\r\n ".join(out)


def to_ical(tournament: Tournament, days: list[ScheduleDay]) -> str:
    """The schedule as an iCalendar (RFC 5545) document, CRLF line ends."""
    stamp = days[0].date.strftime("%Y%m%d") + "T000000Z" if days else "19700101T000000Z"
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//candidates//tournament schedule (3.2)//EN",
        "CALSCALE:GREGORIAN",
        f"X-WR-CALNAME:{_escape(tournament.name)}",
    ]
    for d in days:
        lines += [
            "BEGIN:VEVENT",
            f"UID:{tournament.id}-day-{d.day:02d}@candidates",
            f"DTSTAMP:{stamp}",
            f"DTSTART;VALUE=DATE:{d.date.strftime('%Y%m%d')}",
            f"DTEND;VALUE=DATE:{(d.date + timedelta(days=1)).strftime('%Y%m%d')}",
            f"SUMMARY:{_escape(f'{tournament.name}: {d.title}')}",
            f"DESCRIPTION:{_escape(f'Day {d.day} of {len(days)} (article 3.2)')}",
            f"CATEGORIES:{d.kind.upper()}",
            "TRANSP:TRANSPARENT" if d.kind != ROUND else "TRANSP:OPAQUE",
            "END:VEVENT",
        ]
    lines.append("END:VCALENDAR")
    return "".join(_fold(line) + "\r\n" for line in lines)
