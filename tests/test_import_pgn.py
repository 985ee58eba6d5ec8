"""``candidates import-pgn``: score sheets become events, all or nothing per game."""

from __future__ import annotations

from pathlib import Path

from adapters.formats.pgn_import import import_pgn, player_id
from adapters.store import Store
from tests.cli import candidates, json_lines

ROOT = Path(__file__).resolve().parents[1]
LONDON_2013 = ROOT / "replay_logs" / "sources" / "candidates-2013.pgn"

BAD_FILE = """[Event "T"]
[Site "?"]
[Date "2013.03.15"]
[Round "1.1"]
[White "A,a"]
[Black "B,b"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0

[Event "T"]
[Site "?"]
[Date "2013.03.15"]
[Round "1.2"]
[White "C,c"]
[Black "D,d"]
[Result "0-1"]

1. e4 e5 2. Ke3 Nc6 0-1

[Event "T"]
[Site "?"]
[Date "2013.03.15"]
[Round "1.3"]
[White "E,e"]
[Black "F,f"]
[Result "1/2-1/2"]

1/2-1/2
"""


def test_the_2013_candidates_import_as_56_games(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    run = candidates("import-pgn", "--create", str(LONDON_2013), store=store)
    assert run.returncode == 0, run.stderr
    reports = json_lines(run.stdout)
    assert len(reports) == 56
    assert {r["status"] for r in reports} == {"imported"}
    with Store(store) as s:
        assert len(s.reads.game_ids()) == 56
        # Round 12 Radjabov - Grischuk ends in stalemate, round 5 Ivanchuk - Carlsen in K+N v K.
        terminations = {gid: s.reads.game(gid).termination for gid in s.reads.game_ids()}  # type: ignore[union-attr]
        assert "stalemate" in terminations.values()
        assert terminations["5.1"] == "insufficient_material"
        # Ivanchuk lost on time with the score stopping early: the sheet's result is kept.
        assert "imported" in terminations.values()


def test_importing_the_same_file_twice_adds_nothing(tmp_path: Path) -> None:
    with Store(str(tmp_path / "s.sqlite")) as store:
        import_pgn(store, LONDON_2013)
        count = store.cache.count()
        again = import_pgn(store, LONDON_2013)
        assert {r.status for r in again} == {"already_imported"}
        assert store.cache.count() == count


def test_a_game_with_an_illegal_move_is_refused_whole_and_the_rest_imports(tmp_path: Path) -> None:
    pgn = tmp_path / "bad.pgn"
    pgn.write_text(BAD_FILE)
    store = str(tmp_path / "s.sqlite")
    run = candidates("import-pgn", "--create", str(pgn), store=store)
    assert run.returncode == 1
    by_game = {r["game"]: r for r in json_lines(run.stdout)}
    assert by_game["1.1"]["status"] == "imported"
    assert by_game["1.3"]["status"] == "imported"
    refusal = [r for r in by_game.values() if r["status"] == "refused"]
    assert len(refusal) == 1
    assert refusal[0]["game"] == "1.2"
    assert "illegal" in refusal[0]["message"] and "'Ke3'" in refusal[0]["message"]
    assert "C,c - D,d" in refusal[0]["message"]
    with Store(store) as s:
        assert s.reads.game("1.2") is None
        no_moves = s.reads.game("1.3")
        assert no_moves is not None and no_moves.moves == () and no_moves.result == "1/2-1/2"


def test_game_query_shows_the_contract_fields(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    candidates("import-pgn", "--create", str(LONDON_2013), store=store)
    run = candidates("game", "1.1", "--format", "json", store=store)
    assert run.returncode == 0, run.stderr
    view = json_lines(run.stdout)[0]
    for field in (
        "game",
        "round",
        "board",
        "white",
        "black",
        "time_control",
        "moves",
        "uci",
        "fen",
        "ply",
        "status",
        "result",
        "termination",
        "clock",
        "claims",
        "incorrect_claims",
        "illegal_moves",
    ):
        assert field in view, field
    assert view["game"] == "1.1" and view["white"] == "aronian" and view["black"] == "carlsen"
    assert view["status"] == "finished" and view["result"] == "1/2-1/2"
    assert view["ply"] == len(view["moves"]) == len(view["uci"]) == 61
    assert view["fen"].startswith("8/2r2pk1/")


def test_pgn_export_round_trips_through_import(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    candidates("import-pgn", "--create", str(LONDON_2013), store=store)
    exported = candidates("pgn", "--all", store=store)
    assert exported.returncode == 0
    assert exported.stdout.count("[TimeControl ") == 56
    out = tmp_path / "out.pgn"
    out.write_text(exported.stdout)
    other = str(tmp_path / "t.sqlite")
    assert candidates("import-pgn", "--create", str(out), store=other).returncode == 0
    with Store(store) as a, Store(other) as b:
        assert a.reads.game_ids() == b.reads.game_ids()
        for gid in a.reads.game_ids():
            ga, gb = a.reads.game(gid), b.reads.game(gid)
            assert ga is not None and gb is not None
            assert (ga.moves, ga.result) == (gb.moves, gb.result)


def test_player_ids_are_surnames() -> None:
    assert player_id("Aronian,L") == "aronian"
    assert player_id("Nepomniachtchi, Ian") == "nepomniachtchi"
    assert player_id("Ding Liren") == "ding-liren"
