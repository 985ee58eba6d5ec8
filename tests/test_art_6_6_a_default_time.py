"""The default time (FIDE Laws of Chess 2009, 6.6 a) and no postponement (3.3.7).

6.6 a: "Any player who arrives at the chessboard after the start of the session
shall lose the game. Thus the default time is 0 minutes. The rules of a
competition may specify otherwise." 3.3.7: "No postponement of any game shall
be allowed." Round 1: 1.1 aronian - carlsen.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from adapters.store import Store
from adapters.store.queries import game_object, standings_object
from engine.rules import PROFILES
from tests.helpers import at, ok, paired_tournament, refused


@pytest.fixture
def event(sqlite_store: Store) -> Store:
    paired_tournament(sqlite_store)
    return sqlite_store


def start(store: Store, present: list[str] | None, game: str = "1.1") -> list[dict]:
    cmd = {"cmd": "start_game", "game": game, "at": at(0)}
    if present is not None:
        cmd["present"] = present
    return ok(store, cmd)


def default(player: str, seconds: float = 1, **fields: object) -> dict:
    return {
        "cmd": "rule_default",
        "game": "1.1",
        "player": player,
        "arbiter": "chief",
        "at": at(seconds),
        **fields,
    }


class TestLaws2009_6_6aDefaultTime:
    def test_6_6_a_a_start_without_both_players_raises_an_alert(self, event: Store) -> None:
        events = start(event, ["aronian"])
        assert [e["type"] for e in events] == ["GameStarted", "PresenceRecorded", "AlertRaised"]
        assert (list(events[1]["present"]), list(events[1]["absent"])) == (["aronian"], ["carlsen"])
        alert = events[2]
        assert alert["kind"] == "absent_at_start"
        assert alert["details"] == {"absent": ["carlsen"], "default_time_ms": 0}

    def test_6_6_a_both_present_raises_no_alert(self, event: Store) -> None:
        events = start(event, ["white", "black"])
        assert [e["type"] for e in events] == ["GameStarted", "PresenceRecorded"]

    def test_6_6_a_the_absent_player_loses_under_the_zero_default(self, event: Store) -> None:
        start(event, ["aronian"])
        events = ok(event, default("carlsen"))
        assert [e["type"] for e in events] == ["DefaultRuled", "ResultRecorded"]
        assert events[0]["result"] == "1-0" and events[0]["default_time_ms"] == 0
        assert events[1]["termination"] == "default"
        # the reason names the player, never the id ("carlsen was not at the board")
        assert events[1]["reason"] == (
            "Laws 2009 6.6 a: Carlsen was not at the board at the start (default time 0 min)"
        )
        assert game_object(event.reads, "1.1")["result"] == "1-0"
        row = next(r for r in standings_object(event.reads)["rows"] if r["player"] == "aronian")
        assert (row["points"], row["wins"]) == (1, 1)

    def test_6_6_a_both_absent_lose_both(self, event: Store) -> None:
        start(event, [])
        events = ok(event, default("aronian"))
        assert events[1]["result"] == "0-0"

    def test_6_6_a_a_player_present_at_the_start_cannot_be_defaulted(self, event: Store) -> None:
        start(event, ["aronian"])
        message = refused(event, default("aronian"), "rule_violation")
        assert message == "aronian was at the board when game 1.1 started (article 6.6 a)"

    def test_6_6_a_a_start_that_did_not_record_who_was_present_is_refused(
        self, event: Store
    ) -> None:
        start(event, None)
        refused(event, default("carlsen"), "rule_violation")

    def test_6_6_a_a_player_who_moved_has_arrived(self, event: Store) -> None:
        start(event, ["carlsen"])
        ok(event, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(30)})
        message = refused(event, default("aronian", 40), "rule_violation")
        assert "has arrived" in message

    def test_6_6_a_only_an_arbiter_of_the_event_rules_a_default(self, event: Store) -> None:
        start(event, ["aronian"])
        refused(event, default("carlsen", arbiter="advisor"), "not_an_arbiter")

    def test_6_6_a_present_names_the_games_players_only(self, event: Store) -> None:
        refused(
            event,
            {"cmd": "start_game", "game": "1.1", "at": at(0), "present": ["kramnik"]},
            "malformed_command",
        )

    def test_6_6_a_an_event_with_another_default_time_waits_for_it(
        self, sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # "The rules of a competition may specify otherwise": a profile field.
        lenient = replace(PROFILES["candidates-2012"], name="open-30", default_time_ms=1_800_000)
        monkeypatch.setitem(PROFILES, "open-30", lenient)
        paired_tournament(sqlite_store, rules="open-30")
        start(sqlite_store, ["aronian"])
        message = refused(sqlite_store, default("carlsen", 600), "rule_violation")
        assert message == (
            "the default time of 30 min has not passed: carlsen may arrive until "
            f"{at(1800)} (article 6.6 a)"
        )
        assert ok(sqlite_store, default("carlsen", 1800))[1]["result"] == "1-0"


class TestArt3_3_7NoPostponement:
    def test_3_3_7_a_game_lost_by_default_is_not_started_again(self, event: Store) -> None:
        start(event, ["aronian"])
        ok(event, default("carlsen"))
        message = refused(
            event, {"cmd": "start_game", "game": "1.1", "at": at(3600)}, "rule_violation"
        )
        assert message == (
            "game 1.1 was lost by default: no postponement of any game is allowed, it is not "
            "played later (article 3.3.7)"
        )

    def test_3_3_7_a_finished_game_cannot_be_defaulted_afterwards(self, event: Store) -> None:
        start(event, ["aronian"])
        ok(event, {"cmd": "resign", "game": "1.1", "by": "black", "at": at(5)})
        refused(event, default("carlsen", 10), "game_not_in_progress")
