"""3.6.1 points and 3.7 a-c tie-breaks, applied to the whole tied group in order."""

from __future__ import annotations

from fractions import Fraction

from adapters.store.queries import standings_object
from engine.standings.tiebreaks import ScoredGame, head_to_head, lines, rank
from tests.tournament_helpers import all_draws, by_pair, event, play_rounds, rows
from tests.world import World

# Five players, double round robin. A, B and C finish level on 4.5 points.
# Among them (3.7 a): A 2.5 (1.5-0.5 against B, 1-1 against C), B 2.5 (2-0
# against C), C 1. So (a) puts C third; A and B are still level and go on to
# (b) with the values of the whole group: A has 1 win, B has 4, so B is first
# although A won their own mini-match (no restart at (a) for the sub-group).
THREE_WAY = by_pair(
    {
        ("a", "b"): ["1", "1/2"],
        ("a", "c"): ["1/2", "1/2"],
        ("b", "c"): ["1", "1"],
        ("a", "d"): ["1/2", "1/2"],
        ("a", "e"): ["1/2", "1/2"],
        ("b", "d"): ["1", "1"],
        ("b", "e"): ["0", "0"],
        ("c", "d"): ["1", "1"],
        ("c", "e"): ["1", "1/2"],
        ("d", "e"): ["1", "1"],
    }
)


class TestArt3_6_1Points:
    def test_3_6_1_one_point_a_win_half_a_draw_fractions_not_floats(self) -> None:
        games = [
            ScoredGame("1.1", 1, "a", "b", "1-0"),
            ScoredGame("2.1", 2, "b", "a", "1/2-1/2"),
            ScoredGame("3.1", 3, "a", "c", "0-1"),
        ]
        table = lines(["a", "b", "c"], games)
        assert table["a"].points == Fraction(3, 2)
        assert isinstance(table["a"].points, Fraction)
        assert (table["b"].points, table["c"].points) == (Fraction(1, 2), Fraction(1))
        assert (table["a"].wins, table["a"].games) == (1, 3)


class TestArt3_7Tiebreaks:
    def test_3_7_a_results_between_the_tied_players_decide(self, world: World) -> None:
        event(world, ["a", "b", "c", "d"])
        # a: 1.5 v b, 1 v c, 1 v d = 3.5; b: 0.5 v a, 2 v c, 1 v d = 3.5 (b has more wins)
        play_rounds(world, by_pair({("a", "b"): ["1", "1/2"], ("b", "c"): ["1", "1"]}))
        table = standings_object(world)
        assert [(r["player"], r["points"], r["h2h"], r["wins"]) for r in table["rows"][:2]] == [
            ("a", 3.5, 1.5, 1),
            ("b", 3.5, 0.5, 2),
        ]
        assert table["winner"] == {"player": "a", "decided_by": "h2h"}

    def test_3_7_three_way_tie_resolved_partly_by_a_and_partly_by_b(self, world: World) -> None:
        event(world, ["a", "b", "c", "d", "e"])
        play_rounds(world, THREE_WAY)
        table = standings_object(world)
        top = {r["player"]: r for r in table["rows"][:3]}
        assert [r["player"] for r in table["rows"][:3]] == ["b", "a", "c"]
        assert [top[p]["points"] for p in "abc"] == [4.5, 4.5, 4.5]
        assert [top[p]["h2h"] for p in "abc"] == [2.5, 2.5, 1]
        assert [top[p]["wins"] for p in "abc"] == [1, 4, 3]
        assert rows(table)[:3] == [(1, "b"), (2, "a"), (3, "c")]
        assert table["winner"] == {"player": "b", "decided_by": "wins"}
        assert table["playoff"]["needed"] is False

    def test_3_7_no_restart_at_a_for_the_sub_group_still_level(self) -> None:
        # The same event, folded without a store: the restart reading would put A
        # first (A beat B 1.5-0.5); the regulation's order (DESIGN.md) puts B first.
        from engine.tournament.pairing import berger_schedule, is_bye

        ids = ["a", "b", "c", "d", "e"]
        games = []
        for p in berger_schedule(5, 2):
            if not is_bye(p, 5):
                white, black = ids[p.white - 1], ids[p.black - 1]
                games.append(
                    ScoredGame(p.game_id, p.round, white, black, THREE_WAY(p.round, white, black))
                )
        ranking = rank(ids, games)
        assert ranking.tiers[:3] == (("b",), ("a",), ("c",))
        assert head_to_head(["a", "b"], games) == {"a": Fraction(3, 2), "b": Fraction(1, 2)}
        assert ranking.separating_criterion("b", "a") == "wins"
        assert ranking.separating_criterion("a", "c") == "h2h"

    def test_3_7_c_sonneborn_berger_decides_after_a_and_b(self) -> None:
        # a and b: level on 2.5 points, 1-1 against each other, two wins each; a beat
        # the strong c (3 points), b beat the weak d (1 point): a's SB is higher.
        games = [
            ScoredGame("1", 1, "a", "b", "1-0"),
            ScoredGame("2", 2, "b", "a", "1-0"),
            ScoredGame("3", 3, "a", "c", "1-0"),
            ScoredGame("4", 4, "a", "d", "0-1"),
            ScoredGame("5", 5, "a", "e", "1/2-1/2"),
            ScoredGame("6", 6, "b", "d", "1-0"),
            ScoredGame("7", 7, "b", "c", "0-1"),
            ScoredGame("8", 8, "b", "e", "1/2-1/2"),
            ScoredGame("9", 9, "c", "d", "1-0"),
            ScoredGame("10", 10, "c", "e", "1-0"),
            ScoredGame("11", 11, "d", "e", "0-1"),
        ]
        ranking = rank(["a", "b", "c", "d", "e"], games)
        assert ranking.lines["a"].points == ranking.lines["b"].points == Fraction(5, 2)
        assert ranking.lines["a"].wins == ranking.lines["b"].wins == 2
        assert (ranking.lines["a"].sb, ranking.lines["b"].sb) == (Fraction(13, 2), Fraction(9, 2))
        assert ranking.tiers[1:3] == (("a",), ("b",))
        assert ranking.lines["a"].sb > ranking.lines["b"].sb
        assert ranking.separating_criterion("a", "b") == "sb"

    def test_3_7_c_sonneborn_berger_is_opponents_points_for_wins_and_half_for_draws(self) -> None:
        games = [
            ScoredGame("1", 1, "a", "b", "1-0"),
            ScoredGame("2", 2, "a", "c", "1/2-1/2"),
            ScoredGame("3", 3, "b", "c", "1-0"),
        ]
        table = lines(["a", "b", "c"], games)
        # a beat b (1 point) and drew c (0.5 point): 1 + 0.5 * 0.5
        assert table["a"].sb == Fraction(5, 4)

    def test_3_7_every_points_group_is_ordered_not_only_the_first(self, world: World) -> None:
        event(world, ["a", "b", "c", "d", "e"])
        play_rounds(world, THREE_WAY)
        table = standings_object(world)
        assert [r["h2h"] for r in table["rows"][3:]] == [None, None]

    def test_3_7_tie_surviving_c_is_reported_as_shared_and_needs_a_playoff(
        self, world: World
    ) -> None:
        event(world, ["a", "b", "c"])
        play_rounds(world, all_draws)
        table = standings_object(world)
        assert rows(table) == [(1, "a"), (1, "b"), (1, "c")]
        assert table["winner"] is None
        assert table["playoff"] == {
            "needed": True,
            "place": 1,
            "stage": "rapid",
            "series": 1,
            "action": "start_stage",
            "players": ["a", "b", "c"],
            "games": [],
            "pending": [],
        }
        assert table["shared_places"] == [{"places": [1, 3], "players": ["a", "b", "c"]}]


class TestStandingsAfterRound:
    def test_after_round_counts_only_the_games_of_those_rounds(self, world: World) -> None:
        event(world, ["a", "b", "c", "d"])
        play_rounds(world, by_pair({("a", "b"): ["1", "1"]}))
        after_1 = standings_object(world, 1)
        assert after_1["after_round"] == 1
        assert after_1["final"] is False and after_1["winner"] is None
        assert {r["games"] for r in after_1["rows"]} == {1}
        assert after_1["prizes"] == []
        final = standings_object(world)
        assert final["final"] is True and final["after_round"] == 6

    def test_after_round_out_of_range_is_refused(self, world: World) -> None:
        import pytest

        from engine.errors import MalformedCommand

        event(world, ["a", "b", "c", "d"])
        with pytest.raises(MalformedCommand, match="after_round must be between 0 and 6"):
            standings_object(world, 7)
