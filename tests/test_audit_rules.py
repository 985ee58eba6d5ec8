"""The audit's rule checks as pure engine functions (engine/audit): each game judged
under its own rules profile, penalties and overrides read from the events' fields."""

from __future__ import annotations

from engine.audit.event_fields import field_problems
from engine.audit.findings import INTEGRITY, RULE
from engine.audit.games import judge_games
from engine.events import (
    ClaimRuled,
    ClockAdjusted,
    Event,
    GameStarted,
    IllegalMoveRecorded,
    ResultRecorded,
)
from tests.game_log import GameLog

SHUFFLE = "Nf3 Nf6 Ng1 Ng8 " * 4
"""Sixteen plies: the starting position stands for the fifth time after the last."""


def kinds(events: list[Event]) -> list[tuple[str, str, int]]:
    return [
        (f.kind, f.severity, f.event.originator_version if f.event else 0)
        for f in judge_games(events).findings
    ]


class TestEachGameUnderItsOwnRules:
    def test_laws_2009_9_6_a_fivefold_repetition_does_not_end_a_candidates_2012_game(
        self,
    ) -> None:
        """Under candidates-2012 (Laws 2009) the game goes on after a fivefold repetition;
        an audit judging every game as fide-2023 called those moves fine and a
        ``fivefold_repetition`` result real."""
        log = GameLog("candidates-2012").play(SHUFFLE + "e4 e5")
        assert kinds(log.events) == []
        forged = GameLog("candidates-2012").play(SHUFFLE)
        forged.add(ResultRecorded, result="1/2-1/2", termination="fivefold_repetition")
        assert [k for k, _, _ in kinds(forged.events)] == ["impossible_result"]

    def test_laws_2023_9_6_1_fivefold_repetition_ends_a_fide_2023_game(self) -> None:
        ended = GameLog("fide-2023").play(SHUFFLE)
        ended.add(ResultRecorded, result="1/2-1/2", termination="fivefold_repetition")
        assert kinds(ended.events) == []
        went_on = GameLog("fide-2023").play(SHUFFLE + "e4")
        assert kinds(went_on.events) == [("after_result", INTEGRITY, 18)]


class TestPenaltiesAndOverrides:
    def _illegal(self, rules: str, delta_ms: int) -> list[tuple[str, str, int]]:
        log = GameLog(rules).play("e4 e5")
        log.add(
            IllegalMoveRecorded,
            game="1.1",
            side="white",
            player="aronian",
            arbiter="chief",
            count=1,
            ply=2,
        )
        log.events.append(
            ClockAdjusted(
                originator_id="game/1.1",
                originator_version=len(log.events) + 1,
                at_ms=log.events[-1].at_ms,
                by="chief",
                side="black",
                delta_ms=delta_ms,
                reason="first illegal move by white",
                arbiter="chief",
            )
        )
        return kinds(log.events)

    def test_laws_2009_7_4_b_the_penalty_the_rules_fix_is_not_an_override(self) -> None:
        assert self._illegal("candidates-2012", 120_000) == []

    def test_laws_2009_7_4_b_another_amount_is_the_arbiters_own_adjustment(self) -> None:
        assert self._illegal("candidates-2012", 300_000) == [("arbiter_override", RULE, 5)]

    def test_3_9_2_b_a_ruling_against_the_verification_is_read_from_its_override_field(
        self,
    ) -> None:
        log = GameLog("candidates-2012").play("e4 e5")
        ruling = dict(game="1.1", claim="1", arbiter="chief", verified=True, reason="seen")
        log.add(ClaimRuled, decision="rejected", override=True, **ruling)
        assert kinds(log.events) == [("arbiter_override", RULE, 4)]


class TestWellFormedEvents:
    def test_an_ill_typed_field_is_named(self) -> None:
        log = GameLog("candidates-2012")
        started = log.events[0]
        assert field_problems(started) == []
        forged = object.__new__(GameStarted)
        object.__setattr__(forged, "__dict__", {**vars(started), "time_control": 7})
        assert field_problems(forged) == ["field 'time_control' is 7, not str"]
        vars(forged).pop("white")
        assert "field 'white' is missing" in field_problems(forged)
