"""Illegal moves recorded by the arbiter: Laws 2009 7.4, Laws 2023 7.5.5 and A.3.

The penalties come from the rules profile of the tournament and the stage
of the game, never from the code: the same commands give the 2009 answer
under ``candidates-2012`` and the 2023 answer under ``fide-2023``.
"""

from __future__ import annotations

from typing import Any

import pytest

from adapters.store import Store
from adapters.store.queries import game_object
from engine.rules import PROFILES
from tests.helpers import at, ok, paired_tournament, play, refused
from tests.world import World


def illegal(
    store: Store, by: str, game: str = "1.1", arbiter: str = "chief", **extra: Any
) -> list[dict[str, Any]]:
    cmd = {
        "cmd": "record_illegal_move",
        "game": game,
        "by": by,
        "arbiter": arbiter,
        "at": at(300),
    }
    return ok(store, {**cmd, **extra})


def started(store: Store, rules: str = "candidates-2012", **extra: Any) -> None:
    paired_tournament(store, rules)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0), **extra})


class TestLaws2009_7_4IllegalMoves:
    """Laws 2009 7.4 b: +2 minutes for each of the first two; the third loses."""

    def test_7_4_b_first_two_illegal_moves_give_the_opponent_two_minutes(
        self, world: World
    ) -> None:
        started(world)
        play(world, "1.1", "e4 e5")
        for count in (1, 2):
            events = illegal(world, "white", move="Ke3")
            assert [e["type"] for e in events] == ["IllegalMoveRecorded", "ClockAdjusted"]
            assert events[0]["count"] == count and events[0]["player"] == "aronian"
            assert (events[1]["side"], events[1]["delta_ms"]) == ("black", 120_000)
            assert events[1]["reason"].endswith("illegal move by white (Laws 2009 7.4 b)")
        shown = game_object(world, "1.1")
        assert shown["illegal_moves"] == {"white": 2, "black": 0}
        assert shown["status"] == "in_progress" and shown["ply"] == 2

    def test_7_4_b_third_illegal_move_loses(self, world: World) -> None:
        started(world)
        play(world, "1.1", "e4 e5")
        illegal(world, "black")
        illegal(world, "carlsen")
        events = illegal(world, "black", arbiter="deputy")
        assert [e["type"] for e in events] == ["IllegalMoveRecorded", "ResultRecorded"]
        assert events[1]["result"] == "1-0"
        assert events[1]["termination"] == "illegal_moves"
        assert events[1]["reason"] == "3rd illegal move by black (Laws 2009 7.4 b)"

    def test_7_4_b_third_illegal_move_draws_when_the_opponent_cannot_mate(
        self, world: World
    ) -> None:
        # Black has a bare king: white's third illegal move cannot lose.
        started(world, fen="8/8/4k3/8/8/3RK3/8/8 w - - 0 70")
        illegal(world, "white")
        illegal(world, "white")
        events = illegal(world, "white")
        assert events[1]["result"] == "1/2-1/2"
        assert "black cannot checkmate by any series of legal moves" in events[1]["reason"]

    def test_7_4_counts_are_per_player(self, world: World) -> None:
        started(world)
        for side in ("white", "black", "white", "black"):
            illegal(world, side)
        assert game_object(world, "1.1")["illegal_moves"] == {"white": 2, "black": 2}

    @pytest.mark.parametrize("who", ["advisor", "aronian"])
    def test_7_4_only_the_chief_arbiter_or_deputy_records(self, world: World, who: str) -> None:
        started(world)
        message = refused(
            world,
            {
                "cmd": "record_illegal_move",
                "game": "1.1",
                "by": "white",
                "arbiter": who,
                "at": at(1),
            },
            "not_an_arbiter",
        )
        assert "cannot record an illegal move" in message

    def test_7_4_by_names_a_side_or_a_player_of_the_game(self, world: World) -> None:
        started(world)
        message = refused(
            world,
            {
                "cmd": "record_illegal_move",
                "game": "1.1",
                "by": "kramnik",
                "arbiter": "chief",
                "at": at(1),
            },
            "malformed_command",
        )
        assert "(aronian - carlsen)" in message

    def test_7_4_a_the_position_before_the_illegal_move_stands(self, world: World) -> None:
        started(world)
        play(world, "1.1", "e4 e5")
        before = game_object(world, "1.1")["fen"]
        illegal(world, "white", move="Ke3")
        assert game_object(world, "1.1")["fen"] == before
        play(world, "1.1", "Nf3", start_s=400)


class TestLaws2023_7_5_5IllegalMoves:
    """Laws 2023 7.5.5: the first gives the opponent 2 minutes, the second loses."""

    def test_7_5_5_second_illegal_move_loses(self, world: World) -> None:
        started(world, rules="fide-2023")
        first = illegal(world, "white")
        assert first[1]["delta_ms"] == 120_000
        assert first[1]["reason"] == "1st illegal move by white (Laws 2023 7.5.5)"
        second = illegal(world, "white")
        assert second[1]["type"] == "ResultRecorded" and second[1]["result"] == "0-1"

    def test_a_3_rapid_tie_break_illegal_move_costs_one_minute(self, world: World) -> None:
        paired_tournament(world, "fide-2023")
        ok(
            world,
            {
                "cmd": "start_game",
                "game": "tb-1",
                "white": "carlsen",
                "black": "kramnik",
                "stage": "rapid",
                "at": at(0),
            },
        )
        events = illegal(world, "white", game="tb-1")
        assert events[1]["delta_ms"] == 60_000

    def test_appendix_a3_2009_rapid_tie_break_keeps_two_minutes(self, world: World) -> None:
        paired_tournament(world)
        ok(
            world,
            {
                "cmd": "start_game",
                "game": "tb-1",
                "white": "carlsen",
                "black": "kramnik",
                "stage": "rapid",
                "at": at(0),
            },
        )
        events = illegal(world, "white", game="tb-1")
        assert events[1]["delta_ms"] == 120_000
        assert events[1]["reason"].endswith("(Laws 2009 7.4 b (Appendix A3))")


class TestRulesProfilesPenalties:
    """A later edition is a new profile of values, not a code change."""

    def test_profiles_differ_in_the_losing_illegal_move(self) -> None:
        assert PROFILES["candidates-2012"].penalties.illegal_move_loses_at == 3
        assert PROFILES["fide-2023"].penalties.illegal_move_loses_at == 2

    @pytest.mark.parametrize(
        ("stage", "attribute"),
        [
            ("tournament", "penalties"),
            ("rapid", "rapid_penalties"),
            ("blitz", "blitz_penalties"),
            ("sudden_death", "blitz_penalties"),
            ("armageddon", "blitz_penalties"),
            ("tie-break", "rapid_penalties"),
        ],
    )
    def test_stage_chooses_the_penalties(self, stage: str, attribute: str) -> None:
        for rules in PROFILES.values():
            assert rules.penalties_for(stage) is getattr(rules, attribute)
