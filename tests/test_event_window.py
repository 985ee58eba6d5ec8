"""A game's instants lie in its tournament's own window: not before the event began (3.2),
inside the fixed window of every instant (1990 to 2100) for anything else. A refusal
appends nothing; historical score sheets (1953) still import, their event dated by them."""

from __future__ import annotations

from pathlib import Path

from adapters.store import Store
from engine.fields import EARLIEST_MS
from engine.timefmt import format_instant
from engine.tournament.event_window import RULE
from tests.cli import candidates
from tests.helpers import PLAYERS_2013, at, ok, paired_tournament, refused

ZURICH_1953 = """[Event "Zurich Candidates 1953"]
[Site "Zurich"]
[Date "1953.08.30"]
[Round "1"]
[White "Smyslov, Vassily"]
[Black "Keres, Paul"]
[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nc6 1/2-1/2

[Event "Zurich Candidates 1953"]
[Site "Zurich"]
[Date "1953.08.30"]
[Round "1"]
[White "Bronstein, David"]
[Black "Reshevsky, Samuel"]
[Result "1-0"]

1. d4 d5 1-0
"""


def test_a_game_dated_before_its_tournament_began_is_refused(tmp_path: Path) -> None:
    with Store(str(tmp_path / "s.sqlite")) as store:
        paired_tournament(store)  # start_date 2013-03-13 (day 1: arrivals)
        message = refused(
            store,
            {"cmd": "start_game", "game": "1.1", "at": "2012-03-15T14:00:00Z"},
            "malformed_command",
        )
        assert message == (
            "start_game: at 2012-03-15T14:00:00.000Z is before the tournament 'london-2013' "
            f"began (start_date 2013-03-13): {RULE}"
        )
        # the zone margin: from 00:00 UTC of the day before day 1, not a millisecond earlier
        refused(
            store,
            {"cmd": "start_game", "game": "1.1", "at": "2013-03-11T23:59:59.999Z"},
            "malformed_command",
        )
        ok(store, {"cmd": "start_game", "game": "1.1", "at": "2013-03-12T00:00:00Z"})
        # every command about the game, not only its start
        refused(
            store,
            {"cmd": "play_move", "game": "1.1", "move": "e4", "at": "2001-03-15T14:00:00Z"},
            "malformed_command",
        )
        refused(
            store,
            {"cmd": "resign", "game": "1.1", "by": "white", "at": "1999-01-01T00:00:00Z"},
            "malformed_command",
        )
        ok(store, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(60)})


def test_without_a_start_date_the_fixed_window_is_the_bound(tmp_path: Path) -> None:
    with Store(str(tmp_path / "s.sqlite")) as store:
        ok(
            store,
            {
                "cmd": "create_tournament",
                "tournament": "t",
                "name": "T",
                "players": PLAYERS_2013,
            },
        )
        ok(store, {"cmd": "draw_lots", "tournament": "t", "seed": "t"})
        for year_one in ("0001-01-01T00:00:00Z", "1970-01-01T00:00:00Z"):
            refused(
                store, {"cmd": "start_game", "game": "1.1", "at": year_one}, "malformed_command"
            )
        ok(store, {"cmd": "start_game", "game": "1.1", "at": format_instant(EARLIEST_MS)})


def test_a_historical_event_imports_dated_by_its_own_score_sheets(tmp_path: Path) -> None:
    pgn = tmp_path / "zurich.pgn"
    pgn.write_text(ZURICH_1953, encoding="utf-8")
    store = str(tmp_path / "z.sqlite")
    done = candidates("import-pgn", "--create", str(pgn), store=store)
    assert done.returncode == 0, done.stderr
    assert "start 1953-08-28" in done.stderr
    shown = candidates("game", "1.2", "--format", "json", store=store)
    assert shown.returncode == 0, shown.stderr
    assert '"1-0"' in shown.stdout


def test_an_import_whose_start_date_follows_its_games_appends_no_game(tmp_path: Path) -> None:
    pgn = tmp_path / "zurich.pgn"
    pgn.write_text(ZURICH_1953, encoding="utf-8")
    store = str(tmp_path / "z.sqlite")
    done = candidates("import-pgn", "--create", str(pgn), "--start-date", "1953-09-20", store=store)
    assert done.returncode == 1
    assert "is before the tournament" in done.stdout
    with Store(store) as opened:
        assert opened.reads.game("1.1") is None and opened.reads.game("1.2") is None
