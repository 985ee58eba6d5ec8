"""Withdrawals: 3.1 (50% of the games), 3.3.2 / 3.3.3 (before the start), 3.8.2 (no prize)."""

from __future__ import annotations

from adapters.cli.cmd_tournament import render_standings
from adapters.store import Store
from adapters.store.queries import crosstable_object, game_object, standings_object
from projections.names import Names
from tests.helpers import at, ok, paired_tournament, refused
from tests.tournament_helpers import all_draws, finish, play_rounds
from tests.world import World

GONE = "ivanchuk"


def withdraw(store: Store, when: str, player: str = GONE) -> list[dict]:
    return ok(
        store,
        {
            "cmd": "withdraw",
            "tournament": "london-2013",
            "player": player,
            "at": when,
            "reason": "ill",
            "arbiter": "chief",
        },
    )


def gone_wins(_round: int, white: str, black: str) -> str:
    """The withdrawing player wins every game he plays; the others are drawn."""
    if white == GONE:
        return "1-0"
    if black == GONE:
        return "0-1"
    return "1/2-1/2"


def games_of(store: Store, player: str) -> dict[str, tuple[str, str]]:
    pairings = store.reads.tournament().round_robin_pairings()
    return {g: wb for g, wb in pairings.items() if player in wb}


class TestArt3_1WithdrawalAfterHalfTheGames:
    def test_3_1_seven_of_fourteen_played_remaining_games_lost_by_default(
        self, world: World
    ) -> None:
        paired_tournament(world)
        play_rounds(world, all_draws, range(1, 8))
        events = withdraw(world, at(7 * 86400))
        withdrew = events[-1]
        assert withdrew["type"] == "PlayerWithdrew"
        assert (withdrew["rule"], withdrew["games_completed"], withdrew["games_total"]) == (
            "defaults",
            7,
            14,
        )
        assert withdrew["effective_round"] == 8
        defaults = [e for e in events if e["type"] == "ResultRecorded"]
        assert len(defaults) == 7
        assert {e["termination"] for e in defaults} == {"default"}
        # the reason names the player as people read it, not the id
        assert {e["reason"] for e in defaults} == {
            "3.1: Ivanchuk withdrew after completing 7 of 14 games"
        }
        later = {g for g in games_of(world, GONE) if int(g.split(".")[0]) >= 8}
        assert {e["stream"].removeprefix("game/") for e in defaults} == later
        one = sorted(later)[0]
        view = game_object(world, one)
        assert (view["status"], view["termination"], view["ply"]) == ("finished", "default", 0)
        white, _black = games_of(world, GONE)[one]
        assert view["result"] == ("0-1" if white == GONE else "1-0")
        refused(world, {"cmd": "start_game", "game": one, "at": at(8 * 86400)}, "rule_violation")

        play_rounds(world, all_draws)
        table = standings_object(world)
        assert table["final"] is True
        row = {r["player"]: r for r in table["rows"]}
        assert (row[GONE]["points"], row[GONE]["games"], row[GONE]["withdrawn"]) == (
            3.5,
            14,
            "defaults",
        )
        # every opponent won one game by default: a win in points and in wins (DESIGN.md)
        others = [r for p, r in row.items() if p != GONE]
        assert {(r["points"], r["wins"], r["games"]) for r in others} == {(7.5, 1, 14)}
        # 3.8.2: no prize; the players level on 7.5 share places 1-7, place 8's money
        # would be the withdrawn player's and remains with FIDE
        prizes = {p["player"]: p["eur"] for p in table["prizes"]}
        assert prizes[GONE] == 0
        assert table["prize_fund"]["retained_by_fide_eur"] == 17_000
        assert prizes["carlsen"] == round((420_000 - 17_000) / 7, 2)

    def test_3_1_withdrawal_in_the_middle_of_a_round_defaults_the_game_in_progress(
        self, world: World
    ) -> None:
        paired_tournament(world)
        play_rounds(world, all_draws, range(1, 8))
        [(game, _)] = [(g, wb) for g, wb in games_of(world, GONE).items() if g.startswith("8.")]
        ok(world, {"cmd": "start_game", "game": game, "at": at(8 * 86400)})
        events = withdraw(world, at(8 * 86400 + 3600))
        in_progress = [e for e in events if e["stream"] == f"game/{game}"]
        assert [e["type"] for e in in_progress] == ["ResultRecorded"]
        assert in_progress[0]["version"] == 2


class TestArt3_1WithdrawalBeforeHalfTheGames:
    def test_3_1_six_of_fourteen_played_all_results_annulled(self, world: World) -> None:
        paired_tournament(world)
        play_rounds(world, gone_wins, range(1, 7))
        before = standings_object(world)
        assert before["rows"][0]["player"] == GONE and before["rows"][0]["points"] == 6
        events = withdraw(world, at(6 * 86400))
        assert [e["type"] for e in events] == ["PlayerWithdrew"]
        assert (events[0]["rule"], events[0]["games_completed"], events[0]["effective_round"]) == (
            "annulled",
            6,
            7,
        )
        table = standings_object(world)
        assert GONE not in {r["player"] for r in table["rows"]}
        assert table["withdrawn"][0]["annulled"] is True
        # the table's note names the player (who has no row to take the name from)
        text = render_standings(table, Names.of(world.tournament()).displayed())
        assert "      Ivanchuk: withdrew after 6 of 14 games; results annulled (3.1)" in (
            text.splitlines()
        )
        # everyone else is back to his games among the other seven, all drawn
        met_gone = {p for wb in games_of(world, GONE).values() for p in wb} - {GONE}
        for r in table["rows"]:
            played = 6 - (r["player"] in met_gone and _met_by_round(world, r["player"], 6))
            assert (r["points"], r["games"], r["wins"]) == (played / 2, played, 0)
            # tie-breaks recomputed as if he had never played: SB counts only draws
            # against the others' annulled totals
            assert r["sb"] == _sb_without(table, world, r["player"])

        # his games not yet played are never started
        round_7 = next(g for g in games_of(world, GONE) if g.startswith("7."))
        message = refused(
            world,
            {"cmd": "start_game", "game": round_7, "at": at(7 * 86400)},
            "rule_violation",
        )
        assert message == f"game {round_7} is not played: {GONE} withdrew (annulled) (article 3.1)"

        # the standings of the rounds before it took effect still show him
        assert standings_object(world, 6)["rows"][0]["player"] == GONE

        play_rounds(world, all_draws)
        final = standings_object(world)
        assert final["final"] is True
        assert {r["games"] for r in final["rows"]} == {12}
        assert len(final["prizes"]) == 7
        assert final["prize_fund"]["retained_by_fide_eur"] == 17_000
        cross = crosstable_object(world)
        annulled_cells = [
            g
            for p in cross["players"]
            for games in p["results"].values()
            for g in games
            if g["annulled"]
        ]
        assert len(annulled_cells) == 12  # 6 games, seen from both sides

    def test_3_1_withdrawing_twice_or_an_unknown_player_is_refused(self, world: World) -> None:
        paired_tournament(world)
        play_rounds(world, all_draws, range(1, 2))
        withdraw(world, at(86400))
        cmd = {
            "cmd": "withdraw",
            "tournament": "london-2013",
            "player": GONE,
            "at": at(86400),
            "reason": "again",
        }
        assert refused(world, cmd, "rule_violation") == (
            f"{GONE} has already withdrawn (article 3.1)"
        )
        cmd["player"] = "fischer"
        assert "not a player" in refused(world, cmd, "malformed_command")

    def test_3_1_a_withdrawal_dated_before_his_stored_games_is_refused(self, world: World) -> None:
        """The record is checked: a withdrawal dated after round 3 while his round 4-7
        games are stored would annul or default games he played; refused, nothing
        appended, naming the game; dated after them, it stands."""
        paired_tournament(world)
        for game_id in world.tournament().round_robin_pairings():
            round_no = int(game_id.split(".")[0])
            if round_no <= 7:  # each round on its own day
                finish(world, game_id, "1/2-1/2", seconds=(round_no - 1) * 86400)
        cmd = {
            "cmd": "withdraw",
            "tournament": "london-2013",
            "player": GONE,
            "at": at(3 * 86400 + 3600),
            "reason": "ill",
            "arbiter": "chief",
        }
        before = world.last_seq()
        message = refused(world, cmd, "out_of_order")
        assert "is dated before the record of his game" in message
        assert "give the instant he withdrew" in message and "(article" not in message
        assert world.last_seq() == before
        assert world.tournament().withdrawal(GONE) is None
        events = withdraw(world, at(7 * 86400))
        assert events[-1]["rule"] == "defaults"


def _met_by_round(store: Store, player: str, last_round: int) -> bool:
    return any(
        player in wb and int(g.split(".")[0]) <= last_round
        for g, wb in games_of(store, GONE).items()
    )


def _sb_without(table: dict, store: Store, player: str) -> float:
    points = {r["player"]: r["points"] for r in table["rows"]}
    total = 0.0
    for game_id in store.reads.game_ids():
        game = store.reads.game(game_id)
        if GONE in (game.white, game.black) or player not in (game.white, game.black):
            continue
        other = game.black if game.white == player else game.white
        total += 0.5 * points[other]
    return total


class TestArt3_3_3WithdrawalBeforeTheStart:
    def test_3_3_3_less_than_three_months_before_the_start_first_round_opponent_wins(
        self, world: World
    ) -> None:
        paired_tournament(world)
        events = withdraw(world, "2013-01-20T10:00:00.000Z")
        assert events[-1]["rule"] == "first_round_default"
        [(first, (white, black))] = [
            (g, wb) for g, wb in games_of(world, GONE).items() if g.startswith("1.")
        ]
        opponent = black if white == GONE else white
        assert [e["type"] for e in events] == ["GameStarted", "ResultRecorded", "PlayerWithdrew"]
        assert events[1]["reason"] == (
            "3.3.3: Ivanchuk withdrew before the start; the first-round opponent wins"
        )
        assert game_object(world, first)["termination"] == "default"
        # his other games are not played (the 50% rule would annul the declared
        # result; 3.3.3 is the specific rule and keeps it)
        second = next(g for g in games_of(world, GONE) if g.startswith("2."))
        assert "article 3.3.3" in refused(
            world, {"cmd": "start_game", "game": second, "at": at(86400)}, "rule_violation"
        )
        play_rounds(world, all_draws)
        table = standings_object(world)
        assert table["final"] is True
        row = {r["player"]: r for r in table["rows"]}
        assert (row[opponent]["points"], row[opponent]["wins"], row[opponent]["games"]) == (
            7,
            1,
            13,
        )
        assert (row[GONE]["points"], row[GONE]["games"]) == (0, 1)
        assert table["winner"] == {"player": opponent, "decided_by": "points"}

    def test_3_3_2_three_months_or_more_before_the_start_the_player_is_replaced(
        self, world: World
    ) -> None:
        paired_tournament(world)
        message = refused(
            world,
            {
                "cmd": "withdraw",
                "tournament": "london-2013",
                "player": GONE,
                "at": "2012-12-12T10:00:00.000Z",
                "reason": "contract",
            },
            "rule_violation",
        )
        assert message == (
            f"{GONE} withdraws at least 3 months before the start (2013-03-13): he is "
            "replaced by a player as described in article 2.7, not withdrawn (article 3.3.2)"
        )


class TestWithdrawnPlayerInATie:
    def test_3_1_a_withdrawn_player_plays_no_tie_break_games(self, world: World) -> None:
        # three players level after a-c; one withdraws after the last round: the
        # playoff is between the other two, and he is placed behind them.
        from tests.tournament_helpers import event, rows

        event(world, ["a", "b", "c"], cycles=1)
        play_rounds(world, all_draws)
        ok(
            world,
            {
                "cmd": "withdraw",
                "tournament": "t",
                "player": "a",
                "at": at(10 * 86400),
                "reason": "ill",
                "arbiter": "chief",
            },
        )
        table = standings_object(world)
        assert table["playoff"]["players"] == ["b", "c"]
        assert rows(table) == [(1, "b"), (1, "c"), (3, "a")]
        [started] = ok(
            world,
            {
                "cmd": "start_playoff",
                "tournament": "t",
                "arbiter": "chief",
                "at": at(11 * 86400),
                "seed": "s",
            },
        )
        assert sorted(started["players"]) == ["b", "c"]


def test_3_1_defaults_recorded_ahead_count_when_their_round_comes(world: World) -> None:
    paired_tournament(world)
    play_rounds(world, all_draws, range(1, 8))
    withdraw(world, at(7 * 86400))
    play_rounds(world, all_draws, range(8, 11))
    table = standings_object(world)
    assert (table["after_round"], table["final"]) == (10, False)
    row = {r["player"]: r for r in table["rows"]}
    assert row[GONE]["games"] == 10
    assert standings_object(world, 14)["rows"][-1]["games"] == 14


class TestArt3_3Boundaries:
    """The same boundaries as the qualification module (docs/qualification.md)."""

    def test_3_3_2_exactly_three_months_before_is_at_least_three_months(self, world: World) -> None:
        paired_tournament(world)
        cmd = {
            "cmd": "withdraw",
            "tournament": "london-2013",
            "player": GONE,
            "at": "2012-12-13T23:00:00.000Z",
            "reason": "contract",
        }
        assert "(article 3.3.2)" in refused(world, cmd, "rule_violation")
        cmd["at"] = "2012-12-14T00:00:00.000Z"
        assert ok(world, cmd)[-1]["rule"] == "first_round_default"

    def test_3_1_withdrawal_on_the_opening_day_cancels_his_games(self, world: World) -> None:
        paired_tournament(world)
        events = withdraw(world, "2013-03-14T12:00:00.000Z")
        assert [e["type"] for e in events] == ["PlayerWithdrew"]
        assert (events[0]["rule"], events[0]["games_completed"]) == ("annulled", 0)
        play_rounds(world, all_draws)
        table = standings_object(world)
        assert table["final"] is True and len(table["rows"]) == 7
        assert {r["games"] for r in table["rows"]} == {12}
