"""The incident book of round 3, through the real command line (``candidates apply``,
then ``incidents``, ``report`` and ``standings``).

``tests/scenarios/incident_book_round_3.jsonl`` (its answers are compared by
``test_scenarios.py``): in round 3 of the 2013 field (3.1 gelfand - carlsen,
3.2 ivanchuk - aronian, 3.3 kramnik - grischuk, 3.4 svidler - radjabov)

- radjabov is not at the board at 14:00; under the zero default of the 2009
  Laws (6.6 a) the Chief Arbiter rules 3.4 lost at 14:00:05;
- gelfand's phone rings at 14:03 (12.3 b): 3.1 is lost, 0-1;
- ivanchuk's phone rings at 14:10 in 3.2, where Black has a lone king: Black
  could not win by any series of legal moves, so the game is drawn;
- kramnik leaves the playing area with the Chief Arbiter's permission at 14:20,
  accompanied by the Deputy, and returns at 14:24 (3.9.2 c);
- grischuk is warned for disturbing his opponent at 14:30 (12.6, 13.4 a), then
  has 5 minutes deducted at 14:40 (13.4 c); an incident on the finished 3.1 is
  refused; grischuk resigns at 15:30.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import candidates, json_lines

SCENARIO = Path(__file__).parent / "scenarios" / "incident_book_round_3.jsonl"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("incidents") / "round3.sqlite")
    applied = candidates("apply", "--create", str(SCENARIO), store=path)
    answers = json_lines(applied.stdout)
    refused = [a for a in answers if not a["ok"]]
    assert [a["error"]["code"] for a in refused] == ["game_not_in_progress"], refused
    assert applied.returncode == 1
    return path


def test_the_report_lists_every_ruling_in_time_order_with_its_article(store: str) -> None:
    shown = candidates("report", "--format", "json", store=store)
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert [(e["at"][11:19], e["type"], e["game"], e["article"]) for e in report["entries"]] == [
        ("14:00:05", "DefaultRuled", "3.4", "Laws 2009 6.6 a; 3.3.7"),
        ("14:03:00", "IncidentRecorded", "3.1", "Laws 2009 12.3 b; Laws 2009 13.4 d"),
        ("14:10:00", "IncidentRecorded", "3.2", "Laws 2009 12.3 b; Laws 2009 13.4 d"),
        ("14:20:00", "LeavePermitted", "3.3", "3.9.2 c"),
        ("14:24:00", "PlayerReturned", "3.3", "3.9.2 c"),
        ("14:30:00", "IncidentRecorded", "3.3", "Laws 2009 12.6; Laws 2009 13.4 a"),
        ("14:40:00", "IncidentRecorded", "3.3", "Laws 2009 12.6; Laws 2009 13.4 c"),
        ("14:40:00", "ClockAdjusted", "3.3", "Laws 2009 13.4 c"),
    ]
    summaries = [e["summary"] for e in report["entries"]]
    assert summaries[1].endswith("Penalty: game lost; result 0-1")
    # 12.3 b: Ivanchuk loses; Aronian, a lone king, cannot win and scores a draw: 0 - 1/2
    assert summaries[2].endswith("Penalty: game lost; result 0-1, each player's own score 0-1/2")
    assert summaries[4] == "Kramnik returned to the playing area with Deputy Arbiter after 4 min"
    assert report["counts"] == {"clock": 1, "incident": 4, "permission": 2, "ruling": 1}
    assert report["laws"] == "FIDE Laws of Chess, effective 1 July 2009"


def test_the_report_as_a_table(store: str) -> None:
    shown = candidates("report", store=store)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "Chief Arbiter's report: FIDE Candidates Tournament 2013 (london-2013)"
    assert any("3.9.2 c" in line and "Kramnik left the playing area" in line for line in lines)


def test_the_standings_follow_the_rulings(store: str) -> None:
    shown = candidates("standings", "--format", "json", store=store)
    table = json.loads(shown.stdout)
    points = {r["player"]: r["points"] for r in table["rows"]}
    assert table["after_round"] == 3
    assert points == {
        "carlsen": 1,
        "kramnik": 1,
        "svidler": 1,
        "aronian": 0.5,
        "ivanchuk": 0,  # 12.3 b: he lost; his opponent scored a draw
        "gelfand": 0,
        "grischuk": 0,
        "radjabov": 0,
    }


def test_the_incident_book_shows_nobody_out_once_he_returned(store: str) -> None:
    shown = candidates("incidents", "--format", "json", store=store)
    book = json.loads(shown.stdout)
    assert book["out"] == []
    assert [i["incident"] for i in book["incidents"]] == ["1", "2", "3", "4"]
    assert [i["penalty"] for i in book["incidents"]] == [
        "game_lost",
        "game_lost",
        "warning",
        "time_deducted",
    ]
    table = candidates("incidents", store=store).stdout.splitlines()
    assert table[0] == "london-2013: incident book (4 incident(s))"
    assert len(table) == 1 + 7  # the book's seven entries


def test_the_games_show_results_not_incident_details(store: str) -> None:
    game = json.loads(candidates("game", "3.2", "--format", "json", store=store).stdout)
    assert (game["result"], game["termination"], game["scores"]) == ("0-1", "penalty", "0-1/2")
    assert "phone" not in json.dumps(game)
