"""A game's opening by position from the Lichess openings table (CC0, shipped with its source
and licence): the 2013 Candidates games named, in the game object and the PGN."""

from __future__ import annotations

import io
from pathlib import Path

import chess
import chess.pgn

from adapters.store import Store
from adapters.store.openings import TABLE, opening_of, parse_table, table
from adapters.store.queries import game_object
from tests.cli import candidates

ROOT = Path(__file__).resolve().parents[1]
LONDON_2013 = ROOT / "replay_logs" / "sources" / "candidates-2013.pgn"


def uci_of(sans: str) -> list[str]:
    board = chess.Board()
    return [board.push_san(san).uci() for san in sans.split()]


def games_2013() -> list[chess.pgn.Game]:
    handle = io.StringIO(LONDON_2013.read_text(encoding="utf-8"))
    found = []
    while (game := chess.pgn.read_game(handle)) is not None:
        found.append(game)
    return found


class TestTheTable:
    def test_it_is_shipped_with_its_source_and_licence(self) -> None:
        readme = (TABLE / "README.md").read_text(encoding="utf-8")
        assert "lichess-org/chess-openings" in readme and "CC0" in readme
        assert sorted(p.name for p in TABLE.glob("*.tsv")) == [f"{v}.tsv" for v in "abcde"]

    def test_every_line_of_it_is_read(self) -> None:
        known = table()
        assert len(known.positions) > 3000 and 20 < known.depth < 60

    def test_an_illegal_line_is_left_out_not_fatal(self) -> None:
        text = "eco\tname\tpgn\nA00\tGood\t1. e4\nA01\tBad\t1. e5\n"
        parsed = parse_table([text])
        assert [name for _, name in parsed.positions.values()] == ["Good"]


class TestByPosition:
    def test_the_longest_named_position_along_the_moves(self) -> None:
        found = opening_of(None, uci_of("d4 Nf6 c4 e6 Nf3 Bb4+ Bd2 Bxd2+ Qxd2 d5"))
        assert found is not None
        assert (found.eco, found.name, found.ply) == (
            "E11",
            "Bogo-Indian Defense: Exchange Variation",
            8,
        )

    def test_a_transposition_finds_the_name_of_the_position(self) -> None:
        direct = opening_of(None, uci_of("d4 Nf6 c4 e6 Nf3 Bb4+"))
        transposed = opening_of(None, uci_of("c4 e6 d4 Nf6 Nf3 Bb4+"))
        assert direct is not None and transposed is not None
        assert (transposed.eco, transposed.name) == (direct.eco, direct.name)
        assert transposed.eco == "E11"

    def test_no_opening_before_a_named_position_nor_from_a_set_up_one(self) -> None:
        assert opening_of(None, []) is None
        assert opening_of("8/8/8/4k3/8/8/4K3/8 w - - 0 1", ["e2e3"]) is None


class TestThe2013Games:
    def test_every_game_of_the_2013_candidates_has_its_opening(self) -> None:
        games = games_2013()
        assert len(games) == 56
        named = {}
        for game in games:
            found = opening_of(None, [m.uci() for m in game.mainline_moves()])
            assert found is not None, game.headers["Round"]
            assert found.eco[0] in "ABCDE" and found.eco[1:].isdigit()
            named[game.headers["Round"]] = (found.eco, found.name)
        assert named["1.1"] == ("E11", "Bogo-Indian Defense: Exchange Variation")  # Aronian-Carlsen
        assert named["1.4"][0] == "D35"  # Kramnik-Svidler, QGD Exchange
        assert len({eco for eco, _ in named.values()}) > 15

    def test_imported_games_carry_it_in_the_game_object_and_the_pgn(self, tmp_path: Path) -> None:
        store = str(tmp_path / "s.sqlite")
        assert candidates("import-pgn", "--create", str(LONDON_2013), store=store).returncode == 0
        with Store(store) as s:
            opening = game_object(s.reads, "1.1")["opening"]
            assert opening == {
                "eco": "E11",
                "name": "Bogo-Indian Defense: Exchange Variation",
                "ply": 8,
            }
            assert all(game_object(s.reads, gid)["opening"] for gid in s.reads.game_ids())
        run = candidates("pgn", "1.1", store=store)
        assert run.returncode == 0, run.stderr
        game = chess.pgn.read_game(io.StringIO(run.stdout))
        assert game is not None
        assert game.headers["ECO"] == "E11"
        assert game.headers["Opening"] == "Bogo-Indian Defense: Exchange Variation"
