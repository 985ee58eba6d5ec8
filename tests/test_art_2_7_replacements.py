"""Replacements from the 2.7 list after withdrawals, articles 3.3.1, 3.3.2 and 3.3.3."""

from __future__ import annotations

from datetime import date

import pytest

from engine.errors import MalformedCommand
from engine.qualification.inputs import parse_qualification
from engine.qualification.qualification import qualify
from engine.qualification.ranking import UndecidedTie
from engine.qualification.withdrawals import months_before
from tests.qualification_helpers import TEN_RATED, qualification_file, rated

START = "2012-10-20"
"""The event's first day; three months before it is 2012-07-20."""


def run(withdrawals, players=TEN_RATED, start_date=START, nominee="nom"):
    raw = qualification_file(
        players, nominee=nominee, withdrawals=withdrawals, start_date=start_date
    )
    return qualify(parse_qualification(raw))


def field(result):
    return [(p.player, p.article) for p in result.field]


class TestArt3_3_2ReplacedWhenThreeMonthsOrMore:
    """3.3.2: a withdrawal at least 3 months before the start is replaced per 2.7."""

    def test_3_3_2_the_first_reserve_takes_the_place(self):
        result = run([{"player": "cup2", "on": "2012-06-01", "reason": "illness"}])
        assert field(result)[1] == ("r4", "2.7")
        assert result.field[1].reason == "replaces cup2 (3.3.2)"
        assert result.field[1].replaces == "cup2"
        assert result.reserves == ("r5", "r6", "r7")
        (w,) = result.withdrawals
        assert (w.article, w.replaced_by) == ("3.3.2", "r4")
        assert result.complete

    def test_3_3_2_replacement_chain_after_two_withdrawals(self):
        # A qualifier withdraws; later his replacement withdraws too: the next
        # reserve replaces the replacement, in the same place.
        result = run(
            [
                {"player": "r4", "on": "2012-06-15"},
                {"player": "r2", "on": "2012-05-01"},
            ]
        )
        assert [(w.player, w.article, w.replaced_by) for w in result.withdrawals] == [
            ("r2", "3.3.2", "r4"),
            ("r4", "3.3.2", "r5"),
        ]
        assert field(result)[5] == ("r5", "2.7")
        assert result.field[5].replaces == "r4"
        assert result.reserves == ("r6", "r7")
        rows = {r.player: r.status for r in result.rating_list}
        assert rows["r2"] == "withdrew (3.3.2), replaced by r4"
        assert rows["r4"] == "withdrew (3.3.2), replaced by r5"
        assert rows["r5"] == "qualified (2.7)"

    def test_3_3_2_exactly_three_months_before_is_at_least_three_months(self):
        result = run([{"player": "cup1", "on": "2012-07-20"}])
        assert result.withdrawals[0].article == "3.3.2"
        assert result.withdrawals[0].replaced_by == "r4"

    def test_3_3_2_the_nominee_is_replaced_from_the_rating_list_too(self):
        result = run([{"player": "nom", "on": "2012-03-01"}])
        assert field(result)[-1] == ("r4", "2.7")

    def test_3_3_2_no_reserve_left_leaves_the_place_open(self):
        players = [rated("a", 2800, 2800), rated("b", 2790, 2790), rated("c", 2780, 2780)]
        players += [rated("nom", 2700, 2705)]
        result = run([{"player": "a", "on": "2012-03-01"}], players=players)
        assert result.withdrawals[0].replaced_by is None
        assert result.pending == ("3.3.2: no reserve left on the 2.3 list to replace a",)
        assert not result.complete
        assert len(result.field) == 7

    def test_3_3_2_a_level_pair_at_the_head_of_the_reserves_is_undecided(self):
        players = [*TEN_RATED[:3], rated("x", 2770, 2780), rated("y", 2780, 2770)]
        players += [rated("nom", 2700, 2705)]
        with pytest.raises(UndecidedTie, match=r"the replacement of r1: \['x', 'y'\] are level"):
            run([{"player": "r1", "on": "2012-03-01"}], players=players)


class TestArt3_3_3NotReplacedUnderThreeMonths:
    """3.3.3: a withdrawal with less than 3 months left is not replaced."""

    def test_3_3_3_a_day_late_is_not_replaced(self):
        result = run([{"player": "cup1", "on": "2012-07-21", "reason": "family"}])
        (w,) = result.withdrawals
        assert (w.article, w.replaced_by) == ("3.3.3", None)
        assert "his first-round opponent is declared the winner" in w.reason
        assert result.field[0].player == "cup1"
        assert result.field[0].withdrawn
        assert result.reserves == ("r4", "r5", "r6", "r7")

    def test_3_3_3_a_withdrawal_on_the_first_day_belongs_to_the_tournament(self):
        with pytest.raises(
            MalformedCommand, match=r"withdrawal from the tournament \(article 3.1\)"
        ):
            run([{"player": "cup1", "on": START}])

    def test_3_3_3_needs_the_start_date(self):
        with pytest.raises(MalformedCommand, match="needs the event's 'start_date'"):
            run([{"player": "cup1", "on": "2012-03-01"}], start_date=None)


class TestArt3_3_1ContractNotSubmitted:
    """3.3.1: a player who does not submit his contract in time is replaced per 2.7."""

    def test_3_3_1_replaced_even_inside_three_months(self):
        result = run([{"player": "r3", "on": "2012-09-01", "kind": "contract_not_submitted"}])
        (w,) = result.withdrawals
        assert (w.article, w.replaced_by) == ("3.3.1", "r4")
        assert field(result)[6] == ("r4", "2.7")


class TestReserves:
    """2.7: a reserve who declines leaves the list; unknown players are refused."""

    def test_a_reserve_who_declines_leaves_the_list_before_the_next_replacement(self):
        result = run(
            [
                {"player": "r4", "on": "2012-04-01", "reason": "declines"},
                {"player": "cup3", "on": "2012-05-01"},
            ]
        )
        assert [(w.player, w.article, w.replaced_by) for w in result.withdrawals] == [
            ("r4", "2.7", None),
            ("cup3", "3.3.2", "r5"),
        ]
        assert {r.player: r.status for r in result.rating_list}["r4"] == "reserve, declined"

    def test_a_withdrawal_of_someone_neither_qualified_nor_reserve_is_refused(self):
        with pytest.raises(MalformedCommand, match="neither qualified nor a reserve"):
            run([{"player": "champion", "on": "2012-03-01"}])

    def test_withdrawing_twice_is_refused(self):
        with pytest.raises(MalformedCommand, match="withdraws twice"):
            run([{"player": "cup1", "on": "2012-03-01"}, {"player": "cup1", "on": "2012-04-01"}])

    def test_an_unknown_kind_is_malformed(self):
        with pytest.raises(MalformedCommand, match="kind must be one of withdrew"):
            run([{"player": "cup1", "on": "2012-03-01", "kind": "vanished"}])


class TestThreeCalendarMonths:
    """3.3.2 / 3.3.3 count calendar months back from the first day."""

    @pytest.mark.parametrize(
        ("start", "limit"),
        [
            (date(2012, 10, 20), date(2012, 7, 20)),
            (date(2013, 3, 13), date(2012, 12, 13)),
            (date(2012, 5, 31), date(2012, 2, 29)),
            (date(2013, 5, 31), date(2013, 2, 28)),
            (date(2012, 12, 31), date(2012, 9, 30)),
        ],
    )
    def test_three_months_before(self, start, limit):
        assert months_before(start, 3) == limit
