"""3.8.1 prize table and equal sharing by points; 3.8.2 no prize to a withdrawn player."""

from __future__ import annotations

from fractions import Fraction

from projections.prizes import PRIZES_2012_EUR, euros, prize_shares, prizes_object

ORDER = ["a", "b", "c", "d", "e", "f", "g", "h"]


def points(*values: float) -> dict[str, Fraction]:
    return {p: Fraction(v) for p, v in zip(ORDER, values, strict=True)}


class TestArt3_8_1PrizeTable:
    def test_3_8_1_minimum_table_totals_420000(self) -> None:
        assert sum(PRIZES_2012_EUR) == 420_000
        assert PRIZES_2012_EUR[0] == 95_000 and PRIZES_2012_EUR[-1] == 17_000

    def test_3_8_1_no_tie_each_place_its_prize(self) -> None:
        shares, retained = prize_shares(ORDER, points(8, 7, 6, 5, 4, 3, 2, 1))
        assert [shares[p] for p in ORDER] == list(PRIZES_2012_EUR)
        assert retained == 0

    def test_3_8_1_two_way_tie_shares_places_1_and_2(self) -> None:
        shares, _ = prize_shares(ORDER, points(8.5, 8.5, 8, 7, 6, 5, 4, 3))
        assert shares["a"] == shares["b"] == Fraction(95_000 + 88_000, 2) == 91_500
        assert shares["c"] == 75_000

    def test_3_8_1_three_way_tie_shares_places_2_to_4(self) -> None:
        shares, _ = prize_shares(ORDER, points(9, 7.5, 7.5, 7.5, 6, 5, 4, 3))
        expected = Fraction(88_000 + 75_000 + 55_000, 3)
        assert shares["b"] == shares["c"] == shares["d"] == expected
        assert euros(expected) == 72_666.67
        assert sum(shares.values()) == 420_000

    def test_3_8_1_shared_by_points_whatever_the_tie_breaks_say(self) -> None:
        # the order inside a points group (tie-breaks, playoff) does not move money
        first, _ = prize_shares(["a", "b", "c"], {"a": 2, "b": 2, "c": 1}, table=(3, 2, 1))
        second, _ = prize_shares(["b", "a", "c"], {"a": 2, "b": 2, "c": 1}, table=(3, 2, 1))
        assert first == second == {"a": Fraction(5, 2), "b": Fraction(5, 2), "c": 1}


class TestArt3_8_2NoPrizeToAWithdrawnPlayer:
    def test_3_8_2_withdrawn_player_gets_nothing_and_the_amount_remains_with_fide(self) -> None:
        shares, retained = prize_shares(ORDER, points(8, 7, 6, 5, 4, 3, 2, 1), withdrawn={"h"})
        assert shares["h"] == 0 and retained == 17_000

    def test_3_8_2_withdrawn_player_level_with_others_keeps_his_share_with_fide(self) -> None:
        shares, retained = prize_shares(ORDER, points(8, 7, 7, 5, 4, 3, 2, 1), withdrawn={"c"})
        assert shares["b"] == Fraction(88_000 + 75_000, 2)
        assert shares["c"] == 0 and retained == Fraction(88_000 + 75_000, 2)

    def test_3_8_2_fewer_than_eight_players_the_places_left_remain_with_fide(self) -> None:
        obj = prizes_object(ORDER[:7], points(7, 6, 5, 4, 3, 2, 1, 0))
        assert obj["retained_by_fide_eur"] == 17_000
        assert obj["fund_eur"] == 420_000
        assert [p["eur"] for p in obj["prizes"]] == list(PRIZES_2012_EUR[:7])
