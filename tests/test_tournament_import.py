"""A whole event from a PGN file: the tournament, its Berger numbers and the standings.

Done when: importing the 2013 Candidates and asking for the standings gives the
official final order, first place decided by the number of wins (3.7 b):
Carlsen and Kramnik level on 8.5, 1-1 between them, 5 wins against 4.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.cli import main
from adapters.formats.pgn_import import import_pgn
from adapters.store import Store, open_store
from adapters.store.queries import crosstable_object, standings_object
from engine.tournament.berger_inference import infer_numbers
from engine.tournament.pairing import berger_schedule, is_bye

PGN_2013 = Path(__file__).resolve().parents[1] / "replay_logs" / "sources" / "candidates-2013.pgn"
OFFICIAL_ORDER = [
    ("carlsen", 8.5),
    ("kramnik", 8.5),
    ("svidler", 8),
    ("aronian", 8),
    ("gelfand", 6.5),
    ("grischuk", 6.5),
    ("ivanchuk", 6),
    ("radjabov", 4),
]
REAL_NUMBERS = {
    "aronian": 1,
    "gelfand": 2,
    "ivanchuk": 3,
    "svidler": 4,
    "kramnik": 5,
    "grischuk": 6,
    "radjabov": 7,
    "carlsen": 8,
}


def test_3_7_b_candidates_2013_import_then_standings_json(tmp_path, capsys) -> None:
    store = str(tmp_path / "london.sqlite")
    assert main(["--store", store, "import-pgn", "--create", str(PGN_2013)]) == 0
    out = capsys.readouterr()
    assert len(out.out.splitlines()) == 56  # one report a game
    assert "tournament created: 8 players, 2 cycle(s) (14 rounds), start 2013-03-13" in out.err
    assert "rules candidates-2012 (the Event tag names a Candidates" in out.err
    assert "rounds played in another order than the table's: 6<-7, 7<-6" in out.err
    assert main(["--store", store, "standings", "--format", "json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert [(r["player"], r["points"]) for r in table["rows"]] == OFFICIAL_ORDER
    assert [r["rank"] for r in table["rows"]] == list(range(1, 9))
    carlsen, kramnik = table["rows"][0], table["rows"][1]
    assert (carlsen["wins"], kramnik["wins"]) == (5, 4)
    assert (carlsen["h2h"], kramnik["h2h"]) == (1, 1)  # 1-1 between them
    assert table["winner"] == {"player": "carlsen", "decided_by": "wins"}
    assert table["playoff"]["needed"] is False
    assert table["after_round"] == 14 and table["final"] is True
    # Svidler before Aronian on (a): 1.5-0.5; Gelfand before Grischuk on (b)
    assert (table["rows"][2]["h2h"], table["rows"][3]["h2h"]) == (1.5, 0.5)
    assert (table["rows"][4]["wins"], table["rows"][5]["wins"]) == (2, 1)
    assert table["prizes"][0] == {"player": "carlsen", "eur": 91_500}


def test_2013_import_on_every_backend(store: Store) -> None:
    reports = import_pgn(store, PGN_2013)
    assert sum(r.status == "imported" for r in reports) == 56
    tournament = store.reads.tournament()
    assert tournament.numbers == REAL_NUMBERS
    # London played the table's round 7 as round 6 and round 6 as round 7
    assert tournament.round_order[5:7] == (7, 6)
    table = standings_object(store.reads)
    assert [(r["player"], r["points"]) for r in table["rows"]] == OFFICIAL_ORDER
    after_7 = standings_object(store.reads, 7)
    assert [(r["player"], r["points"]) for r in after_7["rows"][:2]] == [
        ("carlsen", 5),
        ("aronian", 5),
    ]
    # importing again adds nothing and does not create a second tournament
    again = import_pgn(store, PGN_2013)
    assert {r.status for r in again} == {"already_imported"}


def test_cli_crosstable_and_prizes_of_the_2013_event(tmp_path, capsys) -> None:
    store = str(tmp_path / "london.sqlite")
    main(["--store", store, "import-pgn", "--create", str(PGN_2013)])
    capsys.readouterr()
    assert main(["--store", store, "crosstable"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].split()[:2] == ["1", "Carlsen,M"] and lines[2].endswith("8.5")
    assert main(["--store", store, "crosstable", "--format", "json"]) == 0
    cross = json.loads(capsys.readouterr().out)
    carlsen = cross["players"][0]
    assert [g["score"] for g in carlsen["results"]["kramnik"]] == ["1/2", "1/2"]
    assert main(["--store", store, "prizes", "--format", "json"]) == 0
    prizes = json.loads(capsys.readouterr().out)
    assert [p["eur"] for p in prizes["prizes"]] == [
        91_500,
        91_500,
        65_000,
        65_000,
        34_000,
        34_000,
        22_000,
        17_000,
    ]
    assert [p["name"] for p in prizes["prizes"]][:2] == ["Carlsen", "Kramnik"]
    assert main(["--store", store, "prizes"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[1].split() == ["Carlsen", "8.5", "91,500"]  # the name, never the id
    assert main(["--store", store, "standings"]) == 0
    text = capsys.readouterr().out
    assert "Winner: Carlsen,M (decided by the number of wins (3.7 b))" in text


def test_standings_without_a_tournament_is_a_clear_error(tmp_path, capsys) -> None:
    empty = tmp_path / "empty.sqlite"
    assert main(["--store", str(empty), "standings"]) == 2
    assert f"no store at {empty}" in capsys.readouterr().err and not empty.exists()
    open_store(str(empty)).close()  # a store, with nothing in it
    assert main(["--store", str(empty), "standings"]) == 2
    assert "no tournament in this store" in capsys.readouterr().err


@settings(max_examples=40, deadline=None)
@given(
    size=st.integers(min_value=3, max_value=12),
    cycles=st.integers(min_value=1, max_value=2),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_berger_numbers_and_round_order_are_inferred_from_the_games(
    size: int, cycles: int, seed: int
) -> None:
    rng = random.Random(seed)
    ids = [f"p{i}" for i in range(size)]
    shuffled = ids[:]
    rng.shuffle(shuffled)
    numbers = {p: n for n, p in enumerate(shuffled, start=1)}
    by_number = {n: p for p, n in numbers.items()}
    table = berger_schedule(size, cycles)
    total = max(p.round for p in table)
    order = list(range(1, total + 1))
    i = rng.randrange(total - 1)
    order[i], order[i + 1] = order[i + 1], order[i]  # two rounds swapped, as in London
    played_as = {t: r for r, t in enumerate(order, start=1)}
    games = [
        (played_as[p.round], by_number[p.white], by_number[p.black])
        for p in table
        if not is_bye(p, size)
    ]
    found = infer_numbers(ids, games, cycles)
    assert found is not None
    rebuilt = {p: n for p, n in found.numbers.items()}
    names = {n: p for p, n in rebuilt.items()}
    replay = {
        (r, names[p.white], names[p.black])
        for r, t in enumerate(found.round_order, start=1)
        for p in table
        if p.round == t and not is_bye(p, size)
    }
    assert replay == set(games)


GOLDEN = Path(__file__).resolve().parent / "golden" / "candidates-2013-standings.json"


def test_golden_standings_and_crosstable_of_the_2013_event(sqlite_store: Store) -> None:
    """The replayed event against a stored snapshot (standings final and after round 7,
    crosstable): any change to how the event is scored shows up here."""
    import_pgn(sqlite_store, PGN_2013)
    got = {
        "standings": standings_object(sqlite_store.reads),
        "standings_after_round_7": standings_object(sqlite_store.reads, 7),
        "crosstable": crosstable_object(sqlite_store.reads),
    }
    assert json.loads(json.dumps(got)) == json.loads(GOLDEN.read_text())


def test_the_profile_follows_the_years_the_games_are_dated_and_says_so(tmp_path, capsys) -> None:
    """``Event "Candidates"`` names no year: games dated 2024 are judged under
    ``candidates-2024``, and the import says why in its one line on the profile."""
    text = PGN_2013.read_text(encoding="utf-8")
    text = re.sub(r'\[Event "[^"]*"\]', '[Event "Candidates"]', text)
    text = re.sub(r'\[Date "2013\.', '[Date "2024.', text)
    path = tmp_path / "candidates-2024.pgn"
    path.write_text(text, encoding="utf-8")
    store = str(tmp_path / "toronto.sqlite")
    assert main(["--store", store, "import-pgn", "--create", str(path)]) == 0
    err = capsys.readouterr().err
    [line] = [line for line in err.splitlines() if "tournament created" in line]
    assert "rules candidates-2024 (the Event tag names a Candidates ('Candidates') and its " in (
        line
    )
    assert "games are dated 2024" in line
    with open_store(store) as opened:
        tournament = opened.reads.tournament()
        assert tournament is not None and tournament.rules == "candidates-2024"


def test_games_with_no_moves_and_no_result_are_scheduled_not_started(tmp_path) -> None:
    """A mid-event export lists the next round's games with no moves and ``*``: they are
    scheduled, not started (nothing is recorded for them), and the event stands after the
    rounds played."""
    games = PGN_2013.read_text(encoding="utf-8").split("\n\n[Event")
    kept, blanked = [], 0
    for index, game in enumerate(games):
        text = game if index == 0 else "[Event" + game
        if '[Round "14.' in text:
            head = text.split("\n\n")[0]
            head = re.sub(r'\[Result "[^"]*"\]', '[Result "*"]', head)
            text = head + "\n\n*\n"
            blanked += 1
        kept.append(text)
    assert blanked == 4
    path = tmp_path / "before-round-14.pgn"
    path.write_text("\n\n".join(kept), encoding="utf-8")
    with Store(str(tmp_path / "mid.sqlite")) as store:
        reports = import_pgn(store, path)
        scheduled = [r for r in reports if r.status == "scheduled"]
        assert len(scheduled) == 4 and all("scheduled, not started" in r.message for r in scheduled)
        assert all(store.reads.game(r.game) is None for r in scheduled)
        assert sum(r.status == "imported" for r in reports) == 52
        table = standings_object(store.reads)
        assert table["after_round"] == 13 and table["final"] is False
