"""The command line for a person: names not ids, words not codes, JSON that is JSON,
pairings and the crosstable of a fresh tournament, a mistyped store refused, a seal
summed up in one line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from adapters.store import open_store
from tests.cli import candidates
from tests.helpers import PLAYERS_2013, at, ok, paired_tournament, play

ROOT = Path(__file__).resolve().parents[1]
PGN_2013 = ROOT / "replay_logs" / "sources" / "candidates-2013.pgn"
SAMPLE_LOG = ROOT / "replay_logs" / "candidates-2013.msgpack"
NAMES = {p["id"]: p["name"] for p in PLAYERS_2013}


def fresh(tmp_path: Path) -> str:
    """The 2013 field, lots drawn (numbers 1..8 in the field's order), no game started."""
    path = str(tmp_path / "s.sqlite")
    store = open_store(path)
    paired_tournament(store)
    store.close()
    return path


class TestPairings:
    def test_3_4_1_pairings_of_a_fresh_tournament(self, tmp_path: Path) -> None:
        store = fresh(tmp_path)
        shown = candidates("pairings", "--round", "1", "--format", "json", store=store)
        assert shown.returncode == 0, shown.stderr
        view = json.loads(shown.stdout)
        (round_1,) = view["rounds"]
        assert round_1["round"] == 1 and len(round_1["boards"]) == 4
        numbers = [(b["white"]["number"], b["black"]["number"]) for b in round_1["boards"]]
        assert numbers == [(1, 8), (2, 7), (3, 6), (4, 5)]  # Berger table, round 1
        first = round_1["boards"][0]
        assert first["game"] == "1.1" and first["status"] == "not_started"
        assert first["result"] is None
        assert first["white"]["name"] == PLAYERS_2013[0]["name"]
        assert first["white"]["federation"] == PLAYERS_2013[0]["federation"]
        assert first["white"]["rating"] == PLAYERS_2013[0]["rating"]
        every = json.loads(candidates("pairings", "--format", "json", store=store).stdout)
        assert len(every["rounds"]) == 14
        assert sum(len(r["boards"]) for r in every["rounds"]) == 56

    def test_pairings_show_results_so_far_in_table_and_text(self, tmp_path: Path) -> None:
        store = fresh(tmp_path)
        s = open_store(store)
        ok(s, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        play(s, "1.1", "f3 e5 g4 Qh4#")
        ok(s, {"cmd": "start_game", "game": "1.2", "at": at(0)})
        s.close()
        table = candidates("pairings", "--round", "1", store=store).stdout
        lines = table.splitlines()
        assert lines[0].endswith("pairings")
        assert "0-1" in lines[2] and NAMES[PLAYERS_2013[0]["id"]] in lines[2]
        assert "playing" in lines[3]
        text = candidates("pairings", "--round", "1", "--format", "text", store=store).stdout
        assert "Round 1, " in text and "Board 1:" in text and "Board 4:" in text

    def test_pairings_before_the_lots_and_of_a_round_that_is_not(self, tmp_path: Path) -> None:
        store = str(tmp_path / "s.sqlite")
        s = open_store(store)
        ok(
            s,
            {
                "cmd": "create_tournament",
                "tournament": "t",
                "name": "T",
                "start_date": "2013-03-13",
                "players": PLAYERS_2013,
            },
        )
        s.close()
        shown = candidates("pairings", store=store)
        assert shown.returncode == 0 and "lots have not been drawn" in shown.stdout
        assert (
            json.loads(candidates("pairings", "--format", "json", store=store).stdout)["rounds"]
            == []
        )
        wrong = candidates("pairings", "--round", "15", store=fresh(tmp_path / "b"))
        assert wrong.returncode == 2 and "round must be between 1 and 14" in wrong.stderr

    def test_3_4_1_crosstable_in_drawn_number_order_until_there_are_results(
        self, tmp_path: Path
    ) -> None:
        store = fresh(tmp_path)
        table = json.loads(candidates("crosstable", "--format", "json", store=store).stdout)
        assert [p["number"] for p in table["players"]] == list(range(1, 9))
        s = open_store(store)
        ok(s, {"cmd": "start_game", "game": "1.4", "at": at(0)})
        play(s, "1.4", "f3 e5 g4 Qh4#")  # number 5 (Black on board 4) wins
        s.close()
        table = json.loads(candidates("crosstable", "--format", "json", store=store).stdout)
        assert table["players"][0]["number"] == 5  # now by rank


class TestWordsAndNames:
    def test_standings_name_the_leader_and_say_what_decided(self, tmp_path: Path) -> None:
        store = fresh(tmp_path)
        s = open_store(store)
        ok(s, {"cmd": "start_game", "game": "1.4", "at": at(0)})
        play(s, "1.4", "f3 e5 g4 Qh4#")
        s.close()
        text = candidates("standings", store=store).stdout
        leader = PLAYERS_2013[4]
        assert f"Leader: {leader['name']} (ahead on points (3.6.1))" in text
        assert f"Leader: {leader['id']}" not in text

    def test_game_table_names_players_and_says_when_no_clock_runs(self, tmp_path: Path) -> None:
        store = fresh(tmp_path)
        s = open_store(store)
        ok(s, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        play(s, "1.1", "f3 e5 g4 Qh4#")
        s.close()
        text = candidates("game", "1.1", store=store).stdout
        white, black = PLAYERS_2013[0]["name"], PLAYERS_2013[7]["name"]
        assert f"White: {white}   Black: {black}" in text
        assert "None" not in text and "both clocks stopped" in text
        assert "(checkmate)" in text


class TestClocks:
    def test_clocks_of_a_live_game_pair_readings_with_the_last_move(self, tmp_path: Path) -> None:
        """Readings sent without a ply (a live clock, a DGT board) are reported per ply."""
        store = fresh(tmp_path)
        s = open_store(store)
        ok(s, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        ok(s, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(30)})
        reading = {"cmd": "clock_reading", "game": "1.1", "white_ms": 7170000}
        ok(s, {**reading, "black_ms": 7200000, "running": "black", "at": at(31)})
        ok(s, {"cmd": "play_move", "game": "1.1", "move": "e5", "at": at(90)})
        ok(s, {**reading, "black_ms": 7140000, "running": "white", "at": at(92)})
        s.close()
        table = candidates("clocks", "1.1", store=store)
        assert table.returncode == 0, table.stderr
        rows = table.stdout.splitlines()[1:]
        assert rows[0].split()[:4] == ["1", "1", "white", "e4"] and "agrees" in rows[0]
        assert rows[1].split()[:4] == ["2", "1", "black", "e5"] and "agrees" in rows[1]
        as_json = json.loads(candidates("clocks", "1.1", "--format", "json", store=store).stdout)
        assert [r["ply"] for r in as_json["plies"]] == [1, 2]
        assert as_json["plies"][1]["recorded_ms"] == 7140000

    def test_clocks_json_is_json_without_readings(self, tmp_path: Path) -> None:
        store = fresh(tmp_path)
        s = open_store(store)
        ok(s, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        s.close()
        shown = candidates("clocks", "1.1", "--format", "json", store=store)
        assert shown.returncode == 0
        assert json.loads(shown.stdout) == {"game": "1.1", "plies": []}
        assert "no clock reading" in candidates("clocks", "1.1", store=store).stdout


class TestStorePath:
    def test_a_read_command_refuses_a_store_that_does_not_exist(self, tmp_path: Path) -> None:
        missing = tmp_path / "typo" / "candidates.sqlite"
        for args in (
            ("standings",),
            ("game", "1.1"),
            ("pairings",),
            ("trf",),
            ("audit",),
            ("seal",),
            ("export", "--out", str(tmp_path / "x.msgpack")),
        ):
            shown = candidates(*args, store=str(missing))
            assert shown.returncode == 2, (args, shown.stderr)
            assert shown.stderr == (
                f"candidates: no store at {missing} (make one with `candidates init {missing}`)\n"
            )
        assert not missing.parent.exists()

    def test_a_write_command_refuses_a_mistyped_store_and_creates_nothing(
        self, tmp_path: Path
    ) -> None:
        """The mistake of the issue: `apply` to a mistyped path made the directories and an
        empty store, then blamed the game (unknown_game)."""
        missing = tmp_path / "typo" / "candidates.sqlite"
        start = json.dumps({"cmd": "start_game", "game": "1.1", "at": "2013-03-15T14:00:00Z"})
        (tmp_path / "a.jsonl").write_text(start + "\n")
        for args in (
            ("apply", "-"),
            ("apply", str(tmp_path / "a.jsonl")),
            ("import-pgn", str(PGN_2013)),
            ("import-log", str(SAMPLE_LOG)),
        ):
            shown = candidates(*args, store=str(missing), stdin=start + "\n")
            assert shown.returncode == 2, (args, shown.stderr)
            assert shown.stdout == ""
            assert shown.stderr == (
                f"candidates: no store at {missing} (make one with `candidates init {missing}` "
                "or pass --create)\n"
            ), args
        assert not missing.parent.exists()

    def test_serve_and_dgt_run_refuse_a_store_that_does_not_exist(self, tmp_path: Path) -> None:
        missing = tmp_path / "typo" / "candidates.sqlite"
        for args in (
            ("serve", "--port", "0"),
            ("dgt", "run", "--dgt", "/dev/null=1.1"),
        ):
            shown = candidates(*args, store=str(missing))
            assert shown.returncode == 2, (args, shown.stderr)
            assert shown.stderr.startswith(f"candidates: no store at {missing} (make one"), args
        assert not missing.parent.exists()

    def test_init_makes_the_store_the_others_then_use(self, tmp_path: Path) -> None:
        path = tmp_path / "new" / "s.sqlite"
        made = subprocess.run(
            [sys.executable, "-m", "adapters.cli", "init", str(path)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert made.returncode == 0, made.stderr
        assert json.loads(made.stdout) == {"store": str(path), "created": True, "events": 0}
        again = candidates("init", store=str(path))
        assert json.loads(again.stdout)["created"] is False
        create = {
            "cmd": "create_tournament",
            "tournament": "t",
            "name": "T",
            "start_date": "2013-03-13",
            "players": PLAYERS_2013,
        }
        done = candidates("apply", "-", store=str(path), stdin=json.dumps(create) + "\n")
        assert done.returncode == 0, done.stderr

    def test_apply_creates_the_store_when_asked(self, tmp_path: Path) -> None:
        path = tmp_path / "new" / "s.sqlite"
        create = {
            "cmd": "create_tournament",
            "tournament": "t",
            "name": "T",
            "start_date": "2013-03-13",
            "players": PLAYERS_2013,
        }
        done = candidates(
            "apply", "--create", "-", store=str(path), stdin=json.dumps(create) + "\n"
        )
        assert done.returncode == 0, done.stderr
        assert path.is_file()


def test_seal_prints_one_line_and_the_whole_seal_as_json(tmp_path: Path) -> None:
    store = fresh(tmp_path)
    done = candidates("seal", store=store)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    assert line.startswith("Sealed the first 2 events") and len(line) < 160
    again = candidates("seal", "--format", "json", store=store)
    assert json.loads(again.stdout)["sealed"] is False
    s = open_store(store)
    ok(s, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    s.close()
    whole = json.loads(candidates("seal", "--format", "json", store=store).stdout)
    assert whole["sealed"] is True and whole["events_before"] == 4 and whole["order_digest"]
