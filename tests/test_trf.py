"""The FIDE Tournament Report File (TRF16): column layout, forfeits, and a round trip.

The columns are checked against the format's table (TRF16, record ``001``),
written out here independently of ``projections.trf``; the round trip reads
the written file back and compares every player's rounds, points and rank
with the crosstable and standings objects of the same store.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from adapters.formats.pgn_import import import_pgn
from adapters.formats.replay_log import import_log, read_log
from adapters.store import open_store
from adapters.store.queries import crosstable_object, standings_object, trf_report
from projections.trf import parse_trf
from tests.helpers import at, ok, paired_tournament
from tools.sample import SAMPLE_LOG

ROOT = Path(__file__).resolve().parents[1]

# TRF16, player record 001: (first column, last column), 1-based, inclusive.
NUMBER, SEX, TITLE, NAME = (5, 8), (10, 10), (11, 13), (15, 47)
RATING, FEDERATION, FIDE_ID, BIRTH = (49, 52), (54, 56), (58, 68), (70, 79)
POINTS, RANK = (81, 84), (86, 89)
FIELDS = (NUMBER, SEX, TITLE, NAME, RATING, FEDERATION, FIDE_ID, BIRTH, POINTS, RANK)
RESULT_CODES = set("10=+-WDLHFUZ ")


def cols(line: str, span: tuple[int, int]) -> str:
    return line[span[0] - 1 : span[1]]


@pytest.fixture(scope="module")
def event_2013(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("trf") / "e.sqlite"
    store = open_store(str(path))
    import_log(store, read_log(SAMPLE_LOG))
    yield store, path
    store.close()


def test_trf16_player_records_follow_the_column_layout(event_2013) -> None:
    store, _ = event_2013
    text = trf_report(store.reads)
    players = {p["number"]: p for p in crosstable_object(store.reads)["players"]}
    rows = {r["player"]: r for r in standings_object(store.reads)["rows"]}
    lines = [line for line in text.splitlines() if line.startswith("001")]
    assert len(lines) == 8
    for line in lines:
        # Separating blanks: between every field, and before each round's block.
        used = {c for first, last in FIELDS for c in range(first, last + 1)} | {1, 2, 3}
        for column in range(4, 92):
            if column not in used:
                assert line[column - 1] == " ", (column, line)
        number = int(cols(line, NUMBER))
        assert cols(line, NUMBER) == f"{number:>4}"
        me = players[number]
        assert cols(line, NAME).rstrip() == me["name"]
        assert cols(line, RATING) == f"{me['rating']:>4}"
        assert cols(line, FEDERATION) == me["federation"]
        assert cols(line, POINTS) == f"{rows[me['player']]['points']:>4.1f}"
        assert cols(line, RANK) == f"{rows[me['player']]['rank']:>4}"
        assert len(line) == 91 + 10 * 14 - 2  # fourteen rounds, the last ends at its result
        for r in range(14):
            block = line[91 + 10 * r : 91 + 10 * r + 8]
            assert block[:4].isdigit() and block[4] == " " and block[6] == " ", block
            assert block[5] in "wb-" and block[7] in RESULT_CODES, block
            if r < 13:
                assert line[91 + 10 * r + 8 : 91 + 10 * r + 10] == "  "


def test_trf16_tournament_records(event_2013) -> None:
    store, _ = event_2013
    lines = trf_report(store.reads).splitlines()
    kinds = [line[:3] for line in lines]
    assert kinds[:12] == [
        "012",
        "022",
        "032",
        "042",
        "052",
        "062",
        "072",
        "092",
        "102",
        "112",
        "122",
        "132",
    ]
    assert lines[0] == "012 FIDE Candidates Tournament 2013"
    assert lines[3] == "042 2013/03/15" and lines[4] == "052 2013/04/01"
    dates = next(line for line in lines if line.startswith("132"))
    assert dates[91:99] == "13/03/15"  # round 1 in columns 92-99
    assert dates[101:109] == "13/03/16"  # round 2 in columns 102-109
    assert dates[221:229] == "13/04/01"  # round 14


def test_trf_round_trip_gives_the_same_crosstable(event_2013) -> None:
    """trf -> parse -> every player's opponent, colour and result per round, points, rank."""
    store, _ = event_2013
    report = parse_trf(trf_report(store.reads))
    table = crosstable_object(store.reads)
    number = {p["player"]: p["number"] for p in table["players"]}
    assert_same_crosstable(store, report, number)
    assert report.records["012"] == ["FIDE Candidates Tournament 2013"]


def test_trf_of_an_event_imported_without_its_lots_numbers_players_by_rating(
    tmp_path: Path,
) -> None:
    """Candidates 2014 from its games alone: FIDE ids and titles from the PGN tags, starting
    numbers by rating (said in a ### comment), the same crosstable read back."""
    store = open_store(str(tmp_path / "s.sqlite"))
    import_pgn(store, str(ROOT / "tests" / "data" / "real-events" / "candidates-2014.pgn"))
    text = trf_report(store.reads)
    report = parse_trf(text)
    assert "### starting numbers by rating" in text
    by_rating = sorted(report.players, key=lambda p: p.number)
    assert [p.rating for p in by_rating] == sorted((p.rating for p in by_rating), reverse=True)
    anand = next(p for p in report.players if p.name.startswith("Anand"))
    assert (anand.title, anand.fide_id, anand.rank, anand.points) == ("GM", "5000017", 1, 8.5)
    names = {p.name: p.number for p in report.players}
    number = {p["player"]: names[p["name"]] for p in crosstable_object(store.reads)["players"]}
    assert_same_crosstable(store, report, number)
    store.close()


def assert_same_crosstable(store, report, number: dict[str, int]) -> None:
    """Every player's rounds, points and rank in the TRF are those of the store."""
    table = crosstable_object(store.reads)
    rows = {r["player"]: r for r in standings_object(store.reads)["rows"]}
    parsed = {p.number: p for p in report.players}
    assert sorted(parsed) == sorted(number.values())
    code = {"1": "1", "1/2": "=", "0": "0"}
    for p in table["players"]:
        mine = parsed[number[p["player"]]]
        assert mine.name == p["name"] and mine.federation == p["federation"]
        assert mine.points == rows[p["player"]]["points"]
        assert mine.rank == rows[p["player"]]["rank"]
        expected = {}
        for opponent, games in p["results"].items():
            for g in games:
                expected[g["round"]] = (number[opponent], g["colour"][0], code[g["score"]])
        got = {r: (e.opponent, e.colour, e.result) for r, e in enumerate(mine.rounds, start=1)}
        assert got == expected
        assert sum({"1": 1, "=": 0.5, "0": 0}[e.result] for e in mine.rounds) == mine.points


def test_trf_marks_forfeits_and_games_not_finished(tmp_path: Path) -> None:
    """A game lost by default is ``+``/``-`` (3.3.3); a game not finished has no result yet."""
    store = open_store(str(tmp_path / "s.sqlite"))
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    ok(
        store,
        {
            "cmd": "declare_result",
            "game": "1.1",
            "result": "1-0",
            "reason": "black did not appear within the default time",
            "termination": "default",
            "arbiter": "chief",
            "at": at(3600),
        },
    )
    ok(store, {"cmd": "start_game", "game": "1.2", "at": at(0)})
    report = parse_trf(trf_report(store.reads))
    store.close()
    by_number = {p.number: p for p in report.players}
    first = [p.rounds[0] for p in report.players]
    forfeits = sorted(e.result for e in first if e.result in "+-")
    assert forfeits == ["+", "-"]
    winner = next(p for p in report.players if p.rounds[0].result == "+")
    loser = by_number[winner.rounds[0].opponent]
    assert loser.rounds[0].result == "-" and loser.rounds[0].opponent == winner.number
    assert winner.rounds[0].colour == "w" and loser.rounds[0].colour == "b"
    assert winner.points == 1.0 and loser.points == 0.0
    unfinished = [e for e in first if e.result == " "]
    assert len(unfinished) == 6  # boards 2-4 paired, no result yet
    assert all(e.opponent > 0 and e.colour in "wb" for e in unfinished)


def test_trf_before_the_drawing_of_lots_is_refused(tmp_path: Path) -> None:
    store_path = tmp_path / "s.sqlite"
    store = open_store(str(store_path))
    ok(
        store,
        {
            "cmd": "create_tournament",
            "tournament": "t",
            "name": "T",
            "start_date": "2013-03-13",
            "players": [{"id": "a"}, {"id": "b"}],
        },
    )
    store.close()
    run = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "--store", str(store_path), "trf"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 2
    assert "draw the lots first" in run.stderr and "Traceback" not in run.stderr


def test_trf_out_writes_the_file(event_2013, tmp_path: Path) -> None:
    _, path = event_2013
    out = tmp_path / "london-2013.trf"
    run = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "--store", str(path), "trf", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "TRF written to" in run.stdout
    assert len(parse_trf(out.read_text(encoding="utf-8")).players) == 8
