"""Tie-break games: 3.7.1.a rapid, 3.7.2 blitz, 3.7.3.a-e sudden death, 3.7.4 other places."""

from __future__ import annotations

import pytest

from adapters.store import Store
from adapters.store.queries import game_object, standings_object
from engine.tournament.playoff import (
    SuddenDeathGame,
    bracket,
    seeding_positions,
    sudden_death_winner,
)
from tests.helpers import at, ok, refused
from tests.tournament_helpers import all_draws, by_pair, event, finish, play_rounds, rows
from tests.world import World

PLAYERS = ["a", "b", "c", "d", "e", "f"]
"""Ratings fall from a to f, so a is No.1 of the initial ranking (3.7.3.b-e)."""


def tied_event(store: Store, k: int) -> None:
    """k players, single round robin, every game drawn: level after 3.7 a-c."""
    event(store, PLAYERS[:k], cycles=1)
    play_rounds(store, all_draws)


def playoff_cmd(name: str, **extra: object) -> dict:
    return {"cmd": name, "tournament": "t", "arbiter": "chief", "at": at(9000), **extra}


def play_stage(store: Store, result: str = "1/2-1/2") -> list[str]:
    """Finish every pending game of the first-place playoff; return their ids."""
    pending = standings_object(store.reads)["playoff"]["pending"]
    for gid in pending:
        finish(store, gid, result)
    return pending


class TestBrackets:
    def test_3_7_3_seeding_positions_are_the_standard_draw(self) -> None:
        assert seeding_positions(2) == [1, 2]
        assert seeding_positions(4) == [1, 4, 2, 3]
        assert seeding_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]

    def test_3_7_3_a_two_players_play_one_game(self) -> None:
        assert [(m.match, m.round, m.sides) for m in bracket(["a", "b"])] == [(1, 1, ("a", "b"))]

    def test_3_7_3_b_three_players_no2_v_no3_then_the_winner_v_no1(self) -> None:
        assert [(m.match, m.round, m.sides) for m in bracket(["a", "b", "c"])] == [
            (1, 1, ("b", "c")),
            (2, 2, ("a", 1)),
        ]

    def test_3_7_3_c_four_players_1v4_2v3_then_the_final(self) -> None:
        assert [(m.match, m.round, m.sides) for m in bracket(["a", "b", "c", "d"])] == [
            (1, 1, ("a", "d")),
            (2, 1, ("b", "c")),
            (3, 2, (1, 2)),
        ]

    def test_3_7_3_d_five_players_4v5_first_then_as_for_four(self) -> None:
        assert [(m.match, m.round, m.sides) for m in bracket(list("abcde"))] == [
            (1, 1, ("d", "e")),
            (2, 2, ("a", 1)),
            (3, 2, ("b", "c")),
            (4, 3, (2, 3)),
        ]

    def test_3_7_3_e_six_players_in_the_same_spirit(self) -> None:
        assert [(m.match, m.round, m.sides) for m in bracket(list("abcdef"))] == [
            (1, 1, ("d", "e")),
            (2, 1, ("c", "f")),
            (3, 2, ("a", 1)),
            (4, 2, ("b", 2)),
            (5, 3, (3, 4)),
        ]

    @pytest.mark.parametrize("k", range(2, 20))
    def test_3_7_3_e_every_bracket_eliminates_all_but_one(self, k: int) -> None:
        matches = bracket([f"p{i}" for i in range(k)])
        assert len(matches) == k - 1
        assert matches[-1].round == max(m.round for m in matches)

    def test_3_7_3_a_a_draw_is_a_win_for_black(self) -> None:
        game = SuddenDeathGame(1, "P1-sudden_death-1", ("a", "b"), "a", white="a", black="b")
        assert sudden_death_winner(game, "1/2-1/2") == "b"
        assert sudden_death_winner(game, "1-0") == "a"
        assert sudden_death_winner(game, "0-1") == "b"
        assert sudden_death_winner(game, None) is None


class TestArt3_7_1_aRapid:
    def test_3_7_1_a_rapid_games_two_with_each_tied_player_after_a_new_drawing_of_colours(
        self, world: World
    ) -> None:
        tied_event(world, 3)
        [started] = ok(world, playoff_cmd("start_playoff", seed="rapid-lots"))
        assert started["type"] == "PlayoffStageStarted"
        assert (started["stage"], started["series"], started["place"]) == ("rapid", 1, 1)
        assert started["seed"] == "rapid-lots"
        assert sorted(started["numbers"].values()) == [1, 2, 3]
        pairs = [frozenset((g["white"], g["black"])) for g in started["games"]]
        assert len(pairs) == 6 and all(pairs.count(p) == 2 for p in pairs)
        for pair in set(pairs):
            colours = [
                (g["white"], g["black"])
                for g in started["games"]
                if {g["white"], g["black"]} == pair
            ]
            assert colours[0] == colours[1][::-1]
        assert [g["game"] for g in started["games"]][:2] == ["P1-rapid-1.2", "P1-rapid-2.2"]
        first = started["games"][0]["game"]
        ok(world, {"cmd": "start_game", "game": first, "at": at(9100)})
        view = game_object(world, first)
        assert view["time_control"] == "1500+10"
        assert world.game(first).stage == "rapid"
        table = standings_object(world)
        assert table["playoff"]["stage"] == "rapid"
        assert table["playoff"]["action"] == "play_games"
        assert len(table["playoff"]["pending"]) == 6

    def test_3_7_1_a_no_playoff_before_the_last_round(self, world: World) -> None:
        event(world, ["a", "b", "c"], cycles=1)
        play_rounds(world, all_draws, range(1, 3))
        message = refused(world, playoff_cmd("start_playoff", seed="s"), "rule_violation")
        assert message == (
            "tie-break games come after the last round: 1 round-robin game(s) still to finish, "
            "e.g. round 3 c - a (article 3.7)"
        )

    def test_3_7_1_a_no_playoff_when_a_c_decide(self, world: World) -> None:
        event(world, ["a", "b", "c"], cycles=1)
        play_rounds(world, by_pair({("a", "b"): ["1"]}))
        message = refused(world, playoff_cmd("start_playoff", seed="s"), "rule_violation")
        assert message == "place 1 is decided: a is not tied (article 3.7)"

    def test_3_4_2_only_the_chief_arbiter_or_deputy_draws_the_playoff_lots(
        self, world: World
    ) -> None:
        tied_event(world, 2)
        cmd = playoff_cmd("start_playoff", seed="s")
        cmd["arbiter"] = "advisor"
        refused(world, cmd, "not_an_arbiter")

    def test_3_7_1_a_clear_rapid_winner_ends_the_playoff(self, world: World) -> None:
        tied_event(world, 3)
        ok(world, playoff_cmd("start_playoff", numbers={"a": 1, "b": 2, "c": 3}))
        tournament = world.tournament()
        for gid, game in tournament.playoff_games().items():
            # b wins every rapid game; a and c draw
            result = "1-0" if game.white == "b" else "0-1" if game.black == "b" else "1/2-1/2"
            finish(world, gid, result)
        table = standings_object(world)
        assert table["winner"] == {"player": "b", "decided_by": "playoff"}
        assert table["playoff"]["needed"] is False
        assert rows(table) == [(1, "b"), (2, "a"), (2, "c")]
        refused(world, playoff_cmd("advance_playoff", seed="s"), "rule_violation")


class TestArt3_7_2Blitz:
    def test_3_7_2_blitz_after_a_tied_rapid_and_at_most_two_repeats(self, world: World) -> None:
        tied_event(world, 2)
        ok(world, playoff_cmd("start_playoff", seed="r"))
        message = refused(world, playoff_cmd("advance_playoff", seed="b"), "rule_violation")
        assert message.startswith("the rapid games P1-rapid-1.1, P1-rapid-2.1 are not finished")
        play_stage(world)
        assert standings_object(world)["playoff"]["stage"] == "blitz"
        for series in (1, 2, 3):
            [started] = ok(world, playoff_cmd("advance_playoff", seed=f"b{series}"))
            assert (started["stage"], started["series"]) == ("blitz", series)
            assert started["time_control"] == "300+3"
            ids = play_stage(world)
            assert ids == [f"P1-blitz{series}-1.1", f"P1-blitz{series}-2.1"]
            assert world.game(ids[0]).time_control == "300+3"
        assert standings_object(world)["playoff"]["stage"] == "sudden_death"

    def test_3_7_2_only_players_tied_for_first_go_on(self, world: World) -> None:
        tied_event(world, 3)
        ok(world, playoff_cmd("start_playoff", numbers={"a": 1, "b": 2, "c": 3}))
        tournament = world.tournament()
        for gid, game in tournament.playoff_games().items():
            # c loses every game; a and b draw theirs
            result = "0-1" if game.white == "c" else "1-0" if game.black == "c" else "1/2-1/2"
            finish(world, gid, result)
        table = standings_object(world)
        assert table["playoff"]["stage"] == "blitz"
        assert table["playoff"]["players"] == ["a", "b"]
        assert rows(table)[2] == (3, "c")
        [blitz] = ok(world, playoff_cmd("advance_playoff", seed="x"))
        assert list(blitz["players"]) == ["a", "b"] and len(blitz["games"]) == 2


def run_to_sudden_death(store: Store, k: int) -> list[dict]:
    tied_event(store, k)
    ok(store, playoff_cmd("start_playoff", seed="rapid"))
    play_stage(store)
    for series in (1, 2, 3):
        ok(store, playoff_cmd("advance_playoff", seed=f"blitz{series}"))
        play_stage(store)
    return ok(store, playoff_cmd("advance_playoff", seed="sudden-death"))


def play_sudden_death(store: Store) -> list[tuple[str, str, str]]:
    """Lot winners take White, every game is drawn: Black wins each (3.7.3.a).
    Returns (game, white, black) in the order played."""
    played = []
    while True:
        playoff = standings_object(store.reads)["playoff"]
        if not playoff["needed"]:
            return played
        if playoff["action"] == "pair_sudden_death":
            ok(store, playoff_cmd("advance_playoff", seed=f"lots-{len(played)}"))
            continue
        for gid in standings_object(store.reads)["playoff"]["pending"]:
            ok(store, playoff_cmd("choose_colour", game=gid, colour="white"))
            finish(store, gid, "1/2-1/2")
            game = store.reads.game(gid)
            assert game.stage == "sudden_death" and game.time_control == "60/300|240:0+3"
            played.append((gid, game.white, game.black))


class TestArt3_7_3SuddenDeath:
    def test_3_7_3_a_two_players_lot_winner_chooses_colour_draw_means_black_wins(
        self, world: World
    ) -> None:
        events = run_to_sudden_death(world, 2)
        assert [e["type"] for e in events] == ["PlayoffStageStarted", "SuddenDeathPaired"]
        paired = events[1]
        assert paired["game"] == "P1-sudden_death-1"
        assert paired["lot_winner"] in ("a", "b")
        message = refused(
            world,
            {"cmd": "start_game", "game": "P1-sudden_death-1", "at": at(9500)},
            "rule_violation",
        )
        assert "must choose a colour (choose_colour) (article 3.7.3.a)" in message
        ok(world, playoff_cmd("choose_colour", game="P1-sudden_death-1", colour="black"))
        game_white = "b" if paired["lot_winner"] == "a" else "a"
        finish(world, "P1-sudden_death-1", "1/2-1/2")
        assert world.game("P1-sudden_death-1").white == game_white
        table = standings_object(world)
        assert table["winner"] == {"player": paired["lot_winner"], "decided_by": "playoff"}
        assert rows(table) == [(1, paired["lot_winner"]), (2, game_white)]

    def test_3_7_3_b_three_players(self, world: World) -> None:
        events = run_to_sudden_death(world, 3)
        assert list(events[0]["players"]) == ["a", "b", "c"]  # initial ranking by rating
        assert [list(e["players"]) for e in events[1:]] == [["b", "c"]]
        played = play_sudden_death(world)
        assert [g for g, _, _ in played] == ["P1-sudden_death-1", "P1-sudden_death-2"]
        final_white, final_black = played[-1][1:]
        assert "a" in (final_white, final_black)
        first_loser = ({"b", "c"} - {final_white, final_black}).pop()
        table = standings_object(world)
        assert rows(table) == [(1, final_black), (2, final_white), (3, first_loser)]
        assert table["winner"]["decided_by"] == "playoff"

    def test_3_7_3_c_four_players(self, world: World) -> None:
        events = run_to_sudden_death(world, 4)
        assert [set(e["players"]) for e in events[1:]] == [{"a", "d"}, {"b", "c"}]
        played = play_sudden_death(world)
        assert len(played) == 3
        semi_losers = {played[0][1], played[1][1]}
        table = standings_object(world)
        assert rows(table)[:2] == [(1, played[2][2]), (2, played[2][1])]
        assert {p for r, p in rows(table)[2:]} == semi_losers
        assert {r for r, _ in rows(table)[2:]} == {3}

    def test_3_7_3_d_five_players(self, world: World) -> None:
        events = run_to_sudden_death(world, 5)
        assert [set(e["players"]) for e in events[1:]] == [{"d", "e"}]
        played = play_sudden_death(world)
        assert len(played) == 4
        winner_4v5 = played[0][2]
        assert {played[1][1], played[1][2]} == {"a", winner_4v5}
        assert {played[2][1], played[2][2]} == {"b", "c"}
        table = standings_object(world)
        assert rows(table)[0] == (1, played[3][2])
        assert rows(table)[1] == (2, played[3][1])
        assert rows(table)[4] == (5, played[0][1])
        assert table["playoff"]["needed"] is False

    def test_3_7_3_advance_refuses_while_a_colour_is_not_chosen(self, world: World) -> None:
        run_to_sudden_death(world, 2)
        message = refused(world, playoff_cmd("advance_playoff", seed="x"), "rule_violation")
        assert message == (
            "the winner of the lot of P1-sudden_death-1 has not chosen a colour yet "
            "(article 3.7.3.a)"
        )


class TestArt3_7_4OtherPlaces:
    def test_3_7_4_playoff_for_second_place(self, world: World) -> None:
        # a wins the event; b, c and d are level after a-c for places 2-4.
        event(world, ["a", "b", "c", "d"], cycles=1)
        play_rounds(world, by_pair({("a", "b"): ["1"], ("a", "c"): ["1"], ("a", "d"): ["1"]}))
        message = refused(world, playoff_cmd("start_playoff", place=3, seed="s"), "rule_violation")
        assert message == (
            "place 3 is part of the tie of b, c, d for places 2-4: start the playoff for "
            "place 2 (article 3.7.4)"
        )
        [started] = ok(world, playoff_cmd("start_playoff", place=2, seed="s"))
        assert started["place"] == 2 and started["games"][0]["game"].startswith("P2-rapid-")
        table = standings_object(world)
        assert table["winner"] == {"player": "a", "decided_by": "points"}
        assert table["playoff"]["needed"] is False
        assert table["playoffs"][0]["place"] == 2 and table["playoffs"][0]["needed"] is True
