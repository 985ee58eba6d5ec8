"""Game lifecycle: start, moves (UCI or SAN), endings by the position and by people.

FIDE Laws of Chess 2009 (in force for the 2012 regulations): 5.1 a
checkmate, 5.1 b resignation, 5.2 a stalemate, 5.2 b / 9.6 dead position.
"""

from __future__ import annotations

import pytest

from adapters.store import Store
from tests.helpers import at, ok, paired_tournament, play, refused
from tests.world import World

FOOLS_MATE = "f3 e5 g4 Qh4#"


@pytest.fixture
def game(world: World) -> Store:
    paired_tournament(world)
    ok(world, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    return world


class TestStartGame:
    def test_paired_game_knows_its_players_from_the_berger_table(self, game: World) -> None:
        g = game.game("1.1")
        assert g is not None
        assert (g.white, g.black) == ("aronian", "carlsen")  # Berger 1 v 8, round 1
        assert g.time_control == "40/7200:20/3600:900+30"  # 3.5.1

    def test_second_cycle_reverses_colours_3_1(self, game: World) -> None:
        ok(game, {"cmd": "start_game", "game": "8.1", "at": at(0)})
        g = game.game("8.1")
        assert g is not None and (g.white, g.black) == ("carlsen", "aronian")

    def test_unpaired_game_id_is_refused(self, game: World) -> None:
        message = refused(game, {"cmd": "start_game", "game": "15.1", "at": at(0)}, "unknown_game")
        assert "15.1" in message

    def test_a_game_is_started_once_citing_no_article(self, game: World) -> None:
        message = refused(
            game, {"cmd": "start_game", "game": "1.1", "at": at(5)}, "malformed_command"
        )
        assert message == "game 1.1 has already been started: a game starts once"

    def test_before_the_drawing_of_lots_no_game_has_players(self, world: World) -> None:
        ok(
            world,
            {
                "cmd": "create_tournament",
                "tournament": "t",
                "name": "T",
                "start_date": "2013-03-13",
                "players": [{"id": "a"}, {"id": "b"}],
            },
        )
        message = refused(world, {"cmd": "start_game", "game": "1.1", "at": at(0)}, "unknown_game")
        assert "lots have not been drawn" in message


class TestMoves:
    def test_moves_in_uci_and_san_are_both_accepted(self, game: World) -> None:
        play(game, "1.1", "d2d4 Nf6 c2c4 e6")
        g = game.game("1.1")
        assert g is not None
        assert g.moves == ("d2d4", "g8f6", "c2c4", "e7e6")
        assert g.sans == ("d4", "Nf6", "c4", "e6")

    def test_illegal_move_is_refused_naming_move_and_position(self, game: World) -> None:
        play(game, "1.1", "e4")
        message = refused(
            game, {"cmd": "play_move", "game": "1.1", "move": "e2e4", "at": at(20)}, "illegal_move"
        )
        assert message == (
            "illegal move 'e2e4' in game 1.1 at ply 2 "
            "(position rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1)"
        )

    @pytest.mark.parametrize("text", ["", "zz", "e9", "Nf3+++", "O-O-O-O", "e2e4e5"])
    def test_unreadable_moves_are_refused(self, game: World, text: str) -> None:
        code = "malformed_command" if text == "" else "illegal_move"
        refused(game, {"cmd": "play_move", "game": "1.1", "move": text, "at": at(5)}, code)

    def test_ambiguous_san_is_refused(self, world: World) -> None:
        fen = "4k3/8/8/8/8/8/4K3/R6R w - - 0 1"  # both rooks reach d1
        ok(
            world,
            {
                "cmd": "start_game",
                "game": "x",
                "white": "a",
                "black": "b",
                "fen": fen,
                "at": at(0),
            },
        )
        message = refused(
            world,
            {"cmd": "play_move", "game": "x", "move": "Rd1", "at": at(1)},
            "illegal_move",
        )
        assert message.startswith("ambiguous move 'Rd1'")

    def test_move_in_a_game_not_started_is_refused(self, game: World) -> None:
        refused(
            game, {"cmd": "play_move", "game": "1.2", "move": "e4", "at": at(1)}, "unknown_game"
        )

    @pytest.mark.parametrize(
        "cmd",
        [
            {"cmd": "play_move", "game": "1.1", "move": "e4"},
            {"cmd": "play_move", "game": "1.1", "move": "e4", "at": "yesterday"},
            {"cmd": "play_move", "game": "1.1", "move": 42, "at": "2013-03-15T14:00:00.000Z"},
            {"cmd": "play_move", "game": "1.1", "move": "e4", "at": "2013-03-15T14:00:00Z", "x": 1},
            {"cmd": "fly", "game": "1.1"},
            {"game": "1.1"},
            ["play_move"],
        ],
    )
    def test_malformed_commands_are_refused(self, game: World, cmd: object) -> None:
        before = game.count()
        result = game.handle(cmd)
        assert result["ok"] is False
        assert result["error"]["code"] == "malformed_command"
        assert game.count() == before


class TestEndingsByThePosition:
    def test_5_1_a_checkmate_ends_the_game(self, game: World) -> None:
        ok(game, {"cmd": "start_game", "game": "1.2", "at": at(0)})
        play(game, "1.2", FOOLS_MATE)
        g = game.game("1.2")
        assert g is not None and g.status == "finished"
        assert (g.result, g.termination) == ("0-1", "checkmate")

    def test_5_1_a_no_move_after_checkmate(self, game: World) -> None:
        ok(game, {"cmd": "start_game", "game": "1.2", "at": at(0)})
        play(game, "1.2", FOOLS_MATE)
        refused(
            game,
            {"cmd": "play_move", "game": "1.2", "move": "a3", "at": at(99)},
            "game_not_in_progress",
        )

    def test_5_2_a_stalemate_is_a_draw(self, world: World) -> None:
        # Black king h8, White queen to g6 stalemates with the king on f7.
        fen = "7k/5K2/8/6Q1/8/8/8/8 w - - 0 1"
        ok(
            world,
            {"cmd": "start_game", "game": "s", "white": "a", "black": "b", "fen": fen, "at": at(0)},
        )
        ok(world, {"cmd": "play_move", "game": "s", "move": "Qg6", "at": at(1)})
        g = world.game("s")
        assert g is not None and (g.result, g.termination) == ("1/2-1/2", "stalemate")

    @pytest.mark.parametrize(
        ("fen", "move"),
        [
            ("8/8/8/8/3k4/8/r7/K7 w - - 0 1", "Kxa2"),  # K v K
            ("8/8/8/8/3k4/8/r7/K1N5 w - - 0 1", "Kxa2"),  # K+N v K
            ("8/8/8/8/3k4/8/r7/K1B5 w - - 0 1", "Kxa2"),  # K+B v K
        ],
    )
    def test_9_6_dead_position_is_a_draw(self, world: World, fen: str, move: str) -> None:
        ok(
            world,
            {"cmd": "start_game", "game": "d", "white": "a", "black": "b", "fen": fen, "at": at(0)},
        )
        ok(world, {"cmd": "play_move", "game": "d", "move": move, "at": at(1)})
        g = world.game("d")
        assert g is not None and (g.result, g.termination) == ("1/2-1/2", "insufficient_material")

    def test_fivefold_repetition_ends_the_game_only_under_the_2023_laws(self, tmp_path) -> None:
        shuffle = "Nf3 Nf6 Ng1 Ng8 " * 4
        for rules, expected in (("candidates-2012", "in_progress"), ("fide-2023", "finished")):
            with World() as store:
                paired_tournament(store, rules=rules)
                ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
                play(store, "1.1", shuffle.strip())
                g = store.game("1.1")
                assert g is not None and g.status == expected, rules
                if expected == "finished":
                    assert g.termination == "fivefold_repetition"


class TestEndingsByPeople:
    def test_5_1_b_resignation(self, game: World) -> None:
        play(game, "1.1", "e4")
        events = ok(game, {"cmd": "resign", "game": "1.1", "by": "black", "at": at(30)})
        assert events[0]["result"] == "1-0" and events[0]["termination"] == "resignation"

    def test_result_declared_by_the_chief_arbiter(self, game: World) -> None:
        ok(
            game,
            {
                "cmd": "declare_result",
                "game": "1.1",
                "result": "0-1",
                "reason": "white did not appear",
                "arbiter": "chief",
                "at": at(3600),
            },
        )
        g = game.game("1.1")
        assert g is not None and (g.result, g.termination) == ("0-1", "arbiter_decision")

    def test_3_9_2_b_no_draw_by_agreement(self, game: World) -> None:
        message = refused(
            game,
            {
                "cmd": "declare_result",
                "game": "1.1",
                "result": "1/2-1/2",
                "reason": "draw agreed",
                "arbiter": "chief",
                "at": at(60),
            },
            "rule_violation",
        )
        assert "article 3.9.2 b" in message

    def test_3_9_2_b_only_chief_or_deputy_declares(self, game: World) -> None:
        for who in ("advisor", "carlsen", "nobody"):
            refused(
                game,
                {
                    "cmd": "declare_result",
                    "game": "1.1",
                    "result": "1-0",
                    "reason": "r",
                    "arbiter": who,
                    "at": at(60),
                },
                "not_an_arbiter",
            )


class TestLaws5_2_bADeadPositionAtTheStart:
    """Laws 2009 5.2 b: a position in which neither player can checkmate ends the game at
    once, the starting position too (K v K+B set up for a playoff's position, a sheet)."""

    def test_5_2_b_a_game_started_from_k_v_k_b_is_drawn_at_once(self, world: World) -> None:
        paired_tournament(world)
        events = ok(
            world,
            {
                "cmd": "start_game",
                "game": "1.1",
                "at": at(0),
                "fen": "8/8/4k3/8/8/3BK3/8/8 w - - 0 1",
            },
        )
        assert [e["type"] for e in events] == ["GameStarted", "ResultRecorded"]
        assert (events[1]["result"], events[1]["termination"]) == (
            "1/2-1/2",
            "insufficient_material",
        )
        game = world.game("1.1")
        assert game is not None and game.status == "finished"

    def test_5_2_b_a_score_sheet_from_a_dead_position_is_drawn_at_once(self, world: World) -> None:
        paired_tournament(world)
        events = ok(
            world,
            {
                "cmd": "record_score_sheet",
                "game": "1.1",
                "round": 1,
                "board": 1,
                "white": world.tournament().pairings()["1.1"][0],
                "black": world.tournament().pairings()["1.1"][1],
                "result": "*",
                "moves": [],
                "at": at(0),
                "initial_fen": "8/8/4k3/8/8/3NK3/8/8 w - - 0 1",
            },
        )
        assert [e["type"] for e in events] == ["GameStarted", "ResultRecorded"]
        assert events[1]["termination"] == "insufficient_material"

    def test_5_2_b_mating_material_is_not_drawn_at_the_start(self, world: World) -> None:
        paired_tournament(world)
        events = ok(
            world,
            {
                "cmd": "start_game",
                "game": "1.1",
                "at": at(0),
                "fen": "8/8/4k3/8/8/3RK3/8/8 w - - 0 1",
            },
        )
        assert [e["type"] for e in events] == ["GameStarted"]
