"""When a tournament's games may be dated: not before the event began (3.2).

Every instant of the contract lies in one fixed window (``engine.fields.INSTANT_WINDOW``:
1990 to 2100, so year 1, 1900 or 1970 are refused as typos). Where there is an event,
the window is the event's own: a command about a game of a tournament whose
``start_date`` is known (day 1 of the schedule, the players' arrival: 3.2) is refused
when dated before 00:00 UTC of the day before that date (a zone ahead of UTC starts
day 1 up to 14 hours earlier). The later side is the receiving process's clock (a
command dated in the future is refused, ``engine.dispatch.require_not_in_future``),
not a span after the start: an event may be suspended for a year and resumed (the
2020-21 Candidates was), and a tournament's games keep being recorded from its score
sheets long after. A score sheet without a day (``date_known`` false) dates nothing
and is not judged. Pure: the tournament's state is given.
"""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime, timedelta

from engine.commands import Command
from engine.errors import MalformedCommand
from engine.timefmt import format_instant
from engine.tournament.tournament import Tournament
from engine.world import World

ZONE_MARGIN = timedelta(days=1)
"""Day 1 in a zone ahead of UTC begins up to 14 hours before it does in UTC."""

RULE = (
    "a game of a tournament whose start_date is known is dated from 00:00 UTC of the day "
    "before that date (3.2: day 1, the arrivals, comes before any round), and never later "
    "than when the command is received (plus the future tolerance)"
)
"""The rule as the command reference states it."""


def earliest_ms(tournament: Tournament) -> int | None:
    """The earliest instant of a game of ``tournament``; None when its start is unknown."""
    return _earliest_of(tournament.start_date)


@functools.lru_cache(maxsize=64)
def _earliest_of(start_date: str) -> int | None:
    """``earliest_ms`` of a start date (asked for every command about a game: the date's
    few values are worked out once each)."""
    if not start_date:
        return None
    try:
        day = date.fromisoformat(start_date)
    except ValueError:
        return None
    start = datetime(day.year, day.month, day.day, tzinfo=UTC) - ZONE_MARGIN
    return int(start.timestamp() * 1000)


def require_within_event(cmd: Command, world: World) -> None:
    """MalformedCommand when ``cmd`` is about a game of the world's tournament and dated
    before the event began; every other command (no game, no instant, no tournament, no
    start date, a score sheet without a day) passes."""
    at_ms = getattr(cmd, "at_ms", None)
    game = getattr(cmd, "game", None)
    if not isinstance(at_ms, int) or not isinstance(game, str):
        return
    if getattr(cmd, "date_known", True) is False:
        return
    tournament = world.tournament()
    if tournament is None:
        return
    earliest = earliest_ms(tournament)
    if earliest is not None and at_ms < earliest:
        raise MalformedCommand(
            f"{cmd.cmd}: at {format_instant(at_ms)} is before the tournament "
            f"{tournament.id!r} began (start_date {tournament.start_date}): {RULE}"
        )
