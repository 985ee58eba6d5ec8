"""Scores as the Laws give them: each player his own score where a ruling says so.

- Laws 2009 12.3 b: a player whose phone sounds loses; if the opponent cannot win by any
  series of legal moves, "his score shall be a draw": 0 - 1/2, not 1/2 - 1/2.
- Laws 2009 6.6 a: both players absent at the start lose: 0 - 0 (a double default).

Standings (3.6.1, 3.7), the crosstable, the rating report (TRF16: each player's own
result code) and the PGN (the nearest legal ``Result`` and a comment with each score)
follow the players' own scores. Round 1 of the 2013 field: 1.1 aronian - carlsen,
1.2 gelfand - grischuk, 1.3 ivanchuk - radjabov, 1.4 kramnik - svidler.
"""

from __future__ import annotations

import io

import chess.pgn
import pytest

from adapters.formats.event_export import game_pgn_text
from adapters.store import Store
from adapters.store.queries import crosstable_object, game_object, standings_object, trf_report
from projections.trf import parse_trf
from tests.helpers import at, ok, paired_tournament, refused

K_Q_V_K = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"
"""White has king and queen, Black a lone king: Black cannot win by any series of legal moves."""


@pytest.fixture
def ruled(sqlite_store: Store) -> Store:
    paired_tournament(sqlite_store)
    # 1.1: neither player at the board (6.6 a): both lose
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0), "present": []})
    default = {"cmd": "rule_default", "game": "1.1", "player": "aronian", "arbiter": "chief"}
    ok(sqlite_store, {**default, "at": at(1)})
    # 1.2: Gelfand's phone sounds; Grischuk (a lone king) cannot win (12.3 b)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.2", "at": at(0), "fen": K_Q_V_K})
    ok(
        sqlite_store,
        {
            "cmd": "record_incident",
            "game": "1.2",
            "player": "gelfand",
            "kind": "device_sounded",
            "arbiter": "chief",
            "at": at(60),
            "details": "his phone rang in the playing hall",
            "penalty": "game_lost",
        },
    )
    return sqlite_store


def rows(store: Store) -> dict[str, dict]:
    return {r["player"]: r for r in standings_object(store.reads)["rows"]}


def test_laws_12_3_b_and_6_6_a_individual_scores_in_the_standings(ruled: Store) -> None:
    table = rows(ruled)
    assert (table["gelfand"]["points"], table["gelfand"]["games"]) == (0, 1)
    assert (table["grischuk"]["points"], table["grischuk"]["wins"]) == (0.5, 0)  # a draw
    assert (table["aronian"]["points"], table["carlsen"]["points"]) == (0, 0)
    assert (table["aronian"]["games"], table["carlsen"]["games"]) == (1, 1)
    game = game_object(ruled.reads, "1.2")
    assert (game["status"], game["result"], game["scores"]) == ("finished", "0-1", "0-1/2")


def test_laws_12_3_b_and_6_6_a_each_players_own_score_in_the_crosstable(ruled: Store) -> None:
    cells = {p["player"]: p["results"] for p in crosstable_object(ruled.reads)["players"]}
    assert cells["gelfand"]["grischuk"][0]["score"] == "0"
    assert cells["grischuk"]["gelfand"][0]["score"] == "1/2"
    assert cells["aronian"]["carlsen"][0]["score"] == "0"
    assert cells["carlsen"]["aronian"][0]["score"] == "0"


def test_laws_12_3_b_and_6_6_a_each_players_own_result_code_in_the_trf(ruled: Store) -> None:
    report = parse_trf(trf_report(ruled.reads))
    by_name = {p.name: p for p in report.players}
    first = {name: p.rounds[0] for name, p in by_name.items()}
    gelfand = next(n for n in by_name if n.startswith("Gelfand"))
    grischuk = next(n for n in by_name if n.startswith("Grischuk"))
    aronian = next(n for n in by_name if n.startswith("Aronian"))
    carlsen = next(n for n in by_name if n.startswith("Carlsen"))
    assert (first[gelfand].result, first[grischuk].result) == ("0", "=")
    assert (first[aronian].result, first[carlsen].result) == ("-", "-")  # both forfeited
    assert (by_name[gelfand].points, by_name[grischuk].points) == (0.0, 0.5)


def test_laws_12_3_b_and_6_6_a_pgn_gives_the_nearest_legal_result_and_each_score(
    ruled: Store,
) -> None:
    phone = chess.pgn.read_game(io.StringIO(game_pgn_text(ruled.reads, "1.2")))
    assert phone is not None
    assert phone.headers["Result"] == "0-1"  # Gelfand lost
    assert phone.headers["Termination"] == "rules infraction"
    assert "Gelfand (White) scores 0 and Grischuk (Black) 1/2" in phone.comment
    assert "12.3 b" in phone.comment
    double = chess.pgn.read_game(io.StringIO(game_pgn_text(ruled.reads, "1.1")))
    assert double is not None
    assert double.headers["Result"] == "*"  # PGN has no double loss
    assert double.headers["Termination"] == "rules infraction"
    assert "Aronian (White) scores 0 and Carlsen (Black) 0" in double.comment


def test_laws_13_4_e_an_arbiter_declares_each_players_own_score(ruled: Store) -> None:
    ok(ruled, {"cmd": "start_game", "game": "1.3", "at": at(0)})
    events = ok(
        ruled,
        {
            "cmd": "declare_result",
            "game": "1.3",
            "result": "0-1",
            "scores": "0-1/2",
            "reason": "drawn, then Ivanchuk's point taken (Laws 2009 13.4 e)",
            "arbiter": "chief",
            "at": at(90),
        },
    )
    assert (events[0]["result"], events[0]["scores"]) == ("0-1", "0-1/2")
    table = rows(ruled)
    assert (table["ivanchuk"]["points"], table["radjabov"]["points"]) == (0, 0.5)


def test_declared_scores_must_go_with_their_result(ruled: Store) -> None:
    ok(ruled, {"cmd": "start_game", "game": "1.3", "at": at(0)})
    command = {
        "cmd": "declare_result",
        "game": "1.3",
        "result": "1-0",
        "scores": "0-1/2",
        "reason": "13.4 e",
        "arbiter": "chief",
        "at": at(90),
    }
    message = refused(ruled, command, "malformed_command")
    assert "scores 0-1/2 go with the result 0-1" in message
