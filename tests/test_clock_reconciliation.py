"""Known device behaviours recognised in a reading (engine.game.reconciliation.judge),
the playoff controls chosen by stage (3.7.1.a, 3.7.2, 3.7.3.a), and the clock CLI."""

from __future__ import annotations

from pathlib import Path

from adapters.store import Store
from engine.clock.regulation import Clock
from engine.clock.time_control import CLASSICAL_3_5_1, parse_time_control
from engine.game.reconciliation import judge
from tests.cli import candidates, json_lines
from tests.helpers import at, ok, paired_tournament
from tests.world import World

S = 1000
MIN = 60 * S
DATA = Path(__file__).parent / "data"


def after_moves(moves: int, seconds: int = 30) -> Clock:
    clock = Clock.start(parse_time_control(CLASSICAL_3_5_1), 0)
    t = 0
    for _ in range(moves):
        for side in ("white", "black"):
            t += seconds * S
            clock = clock.complete_move(side, t)
    return clock


class TestKnownDeviceBehaviours:
    def test_reading_within_tolerance_agrees(self) -> None:
        clock = after_moves(10)
        model = clock.remaining_ms("white")
        assert judge(clock, "white", model - 1999, clock.at_ms, 2000).kind == "agrees"
        assert judge(clock, "white", model - 2001, clock.at_ms, 2000).kind == "clock_mismatch"

    def test_3_5_1_both_bonuses_missing_after_move_60(self) -> None:
        clock = after_moves(60)
        model = clock.remaining_ms("black")
        found = judge(clock, "black", model - 75 * MIN, clock.at_ms, 2000)
        assert found.kind == "bonus_not_credited"
        assert "move 40 and 60 (1:15:00)" in found.explanation

    def test_3_5_1_increment_started_late_after_move_61(self) -> None:
        clock = after_moves(65)  # five increments credited to each side
        model = clock.remaining_ms("white")
        found = judge(clock, "white", model - 90 * S, clock.at_ms, 2000)
        assert found.kind == "increment_started_late"
        assert "lacks 3 increment(s) of 30 s" in found.explanation

    def test_3_5_1_bonus_added_at_zero_then_increments_late(self) -> None:
        clock = after_moves(64)
        model = clock.remaining_ms("white")
        found = judge(clock, "white", model - 15 * MIN - 60 * S, clock.at_ms, 2000)
        assert found.kind == "bonus_not_credited"
        assert "and 2 increment(s) of 30 s" in found.explanation

    def test_3_5_1_increment_credited_on_move_60_itself(self) -> None:
        clock = after_moves(60)
        model = clock.remaining_ms("white")
        found = judge(clock, "white", model + 30 * S, clock.at_ms, 2000)
        assert found.kind == "increment_on_control_move"
        assert "on move 60 itself" in found.explanation

    def test_before_any_control_a_short_clock_is_a_plain_mismatch(self) -> None:
        clock = after_moves(20)
        model = clock.remaining_ms("white")
        assert judge(clock, "white", model - 60 * MIN, clock.at_ms, 2000).kind == "clock_mismatch"
        assert judge(clock, "white", 0, clock.at_ms, 2000).kind == "clock_mismatch"


class TestPlayoffControlsByStage:
    """3.7.1.a, 3.7.2 and 3.7.3.a: a playoff game gets its stage's control."""

    def test_3_7_stage_selects_the_control(self, world: World) -> None:
        for game, stage, control in [
            ("r1", "rapid", "1500+10"),
            ("b1", "blitz", "300+3"),
            ("s1", "sudden_death", "60/300|240:0+3"),
        ]:
            events = ok(
                world,
                {
                    "cmd": "start_game",
                    "game": game,
                    "white": "carlsen",
                    "black": "kramnik",
                    "stage": stage,
                    "at": at(0),
                },
            )
            assert events[0]["time_control"] == control
        clock = world.game("s1").clock
        assert clock is not None
        assert (clock.remaining_ms("white"), clock.remaining_ms("black")) == (5 * MIN, 4 * MIN)

    def test_bad_time_control_is_refused_at_the_start(self, world: World) -> None:
        result = world.handle(
            {
                "cmd": "start_game",
                "game": "x",
                "white": "a",
                "black": "b",
                "time_control": "40/abc",
                "at": at(0),
            }
        )
        assert not result["ok"] and "cannot read field 1" in result["error"]["message"]


class TestClockCommandLine:
    def test_game_at_an_instant_and_clock_report(self, tmp_path: Path) -> None:
        store = str(tmp_path / "cli.sqlite")
        with Store(store) as s:
            paired_tournament(s)
            ok(s, {"cmd": "start_game", "game": "1.1", "at": at(0)})
            ok(s, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(30)})
        shown = candidates("game", "1.1", "--at", at(90), store=store)
        assert shown.returncode == 0, shown.stderr
        assert "white 1:59:30, black 1:59:00, running black" in shown.stdout
        as_json = json_lines(
            candidates("game", "1.1", "--at", at(90), "--format", "json", store=store).stdout
        )[0]
        assert as_json["clock"]["black_ms"] == 119 * MIN
        archive = str(tmp_path / "archive.sqlite")
        imported = candidates(
            "import-pgn", "--create", str(DATA / "clocked-games.pgn"), store=archive
        )
        assert imported.returncode == 0, imported.stderr
        report = candidates("clocks", "9.1", store=archive)
        assert report.returncode == 0, report.stderr
        # the device's 30 s on move 60 is its rule, which the regulation clock follows
        assert "  60 white h4         0:39:00    0:39:00  agrees" in report.stdout
        bad = candidates("game", "1.1", "--at", "yesterday", store=store)
        assert bad.returncode == 2 and "'--at' is not an ISO-8601 instant" in bad.stderr


def test_3_5_2_a_reading_older_than_the_last_move_is_stored_but_not_judged(world) -> None:
    """A board that held its readings (until it knew which side is White's) sends them
    after later moves: they are kept as observed, and raise no false mismatch."""
    from tests.helpers import at, ok, paired_tournament, play

    paired_tournament(world)
    ok(world, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    play(world, "1.1", "d4 Nf6 c4 e6", start_s=10, step_s=10)
    events = ok(
        world,
        {
            "cmd": "clock_reading",
            "game": "1.1",
            "at": at(5),
            "white_ms": 7_195_000,
            "black_ms": 7_200_000,
            "running": "white",
        },
    )
    assert [e["type"] for e in events] == ["ClockReadingRecorded"]
    assert events[0]["model_white_ms"] is None and events[0]["white_ms"] == 7_195_000
