"""Real events' files import right: whatever table produced the games, however the
players are written, however far the export goes, with the event's tie-break chain.

The files are written here the way broadcasts and databases write them
(``tests/pgn_files.py``); ``tests/test_import_real_events.py`` imports real events.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from adapters.cli import main
from adapters.formats.pgn_import import ImportOptions, import_pgn
from adapters.store import Store
from adapters.store.queries import standings_object
from engine.events import ClockReadingRecorded, ResultRecorded, game_stream
from engine.rules import PROFILES
from engine.tournament.berger_inference import infer_numbers
from projections.pgn import game_pgn
from tests.pgn_files import WOMEN_2019, double_round_robin, pgn


def goryachkina_wins(round_no: int, white: int, black: int) -> str:
    """Goryachkina (0) wins every game; every other game is drawn, but Kosteniuk (1)
    beats the players from 4 on with White."""
    if 0 in (white, black):
        return "1-0" if white == 0 else "0-1"
    if white == 1 and black >= 4:
        return "1-0"
    return "1/2-1/2"


def write(tmp_path: Path, text: str, name: str = "event.pgn", encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def test_3_1_a_double_round_robin_off_the_berger_table_ends_final_with_its_winner(
    sqlite_store: Store, tmp_path: Path
) -> None:
    games = double_round_robin(
        WOMEN_2019, goryachkina_wins, second_cycle_order=[3, 0, 6, 1, 5, 2, 4]
    )
    pairings = [(g.round, g.white.name, g.black.name) for g in games]
    assert infer_numbers(sorted(e.name for e in WOMEN_2019), pairings, 2) is None
    created: list = []
    reports = import_pgn(sqlite_store, write(tmp_path, pgn(games)), created=created)
    assert [r.status for r in reports] == ["imported"] * 56
    assert "do not follow a Berger table" in created[0].message
    table = standings_object(sqlite_store.reads)
    assert table["final"] is True and table["after_round"] == 14
    assert table["winner"] == {"player": "goryachkina", "decided_by": "points"}
    assert table["rows"][0]["points"] == 14
    assert table["rows"][1]["player"] == "kosteniuk"
    assert table["prizes"]  # 3.8.1: prizes once the round robin is complete


def test_two_players_of_one_surname_are_two_players(sqlite_store: Store, tmp_path: Path) -> None:
    games = double_round_robin(WOMEN_2019, goryachkina_wins)
    for g in games:  # a database writes the sisters with initials only, and no FIDE IDs
        g.white_name = g.white.name.replace("Anna", "A.") if "Muzychuk" in g.white.name else None
    reports = import_pgn(sqlite_store, write(tmp_path, pgn(games, fide_ids=False)))
    assert {r.status for r in reports} == {"imported"}
    tournament = sqlite_store.reads.tournament()
    assert tournament is not None
    ids = sorted(p.id for p in tournament.players)
    assert ids == sorted(
        [
            "goryachkina",
            "kosteniuk",
            "lagno",
            "muzychuk-anna",
            "muzychuk-mariya",
            "gunina",
            "tan",
            "dzagnidze",
        ]
    )
    table = standings_object(sqlite_store.reads)
    rows = {r["player"]: r for r in table["rows"]}
    assert rows["muzychuk-anna"]["games"] == rows["muzychuk-mariya"]["games"] == 14


def spelled_two_ways(fide_ids: bool) -> str:
    games = double_round_robin(WOMEN_2019, goryachkina_wins)
    for g in games[28:]:  # the second half written by another broadcast
        if g.white.name.startswith("Goryachkina"):
            g.white_name = "Goryachkina, Alexandra"
        if g.black.name.startswith("Goryachkina"):
            g.black_name = "Goryachkina, Alexandra"
    return pgn(games, fide_ids=fide_ids)


def test_one_player_under_two_spellings_is_merged_by_her_fide_id(
    sqlite_store: Store, tmp_path: Path
) -> None:
    import_pgn(sqlite_store, write(tmp_path, spelled_two_ways(fide_ids=True)))
    tournament = sqlite_store.reads.tournament()
    assert tournament is not None and len(tournament.players) == 8
    goryachkina = tournament.player("goryachkina")
    assert goryachkina is not None and goryachkina.fide_id == "4147103"
    assert goryachkina.title == "GM"
    assert standings_object(sqlite_store.reads)["winner"]["player"] == "goryachkina"


def test_one_player_under_two_spellings_without_fide_id_is_refused_appending_nothing(
    sqlite_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, spelled_two_ways(fide_ids=False))
    reports = import_pgn(sqlite_store, path)
    assert [r.status for r in reports] == ["refused"]
    assert "'Goryachkina, Aleksandra' / 'Goryachkina, Alexandra'" in reports[0].message
    assert "--players FILE" in reports[0].message
    assert sqlite_store.cache.count() == 0
    # the players file says who is who
    mapping = tmp_path / "players.json"
    mapping.write_text(
        json.dumps(
            {"Goryachkina, Aleksandra": "goryachkina", "Goryachkina, Alexandra": "goryachkina"}
        )
    )
    store = str(tmp_path / "cli.sqlite")
    assert main(["--store", store, "import-pgn", "--create", str(path)]) == 1
    assert "may be one player written two ways" in capsys.readouterr().err
    assert (
        main(["--store", store, "import-pgn", "--create", str(path), "--players", str(mapping)])
        == 0
    )
    with Store(store) as s:
        assert standings_object(s.reads)["winner"]["player"] == "goryachkina"


def first_cycle(tmp_path: Path) -> Path:
    games = double_round_robin(WOMEN_2019, goryachkina_wins)
    return write(tmp_path, pgn(games[:28]))


CANDIDATES_PROFILES = sorted(n for n in PROFILES if PROFILES[n].cycles is not None)
"""Every profile whose format is the Candidates' (3.1: 8 players, a double round robin)."""


@pytest.mark.parametrize("rules", CANDIDATES_PROFILES)
def test_3_1_a_candidates_half_file_is_in_progress_after_round_7_of_14_with_no_winner_or_prize(
    rules: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The format is part of the rules: a Candidates is 14 rounds whatever the file holds.
    store = str(tmp_path / "s.sqlite")
    path = first_cycle(tmp_path)
    assert main(["--store", store, "import-pgn", "--create", str(path), "--rules", rules]) == 0
    err = capsys.readouterr().err
    assert "cycle inferred" not in err and "event final" not in err
    assert "event in progress after round 7 of 14: no winner and no prize" in err
    assert f"rules {rules} (double round robin of 8 players (14 rounds))" in err
    with Store(store) as s:
        table = standings_object(s.reads)
    assert (table["final"], table["after_round"], table["rounds"]) == (False, 7, 14)
    assert table["winner"] is None and table["prizes"] == [] and table["prize_fund"] is None
    assert table["leader"]["player"] == "goryachkina"  # the leader, not a winner
    assert main(["--store", store, "prizes"]) == 2
    assert "no prize is paid before the event is final" in capsys.readouterr().err
    assert main(["--store", store, "event-pgn"]) == 0
    assert "Winner" not in capsys.readouterr().out


def test_3_1_a_a_candidates_profile_refuses_cycles_that_contradict_its_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "s.sqlite")
    path = first_cycle(tmp_path)
    main(
        [
            "--store",
            store,
            "import-pgn",
            "--create",
            str(path),
            "--cycles",
            "1",
            "--rules",
            "candidates-2012",
        ]
    )
    err = capsys.readouterr().err
    assert "--cycles 1: candidates-2012 is a double round robin of 8 players (14 rounds)" in err
    assert "pass --rules round-robin" in err
    with Store(store) as s:
        assert s.reads.tournament() is None  # refused before anything was appended


def test_3_1_a_first_cycle_export_with_cycles_2_is_in_progress_after_round_7_of_14(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "s.sqlite")
    path = first_cycle(tmp_path)
    assert main(["--store", store, "import-pgn", "--create", str(path), "--cycles", "2"]) == 0
    err = capsys.readouterr().err
    assert "cycle inferred" not in err
    assert "event in progress after round 7 of 14" in err
    with Store(store) as s:
        table = standings_object(s.reads)
    assert (table["final"], table["after_round"], table["rounds"]) == (False, 7, 14)
    assert table["winner"] is None and table["prizes"] == []
    assert table["leader"]["player"] == "goryachkina"


def test_missing_round_tags_are_an_error_naming_the_games_unless_numbered_from_order(
    sqlite_store: Store, tmp_path: Path
) -> None:
    games = double_round_robin(WOMEN_2019, goryachkina_wins)[:8]
    for g in games[4:]:
        g.round_tag = ""
    path = write(tmp_path, pgn(games))
    reports = import_pgn(sqlite_store, path)
    assert [r.status for r in reports] == ["refused"]
    assert (
        "4 game(s) without a readable Round tag: #5 (Goryachkina, Aleksandra - "
        in reports[0].message
    )
    assert "--round-from-order" in reports[0].message
    assert sqlite_store.cache.count() == 0
    reports = import_pgn(sqlite_store, path, options=ImportOptions(round_from_order=True))
    assert [r.game for r in reports] == [f"{r}.{b}" for r in (1, 2) for b in (1, 2, 3, 4)]
    assert all(r.status == "imported" for r in reports)


DEAD_POSITION = """[Event "Tata Steel Masters"]
[Site "Wijk aan Zee NED"]
[Date "2023.01.20"]
[Round "6.3"]
[White "Giri, Anish"]
[Black "Abdusattorov, Nodirbek"]
[Result "0-1"]
[SetUp "1"]
[FEN "8/8/8/3k4/8/8/6B1/4K2r w - - 0 70"]

70. Bxh1+ Ke5 71. Ke2 0-1
"""


def test_laws_5_2_b_a_move_recorded_after_a_dead_position_is_kept_and_does_not_refuse(
    sqlite_store: Store, tmp_path: Path
) -> None:
    reports = import_pgn(sqlite_store, write(tmp_path, DEAD_POSITION))
    assert [r.status for r in reports] == ["imported"]
    game = sqlite_store.reads.game("6.3")
    assert game is not None and list(game.moves) == ["g2h1"]
    assert (game.result, game.termination) == ("1/2-1/2", "insufficient_material")
    ended = next(
        e for e in sqlite_store.cache.stream(game_stream("6.3")) if isinstance(e, ResultRecorded)
    )
    assert "recorded after the end: Ke5 Ke2 (2 trailing moves, not played)" in ended.reason
    warning = " ".join(reports[0].warnings)
    assert "the score sheet says 0-1" in warning and "trailing" in warning


def clocked_game(readings: list[str], time_control: str, moves: int = 30) -> str:
    """A broadcast game: the same four knight moves over and over, a ``[%clk]`` each."""
    cycle = ["Nf3", "Nf6", "Ng1", "Ng8"]
    text = []
    for ply in range(moves * 2):
        number = f"{ply // 2 + 1}. " if ply % 2 == 0 else ""
        text.append(f"{number}{cycle[ply % 4]} {{[%clk {readings[ply]}]}}")
    return f"""[Event "Norway Chess"]
[Site "Stavanger NOR"]
[Date "2024.05.28"]
[Round "2.1"]
[White "Carlsen, Magnus"]
[Black "Caruana, Fabiano"]
[Result "1/2-1/2"]
[TimeControl "{time_control}"]
[UTCTime "15:00:00"]

{" ".join(text)} 1/2-1/2
"""


def hms(seconds: int) -> str:
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def test_a_glitch_reading_is_reported_kept_as_read_and_not_used_for_the_move_instants(
    sqlite_store: Store, tmp_path: Path
) -> None:
    # each player uses 60 s a move from 2 h; white's reading after move 12 reads 0:00:00
    readings = [hms(7200 - 60 * (ply // 2 + 1)) for ply in range(60)]
    readings[22] = "0:00:00"
    text = clocked_game(readings, "40/7200:20/3600:900+30")
    reports = import_pgn(sqlite_store, write(tmp_path, text))
    assert reports[0].status == "imported"
    assert any("[%clk 0:00:00] after ply 23" in w for w in reports[0].warnings)
    assert reports[0].clock["mismatches"] == 0
    kept = {e.ply: e for e in sqlite_store.reads.readings("2.1")}
    assert kept[23].glitch and kept[23].white_ms == 0 and kept[23].model_white_ms is None
    assert not kept[25].glitch and kept[25].model_white_ms is not None
    # not used for the move instants: White's next reading accounts for both his moves
    moves = [
        e for e in sqlite_store.cache.stream("game/2.1") if e.__class__.__name__ == "MovePlayed"
    ]
    assert moves[22].at_ms == moves[21].at_ms and moves[24].at_ms - moves[20].at_ms == 240_000
    game = sqlite_store.reads.game("2.1")
    assert game is not None and game.status == "finished" and game.result == "1/2-1/2"


def test_3_5_1_a_device_crediting_the_increment_on_the_control_move_never_flags_a_player(
    sqlite_store: Store, tmp_path: Path
) -> None:
    """40/7200:1800+30 (2024: 30 s a move from move 41). The device adds the 30 s on move
    40 already; White reaches move 40 with seconds to spare."""
    readings: list[str] = []
    white, black = 7200, 7200
    for ply in range(84):
        number = ply // 2 + 1
        if ply % 2 == 0:
            used = 178 if number < 40 else 20  # 39 x 178 s = 6942 s: 258 s left for move 40
            if number == 40:
                used = 250
            white = white - used + (1800 + 30 if number == 40 else 0) + (30 if number > 40 else 0)
            readings.append(hms(white))
        else:
            black = black - 60 + (1800 + 30 if number == 40 else 0) + (30 if number > 40 else 0)
            readings.append(hms(black))
    text = clocked_game(readings, "40/7200:1800+30", moves=42)
    reports = import_pgn(sqlite_store, write(tmp_path, text))
    assert reports[0].status == "imported", reports[0].message
    game = sqlite_store.reads.game("2.1")
    assert game is not None and (game.result, game.termination) == ("1/2-1/2", "imported")
    readings_events = sqlite_store.reads.readings("2.1")
    assert all(
        isinstance(r, ClockReadingRecorded) and r.model_white_ms > 0 and r.model_black_ms > 0
        for r in readings_events
    )
    assert reports[0].clock["mismatches"] == 0


def test_free_text_time_controls_are_read_and_an_unreadable_one_is_named(
    sqlite_store: Store, tmp_path: Path
) -> None:
    readings = [hms(7200 - 60 * (ply // 2 + 1)) for ply in range(60)]
    text = clocked_game(readings, "120'/40 + 30'/end + 30\"/move from move 1")
    reports = import_pgn(sqlite_store, write(tmp_path, text))
    game = sqlite_store.reads.game("2.1")
    assert game is not None and game.time_control == "40/7200+30:1800+30"
    assert reports[0].warnings == []
    other = text.replace("120'/40 + 30'/end + 30\"/move from move 1", "classical, see regulations")
    with Store(str(tmp_path / "other.sqlite")) as fresh:
        reports = import_pgn(fresh, write(tmp_path, other, "other.pgn"))
    assert reports[0].status == "imported"
    assert "TimeControl 'classical, see regulations' cannot be read" in reports[0].warnings[0]
    assert "[%clk] readings are kept as read, not judged" in reports[0].warnings[0]
    assert reports[0].clock is not None and reports[0].clock["not_judged"] == 60


def test_fide_id_and_title_are_kept_and_written_back_in_the_event_pgn(
    sqlite_store: Store, tmp_path: Path
) -> None:
    import_pgn(sqlite_store, write(tmp_path, pgn(double_round_robin(WOMEN_2019, goryachkina_wins))))
    game = sqlite_store.reads.game("1.1")
    assert game is not None
    text = game_pgn(game, sqlite_store.reads.tournament())
    assert '[WhiteFideId "4147103"]' in text and '[WhiteTitle "GM"]' in text


def test_latin_1_files_are_read_with_a_warning(sqlite_store: Store, tmp_path: Path) -> None:
    entrants = [replace(e, name=e.name.replace("Tan, Zhongyi", "Tán, Zhöngyi")) for e in WOMEN_2019]
    text = pgn(double_round_robin(entrants, goryachkina_wins))
    created: list = []
    import_pgn(sqlite_store, write(tmp_path, text, encoding="latin-1"), created=created)
    assert any("read as Latin-1" in w for w in created[0].warnings)
    tournament = sqlite_store.reads.tournament()
    assert tournament is not None
    assert tournament.player("tan") is not None
    assert tournament.player("tan").name == "Tán, Zhöngyi"


def test_a_known_store_maps_a_second_files_spellings_onto_its_players(
    sqlite_store: Store, tmp_path: Path
) -> None:
    games = double_round_robin(WOMEN_2019, goryachkina_wins)
    import_pgn(
        sqlite_store, write(tmp_path, pgn(games[:28]), "first.pgn"), options=ImportOptions(cycles=2)
    )
    for g in games[28:]:
        g.white_name = " ".join(reversed(g.white.name.split(", ")))
        g.black_name = " ".join(reversed(g.black.name.split(", ")))
    reports = import_pgn(
        sqlite_store, write(tmp_path, pgn(games[28:], fide_ids=False), "second.pgn")
    )
    assert {r.status for r in reports} == {"imported"}
    tournament = sqlite_store.reads.tournament()
    assert tournament is not None and len(tournament.players) == 8
    assert standings_object(sqlite_store.reads)["final"] is True


def test_3_2_rounds_and_start_date_options_say_what_would_be_inferred(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "s.sqlite")
    path = str(first_cycle(tmp_path))
    assert main(["--store", store, "import-pgn", "--create", path, "--start-date", "31 March"]) == 2
    err = capsys.readouterr().err
    assert "--start-date '31 March' is not an ISO date" in err
    with Store(store) as s:
        assert s.cache.count() == 0
    args = [
        "--store",
        store,
        "import-pgn",
        "--create",
        path,
        "--rounds",
        "14",
        "--start-date",
        "2019-03-09",
    ]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "inferred" not in err
    with Store(store) as s:
        tournament = s.reads.tournament()
        assert tournament is not None
        assert (tournament.cycles, tournament.start_date) == (2, "2019-03-09")
