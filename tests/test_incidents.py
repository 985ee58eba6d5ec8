"""The incident book: playing conditions (3.9.1, 3.9.2 a, 3.9.2 c), the players' conduct
(Laws 2009 12.3 b, 12.6) and the arbiter's penalties (Laws 2009 13.4 a-g).

Round 1 of the 2013 field as the helpers number it: 1.1 aronian - carlsen,
1.2 gelfand - grischuk, 1.3 ivanchuk - radjabov, 1.4 kramnik - svidler.
Every refusal is checked to append nothing (``tests.helpers.refused``).
"""

from __future__ import annotations

from typing import Any

import pytest

from adapters.audit import audit_store
from adapters.store import Store
from adapters.store.queries import game_object, incidents_object, standings_object
from tests.helpers import at, ok, paired_tournament, play, refused

K_Q_V_K = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"
"""White has king and queen, Black a lone king: Black cannot win by any series of legal moves."""


@pytest.fixture
def event(sqlite_store: Store) -> Store:
    paired_tournament(sqlite_store)
    for game in ("1.1", "1.3"):
        ok(sqlite_store, {"cmd": "start_game", "game": game, "at": at(0)})
    ok(sqlite_store, {"cmd": "start_game", "game": "1.2", "at": at(0), "fen": K_Q_V_K})
    return sqlite_store


def incident(**fields: Any) -> dict[str, Any]:
    base = {
        "cmd": "record_incident",
        "game": "1.1",
        "player": "aronian",
        "kind": "disturbance",
        "arbiter": "chief",
        "at": at(60),
        "details": "kept talking to his opponent",
    }
    base.update(fields)
    return {k: v for k, v in base.items() if v is not None}


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


class TestLaws2009_12_3bDeviceSounded:
    """12.3 b: a mobile phone that makes a sound in the venue loses the game."""

    def test_12_3_b_the_player_whose_phone_rang_loses_and_the_opponent_wins(
        self, event: Store
    ) -> None:
        play(event, "1.1", "e4 e5")
        events = ok(
            event,
            incident(
                kind="device_sounded", details="phone rang in his pocket", penalty="game_lost"
            ),
        )
        assert types(events) == ["IncidentRecorded", "ResultRecorded"]
        assert events[0]["article"] == "Laws 2009 12.3 b" and events[0]["result"] == "0-1"
        assert events[1]["termination"] == "penalty"
        game = game_object(event.reads, "1.1")
        assert (game["status"], game["result"]) == ("finished", "0-1")

    def test_12_3_b_the_offender_loses_and_the_opponent_who_could_not_win_scores_a_draw(
        self, event: Store
    ) -> None:
        # White (gelfand) has K+Q, Black a lone king: White's phone rings, Black cannot win.
        # The Laws: White loses; Black's score is a draw: 0 - 1/2, not 1/2 - 1/2.
        events = ok(
            event,
            incident(game="1.2", player="gelfand", kind="device_sounded", penalty="game_lost"),
        )
        assert (events[1]["result"], events[1]["scores"]) == ("0-1", "0-1/2")
        assert "black cannot win by any series of legal moves" in events[1]["reason"]

    def test_12_3_b_the_opponent_who_can_win_wins(self, event: Store) -> None:
        events = ok(
            event,
            incident(game="1.2", player="grischuk", kind="device_sounded", penalty="game_lost"),
        )
        assert events[1]["result"] == "1-0"

    def test_12_3_b_a_sounding_device_without_the_penalty_of_the_laws_is_refused(
        self, event: Store
    ) -> None:
        message = refused(event, incident(kind="device_sounded"), "rule_violation")
        assert message == (
            "a device_sounded incident loses the game: give the penalty game_lost (the draw "
            "test is applied) (article 12.3 b)"
        )
        refused(event, incident(kind="device_sounded", penalty="warning"), "rule_violation")

    def test_12_3_b_needs_the_game_in_progress(self, event: Store) -> None:
        message = refused(
            event,
            incident(game=None, kind="device_sounded", penalty="game_lost"),
            "malformed_command",
        )
        assert "needs the game in progress" in message


class TestArt3_9_2aExtraneousEquipment:
    """3.9.2 a: no telephone or other extraneous equipment; the Chief Arbiter decides."""

    def test_3_9_2_a_the_chief_arbiter_rules_and_deducts_time(self, event: Store) -> None:
        events = ok(
            event,
            incident(
                kind="extraneous_equipment",
                details="an unapproved earpiece at the board",
                penalty={"kind": "time_deducted", "ms": 600_000},
            ),
        )
        assert types(events) == ["IncidentRecorded", "ClockAdjusted"]
        assert events[1]["side"] == "white" and events[1]["delta_ms"] == -600_000
        assert events[0]["article"] == "3.9.2 a"

    def test_3_9_2_a_a_deputy_cannot_decide_what_is_extraneous(self, event: Store) -> None:
        message = refused(
            event, incident(kind="extraneous_equipment", arbiter="deputy"), "not_an_arbiter"
        )
        assert message == (
            "'deputy' is not the Chief Arbiter of 'london-2013' and cannot rule on a "
            "extraneous_equipment incident (article 3.9.2 a)"
        )


class TestArt3_9_1UnauthorisedPerson:
    """3.9.1: only players, principals and stewards in the playing area."""

    def test_3_9_1_a_person_who_is_not_a_player_is_recorded_without_a_player(
        self, event: Store
    ) -> None:
        events = ok(
            event,
            incident(
                game=None,
                player=None,
                kind="unauthorised_person",
                details="a photographer walked between the boards",
            ),
        )
        assert events[0]["player"] is None and events[0]["article"] == "3.9.1"

    def test_3_9_1_the_player_who_brought_him_may_be_warned(self, event: Store) -> None:
        events = ok(event, incident(kind="unauthorised_person", penalty="warning"))
        assert types(events) == ["IncidentRecorded"] and events[0]["penalty"] == "warning"

    def test_3_9_1_a_penalty_that_does_not_fit_the_kind_is_refused(self, event: Store) -> None:
        message = refused(
            event, incident(kind="unauthorised_person", penalty="game_lost"), "rule_violation"
        )
        assert message == (
            "the penalty game_lost (Laws 2009 13.4 d) does not fit a unauthorised_person "
            "incident; it may carry: warning (article 3.9.1)"
        )


class TestArt3_9_2cLeavingThePlayingArea:
    """3.9.2 c: leave only with the Chief Arbiter's permission, accompanied by an arbiter."""

    def permit(self, **fields: Any) -> dict[str, Any]:
        return {
            "cmd": "permit_leave",
            "player": "ivanchuk",
            "arbiter": "chief",
            "accompanied_by": "deputy",
            "at": at(100),
            **fields,
        }

    def test_3_9_2_c_the_book_shows_who_is_out_with_whom_until_he_returns(
        self, event: Store
    ) -> None:
        events = ok(event, self.permit())
        assert events[0]["type"] == "LeavePermitted" and events[0]["game"] == "1.3"
        out = incidents_object(event.reads)["out"]
        assert out == [
            {
                "player": "ivanchuk",
                "since": at(100),
                "accompanied_by": "deputy",
                "arbiter": "chief",
                "game": "1.3",
                "name": "Ivanchuk, Vassily",
                "accompanied_by_name": "Deputy Arbiter",
            }
        ]
        back = ok(event, {"cmd": "returned", "player": "ivanchuk", "at": at(400)})
        assert back[0]["type"] == "PlayerReturned" and back[0]["by"] == "deputy"
        assert incidents_object(event.reads)["out"] == []

    def test_3_9_2_c_only_the_chief_arbiter_gives_the_permission(self, event: Store) -> None:
        refused(event, self.permit(arbiter="deputy"), "not_an_arbiter")

    def test_3_9_2_c_the_escort_is_one_of_the_arbiters(self, event: Store) -> None:
        message = refused(event, self.permit(accompanied_by="advisor"), "rule_violation")
        assert "only accompanied by one of the arbiters" in message

    def test_3_9_2_c_a_player_out_with_permission_has_not_breached_it(self, event: Store) -> None:
        ok(event, self.permit())
        message = refused(
            event,
            incident(game="1.3", player="ivanchuk", kind="left_playing_area", penalty="warning"),
            "rule_violation",
        )
        assert "with the Chief Arbiter's permission" in message

    def test_3_9_2_c_leaving_without_permission_is_an_incident(self, event: Store) -> None:
        events = ok(
            event,
            incident(game="1.3", player="radjabov", kind="left_playing_area", penalty="warning"),
        )
        assert events[0]["article"] == "3.9.2 c"

    def test_3_9_2_c_refusals(self, event: Store) -> None:
        refused(event, {"cmd": "returned", "player": "ivanchuk", "at": at(5)}, "rule_violation")
        ok(event, self.permit())
        refused(event, self.permit(at=at(150)), "rule_violation")  # already out
        refused(event, {"cmd": "returned", "player": "ivanchuk", "at": at(50)}, "malformed_command")
        # kramnik's game (1.4) has not started: no playing session to leave
        message = refused(event, self.permit(player="kramnik"), "rule_violation")
        assert "has no game in progress" in message


class TestLaws2009_12_6Disturbance:
    """12.6: no distracting or disturbing the opponent; 12.7: penalised under 13.4."""

    def test_12_6_a_warning_then_time_deducted(self, event: Store) -> None:
        ok(event, incident(at=at(30), penalty="warning"))
        events = ok(
            event,
            incident(at=at(60), penalty={"kind": "time_deducted", "side": "white", "ms": 300_000}),
        )
        assert events[1]["delta_ms"] == -300_000
        # White's clock ran from the start (14:00:00) to the ruling at 14:01:00, then lost 5 min.
        assert game_object(event.reads, "1.1")["clock"]["white_ms"] == 7_200_000 - 60_000 - 300_000
        book = event.reads.incident_book()
        assert book is not None and book.warnings_of("aronian") == 1


class TestLaws2009_13_4Penalties:
    """13.4 a-g, each applied with its consequences."""

    def test_13_4_a_a_warning_is_recorded_and_changes_nothing_else(self, event: Store) -> None:
        before = game_object(event.reads, "1.1")
        assert types(ok(event, incident(penalty="warning"))) == ["IncidentRecorded"]
        assert game_object(event.reads, "1.1")["clock"] == before["clock"]

    def test_13_4_b_time_is_added_to_the_opponent(self, event: Store) -> None:
        events = ok(event, incident(penalty={"kind": "time_added", "ms": 120_000}))
        assert (events[1]["side"], events[1]["delta_ms"]) == ("black", 120_000)

    def test_13_4_b_time_added_to_the_offender_is_refused(self, event: Store) -> None:
        message = refused(
            event,
            incident(penalty={"kind": "time_added", "side": "white", "ms": 120_000}),
            "rule_violation",
        )
        assert message == (
            "time_added applies to the opponent's clock (black), not white's (article 13.4 b)"
        )

    def test_13_4_c_time_deducted_needs_a_positive_duration(self, event: Store) -> None:
        refused(event, incident(penalty={"kind": "time_deducted", "ms": 0}), "malformed_command")

    def test_13_4_d_game_declared_lost_outside_12_3_b_has_no_draw_test(self, event: Store) -> None:
        events = ok(event, incident(game="1.2", player="gelfand", penalty="game_lost"))
        assert events[1]["result"] == "0-1"

    def test_13_4_e_points_reduced_lower_the_standings(self, event: Store) -> None:
        ok(event, incident(penalty={"kind": "points_reduced", "points": "1/2"}))
        ok(event, {"cmd": "resign", "game": "1.1", "by": "black", "at": at(70)})
        table = standings_object(event.reads)
        row = next(r for r in table["rows"] if r["player"] == "aronian")
        assert row["points"] == 0.5 and row["wins"] == 1
        assert table["notes"] == [
            {
                "player": "aronian",
                "article": "Laws 2009 13.4 e",
                "note": "0.5 point(s) taken by the arbiter in round 1 (incident 1)",
            }
        ]

    def test_13_4_f_the_opponents_points_are_raised_to_the_maximum(self, event: Store) -> None:
        # No draw test: Black, with a lone king, still gets the full point.
        events = ok(event, incident(game="1.2", player="gelfand", penalty="opponent_points_raised"))
        assert events[1]["result"] == "0-1"

    def test_13_4_g_expulsion_follows_the_withdrawal_rules_of_3_1(self, event: Store) -> None:
        events = ok(
            event, incident(kind="other", penalty="expelled", details="assaulted an arbiter")
        )
        assert "PlayerWithdrew" in types(events)
        withdrew = next(e for e in events if e["type"] == "PlayerWithdrew")
        assert withdrew["rule"] == "annulled" and withdrew["reason"].startswith("expelled")
        assert game_object(event.reads, "1.1")["result"] == "0-1"
        table = standings_object(event.reads)
        assert "aronian" not in {r["player"] for r in table["rows"]}
        assert table["notes"][0]["article"] == "Laws 2009 13.4 g"

    def test_13_4_a_penalty_needing_a_game_without_one_is_refused(self, event: Store) -> None:
        message = refused(event, incident(game=None, penalty="game_lost"), "malformed_command")
        assert message == "penalty game_lost (Laws 2009 13.4 d) needs the player's game"

    def test_13_4_an_unknown_penalty_is_refused(self, event: Store) -> None:
        refused(event, incident(penalty="fine"), "malformed_command")

    def test_13_4_only_the_chief_arbiter_or_a_deputy_records_an_incident(
        self, event: Store
    ) -> None:
        message = refused(event, incident(arbiter="advisor"), "not_an_arbiter")
        assert message == (
            "'advisor' is not the Chief Arbiter or a Deputy of 'london-2013' and cannot record "
            "an incident (article Laws 2009 13.1)"
        )
        refused(event, incident(arbiter="aronian"), "not_an_arbiter")

    def test_12_5_an_incident_on_a_finished_game_is_refused(self, event: Store) -> None:
        ok(event, {"cmd": "resign", "game": "1.1", "by": "white", "at": at(10)})
        message = refused(event, incident(penalty="warning"), "game_not_in_progress")
        assert message.startswith("game 1.1 has ended (0-1, resignation)")

    def test_an_incident_with_a_player_of_another_game_is_refused(self, event: Store) -> None:
        refused(event, incident(player="kramnik"), "malformed_command")

    def test_an_incident_dated_before_the_games_last_event_is_refused(self, event: Store) -> None:
        play(event, "1.1", "e4 e5", start_s=100)
        refused(event, incident(at=at(50), penalty="warning"), "out_of_order")

    def test_incidents_are_numbered_in_the_book(self, event: Store) -> None:
        first = ok(event, incident(penalty="warning"))[0]
        second = ok(event, incident(game="1.3", player="radjabov"))[0]
        assert (first["incident"], second["incident"]) == ("1", "2")


class TestLaws2009_12_8PersistentRefusal:
    """12.8: persistent refusal to comply with the Laws is penalised by loss of the game."""

    def test_12_8_the_player_who_persistently_refuses_loses_the_game(self, event: Store) -> None:
        play(event, "1.1", "e4 e5")
        events = ok(
            event,
            incident(
                kind="persistent_refusal",
                details="refused three times to record his moves after the arbiter's warnings",
                penalty="game_lost",
            ),
        )
        assert types(events) == ["IncidentRecorded", "ResultRecorded"]
        assert events[0]["article"] == "Laws 2009 12.8" and events[0]["result"] == "0-1"
        assert events[1]["termination"] == "penalty"

    def test_12_8_without_the_loss_of_the_game_is_refused(self, event: Store) -> None:
        message = refused(event, incident(kind="persistent_refusal"), "rule_violation")
        assert message == (
            "a persistent_refusal incident loses the game: give the penalty game_lost "
            "(article 12.8)"
        )
        warned = incident(kind="persistent_refusal", penalty="warning")
        assert "does not fit a persistent_refusal incident" in refused(
            event, warned, "rule_violation"
        )
        assert "needs the game in progress" in refused(
            event,
            incident(kind="persistent_refusal", game=None, penalty="game_lost"),
            "malformed_command",
        )

    def refusal(self, **fields: Any) -> dict[str, Any]:
        return incident(
            kind="persistent_refusal",
            details="refused three times to record his moves after the arbiter's warnings",
            penalty="game_lost",
            **fields,
        )

    def test_12_8_the_arbiter_decides_the_opponents_score_a_half(self, event: Store) -> None:
        # "The arbiter shall decide the score of the opponent": aronian (White) loses,
        # carlsen scores 1/2; the nearest PGN result is Black's win.
        events = ok(event, self.refusal(opponent_score="1/2"))
        assert types(events) == ["IncidentRecorded", "ResultRecorded"]
        assert (events[1]["result"], events[1]["scores"]) == ("0-1", "0-1/2")
        assert (events[0]["result"], events[0]["scores"]) == ("0-1", "0-1/2")
        assert "the arbiter decided the opponent's score: 1/2" in events[1]["reason"]
        assert "Laws 2009 12.8" in events[1]["reason"]
        points = {r["player"]: r["points"] for r in standings_object(event.reads)["rows"]}
        assert (points["aronian"], points["carlsen"]) == (0, 0.5)

    def test_12_8_the_arbiter_may_give_the_opponent_nothing(self, event: Store) -> None:
        # Black (carlsen) refuses; the arbiter gives White no point either: 0 - 0.
        events = ok(event, self.refusal(player="carlsen", opponent_score="0"))
        assert (events[1]["result"], events[1]["scores"]) == ("0-0", None)
        assert events[0]["result"] == "0-0"
        points = {r["player"]: r["points"] for r in standings_object(event.reads)["rows"]}
        assert (points["aronian"], points["carlsen"]) == (0, 0)
        assert game_object(event.reads, "1.1")["status"] == "finished"
        report = audit_store(event)  # the result is the incident's: nothing unexplained
        assert not [f for f in report.findings if f.kind == "unexplained_penalty"]

    def test_12_8_the_opponent_wins_by_default_or_when_given_1(self, event: Store) -> None:
        [_, ended] = ok(event, self.refusal(opponent_score="1"))
        assert (ended["result"], ended["scores"]) == ("0-1", None)
        [_, ended] = ok(event, self.refusal(game="1.3", player="radjabov"))
        assert (ended["result"], ended["scores"]) == ("1-0", None)

    def test_12_8_the_opponents_score_is_one_of_the_laws_and_only_under_12_8(
        self, event: Store
    ) -> None:
        message = refused(event, self.refusal(opponent_score="1/3"), "malformed_command")
        assert "must be one of '1', '1/2', '0'" in message
        refused(event, self.refusal(opponent_score=0.5), "malformed_command")
        message = refused(
            event,
            incident(kind="disturbance", penalty="game_lost", opponent_score="1/2"),
            "malformed_command",
        )
        assert "'opponent_score' is for a persistent_refusal incident" in message
        assert game_object(event.reads, "1.1")["status"] == "in_progress"
