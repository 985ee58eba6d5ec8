"""The arbiters' clock commands: ``adjust_clock`` and ``check_flags``.

All durations are integer milliseconds.

``adjust_clock {game, side, delta_ms, reason, arbiter, at}``: the Chief
Arbiter or the Deputy adds time to one side (``delta_ms`` > 0) or takes it
(< 0), with a reason: a penalty (Laws 2009, 7.4 b: 2 minutes to the opponent
of an illegal move; 9.5 and 3.7.1.b(3): 3 minutes to the opponent of an
incorrect claim), a correction of a mis-set clock (6.10 b) or of the times
after an irregularity (6.13). It records ``ClockAdjusted`` on the game
stream, which the regulation clock applies; time never goes below zero.
Under ``candidates-2012-unsupervised`` an adjustment after the regulation flag
has fallen is refused (the game ended at that instant, 6.9): the arbiter gives
an ``at`` before the flag fell, or records the result. Under the supervised
profiles the regulation clock is a model and the arbiter may set it right after
dismissing a flag (``rule_flag`` not_fallen, 6.10 a).

``check_flags {game?, games?, at}``: ``candidates serve`` sends it every
second; every named game (or every started game of the tournament's
schedule) whose regulation flag has fallen by ``at`` gets a ``flag_fall``
alert for the arbiters, once (supervised), or is ended on time
(unsupervised; ``engine.game.flags``). Games whose flags stand are left alone;
the answer lists no events then.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.commands import Command
from engine.errors import MalformedCommand, RuleViolation, UnknownGame
from engine.events import ClockAdjusted, ClockReadingRecorded, Event
from engine.game.flags import automatic, fallen_flag, flag_check
from engine.game.state import Game, require_in_progress
from engine.timefmt import format_instant
from engine.tournament.tournament import Tournament, require_ruling_arbiter


def adjust_clock(tournament: Tournament | None, game: Game | None, cmd: Command) -> list[Event]:
    """Record an arbiter's clock adjustment (7.4 b, 9.5, 6.10 b, 6.13)."""

    g = require_in_progress(game, cmd["game"])
    require_ruling_arbiter(tournament, cmd["arbiter"], "adjust a clock")
    delta: int = cmd["delta_ms"]
    reason: str = cmd["reason"].strip()
    if not reason:
        raise MalformedCommand("adjust_clock needs a reason (a penalty, a correction)")
    if delta == 0:
        raise MalformedCommand("adjust_clock: delta_ms is 0, nothing to adjust")
    at_ms: int = cmd["at_ms"]
    fallen = fallen_flag(g.clock, at_ms) if automatic(g) else None
    if fallen is not None:
        side, falls = fallen
        raise RuleViolation(
            "6.9",
            f"game {g.game_id}: {side}'s flag fell at {format_instant(falls)}, before this "
            f"adjustment at {format_instant(at_ms)}; adjust at an earlier instant or record "
            "the result",
        )
    return [
        ClockAdjusted(
            originator_id=g.stream,
            originator_version=g.version + 1,
            at_ms=at_ms,
            by=cmd["arbiter"],
            side=cmd["side"],
            delta_ms=delta,
            reason=reason,
            arbiter=cmd["arbiter"],
        )
    ]


def check_flags(
    tournament: Tournament | None,
    game_of: Callable[[str], Game | None],
    cmd: Command,
    device_of: Callable[[str], ClockReadingRecorded | None] = lambda _game_id: None,
) -> list[Event]:
    """Look at the regulation flag of every named (or scheduled and started) game:
    a ``flag_fall`` alert for the arbiters (supervised profiles, 6.8), or the result
    (``candidates-2012-unsupervised``, 6.9). ``device_of``: a game's last device
    reading, for the alert's evidence."""
    named: list[str] = []
    if cmd.get("game"):
        named.append(cmd["game"])
    for item in cmd.get("games") or []:
        if not isinstance(item, str) or not item:
            raise MalformedCommand(f"check_flags: game ids must be strings, got {item!r}")
        named.append(item)
    explicit = bool(named)
    if not named:
        if tournament is None:
            raise MalformedCommand("check_flags: no tournament; name the game(s) to check")
        named = list(tournament.pairings())
    by: str = cmd.get("by") or "clock"
    events: list[Event] = []
    for game_id in dict.fromkeys(named):
        game = game_of(game_id)
        if game is not None:
            events.extend(flag_check(game, cmd["at_ms"], by, device_of(game_id))[0])
        elif explicit:
            # A named game that does not exist is a mistake to report, not a quiet "ok".
            raise UnknownGame(f"check_flags: game {game_id!r} has not been started")
    return events
