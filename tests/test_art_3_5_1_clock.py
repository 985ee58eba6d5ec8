"""The regulation clock: 3.5.1, 3.7.1.a, 3.7.2, 3.7.3.a and Laws 2009, 6.9.

All durations are integer milliseconds.
"""

from __future__ import annotations

import chess
import pytest

from engine.checkmate import can_checkmate
from engine.clock.regulation import Clock, flag_fall_result
from engine.clock.time_control import (
    BLITZ_3_7_2,
    CLASSICAL_3_5_1,
    RAPID_3_7_1_A,
    SUDDEN_DEATH_3_7_3_A,
    Period,
    parse_time_control,
)
from engine.errors import MalformedCommand

S = 1000
MIN = 60 * S


def play_moves(control: str, seconds_per_move: float, moves: int, start: int = 0) -> Clock:
    """Both sides play ``moves`` moves each, every move taking ``seconds_per_move``."""
    clock = Clock.start(parse_time_control(control), start)
    t = start
    for _ in range(moves):
        for side in ("white", "black"):
            t += round(seconds_per_move * S)
            clock = clock.complete_move(side, t)
    return clock


class TestTimeControlTag:
    """PGN TimeControl (9.6.1) and this project's two-sided form."""

    def test_3_5_1_tag_reads_as_three_periods_with_increment_in_the_last_only(self) -> None:
        control = parse_time_control(CLASSICAL_3_5_1)
        assert control.periods == (
            Period(40, 120 * MIN, 120 * MIN, 0),
            Period(20, 60 * MIN, 60 * MIN, 0),
            Period(None, 15 * MIN, 15 * MIN, 30 * S),
        )

    @pytest.mark.parametrize(
        "tag",
        [CLASSICAL_3_5_1, RAPID_3_7_1_A, BLITZ_3_7_2, SUDDEN_DEATH_3_7_3_A, "40/5400+30:1800+30"],
    )
    def test_written_form_round_trips(self, tag: str) -> None:
        assert parse_time_control(tag).tag == tag

    def test_3_7_3_a_sudden_death_form_gives_white_5_and_black_4_minutes(self) -> None:
        control = parse_time_control(SUDDEN_DEATH_3_7_3_A)
        assert control.initial_ms("white") == 5 * MIN
        assert control.initial_ms("black") == 4 * MIN
        assert control.periods[1] == Period(None, 0, 0, 3 * S)

    def test_unknown_and_no_control_are_not_modelled(self) -> None:
        assert not parse_time_control("?").known
        assert not parse_time_control("-").known

    def test_last_moves_period_repeats(self) -> None:
        control = parse_time_control("40/9000")
        assert control.control_after(80) == 2
        assert control.moves_to_control(41) == 39

    @pytest.mark.parametrize(
        ("tag", "message"),
        [
            ("*180", "sandclock field '*180' is not supported"),
            ("40/7200:abc", "cannot read field 2 ('abc')"),
            ("900+30:40/7200", "the sudden-death field '900+30' must be the last one"),
            ("0+3", "the first period gives a player no time"),
        ],
    )
    def test_bad_tags_are_refused_naming_the_field(self, tag: str, message: str) -> None:
        with pytest.raises(MalformedCommand) as refused:
            parse_time_control(tag)
        assert message in refused.value.message


class TestArt3_5_1Bonuses:
    """3.5.1: +60 min on completing move 40, +15 min on completing move 60."""

    def test_3_5_1_no_bonus_at_move_39(self) -> None:
        clock = play_moves(CLASSICAL_3_5_1, 60, 39)
        assert clock.side("white").remaining_ms == 120 * MIN - 39 * MIN
        assert clock.side("white").bonus_ms == 0

    def test_3_5_1_bonus_credited_on_completing_move_40_exactly(self) -> None:
        before = play_moves(CLASSICAL_3_5_1, 60, 39)
        white_done = before.complete_move("white", before.at_ms + MIN)
        assert white_done.side("white").remaining_ms == 120 * MIN - 40 * MIN + 60 * MIN
        # Black has not completed move 40 yet: nothing credited to him.
        assert white_done.side("black").bonus_ms == 0
        assert white_done.moves_to_control("white") == 20

    def test_3_5_1_bonus_credited_on_completing_move_60_exactly(self) -> None:
        clock = play_moves(CLASSICAL_3_5_1, 60, 59)
        assert clock.side("white").bonus_ms == 60 * MIN
        clock = clock.complete_move("white", clock.at_ms + MIN)
        assert clock.side("white").bonus_ms == 75 * MIN
        assert clock.side("white").remaining_ms == 180 * MIN - 60 * MIN + 15 * MIN
        assert clock.moves_to_control("white") is None

    def test_3_5_1_increment_only_from_move_61(self) -> None:
        clock = play_moves(CLASSICAL_3_5_1, 10, 60)
        assert clock.side("white").increments == 0
        clock = clock.complete_move("white", clock.at_ms + 10 * S)
        assert clock.side("white").increments == 1
        assert clock.side("white").increments_ms == 30 * S
        assert clock.side("white").remaining_ms == 195 * MIN - 61 * 10 * S + 30 * S

    def test_3_5_1_nothing_credited_for_a_move_not_completed(self) -> None:
        clock = play_moves(CLASSICAL_3_5_1, 60, 39)
        thinking = clock.complete_move("white", clock.at_ms + 60 * S).at(clock.at_ms + 3 * MIN)
        # Black is thinking on his 40th move: no bonus before he completes it.
        assert thinking.side("black").bonus_ms == 0
        assert thinking.remaining_ms("black") == 120 * MIN - 39 * MIN - 2 * MIN


class TestArt3_7IncrementFromMove1:
    """3.7.1.a rapid (25 min + 10 s) and 3.7.2 blitz (5 min + 3 s): from move 1."""

    def test_3_7_1_a_rapid_increment_from_move_1(self) -> None:
        clock = play_moves(RAPID_3_7_1_A, 20, 1)
        assert clock.side("white").remaining_ms == 25 * MIN - 20 * S + 10 * S
        assert clock.side("black").remaining_ms == 25 * MIN - 20 * S + 10 * S

    def test_3_7_2_blitz_increment_from_move_1(self) -> None:
        clock = play_moves(BLITZ_3_7_2, 5, 10)
        assert clock.side("white").remaining_ms == 5 * MIN - 50 * S + 30 * S
        assert clock.side("white").increments == 10


class TestArt3_7_3_aSuddenDeath:
    """3.7.3.a: White 5 min, Black 4 min, 3 s a move only from move 61."""

    def test_3_7_3_a_asymmetric_start(self) -> None:
        clock = Clock.start(parse_time_control(SUDDEN_DEATH_3_7_3_A), 0)
        assert clock.remaining_ms("white") == 5 * MIN
        assert clock.remaining_ms("black") == 4 * MIN

    def test_3_7_3_a_no_increment_until_move_60_then_3_s_from_move_61(self) -> None:
        clock = play_moves(SUDDEN_DEATH_3_7_3_A, 1, 60)
        assert clock.side("white").increments == 0
        assert clock.remaining_ms("white") == 5 * MIN - 60 * S
        assert clock.remaining_ms("black") == 4 * MIN - 60 * S
        clock = clock.complete_move("white", clock.at_ms + S)
        assert clock.remaining_ms("white") == 5 * MIN - 61 * S + 3 * S


class TestArt6_9FlagFall:
    """Laws 2009, 6.1 and 6.9: the flag falls when the time reaches zero."""

    def test_6_9_move_40_completed_with_1_ms_left_gets_the_bonus(self) -> None:
        clock = play_moves(CLASSICAL_3_5_1, 60, 39)  # white has 81 min left
        left = clock.remaining_ms("white")
        at = clock.at_ms + left - 1
        assert clock.flag_fallen(at) is None
        clock = clock.complete_move("white", at)
        assert clock.remaining_ms("white") == 1 + 60 * MIN

    def test_6_9_flag_falls_when_the_time_reaches_zero_before_move_40(self) -> None:
        clock = play_moves(CLASSICAL_3_5_1, 60, 39)
        falls = clock.at_ms + clock.remaining_ms("white")
        assert clock.flag_falls_at_ms() == falls
        assert clock.flag_fallen(falls) == "white"
        assert clock.flag_fallen(falls - 1) is None

    def test_6_9_time_never_runs_below_zero(self) -> None:
        clock = Clock.start(parse_time_control(BLITZ_3_7_2), 0)
        assert clock.at(10 * MIN).remaining_ms("white") == 0
        assert clock.at(10 * MIN).side("white").used_ms == 5 * MIN

    @pytest.mark.parametrize(
        ("fen", "flagged", "expected"),
        [
            # K v K+N: White's flag falls; a lone king cannot mate.
            ("8/8/4k3/8/8/3NK3/8/8 w - - 0 1", "white", ("1/2-1/2", "flag_fall_draw")),
            # K+B v K: Black's flag falls; a king and one bishop cannot mate.
            ("8/8/4k3/8/8/3BK3/8/8 b - - 0 1", "black", ("1/2-1/2", "flag_fall_draw")),
            # K+Q (flagging) v K+N: the knight cannot mate a king whose only helper is a queen.
            ("8/8/4k3/3q4/8/3NK3/8/8 w - - 0 1", "black", ("1/2-1/2", "flag_fall_draw")),
            # K+R (flagging) v K+N: a helpmate exists (the rook can block), so it is a loss.
            ("8/8/4k3/3r4/8/3NK3/8/8 b - - 0 1", "black", ("1-0", "time_forfeit")),
            # K+P (flagging) v K+B: the pawn can block its own king: a loss.
            ("8/8/4k3/4p3/8/3BK3/8/8 b - - 0 1", "black", ("1-0", "time_forfeit")),
            # Lone king flags against K+Q: plainly lost.
            ("8/8/4k3/8/8/3QK3/8/8 b - - 0 1", "black", ("1-0", "time_forfeit")),
        ],
    )
    def test_6_9_draw_when_the_opponent_cannot_mate_by_any_series_of_legal_moves(
        self, fen: str, flagged: str, expected: tuple[str, str]
    ) -> None:
        assert flag_fall_result(chess.Board(fen), flagged) == expected

    def test_6_9_can_checkmate_is_a_helpmate_test_not_a_material_count(self) -> None:
        board = chess.Board("8/8/4k3/3r4/8/3NK3/8/8 w - - 0 1")
        assert can_checkmate(board, "white")  # K+N v K+R: mate with the rook's help
        assert can_checkmate(board, "black")


class TestAdjustments:
    """Laws 7.4 b (+2 min), 9.5 (+3 min): arbiter adjustments, never below zero."""

    def test_adjustment_adds_to_the_side_named(self) -> None:
        clock = Clock.start(parse_time_control(CLASSICAL_3_5_1), 0).adjust("black", 2 * MIN, 5 * S)
        assert clock.remaining_ms("black") == 122 * MIN
        assert clock.remaining_ms("white") == 120 * MIN - 5 * S

    def test_taking_more_than_is_left_leaves_zero(self) -> None:
        clock = Clock.start(parse_time_control(BLITZ_3_7_2), 0).adjust("white", -10 * MIN, 0)
        assert clock.remaining_ms("white") == 0
        assert clock.closed_form_ms("white") == 0


class TestClockAtAnyInstant:
    def test_running_side_runs_down_between_events_the_other_stands(self) -> None:
        clock = Clock.start(parse_time_control(CLASSICAL_3_5_1), 1_000_000)
        clock = clock.complete_move("white", 1_000_000 + 30 * S)
        later = clock.at(1_000_000 + 30 * S + 1234)
        assert later.remaining_ms("white") == 120 * MIN - 30 * S
        assert later.remaining_ms("black") == 120 * MIN - 1234
        assert clock.remaining_ms("black", 1_000_000 + 30 * S + 1234) == 120 * MIN - 1234
        # An instant before the clock's own instant reads the values it holds.
        assert clock.at(0) is clock
