"""The arbiter's penalties (FIDE Laws of Chess 2009, 13.4 a-g) and what each one does.

``consequences`` turns a penalty into the events it causes, each on its own stream in
the transaction of the incident: time on a clock (b, c), a lost game with 12.3 b's draw
test (d), points reduced in the standings (e), the opponent's win (f), expulsion under
3.1's withdrawal rules (g). Durations are integer milliseconds, points
``fractions.Fraction``. The table of penalties and the interpretations are in
docs/incidents.md."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated, Any

from engine.checkmate import can_checkmate
from engine.errors import MalformedCommand, RuleViolation
from engine.events import ClockAdjusted, Event, ResultRecorded
from engine.game.flags import fallen_flag
from engine.game.state import OTHER_SIDE, WIN_BY_SIDE, Game, position
from engine.side import Side
from engine.standings.withdrawal import Withdraw, withdraw
from engine.termination import Termination
from engine.timefmt import format_instant
from engine.tournament.tournament import Tournament

PENALTIES: dict[str, str] = {
    "warning": "Laws 2009 13.4 a",
    "time_added": "Laws 2009 13.4 b",
    "time_deducted": "Laws 2009 13.4 c",
    "game_lost": "Laws 2009 13.4 d",
    "points_reduced": "Laws 2009 13.4 e",
    "opponent_points_raised": "Laws 2009 13.4 f",
    "expelled": "Laws 2009 13.4 g",
}
"""Every penalty of 13.4, by the name the commands use, with its article."""

NEEDS_GAME = frozenset({"time_added", "time_deducted", "game_lost", "opponent_points_raised"})
"""Penalties that act on a game in progress (its clock or its result)."""

PENALTY_TERMINATION = Termination.PENALTY
"""The termination of a game ended by a penalty (13.4 d, 13.4 f)."""


@dataclass(frozen=True)
class Penalty:
    """A penalty of 13.4 as the arbiter gave it."""

    kind: str
    side: str | None = None
    """The clock a time penalty applies to, as given (checked against the offender)."""
    ms: int | None = None
    points: Fraction | None = None

    @property
    def article(self) -> str:
        return PENALTIES[self.kind]


def parse_penalty(raw: object) -> Penalty | None:
    """``"warning"`` or ``{"kind": "time_added", "side": "black", "ms": 60000}`` ...;
    a clear error for anything else."""
    if raw is None:
        return None
    body: dict[str, Any]
    if isinstance(raw, str):
        body = {"kind": raw}
    elif isinstance(raw, dict):
        body = dict(raw)
    else:
        raise MalformedCommand(
            f"field 'penalty' must be a penalty name or an object with 'kind', got {raw!r}"
        )
    kind = body.pop("kind", None)
    if kind not in PENALTIES:
        raise MalformedCommand(
            f"penalty kind must be one of {', '.join(PENALTIES)} (Laws 2009 13.4), got {kind!r}"
        )
    allowed = {
        "time_added": {"side", "ms"},
        "time_deducted": {"side", "ms"},
        "points_reduced": {"points"},
    }.get(kind, set())
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise MalformedCommand(f"penalty {kind}: unknown field(s) {', '.join(map(repr, unknown))}")
    side = body.get("side")
    if side is not None and side not in ("white", "black"):
        raise MalformedCommand(f"penalty {kind}: 'side' must be 'white' or 'black', got {side!r}")
    ms: int | None = None
    if kind in ("time_added", "time_deducted"):
        ms = body.get("ms")
        if isinstance(ms, bool) or not isinstance(ms, int) or not 0 < ms <= 2**31:
            raise MalformedCommand(
                f"penalty {kind} needs 'ms', a positive number of milliseconds, got {ms!r}"
            )
    points: Fraction | None = None
    if kind == "points_reduced":
        points = _points(body.get("points"))
    return Penalty(kind=kind, side=side, ms=ms, points=points)


def penalty_form(where: str, value: object) -> object:
    """The command field ``penalty``: its form is checked (``parse_penalty``) and the
    value kept as given, so the command's wire form round-trips."""
    del where  # the messages name the field 'penalty' themselves
    parse_penalty(value)
    return value


PenaltyForm = Annotated[object, penalty_form]
"""A penalty of 13.4 on the wire: a name, or an object with ``kind`` and its fields."""


def _points(value: object) -> Fraction:
    """Points taken (13.4 e): 1/2, 1, 3/2 ... given as a number or a fraction text."""
    try:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ValueError
        points = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        raise MalformedCommand(
            f"penalty points_reduced needs 'points' (e.g. 0.5, 1 or \"1/2\"), got {value!r}"
        ) from None
    if points <= 0 or (points * 2).denominator != 1:
        raise MalformedCommand(
            f"penalty points_reduced: 'points' must be a positive multiple of 1/2, got {value!r}"
        )
    return points


Lookup = Callable[[str], Game | None]


def consequences(
    penalty: Penalty,
    *,
    tournament: Tournament | None,
    game: Game | None,
    player: str,
    side: Side | None,
    arbiter: str,
    at_ms: int,
    cause: str,
    draw_test: bool,
    lookup: Lookup,
) -> tuple[list[Event], str | None]:
    """The events that apply ``penalty`` to ``player`` (on ``side`` of ``game``), and the
    game's result when it ends it. ``cause`` is the short public reason (articles only)."""
    kind = penalty.kind
    if kind in NEEDS_GAME and (game is None or side is None):
        raise MalformedCommand(f"penalty {kind} ({penalty.article}) needs the player's game")
    if kind in ("time_added", "time_deducted"):
        assert game is not None and side is not None and penalty.ms is not None
        return [_clock_penalty(penalty, game, side, arbiter, at_ms, cause)], None
    if kind in ("game_lost", "opponent_points_raised"):
        assert game is not None and side is not None
        opponent = OTHER_SIDE[side]
        result = WIN_BY_SIDE[opponent]
        reason = f"{cause}; {penalty.article}"
        scores: str | None = None
        if kind == "game_lost" and draw_test and not can_checkmate(position(game), opponent):
            # 12.3 b: the offender loses; the opponent, who could not win, scores a draw.
            scores = "0-1/2" if side == Side.WHITE else "1/2-0"
            reason += (
                f"; {side} loses and {opponent} scores a draw ({scores}), as {opponent} "
                "cannot win by any series of legal moves"
            )
        return [
            ResultRecorded(
                originator_id=game.stream,
                originator_version=game.version + 1,
                at_ms=at_ms,
                by=arbiter,
                result=result,
                termination=PENALTY_TERMINATION,
                reason=reason,
                arbiter=arbiter,
                scores=scores,
            )
        ], result
    if kind == "expelled":
        if tournament is None:
            raise MalformedCommand("penalty expelled needs a tournament to expel the player from")
        events = withdraw(
            tournament,
            lookup,
            Withdraw(
                tournament=tournament.id,
                player=player,
                at_ms=at_ms,
                reason=f"expelled: {cause}; {penalty.article}",
                arbiter=arbiter,
            ),
        )
        stream = game.stream if game is not None else None
        ended = [e for e in events if isinstance(e, ResultRecorded) and e.originator_id == stream]
        return events, ended[0].result if ended else None
    return [], None  # warning (a), points_reduced (e): the record and the standings


def _clock_penalty(
    penalty: Penalty, game: Game, side: Side, arbiter: str, at_ms: int, cause: str
) -> ClockAdjusted:
    """13.4 b: time to the opponent; 13.4 c: time from the offender."""
    target = OTHER_SIDE[side] if penalty.kind == "time_added" else side
    if penalty.side is not None and penalty.side != target:
        whose = "opponent" if penalty.kind == "time_added" else "offender"
        raise RuleViolation(
            penalty.article.removeprefix("Laws 2009 "),
            f"{penalty.kind} applies to the {whose}'s clock ({target}), not {penalty.side}'s",
        )
    fallen = fallen_flag(game.clock, at_ms)
    if fallen is not None:
        flag_side, falls = fallen
        raise RuleViolation(
            "6.9",
            f"game {game.game_id}: {flag_side}'s flag fell at {format_instant(falls)}, before "
            f"this penalty at {format_instant(at_ms)}; record the result instead",
        )
    assert penalty.ms is not None
    delta = penalty.ms if penalty.kind == "time_added" else -penalty.ms
    return ClockAdjusted(
        originator_id=game.stream,
        originator_version=game.version + 1,
        at_ms=at_ms,
        by=arbiter,
        side=target,
        delta_ms=delta,
        reason=f"{cause}; {penalty.article}",
        arbiter=arbiter,
    )
