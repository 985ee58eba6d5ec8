"""Clock commands end to end on every backend: flag fall (6.9), readings and
reconciliation alerts (3.5.1, Laws 6.10 b), arbiter adjustments (7.4 b, 9.5).

All durations are integer milliseconds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters.store import Store
from adapters.store.queries import game_object
from engine.timefmt import parse_instant
from tests.helpers import T0_MS, at, ok, paired_tournament, refused
from tests.world import World

S = 1000
MIN = 60 * S


UNSUPERVISED = "candidates-2012-unsupervised"
"""Flag falls recorded from the regulation clock (engine.rules); under ``candidates-2012``
the arbiter rules on them (Laws 2009 6.8: tests/test_flags_6_8.py)."""


def start(store: Store, rules: str = "candidates-2012", **extra: Any) -> None:
    paired_tournament(store, rules)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0), **extra})


def reading(store: Store, seconds: float, white_ms: int, black_ms: int, running: str | None):
    return ok(
        store,
        {
            "cmd": "clock_reading",
            "game": "1.1",
            "at": at(seconds),
            "white_ms": white_ms,
            "black_ms": black_ms,
            "running": running,
            "by": "dgt:12345",
        },
    )


def play_40_moves_each(store: Store, seconds_per_move: int = 60) -> float:
    """A short repeating game of 40 moves each (knights out and back). Returns the last instant."""
    cycle = ["Nf3", "Nf6", "Ng1", "Ng8"]
    t = 0.0
    for i in range(80):
        t += seconds_per_move
        ok(store, {"cmd": "play_move", "game": "1.1", "move": cycle[i % 4], "at": at(t)})
    return t


class TestArt6_9FlagFallDetection:
    """Unsupervised play: a flag fall is recorded the same way at a move, a reading or
    check_flags."""

    def flag_instant(self) -> float:
        return 120 * 60.0  # White never moves: his 120 min run out

    def expected(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        result = [e for e in events if e["type"] == "ResultRecorded"]
        assert len(result) == 1
        return {k: result[0][k] for k in ("result", "termination", "at", "reason")}

    def test_6_9_move_arriving_too_late_records_the_flag_fall_instead(self, world: World) -> None:
        start(world, UNSUPERVISED)
        late = self.flag_instant() + 5
        events = ok(world, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(late)})
        found = self.expected(events)
        assert found["result"] == "0-1" and found["termination"] == "time_forfeit"
        assert found["at"] == at(self.flag_instant())
        assert "40 move(s) short of the control in period 1" in found["reason"]
        assert world.game("1.1").ply == 0

    def test_6_9_same_result_at_a_reading_and_at_check_flags(self, world: World) -> None:
        start(world, UNSUPERVISED)
        late = self.flag_instant() + 5
        at_reading = self.expected(reading(world, late, 0, 120 * MIN, "white"))
        assert at_reading["at"] == at(self.flag_instant())
        assert at_reading["termination"] == "time_forfeit"
        # Same game, other detector, other world: same result.
        other = World()
        if other is not None:
            with other:
                start(other, UNSUPERVISED)
                by_timer = self.expected(ok(other, {"cmd": "check_flags", "at": at(late)}))
            assert by_timer == at_reading

    def test_6_9_check_flags_leaves_standing_flags_alone(self, world: World) -> None:
        start(world)
        assert ok(world, {"cmd": "check_flags", "at": at(60)}) == []
        assert ok(world, {"cmd": "check_flags", "game": "1.1", "at": at(60)}) == []

    def test_6_9_a_query_shows_the_fallen_flag_and_writes_nothing(self, world: World) -> None:
        start(world)
        before = world.count()
        view = game_object(world, "1.1", T0_MS + (120 * 60 + 1) * S)
        assert view["clock"]["flag"] == {
            "side": "white",
            "fell_at": at(self.flag_instant()),
            "result": "0-1",
            "termination": "time_forfeit",
            "recorded": False,
        }
        assert view["status"] == "in_progress"
        assert world.count() == before

    def test_6_9_flag_fall_against_a_lone_king_is_a_draw(self, world: World) -> None:
        # Black to move with K+Q against White's lone king: Black's flag falls.
        start(world, UNSUPERVISED, fen="8/8/4k3/3q4/8/4K3/8/8 b - - 0 1", time_control="300+3")
        events = ok(world, {"cmd": "check_flags", "game": "1.1", "at": at(301)})
        assert self.expected(events)["result"] == "1/2-1/2"
        assert world.game("1.1").termination == "flag_fall_draw"

    def test_3_5_1_move_40_with_1_ms_left_is_in_time(self, world: World) -> None:
        start(world)
        cycle = ["Nf3", "Nf6", "Ng1", "Ng8"]
        t = 0.0
        for i in range(78):  # 39 moves each, 60 s each: White has 81 min left
            t += 60
            ok(world, {"cmd": "play_move", "game": "1.1", "move": cycle[i % 4], "at": at(t)})
        falls = t + 81 * 60
        ok(world, {"cmd": "play_move", "game": "1.1", "move": "Ng1", "at": at(falls - 0.001)})
        clock = world.game("1.1").clock
        assert clock is not None and clock.remaining_ms("white") == 60 * MIN + 1

    def test_3_5_1_move_40_at_the_instant_the_time_runs_out_is_too_late(self, world: World) -> None:
        start(world, UNSUPERVISED)
        cycle = ["Nf3", "Nf6", "Ng1", "Ng8"]
        t = 0.0
        for i in range(78):
            t += 60
            ok(world, {"cmd": "play_move", "game": "1.1", "move": cycle[i % 4], "at": at(t)})
        falls = t + 81 * 60
        events = ok(world, {"cmd": "play_move", "game": "1.1", "move": "Ng1", "at": at(falls)})
        assert [e["type"] for e in events] == ["ResultRecorded"]
        assert world.game("1.1").result == "0-1"


class TestReconciliation:
    """Readings are stored as observed on clock/<id>; differences raise alerts once."""

    def test_reading_within_tolerance_is_stored_without_alert(self, world: World) -> None:
        start(world)
        events = reading(world, 10, 120 * MIN - 11 * S, 120 * MIN, "white")
        assert [e["type"] for e in events] == ["ClockReadingRecorded"]
        assert events[0]["stream"] == "clock/1.1"
        assert events[0]["model_white_ms"] == 120 * MIN - 10 * S
        # The game stream is untouched: readings never change the regulation clock.
        assert world.game("1.1").version == 1

    def test_mismatch_alert_carries_both_values_and_is_not_repeated(self, world: World) -> None:
        start(world)
        first = reading(world, 10, 119 * MIN, 120 * MIN, "white")
        alert = first[1]
        assert alert["type"] == "AlertRaised" and alert["kind"] == "clock_mismatch"
        assert alert["details"]["reading_ms"] == 119 * MIN
        assert alert["details"]["regulation_ms"] == 120 * MIN - 10 * S
        again = reading(world, 11, 119 * MIN - S, 120 * MIN, "white")
        assert [e["type"] for e in again] == ["ClockReadingRecorded"]
        assert list(again[0]["open_alerts"]) == ["clock_mismatch:white"]
        # Back within tolerance: closed; a new mismatch is reported afresh.
        reading(world, 12, 120 * MIN - 12 * S, 120 * MIN, "white")
        later = reading(world, 13, 100 * MIN, 120 * MIN, "white")
        assert [e["type"] for e in later] == ["ClockReadingRecorded", "AlertRaised"]

    def test_alert_state_survives_reopening_the_store(self, store_url: str) -> None:
        with Store(store_url) as store:
            start(store)
            reading(store, 10, 119 * MIN, 120 * MIN, "white")
        with Store(store_url) as again:
            events = reading(again, 11, 119 * MIN - S, 120 * MIN, "white")
            assert [e["type"] for e in events] == ["ClockReadingRecorded"]

    def test_3_5_1_mis_set_clock_without_the_move_40_bonus_raises_an_alert(
        self, world: World
    ) -> None:
        start(world)
        t = play_40_moves_each(world)  # each side: 40 min used, 80 + 60 min left
        events = reading(world, t + 1, 80 * MIN, 80 * MIN - S, "white")
        alerts = [e for e in events if e["type"] == "AlertRaised"]
        assert [a["kind"] for a in alerts] == ["bonus_not_credited", "bonus_not_credited"]
        assert alerts[0]["details"]["regulation_ms"] == 140 * MIN - S
        assert "completing move 40 (1:00:00)" in alerts[0]["message"]
        assert "6.10 b" in alerts[0]["message"]

    def test_3_5_1_dgt_period_added_at_zero_is_not_a_flag_fall(self, world: World) -> None:
        start(world)
        t = play_40_moves_each(world)
        # The device shows White at 0:00 (a flag) after move 40: the regulation says 60 min.
        events = reading(world, t + 80 * 60, 0, 140 * MIN, "white")
        kinds = [e["kind"] for e in events if e["type"] == "AlertRaised"]
        assert kinds == ["period_added_at_zero"]
        assert "not a flag fall" in events[1]["message"]
        assert world.game("1.1").status == "in_progress"

    def test_readings_need_sane_values(self, world: World) -> None:
        start(world)
        cmd = {
            "cmd": "clock_reading",
            "game": "1.1",
            "at": at(5),
            "white_ms": -1,
            "black_ms": 0,
            "running": "white",
        }
        assert "cannot be negative" in refused(world, cmd, "malformed_command")
        cmd.update(white_ms=1, running="red")
        assert "'running'" in refused(world, cmd, "malformed_command")

    def test_play_move_with_device_times_stores_a_reading(self, world: World) -> None:
        start(world)
        events = ok(
            world,
            {
                "cmd": "play_move",
                "game": "1.1",
                "move": "e4",
                "at": at(10),
                "white_ms": 120 * MIN - 10 * S,
                "black_ms": 120 * MIN,
            },
        )
        assert [e["type"] for e in events] == ["MovePlayed", "ClockReadingRecorded"]
        assert events[1]["ply"] == 1 and events[1]["running"] == "black"


class TestAdjustClock:
    """adjust_clock: Chief Arbiter or Deputy, a reason, applied by the regulation clock."""

    def test_7_4_b_two_minutes_to_the_opponent(self, world: World) -> None:
        start(world)
        ok(
            world,
            {
                "cmd": "adjust_clock",
                "game": "1.1",
                "side": "black",
                "delta_ms": 2 * MIN,
                "reason": "7.4 b: illegal move by White",
                "arbiter": "deputy",
                "at": at(30),
            },
        )
        view = game_object(world, "1.1")
        assert view["clock"]["black_ms"] == 122 * MIN
        assert view["clock"]["white_ms"] == 120 * MIN - 30 * S

    def test_adjust_clock_needs_a_ruling_arbiter(self, world: World) -> None:
        start(world)
        cmd = {
            "cmd": "adjust_clock",
            "game": "1.1",
            "side": "black",
            "delta_ms": 2 * MIN,
            "reason": "penalty",
            "arbiter": "advisor",
            "at": at(30),
        }
        refused(world, cmd, "not_an_arbiter")
        cmd.update(arbiter="chief", reason="  ")
        assert "needs a reason" in refused(world, cmd, "malformed_command")

    def test_6_9_no_adjustment_after_the_flag_fell(self, world: World) -> None:
        start(world, UNSUPERVISED, time_control="300+3")
        cmd = {
            "cmd": "adjust_clock",
            "game": "1.1",
            "side": "white",
            "delta_ms": 2 * MIN,
            "reason": "correction",
            "arbiter": "chief",
            "at": at(400),
        }
        message = refused(world, cmd, "rule_violation")
        assert "white's flag fell at 2013-03-15T14:05:00.000Z" in message


class TestClockAtAnyInstant:
    def test_game_and_clock_as_they_stood_at_an_instant(self, world: World) -> None:
        start(world)
        ok(world, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(30)})
        ok(world, {"cmd": "play_move", "game": "1.1", "move": "e5", "at": at(100)})
        view = game_object(world, "1.1", parse_instant(at(50.5)))
        assert view["ply"] == 1
        assert view["clock"]["white_ms"] == 120 * MIN - 30 * S
        assert view["clock"]["black_ms"] == 120 * MIN - 20_500
        assert view["clock"]["running"] == "black"
        assert view["clock"]["moves_to_control"] == {"white": 39, "black": 40}


class TestExecuteMany:
    """Readings from several boards are committed in groups (one save)."""

    def test_batch_of_readings_chains_versions_and_refuses_singly(self, world: World) -> None:
        start(world)
        ok(world, {"cmd": "start_game", "game": "1.2", "at": at(0)})
        batch = []
        for i in range(1, 6):
            for game in ("1.1", "1.2"):
                batch.append(
                    {
                        "cmd": "clock_reading",
                        "game": game,
                        "at": at(i),
                        "white_ms": 120 * MIN - i * S,
                        "black_ms": 120 * MIN,
                        "running": "white",
                    }
                )
        batch.insert(3, {"cmd": "clock_reading", "game": "9.9"})
        before = world.count()
        answers = world.execute_many(batch)
        assert [a["ok"] for a in answers].count(False) == 1
        assert world.count() == before + 10
        assert [e.originator_version for e in world.readings("1.1")] == [1, 2, 3, 4, 5]
        assert world.clock_log("1.2").version == 5


class TestDgtPeriodAddedAtZero:
    """The false flag fall at move 40 of live broadcasts (lichess issue 19227), end to end."""

    def test_3_5_1_bonus_missing_then_zero_then_added_is_reported_once_each(
        self, world: World
    ) -> None:
        start(world)
        t = play_40_moves_each(world)  # both: 80 min + 60 min bonus = 140 min left
        black = 140 * MIN

        def alerts(seconds: float, white_ms: int) -> list[str]:
            events = reading(world, seconds, white_ms, black, "white")
            return [e["kind"] for e in events if e["type"] == "AlertRaised"]

        # The device did not add the 60 min at move 40: one alert, not repeated.
        assert alerts(t + 10, 80 * MIN - 10 * S) == ["bonus_not_credited"]
        assert alerts(t + 20, 80 * MIN - 20 * S) == []
        # Its display reaches zero and shows a flag: named, not a flag fall.
        assert alerts(t + 80 * 60, 0) == ["period_added_at_zero"]
        assert world.game("1.1").status == "in_progress"
        # It adds the period at zero: device and regulation agree again.
        assert alerts(t + 80 * 60 + 5, 60 * MIN - 5 * S) == []
        assert world.clock_log("1.1").open_alerts == ()


class TestClocksStoppedForAClaim:
    """Laws 2009 6.12 b, 9.5: the clocks are stopped for a claim and started at the ruling;
    penalties (ClockAdjusted from the claims rules) are applied by the regulation clock."""

    def claim(self, store: Store | World, seconds: float) -> list[dict[str, Any]]:
        return ok(
            store,
            {
                "cmd": "claim_draw",
                "game": "1.1",
                "by": "black",
                "kind": "fifty_moves",
                "at": at(seconds),
            },
        )

    def test_6_12_b_the_docs_and_the_engine_describe_the_clocks_on_a_claim_one_way(
        self,
    ) -> None:
        """docs/claims.md, docs/clocks.md and the engine (the test below) say the same: the
        clocks stop at the claim's instant and start again at the ruling."""
        root = Path(__file__).resolve().parents[1]
        claims = " ".join((root / "docs" / "claims.md").read_text().split())
        clocks = " ".join((root / "docs" / "clocks.md").read_text().split())
        engine = " ".join((root / "engine" / "arbiter" / "draw_claims.py").read_text().split())
        assert "does not stop or start clocks" not in claims
        assert "the clocks are stopped at the claim's instant (6.12 b, 9.5)" in claims
        assert "a `DrawClaimed` stops the clocks at its instant" in clocks
        assert "The clocks are stopped at the claim's instant (9.5, 6.12 b)" in engine
        for text in (claims, clocks, engine):
            assert "ClaimRuled" in text

    def test_9_5_no_time_runs_while_the_arbiter_rules(self, world: World) -> None:
        start(world)
        ok(world, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(60)})
        self.claim(world, 100)  # Black used 40 s before stopping the clocks
        paused = game_object(world, "1.1", T0_MS + 3 * 3600 * S)["clock"]
        assert paused["running"] is None
        assert paused["black_ms"] == 120 * MIN - 40 * S and paused["flag"] is None
        ok(
            world,
            {
                "cmd": "rule_claim",
                "game": "1.1",
                "claim": 1,
                "decision": "rejected",
                "arbiter": "chief",
                "at": at(700),
            },
        )
        clock = game_object(world, "1.1", T0_MS + 710 * S)["clock"]
        assert clock["running"] == "black"
        assert clock["black_ms"] == 120 * MIN - 50 * S
        # 9.5: the incorrect claim gives White 3 minutes.
        assert clock["white_ms"] == 120 * MIN - 60 * S + 3 * MIN

    def test_6_9_a_claim_after_the_flag_fell_records_the_flag_fall(self, world: World) -> None:
        start(world, UNSUPERVISED, time_control="300+3")
        ok(world, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(10)})
        events = self.claim(world, 400)
        assert [e["type"] for e in events] == ["ResultRecorded"]
        assert events[0]["termination"] == "time_forfeit"
        assert events[0]["at"] == at(310)


def test_check_flags_names_a_game_that_was_never_started(sqlite_store) -> None:
    from tests.helpers import at, paired_tournament, refused

    paired_tournament(sqlite_store)
    message = refused(
        sqlite_store, {"cmd": "check_flags", "game": "1.1", "at": at(10)}, "unknown_game"
    )
    assert "'1.1'" in message
