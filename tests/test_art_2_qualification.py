"""Qualification for the Candidates, articles 2.1, 2.2, 2.3, 2.6 and 2.7 (reserves)."""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import MalformedCommand
from engine.qualification.averages import average_rating
from engine.qualification.inputs import parse_qualification
from engine.qualification.qualification import qualify
from engine.qualification.ranking import UndecidedTie
from tests.qualification_helpers import TEN_RATED, qualification_file, rated


def run(raw):
    inp = parse_qualification(raw)
    return inp, qualify(inp)


def field_ids(result):
    return [p.player for p in result.field]


def row(result, pid):
    return next(r for r in result.rating_list if r.player == pid)


class TestArt2_1WorldCup:
    """2.1: the three top winners of the World Cup 2011 qualify."""

    def test_2_1_the_top_three_qualify_first_in_their_order(self):
        _, result = run(qualification_file(TEN_RATED, nominee="nom"))
        first = result.qualifiers[:3]
        assert [(p.player, p.article) for p in first] == [
            ("cup1", "2.1"),
            ("cup2", "2.1"),
            ("cup3", "2.1"),
        ]
        assert [p.reason for p in first] == [
            "World Cup 2011 winner",
            "World Cup 2011 runner-up",
            "World Cup 2011 third",
        ]

    def test_2_1_needs_exactly_three_players(self):
        raw = qualification_file(TEN_RATED)
        raw["world_cup_2011"] = ["cup1", "cup2"]
        with pytest.raises(MalformedCommand, match=r"three top finishers .* \(article 2.1\)"):
            parse_qualification(raw)

    def test_2_1_a_name_not_in_the_players_is_malformed(self):
        raw = qualification_file(TEN_RATED)
        raw["world_cup_2011"][2] = "nobody"
        with pytest.raises(MalformedCommand, match=r"world_cup_2011\[2\] names 'nobody'"):
            parse_qualification(raw)


class TestArt2_2MatchLoser:
    """2.2: the player who lost the 2012 World Championship match qualifies."""

    def test_2_2_the_loser_qualifies_fourth(self):
        _, result = run(qualification_file(TEN_RATED, nominee="nom"))
        assert result.qualifiers[3].player == "challenger"
        assert result.qualifiers[3].article == "2.2"

    def test_2_2_before_the_match_the_place_is_pending(self):
        _, result = run(qualification_file(TEN_RATED, nominee="nom", loser=None))
        assert not result.complete
        assert any(p.startswith("2.2: the 2012 World Championship match") for p in result.pending)
        # Both players of the match stay off the rating list meanwhile.
        ranked = {r.player for r in result.rating_list}
        assert not ranked & {"champion", "challenger"}

    def test_2_2_if_the_champion_loses_he_qualifies_and_the_winner_does_not(self):
        _, result = run(qualification_file(TEN_RATED, nominee="nom", loser="champion"))
        assert result.qualifiers[3].player == "champion"
        assert "challenger" not in field_ids(result)
        assert dict(result.not_ranked)["challenger"].startswith("the World Champion")

    def test_2_2_a_loser_already_qualified_under_2_1_leaves_his_place_to_2_7(self):
        # Priority order: he keeps the 2.1 place; the 2.2 place goes to the list.
        raw = qualification_file(TEN_RATED, nominee="nom", world_cup=["challenger", "cup1", "cup2"])
        _, result = run(raw)
        assert [(p.player, p.article) for p in result.field] == [
            ("challenger", "2.1"),
            ("cup1", "2.1"),
            ("cup2", "2.1"),
            ("r4", "2.7"),
            ("r1", "2.3"),
            ("r2", "2.3"),
            ("r3", "2.3"),
            ("nom", "2.6"),
        ]
        assert "already qualified under 2.1" in result.field[3].reason

    def test_2_2_the_loser_must_have_played_the_match(self):
        raw = qualification_file(TEN_RATED, loser="cup1")
        with pytest.raises(MalformedCommand, match="did not play the match"):
            parse_qualification(raw)


class TestArt2_3Average:
    """2.3: (July 2011 + January 2012) / 2, two decimals, and the inactive list."""

    def test_2_3_the_average_of_july_2011_and_january_2012(self):
        inp = parse_qualification(qualification_file([rated("x", 2744, 2773)]))
        avg = average_rating(inp.player("x"))
        assert avg.value == Fraction(5517, 2)
        assert avg.two_decimals == Decimal("2758.50")
        assert avg.basis == "July 2011 and January 2012"

    def test_2_3_three_best_averages_qualify_excluding_2_1_and_2_2(self):
        # The champion (2808.00) and the 2.1 players are not on the list at all.
        _, result = run(qualification_file(TEN_RATED, nominee="nom"))
        assert [(p.player, p.reason) for p in result.qualifiers[4:7]] == [
            ("r1", "rated place 1 by average rating"),
            ("r2", "rated place 2 by average rating"),
            ("r3", "rated place 3 by average rating"),
        ]
        not_ranked = dict(result.not_ranked)
        assert not_ranked["cup1"] == "qualified under 2.1"
        assert not_ranked["challenger"] == "qualified under 2.2"
        assert not_ranked["champion"] == "the World Champion (2012 match): not a candidate"

    def test_2_3_two_decimals_half_a_point_decides(self):
        players = [
            rated("a", 2790, 2791, games_2011=1),
            rated("b", 2790, 2790, games_2011=99),
            rated("c", 2800, 2800),
            rated("d", 2799, 2799),
        ]
        _, result = run(qualification_file(players))
        # a 2790.50 beats b 2790.00 although b played more games: averages first.
        assert [p.player for p in result.qualifiers[4:7]] == ["c", "d", "a"]
        assert row(result, "a").average == "2790.50"
        assert row(result, "b").decided_by == "average"

    def test_2_3_equal_averages_resolved_by_games_in_2011(self):
        players = [
            rated("c", 2800, 2800),
            rated("d", 2799, 2799),
            rated("few", 2780, 2790, games_2011=40),
            rated("many", 2790, 2780, games_2011=63),
        ]
        _, result = run(qualification_file(players))
        assert result.qualifiers[6].player == "many"
        assert result.reserves == ("few",)
        assert row(result, "few").decided_by == "games_2011"
        assert row(result, "few").average == row(result, "many").average == "2785.00"

    def test_2_3_then_by_the_march_2012_rating(self):
        players = [
            rated("c", 2800, 2800),
            rated("d", 2799, 2799),
            rated("low", 2780, 2790, games_2011=50, march=2781),
            rated("high", 2790, 2780, games_2011=50, march=2795),
        ]
        _, result = run(qualification_file(players))
        assert result.qualifiers[6].player == "high"
        assert row(result, "low").decided_by == "march_2012_rating"

    def test_2_3_then_by_the_games_in_the_march_2012_list(self):
        players = [
            rated("c", 2800, 2800),
            rated("d", 2799, 2799),
            rated("idle", 2780, 2790, games_2011=50, march=2790, march_games=2),
            rated("busy", 2790, 2780, games_2011=50, march=2790, march_games=9),
        ]
        _, result = run(qualification_file(players))
        assert result.qualifiers[6].player == "busy"
        assert row(result, "idle").decided_by == "march_2012_games"

    def test_2_3_the_chain_refines_the_whole_level_group_in_order(self):
        # Three level on average; games in 2011 put p first, q and s stay level
        # and go on to the March list (no restart at the average for the pair).
        players = [
            rated("p", 2770, 2770, games_2011=70),
            rated("q", 2760, 2780, games_2011=50, march=2760),
            rated("s", 2780, 2760, games_2011=50, march=2775),
        ]
        _, result = run(qualification_file(players))
        assert [p.player for p in result.qualifiers[4:7]] == ["p", "s", "q"]
        assert [row(result, x).decided_by for x in ("p", "s", "q")] == [
            None,
            "games_2011",
            "march_2012_rating",
        ]

    def test_2_3_level_at_the_third_place_after_every_criterion_is_undecided(self):
        players = [
            rated("c", 2800, 2800),
            rated("d", 2799, 2799),
            rated("e", 2780, 2790, games_2011=50, march=2790, march_games=4),
            rated("f", 2790, 2780, games_2011=50, march=2790, march_games=4),
        ]
        with pytest.raises(UndecidedTie) as refused:
            run(qualification_file(players))
        assert refused.value.code == "undecided_tie"
        assert refused.value.message == (
            "article 2.3 cannot decide the 3 rated places: ['e', 'f'] are level for 1 place(s): "
            "level on every criterion of 2.3 (average, games in 2011, March 2012 rating, games "
            "in the March 2012 list); the regulations are silent beyond them"
        )

    def test_2_3_level_at_the_third_place_without_games_names_the_missing_figures(self):
        players = [
            rated("c", 2800, 2800),
            rated("d", 2799, 2799),
            rated("e", 2780, 2790, games_2011=50),
            rated("f", 2790, 2780),
        ]
        with pytest.raises(UndecidedTie) as refused:
            run(qualification_file(players))
        assert refused.value.message.endswith(
            "['e', 'f'] are level for 1 place(s): the number of games in 2011 is needed to "
            "separate them and is not given for ['f']"
        )

    def test_2_3_a_level_pair_that_decides_no_place_is_reported_not_refused(self):
        players = [rated("c", 2800, 2800), rated("d", 2799, 2799), rated("e", 2798, 2798)]
        players += [rated("g", 2700, 2710), rated("h", 2710, 2700)]
        _, result = run(qualification_file(players))
        g, h = row(result, "g"), row(result, "h")
        assert g.rank == h.rank == 4
        assert g.level_with == ("h",)
        assert "not given" in (g.level_because or "")

    def test_2_3_a_level_pair_both_inside_the_places_needs_no_tie_break(self):
        players = [rated("c", 2800, 2800), rated("d", 2790, 2810), rated("e", 2700, 2700)]
        _, result = run(qualification_file(players))
        assert {p.player for p in result.qualifiers[4:7]} == {"c", "d", "e"}


class TestArt2_3InactiveList:
    """2.3: inactive in both lists: not eligible; in one: the other rating counts."""

    def test_2_3_inactive_in_january_the_july_rating_is_the_average(self):
        inp = parse_qualification(
            qualification_file([rated("x", 2790, 2700, inactive_january=True)])
        )
        avg = average_rating(inp.player("x"))
        assert avg.value == 2790
        assert avg.basis == "July 2011 only (inactive in the January 2012 list)"

    def test_2_3_inactive_in_july_the_january_rating_is_the_average(self):
        players = [
            rated("c", 2800, 2800),
            rated("d", 2799, 2799),
            rated("back", 2600, 2795, inactive_july=True),
            rated("e", 2790, 2790),
        ]
        _, result = run(qualification_file(players))
        # 2795.00 alone, not (2600 + 2795) / 2: third place.
        assert result.qualifiers[6].player == "back"
        assert row(result, "back").basis == "January 2012 only (inactive in the July 2011 list)"

    def test_2_3_absent_from_one_list_the_published_rating_counts(self):
        inp = parse_qualification(qualification_file([rated("new", None, 2760)]))
        avg = average_rating(inp.player("new"))
        assert avg.value == 2760
        assert avg.basis == "January 2012 only (absent in the July 2011 list)"

    def test_2_3_inactive_on_both_lists_cannot_qualify_by_rating(self):
        players = [
            rated("idle", 2850, 2850, inactive_july=True, inactive_january=True),
            rated("c", 2800, 2800),
            rated("d", 2799, 2799),
            rated("e", 2790, 2790),
        ]
        _, result = run(qualification_file(players))
        assert "idle" not in field_ids(result)
        assert "idle" not in result.reserves
        assert dict(result.not_ranked)["idle"] == (
            "no average rating (article 2.3): inactive in both the July 2011 and January 2012 lists"
        )

    def test_2_3_inactive_on_both_lists_may_still_be_nominated_above_2700(self):
        # 2.6 asks a rating of at least 2700 in January 2012, not activity.
        players = [*TEN_RATED, rated("idle", 2760, 2750, inactive_july=True, inactive_january=True)]
        _, result = run(qualification_file(players, nominee="idle"))
        assert result.nominee.status == "accepted"


class TestArt2_6Nominee:
    """2.6: one player nominated by the organiser, rated at least 2700 in January 2012."""

    def test_2_6_nominee_rated_exactly_2700_is_accepted(self):
        players = [*TEN_RATED, rated("wild", 2650, 2700)]
        _, result = run(qualification_file(players, nominee="wild"))
        assert result.field[-1].player == "wild"
        assert result.field[-1].article == "2.6"
        assert result.complete

    def test_2_6_nominee_under_2700_is_refused_with_the_article(self):
        players = [*TEN_RATED, rated("wild", 2720, 2699)]
        _, result = run(qualification_file(players, nominee="wild"))
        assert result.nominee_refused
        assert result.nominee.article == "2.6"
        assert result.nominee.reason == (
            "wild is rated 2699 in the January 2012 list; the nominee needs at least 2700"
        )
        assert not result.complete
        assert "wild" not in field_ids(result)

    def test_2_6_nominee_already_qualified_is_refused(self):
        _, result = run(qualification_file(TEN_RATED, nominee="r1"))
        assert result.nominee.status == "refused"
        assert result.nominee.reason == "r1 already qualified under 2.3"

    def test_2_6_nominee_without_a_january_2012_rating_is_refused(self):
        players = [*TEN_RATED, rated("wild", 2750, None)]
        _, result = run(qualification_file(players, nominee="wild"))
        assert result.nominee.reason == "wild has no rating in the January 2012 list"

    def test_2_6_no_nominee_yet_leaves_the_place_pending(self):
        _, result = run(qualification_file(TEN_RATED))
        assert result.nominee.status == "pending"
        assert result.pending == ("2.6: the organiser has not nominated a player",)
        assert len(result.field) == 7

    def test_2_6_a_nominee_from_the_reserves_leaves_the_reserve_list(self):
        _, result = run(qualification_file(TEN_RATED, nominee="r5"))
        assert result.nominee.status == "accepted"
        assert result.reserves == ("r4", "r6", "r7", "nom")
        assert row(result, "r5").status == "qualified (2.6)"


class TestArt2_7Reserves:
    """2.7: replacements come from the average list, in its order."""

    def test_2_7_the_reserves_are_the_rest_of_the_list_in_order(self):
        _, result = run(qualification_file(TEN_RATED, nominee="nom"))
        assert result.reserves == ("r4", "r5", "r6", "r7")
        assert [row(result, r).status for r in result.reserves] == [
            "reserve 1",
            "reserve 2",
            "reserve 3",
            "reserve 4",
        ]

    @settings(max_examples=40, deadline=None)
    @given(st.randoms(use_true_random=False))
    def test_2_7_the_order_of_the_input_does_not_matter(self, rnd: random.Random):
        players = [
            rated(f"p{i}", 2700 + (i * 7) % 50, 2700 + (i * 11) % 50, games_2011=i)
            for i in range(12)
        ]
        shuffled = players[:]
        rnd.shuffle(shuffled)
        _, a = run(qualification_file(players))
        _, b = run(qualification_file(shuffled))
        assert field_ids(a) == field_ids(b)
        assert a.reserves == b.reserves

    @settings(max_examples=60, deadline=None)
    @given(
        st.lists(
            st.tuples(
                st.integers(2600, 2850),
                st.integers(2600, 2850),
                st.integers(0, 99),
                st.integers(2600, 2850),
                st.integers(0, 20),
            ),
            min_size=3,
            max_size=12,
            unique_by=lambda t: (t[0] + t[1], t[2], t[3], t[4]),
        )
    )
    def test_2_3_the_list_never_ranks_a_lower_average_above_a_higher(self, lines):
        # Unique on the whole chain, so 2.3 always decides.
        players = [
            rated(f"p{i}", j, n, games_2011=g, march=m, march_games=mg)
            for i, (j, n, g, m, mg) in enumerate(lines)
        ]
        _, result = run(qualification_file(players))
        averages = [Decimal(r.average) for r in result.rating_list]
        assert averages == sorted(averages, reverse=True)
        rated_places = [p.player for p in result.qualifiers if p.article == "2.3"]
        assert rated_places == [r.player for r in result.rating_list[:3]]


class TestForm:
    """Malformed files are refused with the place of the fault."""

    @pytest.mark.parametrize(
        ("mutate", "message"),
        [
            (lambda r: r.update(players=[]), "'players' must be a non-empty list"),
            (lambda r: r.update(surprise=1), r"unknown field\(s\) \['surprise'\]"),
            (
                lambda r: r["players"][-1]["july_2011"].update(rating=2790.5),
                r"players\[\d+\] \(r\).july_2011.rating must be a whole number",
            ),
            (
                lambda r: r["players"][-1].update(january_2012={"rating": "2800"}),
                r"january_2012.rating must be a whole number, got '2800'",
            ),
            (
                lambda r: r["players"].append(dict(r["players"][0])),
                r"player ids must be unique; repeated: \['cup1'\]",
            ),
            (lambda r: r.update(start_date="20/10/2012"), "field 'start_date' is not an ISO"),
            (lambda r: r.update(nominee="ghost"), "nominee names 'ghost', who is not in"),
        ],
    )
    def test_malformed_input_names_the_fault(self, mutate, message):
        raw = qualification_file([rated("r", 2790, 2790)])
        mutate(raw)
        with pytest.raises(MalformedCommand, match=message):
            parse_qualification(raw)
