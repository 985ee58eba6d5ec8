"""Property tests of the regulation clock (hypothesis).

- remaining time = initial + credited bonuses + increments + adjustments - used,
  computed here from the rules' own words, not from the clock's counters;
- never below zero while the game continues;
- folding the events in any batching (one command at a time, or grouped
  commands in one save) gives the same state.
"""

from __future__ import annotations

import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from adapters.store import Store
from engine.clock.regulation import Clock
from engine.clock.time_control import (
    BLITZ_3_7_2,
    CLASSICAL_3_5_1,
    RAPID_3_7_1_A,
    SUDDEN_DEATH_3_7_3_A,
    parse_time_control,
)
from tests.helpers import at, paired_tournament

CONTROLS = [CLASSICAL_3_5_1, RAPID_3_7_1_A, BLITZ_3_7_2, SUDDEN_DEATH_3_7_3_A]


def expected_remaining(tag: str, side: str, used: list[int], adjustments: int) -> int:
    """3.5.1 / 3.7.x in words: the start time, +60 min after move 40, +15 min after
    move 60 (3.5.1), the increment after each move of a period that has one."""
    start = {"white": 300_000, "black": 240_000}[side] if tag == SUDDEN_DEATH_3_7_3_A else None
    total = (
        start
        if start is not None
        else {
            CLASSICAL_3_5_1: 7_200_000,
            RAPID_3_7_1_A: 1_500_000,
            BLITZ_3_7_2: 300_000,
        }[tag]
    )
    for number in range(1, len(used) + 1):
        if tag == CLASSICAL_3_5_1:
            total += 3_600_000 if number == 40 else 900_000 if number == 60 else 0
            total += 30_000 if number >= 61 else 0
        elif tag == SUDDEN_DEATH_3_7_3_A:
            total += 3_000 if number >= 61 else 0
        else:
            total += 10_000 if tag == RAPID_3_7_1_A else 3_000
    return total + adjustments - sum(used)


@settings(max_examples=200, deadline=None)
@given(
    tag=st.sampled_from(CONTROLS),
    steps=st.lists(
        st.tuples(st.integers(0, 400_000), st.integers(-60_000, 180_000), st.booleans()),
        min_size=1,
        max_size=150,
    ),
)
def test_remaining_equals_the_closed_form_and_never_goes_below_zero(
    tag: str, steps: list[tuple[int, int, bool]]
) -> None:
    clock = Clock.start(parse_time_control(tag), 0)
    t = 0
    used: dict[str, list[int]] = {"white": [], "black": []}
    adjusted = {"white": 0, "black": 0}
    side = "white"
    for think, delta, adjust in steps:
        if adjust:
            target = "black" if side == "white" else "white"
            before = clock.remaining_ms(target, t)
            applied = max(delta, -before)
            clock = clock.adjust(target, delta, t)
            adjusted[target] += applied
        left = clock.remaining_ms(side, t)
        think = min(think, left - 1) if left > 0 else 0
        if left <= 0:
            assert clock.flag_fallen(t) == side
            break
        t += think
        assert clock.flag_fallen(t) is None
        clock = clock.complete_move(side, t)
        used[side].append(think)
        for who in ("white", "black"):
            remaining = clock.remaining_ms(who, t)
            assert remaining >= 0
            assert remaining == expected_remaining(tag, who, used[who], adjusted[who])
            assert remaining == clock.closed_form_ms(who)
        side = "black" if side == "white" else "white"


MOVES = ["Nf3", "Nf6", "Ng1", "Ng8"]


def commands(spacing: list[int]) -> list[dict[str, object]]:
    """Moves and readings of one game, a reading after every move."""
    out: list[dict[str, object]] = []
    t = 0.0
    for i, gap in enumerate(spacing):
        t += gap
        out.append({"cmd": "play_move", "game": "1.1", "move": MOVES[i % 4], "at": at(t)})
        out.append(
            {
                "cmd": "clock_reading",
                "game": "1.1",
                "at": at(t + 0.5),
                "white_ms": 7_200_000 - i * 1000,
                "black_ms": 7_200_000,
                "running": "black" if i % 2 == 0 else "white",
                "by": "dgt:1",
            }
        )
    return out


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    spacing=st.lists(st.integers(1, 300), min_size=1, max_size=12),
    cuts=st.lists(st.integers(1, 6), min_size=1, max_size=10),
)
def test_replaying_in_any_batching_gives_the_same_state(
    spacing: list[int], cuts: list[int]
) -> None:
    cmds = commands(spacing)
    states = []
    for batched in (False, True):
        with tempfile.TemporaryDirectory() as tmp, Store(f"{tmp}/s.sqlite") as store:
            paired_tournament(store)
            store.handle({"cmd": "start_game", "game": "1.1", "at": at(0)})
            if batched:
                index, k = 0, 0
                while index < len(cmds):
                    size = cuts[k % len(cuts)]
                    store.execute_many(cmds[index : index + size])
                    index, k = index + size, k + 1
            else:
                for cmd in cmds:
                    store.handle(cmd)
            live = (store.reads.game("1.1"), store.reads.clock_log("1.1"))
            with Store(f"{tmp}/s.sqlite") as fresh:
                reloaded = (fresh.reads.game("1.1"), fresh.reads.clock_log("1.1"))
            assert live[0] == reloaded[0]
            assert live[1].last == reloaded[1].last
            states.append(
                (live[0], live[1].last, [e.to_wire() for e in store.reads.readings("1.1")])
            )
    assert states[0] == states[1]


class ClockLifecycle(RuleBasedStateMachine):
    """Moves, adjustments and looks at random instants (Laws 6.1, 6.9; 3.5.1)."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = Clock.start(parse_time_control(CLASSICAL_3_5_1), 0)
        self.now = 0
        self.side = "white"
        self.added = {"white": 7_200_000, "black": 7_200_000}
        self.ended = False

    @precondition(lambda self: not self.ended)
    @rule(think=st.integers(0, 3_000_000))
    def move(self, think: int) -> None:
        falls = self.clock.flag_falls_at_ms()
        assert falls is not None
        if self.now + think >= falls:
            assert self.clock.flag_fallen(self.now + think) == self.side
            self.clock = self.clock.stop(falls)
            self.ended = True
            return
        self.now += think
        before = self.clock.side(self.side).moves
        self.clock = self.clock.complete_move(self.side, self.now)
        number = before + 1
        self.added[self.side] += {40: 3_600_000, 60: 900_000}.get(number, 0)
        self.added[self.side] += 30_000 if number >= 61 else 0
        self.side = "black" if self.side == "white" else "white"

    @precondition(lambda self: not self.ended)
    @rule(delta=st.integers(-200_000, 200_000), whom=st.sampled_from(["white", "black"]))
    def adjust(self, delta: int, whom: str) -> None:
        applied = max(delta, -self.clock.remaining_ms(whom, self.now))
        self.clock = self.clock.adjust(whom, delta, self.now)
        self.added[whom] += applied

    @rule(later=st.integers(0, 10_000_000))
    def look(self, later: int) -> None:
        seen = self.clock.at(self.now + later)
        for side in ("white", "black"):
            assert seen.remaining_ms(side) >= 0
            assert seen.remaining_ms(side) == seen.closed_form_ms(side)

    @invariant()
    def remaining_is_what_was_added_minus_what_was_used(self) -> None:
        for side in ("white", "black"):
            own = self.clock.side(side)
            assert own.remaining_ms >= 0
            assert own.remaining_ms == self.added[side] - own.used_ms


TestClockLifecycle = ClockLifecycle.TestCase
TestClockLifecycle.settings = settings(max_examples=60, stateful_step_count=80, deadline=None)
