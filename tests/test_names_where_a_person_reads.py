"""Names where a person reads: PGN comments, the Chief Arbiter's report and the incident
book say "Chief Arbiter Geurt Gijssen rejected Svidler's claim 1", never "Arbiter chief
rejected claim 1". The tournament is the shipped example (its arbiters and the 2013
field with their FIDE ids and titles, docs/examples/create-tournament.jsonl).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import chess.pgn
import pytest

from adapters.cli import main
from adapters.formats.event_export import game_pgn_text
from adapters.store import Store
from tests.helpers import at, ok

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "create-tournament.jsonl"


@pytest.fixture
def example(sqlite_store: Store) -> tuple[Store, str]:
    """The example event; Svidler's first game started, his claim rejected by the Chief
    Arbiter, his opponent's clock given the 3 minutes (Laws 2009 9.5), an incident."""
    ok(sqlite_store, json.loads(EXAMPLE.read_text(encoding="utf-8").splitlines()[0]))
    ok(sqlite_store, {"cmd": "draw_lots", "tournament": "london-2013", "seed": "athens-2012"})
    tournament = sqlite_store.reads.tournament()
    assert tournament is not None
    game = next(
        g for g, pair in sorted(tournament.round_robin_pairings().items()) if "svidler" in pair
    )
    ok(sqlite_store, {"cmd": "start_game", "game": game, "at": at(0)})
    claim = {"cmd": "claim_draw", "game": game, "by": "svidler", "kind": "fifty_moves"}
    ok(sqlite_store, {**claim, "at": at(5)})
    rule = {"cmd": "rule_claim", "game": game, "claim": "1", "decision": "rejected"}
    ok(sqlite_store, {**rule, "arbiter": "chief", "at": at(20)})
    incident = {
        "cmd": "record_incident",
        "game": game,
        "player": "svidler",
        "kind": "disturbance",
        "arbiter": "chief",
        "details": "talked to his opponent during play",
        "penalty": "warning",
    }
    ok(sqlite_store, {**incident, "at": at(30)})
    return sqlite_store, game


def test_the_example_tournament_carries_fide_ids_and_titles() -> None:
    created = json.loads(EXAMPLE.read_text(encoding="utf-8").splitlines()[0])
    players = {p["id"]: p for p in created["players"]}
    assert len(players) == 8 and all(p["title"] == "GM" for p in players.values())
    assert players["carlsen"]["fide_id"] == "1503014"
    assert players["aronian"]["fide_id"] == "13300474"
    assert players["svidler"]["fide_id"] == "4102142"
    assert all(p["fide_id"].isdigit() for p in players.values())


def test_pgn_comments_are_sentences_with_names(example: tuple[Store, str]) -> None:
    store, game = example
    exported = chess.pgn.read_game(io.StringIO(game_pgn_text(store.reads, game)))
    assert exported is not None
    text = exported.comment
    side = "White" if exported.headers["White"].startswith("Svidler") else "Black"
    assert f"Svidler ({side}) claims a draw by the fifty-move rule (claim 1" in text
    assert "Chief Arbiter Geurt Gijssen rejected Svidler's claim 1." in text
    assert "Chief Arbiter Geurt Gijssen added 3 min to" in text
    assert "chief" not in text and "svidler" not in text
    assert exported.headers["WhiteFideId"].isdigit() and exported.headers["WhiteTitle"] == "GM"


def test_the_report_and_the_incident_book_name_players_and_arbiters(
    example: tuple[Store, str], capsys: pytest.CaptureFixture[str]
) -> None:
    store, game = example
    assert main(["--store", store.url, "report"]) == 0
    report = capsys.readouterr().out
    assert "Chief Arbiter Geurt Gijssen rejected claim 1" in report
    assert "Svidler (" in report and "claimed a draw (fifty moves, claim 1)" in report
    assert (
        f"incident 1: disturbance (Svidler in game {game}), recorded by Chief Arbiter Geurt "
        "Gijssen: talked to his opponent during play" in report
    )
    assert main(["--store", store.url, "incidents"]) == 0
    book = capsys.readouterr().out
    assert "disturbance (Svidler in game" in book and "(svidler" not in book
