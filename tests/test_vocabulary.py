"""Sides, game statuses, terminations and claim kinds are closed vocabularies
(StrEnums) whose values are the strings stores and replay logs have always held."""

from __future__ import annotations

import json

import pytest

from engine.arbiter.claim_verification import CLAIM_KINDS, ClaimKind
from engine.clock.regulation import Clock
from engine.clock.time_control import parse_time_control
from engine.game.record import SideCounts
from engine.game.state import GameStatus
from engine.side import SIDES, Side
from engine.termination import ON_TIME, Termination

CONTROL_3_5_1 = parse_time_control("40/7200:20/3600:900+30")


def test_the_stored_values_are_unchanged() -> None:
    assert [str(s) for s in SIDES] == ["white", "black"]
    assert [str(s) for s in GameStatus] == ["not_started", "in_progress", "finished"]
    assert {str(k) for k in ClaimKind} == {
        "threefold_repetition",
        "fifty_moves",
        "perpetual_check",
        "stalemate",
        "insufficient_material",
        "theoretical_draw",
    }
    assert set(CLAIM_KINDS) <= set(Termination)  # an accepted claim ends with its kind
    # 6.11 added both_flags_fallen; the stored values of 6.9 stay as they were
    assert {str(t) for t in ON_TIME} == {"time_forfeit", "flag_fall_draw", "both_flags_fallen"}
    assert json.dumps({Side.WHITE: Termination.RESIGNATION}) == '{"white": "resignation"}'
    assert Side("black") is Side.BLACK and Side.WHITE == "white"


def test_a_side_knows_its_opponent_colour_and_win() -> None:
    assert Side.WHITE.opponent is Side.BLACK and Side.BLACK.opponent is Side.WHITE
    assert (Side.WHITE.win, Side.BLACK.win) == ("1-0", "0-1")
    assert Side.of("white") is Side.WHITE
    with pytest.raises(ValueError, match="'both' is not a side"):
        Side.of("both")


@pytest.mark.parametrize("not_a_side", ["", "White", "both", "red", None, 0])
def test_3_5_1_the_clock_refuses_anything_that_is_not_a_side(not_a_side: object) -> None:
    clock = Clock.start(CONTROL_3_5_1, 0)
    assert clock.side(Side.BLACK) is clock.black
    with pytest.raises(ValueError, match="is not a side"):
        clock.side(not_a_side)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is not a side"):
        clock.remaining_ms(not_a_side)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is not a side"):
        clock.adjust(not_a_side, 60_000, 1_000)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is not a side"):
        Clock.start(CONTROL_3_5_1, 0, not_a_side)  # type: ignore[arg-type]


def test_3_5_1_a_stored_side_string_still_reads_its_clock() -> None:
    clock = Clock.start(CONTROL_3_5_1, 0).complete_move(Side.WHITE, 10_000)
    assert clock.running is Side.BLACK
    assert clock.side("white").moves == 1  # type: ignore[arg-type]  # as events store it
    assert clock.remaining_ms("black", 70_000) == 7_200_000 - 60_000  # type: ignore[arg-type]


def test_counts_per_side_refuse_anything_else() -> None:
    counts = SideCounts().with_count(Side.BLACK, 2)
    assert counts.of("black") == 2 and counts.of(Side.WHITE) == 0
    with pytest.raises(ValueError, match="'both' is not a side"):
        counts.of("both")
