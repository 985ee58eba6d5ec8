"""The regulation clock: what each clock *should* show, as an immutable value.

The time control (``engine.clock.time_control``) applied to the instants the engine
was told about: the game's start (Laws 2009 6.5), each completed move (6.7 a: the
``at`` of ``play_move``), the arbiter's adjustments and the end; ``Clock.at(t)`` gives
the clock at any instant. A flag falls when a side's time reaches zero and stays
fallen until the arbiter rules otherwise (6.9, ``flag_fall_result``); the clock
decides nothing by itself. Durations are integer milliseconds; how periods and
increments are credited is in docs/clocks.md."""

from __future__ import annotations

from dataclasses import dataclass, replace

import chess

from engine.checkmate import can_checkmate
from engine.clock.time_control import TimeControl
from engine.side import SIDES, Side
from engine.termination import Termination


def run_down_ms(remaining_ms: int, from_ms: int, to_ms: int) -> int:
    """A running clock's time at ``to_ms``, showing ``remaining_ms`` at ``from_ms``: it runs
    down one millisecond a millisecond, never below zero (6.1: the flag falls at zero);
    an instant before ``from_ms`` changes nothing."""
    return max(0, remaining_ms - max(0, to_ms - from_ms))


@dataclass(frozen=True, slots=True)
class SideClock:
    """One player's side of the regulation clock."""

    remaining_ms: int
    """Time left at the clock's ``at_ms`` (for the running side: when it last started)."""
    moves: int = 0
    """Moves this player has completed."""
    used_ms: int = 0
    """Time spent on the clock so far."""
    bonus_ms: int = 0
    """Period time credited on completing move 40, 60... (3.5.1)."""
    increments_ms: int = 0
    """Increments credited after moves."""
    increments: int = 0
    """Number of increments credited."""
    adjusted_ms: int = 0
    """Sum of the arbiter's adjustments (penalties, corrections)."""
    fell_at_ms: int | None = None
    """The instant this side's time ran out, once a move (or the end) found it at zero
    (Laws 2009 6.9); None while it has not fallen, or after the arbiter ruled the flag
    not fallen (6.10 a) or play on under 6.11."""


@dataclass(frozen=True, slots=True)
class Clock:
    """The regulation clock of one game (immutable; every change returns a new value)."""

    control: TimeControl
    white: SideClock
    black: SideClock
    running: Side | None
    """``white``, ``black`` or None when stopped (before the start, after the end)."""
    at_ms: int
    """The instant the values above hold at."""
    paused: Side | None = None
    """The side whose clock was running when the clocks were stopped for a claim
    (Laws 2009 6.12 b, 9.5); it starts again at the ruling."""
    increment_on_control_move: bool = False
    """The clock on the table credits the next period's increment on the move that
    completes a period (move 40 under ``40/7200:1800+30``) instead of from the move after
    it: recognised from an imported game's readings, this is that device's rule (6.10 a:
    its indication is conclusive) and the regulation clock follows it."""

    # --- building -------------------------------------------------------------

    @staticmethod
    def start(
        control: TimeControl,
        at_ms: int,
        running: Side = Side.WHITE,
        *,
        increment_on_control_move: bool = False,
    ) -> Clock:
        """The clock at the start of the game: the first period's time, ``running`` started.

        3.7.3.a gives the two sides different starting times. ``increment_on_control_move``:
        the device's rule the clock follows (the class's field).
        """
        return Clock(
            control=control,
            white=SideClock(control.initial_ms(Side.WHITE)),
            black=SideClock(control.initial_ms(Side.BLACK)),
            running=Side.of(running),
            at_ms=at_ms,
            increment_on_control_move=increment_on_control_move,
        )

    def credit_ms(self, side: Side, number: int) -> tuple[int, int]:
        """(period time, increment) credited for ``side``'s move ``number`` completed in
        time: the next period's time on the last move of a period, the increment of the
        move's period, and, under the device rule ``increment_on_control_move``, the next
        period's increment on the control move itself."""
        control = self.control
        bonus = 0
        following = control.control_after(number)
        increment = control.period(control.period_of_move(number)).increment_ms
        if following is not None:
            bonus = control.period(following).time_ms(side)
            if self.increment_on_control_move:
                increment += control.period(following).increment_ms
        return bonus, increment

    # --- reading --------------------------------------------------------------

    def side(self, side: Side) -> SideClock:
        """One side's clock; ValueError for anything that is not a side."""
        if side is Side.WHITE:
            return self.white
        if side is Side.BLACK:
            return self.black
        return self.white if Side.of(side) is Side.WHITE else self.black

    def remaining_ms(self, side: Side, at_ms: int | None = None) -> int:
        """Time left on ``side``'s clock at an instant (never below zero)."""
        own = self.side(side).remaining_ms
        if self.running != side or at_ms is None:
            return own
        return run_down_ms(own, self.at_ms, at_ms)

    def flag_falls_at_ms(self) -> int | None:
        """The instant the running side's time reaches zero, if nothing happens first."""
        if self.running is None:
            return None
        return self.at_ms + self.side(self.running).remaining_ms

    def flag_fallen(self, at_ms: int) -> Side | None:
        """The side whose flag has fallen by ``at_ms`` (6.1), else None."""
        falls = self.flag_falls_at_ms()
        if falls is None or at_ms < falls:
            return None
        return self.running

    def fell_at_ms(self, side: Side, at_ms: int | None = None) -> int | None:
        """The instant ``side``'s time ran out (6.9): kept since it ran out, or the running
        side's time reaching zero by ``at_ms``; None when it has not fallen (or the
        arbiter ruled it not fallen, 6.10 a, or play on, 6.11)."""
        own = self.side(side)
        if own.fell_at_ms is not None:
            return own.fell_at_ms
        if self.running != side or own.remaining_ms == 0 or at_ms is None:
            return None  # a clock left at zero by a ruling runs out no more
        falls = self.at_ms + own.remaining_ms
        return falls if falls <= at_ms else None

    def falls(self, at_ms: int | None = None) -> list[tuple[Side, int]]:
        """Every fallen flag by ``at_ms`` as (side, instant its time ran out), first
        fall first (6.9: the player whose time ran out first failed first; 6.11 when
        the order cannot be established)."""
        if self.white.fell_at_ms is None and self.black.fell_at_ms is None:
            # No fall kept: only the running side's time can have run out (asked every
            # reading, so the other side is not asked)
            sides: tuple[Side, ...] = () if self.running is None else (self.running,)
        else:
            sides = SIDES
        found = [(side, self.fell_at_ms(side, at_ms)) for side in sides]
        return sorted(((s, t) for s, t in found if t is not None), key=lambda f: (f[1], f[0]))

    def first_fall(self, at_ms: int | None = None) -> tuple[Side, int] | None:
        """The first flag that fell by ``at_ms`` (the one 6.9 decides on), if any."""
        found = self.falls(at_ms)
        return found[0] if found else None

    def without_fall(self, side: Side) -> Clock:
        """The arbiter ruled ``side``'s flag not fallen (6.10 a) or play goes on (6.11):
        its moves count again toward the control."""
        return self._with(side, replace(self.side(side), fell_at_ms=None))

    def at(self, at_ms: int) -> Clock:
        """The clock at a later instant: the running side's time run down (floored at zero)."""
        if self.running is None or at_ms <= self.at_ms:
            return self if at_ms <= self.at_ms else replace(self, at_ms=at_ms)
        side = self.running
        own = self.side(side)
        spent = min(at_ms - self.at_ms, own.remaining_ms)
        fell = own.fell_at_ms
        if fell is None and spent > 0 and spent == own.remaining_ms:
            fell = self.at_ms + spent  # 6.9: the instant the time ran out is kept
        updated = replace(
            own,
            remaining_ms=own.remaining_ms - spent,
            used_ms=own.used_ms + spent,
            fell_at_ms=fell,
        )
        return self._with(side, updated, at_ms=at_ms)

    def period_index(self, side: Side) -> int:
        """The 0-based period ``side`` is playing in (the period of its next move)."""
        return self.control.period_of_move(self.side(side).moves + 1)

    def moves_to_control(self, side: Side) -> int | None:
        """Moves ``side`` must still complete before the next control; None in the last period."""
        return self.control.moves_to_control(self.side(side).moves)

    def closed_form_ms(self, side: Side) -> int:
        """initial + credited bonuses + increments + adjustments - used (the invariant)."""
        s = self.side(side)
        return (
            self.control.initial_ms(side) + s.bonus_ms + s.increments_ms + s.adjusted_ms - s.used_ms
        )

    # --- changing ---------------------------------------------------------------

    def complete_move(self, side: Side, at_ms: int) -> Clock:
        """``side`` completed a move at ``at_ms`` and started the opponent's clock (6.7 a).

        The time since the clock started runs off ``side``'s clock; then the next
        period's time is credited if the move completed a period (move 40, 60),
        and the increment of the move's period, if it has one (from move 61
        under 3.5.1, from move 1 under 3.7.1.a and 3.7.2).

        A move completed at or after the instant ``side``'s time ran out (a supervised
        game goes on until the arbiter rules, 6.8) is on the board but earns nothing
        (6.9): no period time, no increment; the fall is kept (``fell_at_ms``).
        """
        now = (
            self.at(at_ms) if self.running == side else replace(self, at_ms=max(at_ms, self.at_ms))
        )
        own = now.side(side)
        fell = own.fell_at_ms
        number = own.moves + 1
        bonus, increment = self.credit_ms(side, number)
        if fell is not None:
            bonus = increment = 0
        updated = replace(
            own,
            remaining_ms=own.remaining_ms + bonus + increment,
            moves=number,
            bonus_ms=own.bonus_ms + bonus,
            increments_ms=own.increments_ms + increment,
            increments=own.increments + (1 if increment else 0),
            fell_at_ms=fell,
        )
        return replace(now._with(side, updated), running=Side.of(side).opponent, paused=None)

    def adjust(self, side: Side, delta_ms: int, at_ms: int) -> Clock:
        """The arbiter adds (``delta_ms`` > 0) or takes time (7.4 b, 9.5, 6.10 b, 6.13).

        Time cannot go below zero: taking more than is left leaves zero.
        """
        now = self.at(at_ms)
        own = now.side(side)
        applied = max(delta_ms, -own.remaining_ms)
        emptied = own.remaining_ms > 0 and own.remaining_ms + applied == 0
        updated = replace(
            own,
            remaining_ms=own.remaining_ms + applied,
            adjusted_ms=own.adjusted_ms + applied,
            fell_at_ms=at_ms if emptied and own.fell_at_ms is None else own.fell_at_ms,
        )
        return now._with(side, updated)

    def set_remaining(self, side: Side, remaining_ms: int, at_ms: int) -> Clock:
        """The arbiter sets ``side``'s clock to ``remaining_ms`` at ``at_ms`` (6.13); the
        difference is kept as an adjustment, so the invariant still holds. Setting the
        time is the arbiter's judgement of it: a fall the model had kept goes."""
        now = self.at(at_ms)
        now = now.adjust(side, remaining_ms - now.remaining_ms(side), at_ms)
        return now.without_fall(side) if remaining_ms > 0 else now

    def recount(self, moves: dict[Side, int], running: Side | None, at_ms: int) -> Clock:
        """The move counters follow a corrected line (Laws 2009 6.13, 7.4 a): the time
        used so far stays used; the period time and increments credited follow the new
        counters (a side that no longer completed move 40 loses the 60 minutes that
        completing it credited, and gains them when the corrected line completes it).
        ``running``: the side to move in the corrected line (None: stopped)."""
        now = self.at(at_ms)
        for side in SIDES:
            own = now.side(side)
            bonus_was, increments_was, count_was = self._credits(side, own.moves)
            bonus, increments, count = self._credits(side, moves[side])
            remaining = own.remaining_ms + (bonus - bonus_was) + (increments - increments_was)
            floor = min(0, remaining)
            updated = replace(
                own,
                moves=moves[side],
                remaining_ms=remaining - floor,
                bonus_ms=own.bonus_ms + bonus - bonus_was,
                increments_ms=own.increments_ms + increments - increments_was,
                increments=own.increments + count - count_was,
                adjusted_ms=own.adjusted_ms - floor,
            )
            now = now._with(side, updated)
        if self.running is None and self.paused is None:
            running = None
        return replace(now, running=running, paused=None)

    def _credits(self, side: Side, moves: int) -> tuple[int, int, int]:
        """(period time, increments, number of increments) credited for ``moves`` moves."""
        bonus = increments = count = 0
        for number in range(1, moves + 1):
            period_ms, increment = self.credit_ms(side, number)
            bonus += period_ms
            increments += increment
            count += 1 if increment else 0
        return bonus, increments, count

    def reopen(self, running: Side | None, at_ms: int) -> Clock:
        """A result withdrawn by the arbiter: the clock as it was when the result was
        recorded, ``running`` started again at ``at_ms`` (no time ran in between)."""
        return replace(self, running=running, paused=None, at_ms=max(at_ms, self.at_ms))

    def stop(self, at_ms: int) -> Clock:
        """The game ended at ``at_ms``: both clocks stop (a running side whose time ran
        out by then keeps its fall)."""
        return replace(self.at(at_ms), running=None, paused=None)

    def pause(self, at_ms: int) -> Clock:
        """The clocks are stopped at ``at_ms`` for a claim (6.12 b, 9.5): no time runs."""
        if self.running is None:
            return self
        return replace(self.at(at_ms), running=None, paused=self.running)

    def resume(self, at_ms: int) -> Clock:
        """The arbiter starts the clocks again at ``at_ms`` (the side that was running)."""
        if self.paused is None:
            return self
        return replace(self, running=self.paused, paused=None, at_ms=max(at_ms, self.at_ms))

    def _with(self, side: Side, value: SideClock, *, at_ms: int | None = None) -> Clock:
        when = self.at_ms if at_ms is None else at_ms
        if Side.of(side) is Side.WHITE:
            return replace(self, white=value, at_ms=when)
        return replace(self, black=value, at_ms=when)


def flag_fall_result(board: chess.Board, flagged: Side) -> tuple[str, Termination]:
    """(result, termination) when ``flagged``'s flag falls in ``board`` (6.9)."""
    opponent = Side.of(flagged).opponent
    if not can_checkmate(board, opponent):
        return "1/2-1/2", Termination.FLAG_FALL_DRAW
    return opponent.win, Termination.TIME_FORFEIT
