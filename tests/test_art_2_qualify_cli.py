"""``candidates qualify``: output, exit status, and the tournament created from the field."""

from __future__ import annotations

import json
from pathlib import Path

from adapters.cli import main
from adapters.store import Store
from tests.cli import candidates, json_lines
from tests.qualification_helpers import TEN_RATED, qualification_file, rated


def write(tmp_path, raw, name="q.json"):
    path = tmp_path / name
    path.write_text(json.dumps(raw))
    return str(path)


class TestQualifyOutput:
    def test_json_output_has_the_places_the_reserves_and_the_list(self, tmp_path, capsys):
        path = write(tmp_path, qualification_file(TEN_RATED, nominee="nom"))
        assert main(["qualify", path, "--format", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["complete"] is True
        assert [(q["player"], q["article"]) for q in data["qualifiers"]][4:] == [
            ("r1", "2.3"),
            ("r2", "2.3"),
            ("r3", "2.3"),
            ("nom", "2.6"),
        ]
        assert data["qualifiers"][4]["average_rating"] == "2805.00"
        assert data["reserves"] == ["r4", "r5", "r6", "r7"]
        assert data["rating_list"][0] == {
            "rank": 1,
            "player": "r1",
            "average": "2805.00",
            "basis": "July 2011 and January 2012",
            "decided_by": None,
            "level_with": [],
            "level_because": None,
            "status": "qualified (2.3)",
        }

    def test_a_refused_nominee_exits_1_and_says_why(self, tmp_path, capsys):
        players = [*TEN_RATED, rated("wild", 2650, 2690)]
        path = write(tmp_path, qualification_file(players, nominee="wild"))
        assert main(["qualify", path]) == 1
        out = capsys.readouterr().out
        assert (
            "Nominee (2.6): wild: refused: wild is rated 2690 in the January 2012 list; "
            "the nominee needs at least 2700"
        ) in out

    def test_an_undecided_tie_exits_2_with_the_players(self, tmp_path, capsys):
        players = [
            rated("c", 2800, 2800),
            rated("d", 2799, 2799),
            rated("e", 2780, 2790),
            rated("f", 2790, 2780),
        ]
        path = write(tmp_path, qualification_file(players))
        assert main(["qualify", path]) == 2
        assert "['e', 'f'] are level for 1 place(s)" in capsys.readouterr().err

    def test_malformed_file_exits_2_naming_the_field(self, tmp_path, capsys):
        raw = qualification_file(TEN_RATED)
        raw["players"][-1]["january_2012"]["inactive"] = "no"
        path = write(tmp_path, raw)
        assert main(["qualify", path]) == 2
        assert ".january_2012.inactive must be true or false" in capsys.readouterr().err

    def test_withdrawals_show_in_the_table(self, tmp_path, capsys):
        raw = qualification_file(
            TEN_RATED, nominee="nom", withdrawals=[{"player": "r1", "on": "2012-09-01"}]
        )
        assert main(["qualify", write(tmp_path, raw)]) == 0
        out = capsys.readouterr().out
        assert "r1 2012-09-01 3.3.3 (not replaced)" in out
        assert "(withdrawn, 3.3.3)" in out

    def test_places_keep_their_numbers_while_one_is_pending(self, tmp_path, capsys):
        # 2.2 not decided yet: the rated players are still places 5-7, not 4-6.
        path = write(tmp_path, qualification_file(TEN_RATED, nominee="nom", loser=None))
        assert main(["qualify", path, "--format", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert [(q["place"], q["player"]) for q in data["qualifiers"]] == [
            (1, "cup1"),
            (2, "cup2"),
            (3, "cup3"),
            (5, "r1"),
            (6, "r2"),
            (7, "r3"),
            (8, "nom"),
        ]
        assert data["complete"] is False

    def test_json_withdrawals_keep_the_stated_reason(self, tmp_path, capsys):
        withdrawals = [{"player": "r2", "on": "2012-05-02", "reason": "illness"}]
        raw = qualification_file(TEN_RATED, nominee="nom", withdrawals=withdrawals)
        assert main(["qualify", write(tmp_path, raw), "--format", "json"]) == 0
        (w,) = json.loads(capsys.readouterr().out)["withdrawals"]
        assert w == {
            "player": "r2",
            "on": "2012-05-02",
            "kind": "withdrew",
            "article": "3.3.2",
            "replaced_by": "r4",
            "reason": "withdrew on 2012-05-02, at least 3 months before the start "
            "(2012-10-20; limit 2012-07-20)",
            "stated_reason": "illness",
        }

    def test_a_fractional_rating_in_the_file_is_refused_exactly(self, tmp_path, capsys):
        path = tmp_path / "q.json"
        text = json.dumps(qualification_file(TEN_RATED)).replace("2810", "2810.5", 1)
        path.write_text(text)
        assert main(["qualify", str(path)]) == 2
        assert "rating must be a whole number, got 2810.5" in capsys.readouterr().err


class TestCreateTournament:
    """The field becomes the tournament; ratings are the 2.3 averages (3.7.3 seeding)."""

    def args(self, path, *extra):
        return [
            "qualify",
            path,
            "--tournament",
            "c2012",
            "--name",
            "Candidates 2012",
            "--arbiter",
            "chief:Chief Arbiter:chief",
            *extra,
        ]

    def test_emit_command_is_taken_by_apply(self, tmp_path, capsys):
        players = [*TEN_RATED[:-1], rated("nom", 2701, 2704)]
        path = write(tmp_path, qualification_file(players, nominee="nom"))
        assert main(self.args(path, "--emit-command")) == 0
        line = capsys.readouterr().out.strip()
        cmd = json.loads(line)
        assert cmd["cmd"] == "create_tournament"
        assert cmd["start_date"] == "2012-10-20"
        assert [p["id"] for p in cmd["players"]] == [
            "cup1",
            "cup2",
            "cup3",
            "challenger",
            "r1",
            "r2",
            "r3",
            "nom",
        ]
        assert cmd["players"][-1]["rating"] == 2702.5
        assert cmd["arbiters"] == [{"id": "chief", "name": "Chief Arbiter", "role": "chief"}]
        commands = tmp_path / "create.jsonl"
        commands.write_text(line + "\n")
        store = str(tmp_path / "s.sqlite")
        assert main(["apply", "--create", str(commands), "--store", store]) == 0
        with Store(store) as s:
            assert s.reads.tournament().player("nom").rating == 2702.5

    def test_create_tournament_in_the_store(self, tmp_path, store_url, capsys):
        path = write(tmp_path, qualification_file(TEN_RATED, nominee="nom"))
        assert main(self.args(path, "--create-tournament", "--create", "--store", store_url)) == 0
        assert "Tournament 'c2012' created" in capsys.readouterr().out
        with Store(store_url) as s:
            t = s.reads.tournament()
            assert t.id == "c2012"
            assert len(t.players) == 8
            assert t.player("r1").rating == 2805
            assert t.arbiter("chief").role == "chief"

    def test_an_incomplete_field_creates_nothing(self, tmp_path, capsys):
        path = write(tmp_path, qualification_file(TEN_RATED))
        store = str(tmp_path / "s.sqlite")
        assert main(self.args(path, "--create-tournament", "--create", "--store", store)) == 2
        err = capsys.readouterr().err
        assert "the field is not complete" in err
        assert "2.6: the organiser has not nominated a player" in err
        with Store(store) as s:
            assert s.cache.count() == 0

    def test_a_second_tournament_in_the_same_store_is_refused(self, tmp_path, capsys):
        path = write(tmp_path, qualification_file(TEN_RATED, nominee="nom"))
        store = str(tmp_path / "s.sqlite")
        assert main(self.args(path, "--create-tournament", "--create", "--store", store)) == 0
        assert main(self.args(path, "--create-tournament", "--create", "--store", store)) == 1
        assert '"code": "rule_violation"' in capsys.readouterr().out

    def test_a_start_date_other_than_the_file_s_is_refused(self, tmp_path, capsys):
        path = write(tmp_path, qualification_file(TEN_RATED, nominee="nom"))
        assert main(self.args(path, "--emit-command", "--start-date", "2012-11-01")) == 2
        assert "differs from the file's start_date 2012-10-20" in capsys.readouterr().err

    def test_needs_id_and_name(self, tmp_path, capsys):
        path = write(tmp_path, qualification_file(TEN_RATED, nominee="nom"))
        assert main(["qualify", path, "--emit-command"]) == 2
        assert "needs --tournament and --name" in capsys.readouterr().err

    def test_a_bad_arbiter_spec_is_refused(self, tmp_path, capsys):
        path = write(tmp_path, qualification_file(TEN_RATED, nominee="nom"))
        assert main(self.args(path, "--emit-command", "--arbiter", "x:Y:boss")) == 2
        assert "expected ID:NAME:ROLE" in capsys.readouterr().err


class TestRealProcess:
    """The console entry point itself: exit statuses as a shell sees them."""

    def test_qualify_then_apply_in_subprocesses(self, tmp_path):
        store = str(tmp_path / "s.sqlite")
        path = write(tmp_path, qualification_file(TEN_RATED, nominee="nom"))
        emitted = candidates(
            "qualify", path, "--emit-command", "--tournament", "t", "--name", "T", store=store
        )
        assert emitted.returncode == 0, emitted.stderr
        applied = candidates("apply", "--create", "-", store=store, stdin=emitted.stdout)
        assert applied.returncode == 0, applied.stderr
        (answer,) = json_lines(applied.stdout)
        assert answer["events"][0]["type"] == "TournamentCreated"

    def test_bid_check_exit_statuses(self, tmp_path):
        examples = Path(__file__).resolve().parents[1] / "docs" / "examples"
        store = str(tmp_path / "unused.sqlite")
        assert (
            candidates("bid-check", str(examples / "bid-guarantee.json"), store=store).returncode
            == 0
        )
        assert (
            candidates("bid-check", str(examples / "bid-deposit-late.json"), store=store).returncode
            == 1
        )
        bad = tmp_path / "bad.json"
        bad.write_text("[]")
        failed = candidates("bid-check", str(bad), store=store)
        assert failed.returncode == 2
        assert failed.stderr == "candidates: a bid must be a JSON object\n"
