"""What got in wrong is corrected by events that keep what they replace:
``correct_moves`` (Laws 2009 7.4 a, 6.13) and ``correct_result`` (3.9.2 b: the Chief
Arbiter or a Deputy rules). Every refusal appends nothing."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.audit import INTEGRITY, RULE, audit_store
from adapters.formats.event_export import game_pgn_text
from adapters.store import Store
from adapters.store.queries import game_object, standings_object
from tests.helpers import at, ok, paired_tournament, refused

S = 1000
MIN = 60 * S


def started(store: Store, moves: str = "e4 e5 Nf3 Nc6 Bb5 a6") -> None:
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    for index, move in enumerate(moves.split(), start=1):
        ok(store, {"cmd": "play_move", "game": "1.1", "move": move, "at": at(10 * index)})


def correction(**fields: Any) -> dict[str, Any]:
    return {
        "cmd": "correct_moves",
        "game": "1.1",
        "arbiter": "chief",
        "reason": "the board misread Bc4 as Bb5",
        "at": at(100),
        "from_ply": 4,
        "moves": ["Bc4", "Nf6"],
        **fields,
    }


class TestLaws7_4_aCorrectMoves:
    def test_7_4_a_the_moves_after_from_ply_are_replaced_and_kept(self, store: Store) -> None:
        started(store)
        [event] = ok(store, correction())
        assert event["type"] == "MovesCorrected"
        assert (list(event["replaced_san"]), list(event["san"])) == (["Bb5", "a6"], ["Bc4", "Nf6"])
        view = game_object(store.reads, "1.1")
        assert view["moves"] == ["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6"]
        assert view["ply"] == 6 and view["status"] == "in_progress"
        [shown] = view["corrections"]
        assert shown["kind"] == "moves" and shown["replaced_moves"] == ["Bb5", "a6"]
        assert shown["arbiter"] == "chief" and "misread" in shown["reason"]
        # the game goes on from the corrected position
        ok(store, {"cmd": "play_move", "game": "1.1", "move": "O-O", "at": at(110)})

    def test_7_4_a_moves_may_be_taken_back_and_the_side_to_move_follows(self, store: Store) -> None:
        started(store)
        ok(store, correction(from_ply=5, moves=[]))
        view = game_object(store.reads, "1.1")
        assert view["moves"][-1] == "Bb5" and view["clock"]["running"] == "black"
        ok(store, {"cmd": "play_move", "game": "1.1", "move": "Nf6", "at": at(110)})

    def test_6_13_the_arbiter_sets_the_clock_in_the_same_act(self, store: Store) -> None:
        started(store)
        [event] = ok(store, correction(white_ms=100 * MIN, black_ms=99 * MIN))
        assert event["replaced_white_ms"] == 120 * MIN - 30 * S - 40 * S
        clock = game_object(store.reads, "1.1")["clock"]
        assert (clock["white_ms"], clock["black_ms"]) == (100 * MIN, 99 * MIN)

    def test_6_13_the_move_counter_follows_the_corrected_line_at_the_control(
        self, store: Store
    ) -> None:
        # 40 moves each: both completed move 40 and were credited the 60 minutes (3.5.1).
        cycle = ["Nf3", "Nf6", "Ng1", "Ng8"] * 20
        started(store, " ".join(cycle))
        before = game_object(store.reads, "1.1")["clock"]
        assert before["period"] == {"white": 2, "black": 2}
        # Black's move 40 was a misread: taken back, Black has not reached the control.
        ok(store, correction(from_ply=79, moves=[], at=at(900)))
        after = game_object(store.reads, "1.1")["clock"]
        assert after["period"] == {"white": 2, "black": 1}
        assert after["moves_to_control"]["black"] == 1
        assert after["black_ms"] == before["black_ms"] - 60 * MIN
        assert after["running"] == "black"

    @pytest.mark.parametrize(
        ("fields", "code", "words"),
        [
            ({"arbiter": "advisor"}, "not_an_arbiter", "Laws 2009 13.1"),
            ({"reason": "  "}, "malformed_command", "needs a reason"),
            ({"from_ply": 7}, "malformed_command", "between 0 and 6"),
            ({"from_ply": -1}, "malformed_command", "between 0 and 6"),
            ({"moves": ["Bc4", "Ke6"]}, "illegal_move", "illegal move 'Ke6'"),
            ({"moves": ["--"]}, "illegal_move", "null move"),
            ({"moves": ["Bb5", "a6"]}, "malformed_command", "nothing to correct"),
            ({"at": at(55)}, "malformed_command", "earlier than the last recorded event"),
            ({"white_ms": -1}, "malformed_command", "cannot be negative"),
        ],
    )
    def test_7_4_a_refusals_append_nothing(
        self, store: Store, fields: dict[str, Any], code: str, words: str
    ) -> None:
        started(store)
        assert words in refused(store, correction(**fields), code)

    def test_7_4_a_a_finished_game_has_its_result_withdrawn_first(self, store: Store) -> None:
        started(store)
        ok(store, {"cmd": "resign", "game": "1.1", "by": "black", "at": at(70)})
        assert "withdraw the result first" in refused(store, correction(), "game_not_in_progress")

    def test_7_4_a_a_corrected_line_that_mates_ends_the_game(self, store: Store) -> None:
        started(store, "e4 e5 Bc4 Nc6 Qh5 Nf6 Qg4")
        events = ok(store, correction(from_ply=6, moves=["Qxf7#"], at=at(200)))
        assert [e["type"] for e in events] == ["MovesCorrected", "ResultRecorded"]
        assert game_object(store.reads, "1.1")["termination"] == "checkmate"


class TestCorrectResult:
    def declare(self, store: Store, result: str = "1-0") -> None:
        cmd = {
            "cmd": "declare_result",
            "game": "1.1",
            "result": result,
            "reason": "black resigned",
            "arbiter": "chief",
            "at": at(100),
        }
        ok(store, cmd)

    def correct(self, store: Store, result: str | None, **fields: Any) -> list[dict[str, Any]]:
        cmd = {
            "cmd": "correct_result",
            "game": "1.1",
            "arbiter": "deputy",
            "reason": "white resigned; the result was entered the wrong way round",
            "at": at(200),
            "result": result,
            **fields,
        }
        return ok(store, cmd)

    def test_3_9_2_b_a_result_entered_by_mistake_is_replaced_and_standings_follow(
        self, store: Store
    ) -> None:
        started(store)
        self.declare(store)
        points = {r["player"]: r["points"] for r in standings_object(store.reads)["rows"]}
        assert (points["aronian"], points["carlsen"]) == (1, 0)
        [event] = self.correct(store, "0-1")
        assert (event["replaced_result"], event["result"]) == ("1-0", "0-1")
        assert event["termination"] == "arbiter_decision"
        view = game_object(store.reads, "1.1")
        assert (view["result"], view["status"]) == ("0-1", "finished")
        assert view["corrections"][0]["replaced_result"] == "1-0"
        points = {r["player"]: r["points"] for r in standings_object(store.reads)["rows"]}
        assert (points["aronian"], points["carlsen"]) == (0, 1)

    def test_3_9_2_b_a_result_withdrawn_reopens_the_game_with_its_clock(self, store: Store) -> None:
        started(store)
        before = game_object(store.reads, "1.1", None)["clock"]
        self.declare(store)  # at 100 s: White's clock had run 40 s since his move at 60 s
        self.correct(store, None, reason="nobody resigned: a wrong button on the desk")
        view = game_object(store.reads, "1.1")
        assert (view["status"], view["result"], view["termination"]) == ("in_progress", "*", None)
        clock = view["clock"]
        assert clock["running"] == "white"
        assert clock["white_ms"] == before["white_ms"] - 40 * S  # no time ran in between
        ok(store, {"cmd": "play_move", "game": "1.1", "move": "O-O", "at": at(210)})
        points = {r["player"]: r["points"] for r in standings_object(store.reads)["rows"]}
        assert points["aronian"] == 0 and points["carlsen"] == 0

    @pytest.mark.parametrize(
        ("result", "fields", "code", "words"),
        [
            ("1-0", {}, "malformed_command", "nothing to correct"),
            ("1/2-1/2", {"reason": "they agreed a draw"}, "rule_violation", "3.9.2 b"),
            ("0-1", {"termination": "checkmate"}, "rule_violation", "does not show"),
            ("0-1", {"arbiter": "advisor"}, "not_an_arbiter", "Laws 2009 13.1"),
            ("0-1", {"at": at(50)}, "malformed_command", "earlier than the last recorded event"),
            (None, {"termination": "resignation"}, "malformed_command", "no termination"),
        ],
    )
    def test_3_9_2_b_refusals_append_nothing(
        self, store: Store, result: str | None, fields: dict[str, Any], code: str, words: str
    ) -> None:
        started(store)
        self.declare(store)
        cmd = {
            "cmd": "correct_result",
            "game": "1.1",
            "arbiter": "chief",
            "reason": "entered wrongly",
            "at": at(200),
            "result": result,
            **fields,
        }
        assert words in refused(store, cmd, code)

    def test_a_game_in_progress_has_no_result_to_correct(self, store: Store) -> None:
        started(store)
        cmd = {
            "cmd": "correct_result",
            "game": "1.1",
            "arbiter": "chief",
            "reason": "x",
            "at": at(200),
            "result": "1-0",
        }
        assert "declare_result" in refused(store, cmd, "game_not_in_progress")

    def test_result_is_required_and_may_be_null(self, store: Store) -> None:
        started(store)
        self.declare(store)
        cmd = {"cmd": "correct_result", "game": "1.1", "arbiter": "chief", "reason": "x"}
        assert "missing field 'result'" in refused(
            store, {**cmd, "at": at(200)}, "malformed_command"
        )


def test_corrections_show_in_pgn_and_audit_as_arbiter_corrections(store: Store) -> None:
    started(store)
    ok(store, correction())
    ok(
        store,
        {
            "cmd": "declare_result",
            "game": "1.1",
            "result": "1-0",
            "reason": "black resigned",
            "arbiter": "chief",
            "at": at(150),
        },
    )
    ok(
        store,
        {
            "cmd": "correct_result",
            "game": "1.1",
            "arbiter": "chief",
            "reason": "it was White who resigned",
            "at": at(160),
            "result": "0-1",
        },
    )
    pgn = game_pgn_text(store.reads, "1.1")
    assert "2... Nc6" in pgn
    assert "Chief Arbiter (2013-03-15T14:01:40.000Z) corrected the moves after ply 4" in pgn
    assert "they were Bb5 a6, now Bc4 Nf6" in pgn
    assert "Chief Arbiter (2013-03-15T14:02:40.000Z) corrected the result" in pgn
    assert "1-0 (arbiter decision), now 0-1" in pgn
    assert '[Result "0-1"]' in pgn
    report = audit_store(store)
    assert report.of(INTEGRITY) == []
    kinds = [f.kind for f in report.of(RULE)]
    assert kinds.count("arbiter_correction") == 2
