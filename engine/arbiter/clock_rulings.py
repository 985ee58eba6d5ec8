"""The arbiters' clock commands: ``adjust_clock`` and ``check_flags``.

``adjust_clock`` adds or takes time from one side with a reason (a penalty, 7.4 b,
9.5; a mis-set clock, 6.10 b; an irregularity, 6.13), never below zero and never
beside a flag the arbiter has not ruled yet (6.8). ``check_flags``, sent every second
by ``candidates serve``, alerts the arbiters to each regulation flag that has fallen
(supervised play), or ends the game on time (unsupervised). Durations are integer
milliseconds; the rules by profile are in docs/clocks.md."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.commands import Command, command
from engine.errors import (
    GameNotInProgress,
    MalformedCommand,
    RuleViolation,
    UnknownGame,
)
from engine.events import AlertRaised, ClockAdjusted, ClockReadingRecorded, Event, ResultRecorded
from engine.fields import Instant
from engine.game.flags import automatic, fallen_flag, flag_check
from engine.game.state import Game, require_in_progress
from engine.side import Side
from engine.timefmt import format_instant
from engine.tournament.tournament import RULING_ROLES, Tournament, require_ruling_arbiter
from engine.world import World


@command(
    "adjust_clock",
    summary="An arbiter adds or takes time on one side's clock (Laws 6.10 b, 6.13, 7.4 b, 9.5).",
    roles=RULING_ROLES,
    events=(ClockAdjusted,),
    in_time_order=True,
    refusals=(
        (UnknownGame, "", "the game has not been started"),
        (GameNotInProgress, "", "the game is finished"),
        (MalformedCommand, "", "no reason, or delta_ms of 0"),
        (RuleViolation, "6.9", "a flag fell before the adjustment's instant"),
        (
            RuleViolation,
            "6.8",
            "a flag_fall alert of the game stands unruled: the arbiter rules the flag first",
        ),
    ),
    notes={
        "side": "the side whose clock is adjusted: `white` or `black`",
        "delta_ms": "milliseconds added (positive) or taken (negative)",
        "reason": "why, in words, for the record",
    },
)
@dataclass(frozen=True, kw_only=True)
class AdjustClock(Command):
    game: str
    side: Side
    delta_ms: int
    reason: str
    arbiter: str
    at_ms: Instant

    def decide(self, world: World) -> list[Event]:
        return adjust_clock(world.tournament(), world.game(self.game), self)


@command(
    "check_flags",
    summary="Looks at the regulation flag of every named (or started) game: a flag_fall alert "
    "for the arbiters (Laws 6.8), or the result in unsupervised play (6.9).",
    events=(ResultRecorded, AlertRaised),
    refusals=(
        (UnknownGame, "", "a named game has not been started"),
        (
            MalformedCommand,
            "",
            "game ids that are not strings, or no tournament and no game named",
        ),
    ),
    notes={
        "game": "one game to look at (default: every game of the tournament in progress)",
        "games": "game ids to look at, beside `game`",
        "by": "who asked, for the record (default `clock`: the gateway's flag check)",
    },
)
@dataclass(frozen=True, kw_only=True)
class CheckFlags(Command):
    game: str | None = None
    games: list[Any] | None = None
    at_ms: Instant
    by: str = "clock"

    def decide(self, world: World) -> list[Event]:
        def device_of(game_id: str) -> ClockReadingRecorded | None:
            log = world.clock_log(game_id)
            return log.last if log is not None else None

        return check_flags(world.tournament(), world.game, self, device_of)


def adjust_clock(tournament: Tournament | None, game: Game | None, cmd: AdjustClock) -> list[Event]:
    """Record an arbiter's clock adjustment (7.4 b, 9.5, 6.10 b, 6.13)."""

    g = require_in_progress(game, cmd.game)
    require_ruling_arbiter(tournament, cmd.arbiter, "adjust a clock")
    delta = cmd.delta_ms
    reason = cmd.reason.strip()
    if not reason:
        raise MalformedCommand("adjust_clock needs a reason (a penalty, a correction)")
    if delta == 0:
        raise MalformedCommand("adjust_clock: delta_ms is 0, nothing to adjust")
    at_ms = cmd.at_ms
    standing = sorted({key.split(":")[1] for key in g.open_flag_alerts})
    if standing:
        raise RuleViolation(
            "6.8",
            f"game {g.game_id}: a flag_fall alert for {' and '.join(standing)} stands unruled; "
            "a flag is fallen when the arbiter observes it: rule the flag first (rule_flag "
            "fallen, not_fallen or both_fallen), then adjust the clock",
        )
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
            by=cmd.arbiter,
            side=cmd.side,
            delta_ms=delta,
            reason=reason,
            arbiter=cmd.arbiter,
        )
    ]


def check_flags(
    tournament: Tournament | None,
    game_of: Callable[[str], Game | None],
    cmd: CheckFlags,
    device_of: Callable[[str], ClockReadingRecorded | None] = lambda _game_id: None,
) -> list[Event]:
    """Look at the regulation flag of every named (or scheduled and started) game:
    a ``flag_fall`` alert for the arbiters (supervised profiles, 6.8), or the result
    (``candidates-2012-unsupervised``, 6.9). ``device_of``: a game's last device
    reading, for the alert's evidence."""
    named: list[str] = []
    if cmd.game:
        named.append(cmd.game)
    for item in cmd.games or []:
        if not isinstance(item, str) or not item:
            raise MalformedCommand(f"check_flags: game ids must be strings, got {item!r}")
        named.append(item)
    explicit = bool(named)
    if not named:
        if tournament is None:
            raise MalformedCommand("check_flags: no tournament; name the game(s) to check")
        named = list(tournament.pairings())
    by = cmd.by
    events: list[Event] = []
    for game_id in dict.fromkeys(named):
        game = game_of(game_id)
        if game is not None:
            events.extend(flag_check(game, cmd.at_ms, by, device_of(game_id))[0])
        elif explicit:
            # A named game that does not exist is a mistake to report, not a quiet "ok".
            raise UnknownGame(f"check_flags: game {game_id!r} has not been started")
    return events
