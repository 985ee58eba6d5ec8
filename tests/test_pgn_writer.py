"""The one PGN writer (``projections.pgn``) as federations and broadcasts read it: the tags,
``[%clk]`` by python-chess, and the arbiters' record as comments at their ply (3.9.2 b,
Laws 7.4); FIDE ids and titles given to ``create_tournament`` kept on the player."""

from __future__ import annotations

import copy
import io
from pathlib import Path

import chess.pgn
import pytest

from adapters.formats.event_export import game_pgn_text
from adapters.formats.pgn_import import import_pgn
from adapters.store import Store
from tests.helpers import ARBITERS, PLAYERS_2013, at, ok, play, refused


def create(store: Store, **extra: object) -> None:
    players = {p["id"]: p for p in copy.deepcopy(PLAYERS_2013)}
    players["aronian"].update(fide_id="13300474", title="GM")
    players["carlsen"].update(fide_id=1503014, title="GM")  # an integer id is kept as digits
    ok(
        store,
        {
            "cmd": "create_tournament",
            "tournament": "london-2013",
            "name": "FIDE Candidates Tournament 2013",
            "start_date": "2013-03-14",
            "players": list(players.values()),
            "arbiters": ARBITERS,
            **extra,
        },
    )
    ok(
        store,
        {
            "cmd": "draw_lots",
            "tournament": "london-2013",
            "numbers": {p["id"]: i for i, p in enumerate(PLAYERS_2013, start=1)},
        },
    )


def parsed(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    return game


class TestTags:
    def test_round_and_board_apart_with_titles_elo_fide_ids_federations_and_site(
        self, sqlite_store: Store
    ) -> None:
        create(sqlite_store, city="London", country="ENG")
        ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        play(sqlite_store, "1.1", "e4 e5")
        headers = parsed(game_pgn_text(sqlite_store.reads, "1.1")).headers
        assert (headers["Round"], headers["Board"], headers["Site"]) == ("1", "1", "London ENG")
        assert (headers["White"], headers["WhiteTitle"], headers["WhiteElo"]) == (
            "Aronian, Levon",
            "GM",
            "2809",
        )
        assert (headers["WhiteFideId"], headers["BlackFideId"]) == ("13300474", "1503014")
        assert (headers["WhiteFed"], headers["BlackFed"]) == ("ARM", "NOR")
        assert headers["Result"] == "*" and "Termination" not in headers
        assert headers["TimeControl"] == "40/7200:20/3600:900+30"

    def test_site_as_given_wins_over_city_and_country(self, sqlite_store: Store) -> None:
        create(sqlite_store, site="London, Savoy Place", city="London", country="ENG")
        ok(sqlite_store, {"cmd": "start_game", "game": "1.2", "at": at(0)})
        assert (
            parsed(game_pgn_text(sqlite_store.reads, "1.2")).headers["Site"]
            == "London, Savoy Place"
        )

    def test_fide_ids_and_titles_are_read_back_by_import_pgn(
        self, sqlite_store: Store, tmp_path: Path
    ) -> None:
        create(sqlite_store)
        ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        play(sqlite_store, "1.1", "e4 e5")
        ok(sqlite_store, {"cmd": "resign", "game": "1.1", "by": "black", "at": at(30)})
        path = tmp_path / "one.pgn"
        path.write_text(game_pgn_text(sqlite_store.reads, "1.1") + "\n")
        with Store(str(tmp_path / "other.sqlite")) as other:
            import_pgn(other, path)
            tournament = other.reads.tournament()
            assert tournament is not None
            players = {p.id: p for p in tournament.players}
            assert (players["aronian"].fide_id, players["aronian"].title) == ("13300474", "GM")
            assert other.reads.game("1.1") is not None  # Round 1, Board 1: the same id

    @pytest.mark.parametrize(
        ("change", "message"),
        [
            ({"fide_id": "13-300"}, "'fide_id' must be the FIDE id's digits"),
            ({"fide_id": True}, "'fide_id' must be the FIDE id's digits"),
            ({"title": "Grandmaster"}, "'title' must be a title as FIDE writes it (GM, IM, FM"),
        ],
    )
    def test_a_bad_fide_id_or_title_is_refused_and_appends_nothing(
        self, sqlite_store: Store, change: dict, message: str
    ) -> None:
        players = copy.deepcopy(PLAYERS_2013)
        players[2].update(change)
        text = refused(
            sqlite_store,
            {
                "cmd": "create_tournament",
                "tournament": "t",
                "name": "n",
                "start_date": "2013-03-14",
                "players": players,
            },
            "malformed_command",
        )
        assert message in text and "players[2]" in text


class TestTheArbitersRecordAsComments:
    def test_3_9_2_b_a_claim_and_its_ruling_are_comments_after_the_ply_claimed_on(
        self, sqlite_store: Store
    ) -> None:
        create(sqlite_store)
        ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        play(sqlite_store, "1.1", "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8")
        claim = {"cmd": "claim_draw", "game": "1.1", "by": "white", "at": at(100)}
        ok(sqlite_store, {**claim, "kind": "threefold_repetition"})
        ruling = {"cmd": "rule_claim", "game": "1.1", "claim": "1", "arbiter": "chief"}
        ok(sqlite_store, {**ruling, "decision": "accepted", "at": at(120)})
        game = parsed(game_pgn_text(sqlite_store.reads, "1.1"))
        last = list(game.mainline())[-1]
        assert last.san() == "Ng8" and last.clock() is not None  # [%clk] kept beside it
        assert (
            "Aronian (White) claims a draw by threefold repetition (claim 1; verified)."
            in last.comment
        )
        assert "Chief Arbiter accepted Aronian's claim 1." in last.comment
        assert game.headers["Result"] == "1/2-1/2" and game.headers["Termination"] == "normal"

    def test_laws_7_4_an_illegal_move_and_its_penalty_are_comments(
        self, sqlite_store: Store
    ) -> None:
        create(sqlite_store)
        ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        play(sqlite_store, "1.1", "e4")
        illegal = {"cmd": "record_illegal_move", "game": "1.1", "by": "black", "move": "Ke7"}
        ok(sqlite_store, {**illegal, "arbiter": "chief", "at": at(20)})
        play(sqlite_store, "1.1", "e5", start_s=30)
        game = parsed(game_pgn_text(sqlite_store.reads, "1.1"))
        first, second = list(game.mainline())
        assert "Illegal move (Ke7) by Carlsen (Black), recorded by Chief Arbiter" in first.comment
        assert "Chief Arbiter added 2 min to Aronian's clock" in first.comment
        assert "[%clk" in first.comment and "Illegal" not in second.comment

    def test_a_new_kind_of_record_gets_its_comment_by_adding_a_describer(
        self, sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from projections import pgn_comments

        monkeypatch.setitem(
            pgn_comments.DESCRIBERS, "GameStarted", lambda e, names: f"Started by {e.by}"
        )
        create(sqlite_store)
        ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0), "by": "chief"})
        play(sqlite_store, "1.1", "e4")
        assert parsed(game_pgn_text(sqlite_store.reads, "1.1")).comment == "Started by chief"


class TestArt3_2BoardsAsPublished:
    def test_3_2_renumber_boards_makes_the_game_ids_follow_the_published_boards(
        self, sqlite_store: Store
    ) -> None:
        create(sqlite_store)
        before = sqlite_store.reads.tournament()
        assert before is not None and before.pairings()["2.1"] != before.pairings()["2.2"]
        table = {b: before.pairings()[f"2.{b}"] for b in range(1, 5)}
        ok(
            sqlite_store,
            {
                "cmd": "renumber_boards",
                "tournament": "london-2013",
                "boards": {"2": [2, 1, 4, 3]},
                "reason": "the boards as published",
            },
        )
        after = sqlite_store.reads.tournament()
        assert after is not None
        assert [after.pairings()[f"2.{b}"] for b in (2, 1, 4, 3)] == [table[b] for b in range(1, 5)]
        assert after.pairings()["1.1"] == before.pairings()["1.1"]  # other rounds as they were

    @pytest.mark.parametrize(
        ("boards", "code", "message"),
        [
            ({"2": [1, 1, 2, 3]}, "malformed_command", "must list its boards 1..4 once each"),
            ({"15": [1, 2, 3, 4]}, "malformed_command", "is not a round of"),
            ({"1": [2, 1, 3, 4]}, "rule_violation", "keep their boards: 1.1"),
        ],
    )
    def test_3_2_a_bad_renumbering_is_refused_and_appends_nothing(
        self, sqlite_store: Store, boards: dict, code: str, message: str
    ) -> None:
        create(sqlite_store)
        ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        cmd = {"cmd": "renumber_boards", "tournament": "london-2013", "boards": boards}
        assert message in refused(sqlite_store, {**cmd, "reason": "r"}, code)
