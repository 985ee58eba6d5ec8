"""Events that are not a Candidates, and what a file does not say.

- A round robin whose Event tag names no Candidates is judged by the ``round-robin``
  profile (FIDE's round-robin tie-breaks: direct encounter, wins, Sonneborn-Berger,
  Koya; a playoff for first place is the organiser's), and the import says which
  profile it applied and how to choose another (``--rules``).
- Unknown is unknown: a file whose dates are ``????.??.??`` gets no invented start
  date, no schedule and no 1970 anywhere.
- The tags a file carries (``Site``, ``ECO``, ``Opening`` ...) are kept and written back.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import chess.pgn
import pytest

from adapters.cli import main
from adapters.store import Store
from adapters.store.queries import standings_object, tournament_object, trf_report
from tests.pgn_files import Entrant, Game, circle_rounds, pgn

FIELD = [
    Entrant("Halvorsen, Tor", "1500001", 2781, fed="NOR"),
    Entrant("Okafor, Chidi", "8500002", 2768, fed="NGR"),
    Entrant("Marchetti, Luca", "800003", 2755, fed="ITA"),
    Entrant("Ibarra, Sofia", "3500004", 2740, title="GM", fed="ESP"),
    Entrant("Novak, Petr", "300005", 2731, fed="CZE"),
    Entrant("Lindqvist, Erik", "1700006", 2722, fed="SWE"),
    Entrant("Tanaka, Kenji", "7700007", 2716, fed="JPN"),
    Entrant("Duarte, Ana", "2100008", 2705, title="IM", fed="POR"),
    Entrant("Brennan, Liam", "2500009", 2698, fed="IRL"),
    Entrant("Kowalczyk, Marta", "1100010", 2690, title="IM", fed="POL"),
]
"""Ten invented players of an invitational (no real person's results are made up)."""

EVENT = "Riverside Invitational 2023"


def level_at_the_top(white: int, black: int) -> str:
    """Halvorsen (0) beats Okafor (1) and loses to Marchetti (2); Okafor wins every other
    game; Halvorsen wins the rest; every other game is drawn. Both end on 8 of 9."""
    pair = {white, black}
    if pair == {0, 1}:
        return "1-0" if white == 0 else "0-1"
    if pair == {0, 2}:
        return "0-1" if white == 0 else "1-0"
    for leader in (0, 1):
        if leader in pair:
            return "1-0" if white == leader else "0-1"
    return "1/2-1/2"


def clear_winner(white: int, black: int) -> str:
    """Okafor (1) wins every game; every other game is drawn."""
    if 1 in (white, black):
        return "1-0" if white == 1 else "0-1"
    return "1/2-1/2"


def single_round_robin(result, date=lambda r: f"2023.08.{r:02d}", extra=None) -> list[Game]:
    games = []
    for number, pairs in enumerate(circle_rounds(len(FIELD)), start=1):
        for board, (w, b) in enumerate(pairs, start=1):
            games.append(
                Game(
                    number,
                    board,
                    FIELD[w],
                    FIELD[b],
                    result(w, b),
                    date(number),
                    extra=dict(extra or {}),
                )
            )
    return games


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "riverside-2023.pgn"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_10_player_single_round_robin_is_judged_by_the_round_robin_profile_which_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "s.sqlite")
    path = write(tmp_path, pgn(single_round_robin(level_at_the_top), event=EVENT))
    assert main(["--store", store, "import-pgn", "--create", str(path)]) == 0
    err = capsys.readouterr().err
    # which profile, why, and how to choose another
    assert f"rules round-robin (default: the Event tag '{EVENT}' names no Candidates" in err
    assert "pass --rules PROFILE to choose another: candidates-2012" in err
    assert "cycle inferred from the rounds present (last round 9" in err
    # final, with first place level on points left to the organiser: no Candidates rule
    # (3.7 a) names a winner the event's own playoff decided
    assert (
        "event final after round 9 of 9: first place level on points: Halvorsen, Tor, "
        "Okafor, Chidi (in that order by the tie-breaks); a playoff, if the event's "
        "regulations hold one, is the organiser's" in err
    )
    assert (
        "tie-breaks: direct encounter (the games between the tied players), wins, "
        "Sonneborn-Berger, Koya" in err
    )
    assert "3.7 a" not in err and "winner" not in err
    with Store(store) as s:
        table = standings_object(s.reads)
    assert table["tiebreaks"]["rules"] == "round-robin"
    assert table["tiebreaks"]["criteria"] == ["h2h", "wins", "sb", "koya"]
    assert table["tiebreaks"]["first_place"] == "organiser"
    assert "C.02" in table["tiebreaks"]["source"]
    assert table["final"] and table["winner"] is None
    assert table["first_place_level"] == ["halvorsen", "okafor"]
    top = table["rows"][:2]
    assert [(r["player"], r["points"], r["h2h"]) for r in top] == [
        ("halvorsen", 8, 1),
        ("okafor", 8, 0),
    ]
    assert all("koya" in r for r in table["rows"])
    assert table["prizes"] == [] and table["prize_fund"] is None  # 3.8.1 is not theirs
    assert main(["--store", store, "prizes"]) == 2
    assert "round-robin has no prize table" in capsys.readouterr().err


def test_a_clear_winner_of_a_round_robin_is_named_on_points_without_candidates_articles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "s.sqlite")
    path = write(tmp_path, pgn(single_round_robin(clear_winner), event=EVENT))
    assert main(["--store", store, "import-pgn", "--create", str(path)]) == 0
    assert "event final after round 9 of 9: winner Okafor, Chidi (decided by points)" in (
        capsys.readouterr().err
    )
    assert main(["--store", store, "standings"]) == 0
    out = capsys.readouterr().out
    assert "Winner: Okafor, Chidi (ahead on points)" in out and "3.6.1" not in out


def test_rules_chooses_another_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s.sqlite")
    path = write(tmp_path, pgn(single_round_robin(clear_winner), event=EVENT))
    assert (
        main(["--store", store, "import-pgn", "--create", str(path), "--rules", "candidates-2012"])
        == 0
    )
    err = capsys.readouterr().err
    assert "rules candidates-2012 (given with --rules" in err
    assert "the file has 10 players" in err  # the Candidates' format is 8


def test_unknown_dates_invent_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s.sqlite")
    games = single_round_robin(clear_winner, date=lambda r: "????.??.??")
    games[0].date = "1953.??.??"  # a year alone is not a day either
    path = write(tmp_path, pgn(games, event="Club Championship"))
    assert main(["--store", store, "import-pgn", "--create", str(path)]) == 0
    seen = capsys.readouterr()
    assert "the start date is unknown and no schedule (3.2) is given" in seen.err
    assert "start unknown" in seen.err
    outputs = [seen.out, seen.err]
    for command in (
        ["pairings", "--format", "json"],
        ["pairings", "--format", "text"],
        ["game", "1.1", "--format", "json"],
        ["game", "1.1"],
        ["pgn", "1.1"],
    ):
        assert main(["--store", store, *command]) == 0
        outputs.append(capsys.readouterr().out)
    assert main(["--store", store, "event-pgn"]) == 0
    exported = capsys.readouterr().out
    outputs.append(exported)
    with Store(store) as s:
        tournament = s.reads.tournament()
        assert tournament is not None and tournament.start_date == ""
        outputs.append(trf_report(s.reads))
        outputs.append(json.dumps(standings_object(s.reads)))
        outputs.append(json.dumps(tournament_object(s.reads)))
    assert main(["--store", store, "schedule"]) == 2
    assert "the event's start date is unknown" in capsys.readouterr().err
    for text in outputs:
        assert "1970" not in text and "1953-" not in text
    first = chess.pgn.read_game(io.StringIO(exported))
    assert first is not None and first.headers["Date"] in ("????.??.??", "1953.??.??")
    assert "EventDate" not in first.headers


def test_site_eco_and_every_other_tag_of_the_file_round_trip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "s.sqlite")
    tags = {"ECO": "E32", "Opening": "Nimzo-Indian", "Annotator": "Riverside broadcast"}
    games = single_round_robin(clear_winner, extra=tags)
    text = pgn(games, event=EVENT).replace('[Site "Kazan RUS"]', '[Site "Toronto, Canada"]')
    path = write(tmp_path, text)
    assert main(["--store", store, "import-pgn", "--create", str(path)]) == 0
    capsys.readouterr()
    assert main(["--store", store, "event-pgn"]) == 0
    handle = io.StringIO(capsys.readouterr().out)
    exported = [g for g in iter(lambda: chess.pgn.read_game(handle), None)]
    assert len(exported) == len(games)
    for game in exported:
        assert game.headers["Site"] == "Toronto, Canada"
        assert game.headers["Event"] == EVENT
        for name, value in tags.items():
            assert game.headers[name] == value
        assert game.headers["Date"].startswith("2023.08.")
