"""The arbiter rules on a flag: ``rule_flag {game, side?, arbiter, at, decision, reason?}``.

A flag is fallen when the arbiter observes it (Laws 2009 6.8), and the player whose
flag fell loses unless the opponent cannot checkmate (6.9, ``engine.checkmate``);
``both_fallen`` is 6.11. The engine's evidence (the regulation clock, the devices'
flags) is kept with the ruling, and a ruling against it needs a reason and is listed
as an override by ``candidates audit``: the arbiter decides, the record shows on what.
The decisions are in docs/clocks.md."""

from __future__ import annotations

from dataclasses import dataclass

from engine.clock.regulation import flag_fall_result
from engine.commands import Command, command
from engine.errors import (
    GameNotInProgress,
    MalformedCommand,
    UnknownGame,
)
from engine.events import ClockReadingRecorded, Event, FlagRuled, ResultRecorded
from engine.fields import Instant
from engine.game.flags import flag_evidence, flag_key
from engine.game.state import Game, position, require_in_progress
from engine.side import SIDES, Side
from engine.termination import Termination
from engine.timefmt import clock_text, format_instant
from engine.tournament.tournament import RULING_ROLES, Tournament, require_ruling_arbiter
from engine.world import World

DECISIONS = ("fallen", "not_fallen", "both_fallen")


@command(
    "rule_flag",
    summary="The Chief Arbiter or a Deputy rules a flag fallen (the result follows, Laws 6.9) "
    "or not (the game goes on; a regulation-clock flag needs a reason), or both flags down "
    "in an order that cannot be established (6.11: play on, a draw in the last period) "
    "(Laws 6.8, 6.10 a).",
    roles=RULING_ROLES,
    events=(FlagRuled, ResultRecorded),
    in_time_order=True,
    refusals=(
        (UnknownGame, "", "the game has not been started"),
        (GameNotInProgress, "", "the game is finished"),
        (
            MalformedCommand,
            "6.10 a",
            "a decision other than fallen, not_fallen or both_fallen, a side missing (or given "
            "with both_fallen), or a ruling against the evidence without a reason",
        ),
    ),
    notes={
        "side": "the side whose flag is ruled on: `white` or `black`; absent for "
        "`both_fallen` (6.11)",
        "decision": "`fallen` (the flag fell: the game is decided, Laws 2009 6.9), "
        "`not_fallen` (the flag is dismissed) or `both_fallen` (6.11: both flags down, which "
        "fell first unknown: play on, a draw in the last period)",
        "reason": "why, in words; required to dismiss a flag the regulation clock shows fallen "
        "(6.10 a), and to rule against the evidence (a fall nothing shows, the later of two "
        "falls, 6.11 where the order is known)",
    },
)
@dataclass(frozen=True, kw_only=True)
class RuleFlag(Command):
    game: str
    side: Side | None = None
    """The side whose flag is ruled on; absent for ``both_fallen`` (6.11)."""
    arbiter: str
    at_ms: Instant
    decision: str
    reason: str | None = None

    def decide(self, world: World) -> list[Event]:
        log = world.clock_log(self.game)
        return rule_flag(
            world.tournament(), world.game(self.game), self, log.last if log is not None else None
        )


def device_shows_fall(
    game: Game, side: Side, at_ms: int, device: ClockReadingRecorded | None
) -> bool:
    """Whether a device showed ``side``'s flag (6.10 a): a ``flag_fall`` alert from a
    device reading (open or answered), or the last reading run on to ``at_ms`` at 0:00."""
    keys = [
        *game.open_flag_alerts,
        *(k for r in game.flag_rulings for k in r.evidence.get("alerts") or ()),
    ]
    if any(str(k).startswith(f"device:{side}:") for k in keys):
        return True
    if device is None:
        return False
    shown = device.white_ms if side == Side.WHITE else device.black_ms
    if device.running == side:
        shown = max(0, shown - max(0, at_ms - device.at_ms))
    return shown == 0


def fall_evidence(
    game: Game, side: Side, at_ms: int, device: ClockReadingRecorded | None
) -> tuple[bool, int | None]:
    """(whether any evidence shows ``side``'s flag fallen, the instant the regulation
    clock says its time ran out)."""
    fell = game.clock.fell_at_ms(side, at_ms) if game.clock is not None else None
    return fell is not None or device_shows_fall(game, side, at_ms, device), fell


def rule_flag(
    tournament: Tournament | None,
    game: Game | None,
    cmd: RuleFlag,
    device: ClockReadingRecorded | None = None,
) -> list[Event]:
    """Record the arbiter's ruling on a flag (6.8, 6.9, 6.10 a, 6.11)."""
    g = require_in_progress(game, cmd.game)
    arbiter = cmd.arbiter
    require_ruling_arbiter(tournament, arbiter, "rule on a flag")
    decision = cmd.decision
    if decision not in DECISIONS:
        raise MalformedCommand(
            f"rule_flag: decision must be 'fallen', 'not_fallen' or 'both_fallen', got {decision!r}"
        )
    if decision == "both_fallen":
        if cmd.side is not None:
            raise MalformedCommand(
                "rule_flag: both_fallen rules on both flags (Laws 2009 6.11); leave out 'side'"
            )
        return _both_fallen(g, cmd, device)
    if cmd.side is None:
        raise MalformedCommand(f"rule_flag: {decision} rules on one flag; name its 'side'")
    side = cmd.side
    at_ms = cmd.at_ms
    reason = (cmd.reason or "").strip()
    evidence = flag_evidence(g, side, at_ms, device)
    shown, fell = fall_evidence(g, side, at_ms, device)
    regulation_shows = fell is not None
    first = g.clock.first_fall(at_ms) if g.clock is not None else None
    ruled_on = [key for key in g.open_flag_alerts if key.split(":")[1] == side]
    if regulation_shows:
        ruled_on.append(flag_key(g, "regulation", side))
    evidence["alerts"] = list(dict.fromkeys(ruled_on))  # answered: not raised again
    if decision == "not_fallen":
        override, why_needed = (
            regulation_shows,
            (
                f"the regulation clock shows {side}'s time at zero in game {g.game_id}; "
                "dismissing that flag needs a reason (what the clock on the table showed, "
                "Laws 2009 6.10 a)"
            ),
        )
    elif not shown:
        override, why_needed = (
            True,
            (
                f"nothing shows {side}'s flag fallen in game {g.game_id} (the regulation clock "
                f"has {clock_text(g.clock.remaining_ms(side, at_ms)) if g.clock else 'no time'} "
                "and no device showed its flag or 0:00); ruling it fallen needs a reason (what "
                "the arbiter observed, Laws 2009 6.8, 6.10 a)"
            ),
        )
    elif first is not None and first[0] != side:
        override, why_needed = (
            True,
            (
                f"the regulation clock shows {first[0]}'s time ran out first in game "
                f"{g.game_id} ({format_instant(first[1])}), before {side}'s; 6.9 decides on the "
                "first fall: ruling the later one fallen needs a reason"
            ),
        )
    else:
        override, why_needed = False, ""
    if override and not reason:
        raise MalformedCommand(f"rule_flag: {why_needed}")
    ruled = FlagRuled(
        originator_id=g.stream,
        originator_version=g.version + 1,
        at_ms=at_ms,
        by=arbiter,
        game=g.game_id,
        side=side,
        arbiter=arbiter,
        decision=decision,
        reason=reason,
        evidence=evidence,
        override=override,
    )
    if decision == "not_fallen":
        return [ruled]
    result, termination = flag_fall_result(position(g), side)
    why = f"{side}'s flag fell, observed by the arbiter (Laws 2009 6.8, 6.9)"
    if termination == "flag_fall_draw":
        why += "; drawn: the opponent cannot checkmate by any series of legal moves"
    return [ruled, _result(g, cmd, result, termination, why)]


def _result(g: Game, cmd: RuleFlag, result: str, termination: str, why: str) -> ResultRecorded:
    """The result a ruling records, dated at the ruling, with its reason and the arbiter's."""
    reason = (cmd.reason or "").strip()
    return ResultRecorded(
        originator_id=g.stream,
        originator_version=g.version + 2,
        at_ms=cmd.at_ms,
        by=cmd.arbiter,
        result=result,
        termination=termination,
        reason=f"{why}: {reason}" if reason else why,
        arbiter=cmd.arbiter,
    )


def in_last_period(game: Game) -> bool:
    """Whether both players play in the time control's last period (the rest of the
    game: under 3.5.1 from move 61), where 6.11 makes both flags down a draw."""
    clock = game.clock
    return clock is not None and all(clock.moves_to_control(side) is None for side in SIDES)


def _both_fallen(g: Game, cmd: RuleFlag, device: ClockReadingRecorded | None) -> list[Event]:
    """Laws 2009 6.11: both flags down, which fell first cannot be established."""
    at_ms, arbiter = cmd.at_ms, cmd.arbiter
    reason = (cmd.reason or "").strip()
    shown = {side: fall_evidence(g, side, at_ms, device) for side in SIDES}
    falls = g.clock.falls(at_ms) if g.clock is not None else []
    missing = [str(side) for side in SIDES if not shown[side][0]]
    ordered = len(falls) == 2 and falls[0][1] != falls[1][1]
    if missing:
        why_needed = (
            f"nothing shows {' and '.join(missing)}'s flag fallen in game {g.game_id}; "
            "ruling both flags down (Laws 2009 6.11) needs a reason (what the arbiter observed)"
        )
    elif ordered:
        first, second = falls
        why_needed = (
            f"the regulation clock shows {first[0]}'s time ran out first in game {g.game_id} "
            f"({format_instant(first[1])}, {second[0]}'s at {format_instant(second[1])}); "
            "ruling the order unknown (Laws 2009 6.11) needs a reason"
        )
    else:
        why_needed = ""
    override = bool(why_needed)
    if override and not reason:
        raise MalformedCommand(f"rule_flag: {why_needed}")
    evidence = flag_evidence(g, Side.WHITE, at_ms, device)
    evidence.pop("side", None)
    evidence.update(
        side="both",
        regulation_fell_at=None,
        moves_to_control=None,
        period=None,
        control_reached=None,
        regulation_fell={str(side): _instant(shown[side][1]) for side in SIDES},
        last_period=in_last_period(g),
    )
    ruled_on = [k for k in g.open_flag_alerts if k.split(":")[1] in SIDES]
    ruled_on += [flag_key(g, "regulation", side) for side in SIDES if shown[side][1] is not None]
    evidence["alerts"] = list(dict.fromkeys(ruled_on))
    ruled = FlagRuled(
        originator_id=g.stream,
        originator_version=g.version + 1,
        at_ms=at_ms,
        by=arbiter,
        game=g.game_id,
        side="both",
        arbiter=arbiter,
        decision="both_fallen",
        reason=reason,
        evidence=evidence,
        override=override,
    )
    if not in_last_period(g):
        return [ruled]  # 6.11: play goes on in any period but the last
    why = (
        "both flags fell in the last period and which fell first cannot be established "
        "(Laws 2009 6.11): drawn"
    )
    return [ruled, _result(g, cmd, "1/2-1/2", Termination.BOTH_FLAGS_FALLEN, why)]


def _instant(at_ms: int | None) -> str | None:
    return format_instant(at_ms) if at_ms is not None else None
