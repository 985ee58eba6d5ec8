"""Board observations into the store: moves as ``play_move``, readings as
``clock_reading``, alerts as ``AlertRaised`` on ``board/<serial>``; and the
clock's left/right sides mapped to colours by configuration or inference."""

from __future__ import annotations

import pytest

from adapters.dgt.clocksides import ClockReading, ClockSides, ColouredReading
from adapters.dgt.feed import StoreSink, raw_of
from adapters.store import Store
from engine.commands import REGISTRY
from engine.events import board_stream
from engine.game.moves import PlayMove
from engine.timefmt import format_instant, parse_instant
from tests.dgt_hands import Hands

START = "2013-03-15T14:00:00.000Z"


def start(store: Store, game_id: str = "1.1") -> None:
    answer = store.handle(
        {"cmd": "start_game", "game": game_id, "at": START, "white": "aronian", "black": "carlsen"}
    )
    assert answer["ok"], answer


def wired(store: Store, **kwargs: object) -> tuple[Hands, StoreSink]:
    hands = Hands(**kwargs)  # type: ignore[arg-type]
    hands.session.serial = "31337"
    sink = StoreSink(store, "1.1", hands.session, keep_log=True)
    sink.deliver(hands.log)
    hands.log.clear()
    return hands, sink


def pump(hands: Hands, sink: StoreSink) -> None:
    sink.deliver(hands.log)
    hands.log.clear()


class TestMovesIntoTheStore:
    def test_each_confirmed_move_is_play_move_by_the_board(self, store: Store) -> None:
        start(store)
        hands, sink = wired(store)
        hands.move("d2", "d4").settle().move("g8", "f6").settle().wait(1500)
        pump(hands, sink)
        game = store.reads.game("1.1")
        assert game is not None and game.moves == ("d2d4", "g8f6")
        played = [e for e in store.cache.stream("game/1.1") if e.kind == "MovePlayed"]
        assert [e.by for e in played] == ["dgt:31337", "dgt:31337"]
        sent = sink.commands_sent[0]
        assert isinstance(sent, PlayMove)
        assert sent == PlayMove(game="1.1", move="d2d4", at_ms=sent.at_ms, by="dgt:31337", ply=1)

    def test_a_provisional_move_waits_and_only_the_corrected_one_is_stored(
        self, sqlite_store: Store
    ) -> None:
        start(sqlite_store)
        hands, sink = wired(sqlite_store, confirm_ms=5000)
        hands.lift("e2").put("e3", "P").settle()
        pump(hands, sink)
        assert sqlite_store.reads.game("1.1").moves == ()  # type: ignore[union-attr]
        hands.lift("e3").put("e4", "P").settle().wait(5000)
        pump(hands, sink)
        assert sqlite_store.reads.game("1.1").moves == ("e2e4",)  # type: ignore[union-attr]

    def test_moves_before_the_game_is_started_are_kept_and_played_once_it_is(
        self, sqlite_store: Store
    ) -> None:
        hands, sink = wired(sqlite_store)
        hands.move("e2", "e4").settle().wait(1500)
        pump(hands, sink)
        [alert] = sqlite_store.cache.stream(board_stream("31337"))
        assert alert.kind == "game_not_started"
        start(sqlite_store)
        hands.move("c7", "c5").settle().wait(1500)
        pump(hands, sink)
        assert sqlite_store.reads.game("1.1").moves == ("e2e4", "c7c5")  # type: ignore[union-attr]

    def test_a_move_seen_before_the_arbiter_started_the_game_is_dated_at_the_start(
        self, sqlite_store: Store
    ) -> None:
        """The board's host clock and the arbiter's start are separate sources: a move the
        board saw before the recorded start is played at the start, not refused as out of
        time order (the engine keeps a game's events in time order)."""
        hands, sink = wired(sqlite_store)
        hands.move("e2", "e4").settle().move("c7", "c5").settle().wait(1500)
        pump(hands, sink)
        late = "2013-03-15T15:00:00.000Z"  # an hour after the board's moves
        answer = sqlite_store.handle(
            {"cmd": "start_game", "game": "1.1", "at": late, "white": "aronian", "black": "carlsen"}
        )
        assert answer["ok"], answer
        hands.wait(100)
        sink.sync(hands.t)
        assert sqlite_store.reads.game("1.1").moves == ("e2e4", "c7c5")  # type: ignore[union-attr]
        played = [e for e in sqlite_store.cache.stream("game/1.1") if e.kind == "MovePlayed"]
        assert {format_instant(e.at_ms) for e in played} == {late}

    def test_a_finished_game_refuses_the_board_s_moves_and_readings_quietly(
        self, store: Store
    ) -> None:
        """The feed does not ask whether the game is over: the engine refuses (a game not in
        progress), and the feed takes that refusal as expected: no alert, none kept."""
        start(store)
        hands, sink = wired(store, white_side="right")
        hands.move("e2", "e4").settle().wait(1500)
        pump(hands, sink)
        resign = {"cmd": "resign", "game": "1.1", "by": "black", "at": format_instant(hands.t)}
        assert store.handle(resign)["ok"]
        hands.wait(100)
        hands.move("e7", "e5").settle().wait(1500)
        hands.clock(7_200_000, 7_195_000, "right")
        pump(hands, sink)
        game = store.reads.game("1.1")
        assert game is not None and game.status == "finished" and game.moves == ("e2e4",)
        # both sent after the resignation, both refused by the engine
        assert [c.cmd for c in sink.commands_sent] == ["play_move", "play_move", "clock_reading"]
        assert list(sink.refusals) == []
        assert store.cache.stream(board_stream("31337")) == []
        assert sink.level  # nothing the store lacks: the game is over

    def test_a_takeback_is_an_alert_and_changes_nothing_in_the_record(self, store: Store) -> None:
        start(store)
        hands, sink = wired(store)
        hands.move("e2", "e4").settle().move("e7", "e5").settle().move("g1", "f3").settle()
        hands.wait(1500)  # Nf3 stood: complete (quiet), then taken back
        hands.move("f3", "g1").settle()
        pump(hands, sink)
        game = store.reads.game("1.1")
        assert game is not None and game.moves == ("e2e4", "e7e5", "g1f3")
        alerts = store.cache.stream(board_stream("31337"))
        assert [a.kind for a in alerts] == ["takeback"]
        assert alerts[0].details == {"from_ply": 3, "to_ply": 2, "undone": ("g1f3",)}
        assert alerts[0].game == "1.1" and alerts[0].by == "dgt:31337"
        # Another move from the earlier position: the board left the record's line.
        hands.move("b1", "c3").settle().wait(1500)
        pump(hands, sink)
        assert store.reads.game("1.1").moves == ("e2e4", "e7e5", "g1f3")  # type: ignore[union-attr]
        assert store.cache.stream(board_stream("31337"))[-1].kind == "board_diverged"

    def test_alerts_are_in_the_global_log_for_the_gateway(self, sqlite_store: Store) -> None:
        start(sqlite_store)
        hands, sink = wired(sqlite_store, alert_after_ms=1000)
        hands.lift("e2").lift("d2").put("e4", "P").put("d4", "P").wait(1500)
        pump(hands, sink)
        raised = [
            e for _, e in sqlite_store.cache.events_since(0) if e.originator_id.startswith("board/")
        ]
        assert [e.kind for e in raised] == ["impossible_position"]
        wire = raised[0].to_wire()
        assert wire["type"] == "AlertRaised" and wire["stream"] == "board/31337"
        assert wire["details"]["diff"][0] == {"square": "d2", "expected": "P", "found": None}

    def test_a_signalled_result_waits_for_the_arbiter(self, sqlite_store: Store) -> None:
        start(sqlite_store)
        hands, sink = wired(sqlite_store)
        hands.physical.set_board_fen("8/8/8/3k4/4K3/8/8/8")
        hands.dump()
        pump(hands, sink)
        [alert] = sqlite_store.cache.stream(board_stream("31337"))
        assert alert.kind == "result_signalled" and alert.details["result"] == "1-0"
        game = sqlite_store.reads.game("1.1")
        assert game is not None and game.status == "in_progress"


class TestClockReadings:
    def test_readings_become_clock_reading_in_colours(self, sqlite_store: Store) -> None:
        start(sqlite_store)
        hands, sink = wired(sqlite_store, white_side="right")
        hands.clock(7_200_000, 7_195_000, "right")
        pump(hands, sink)
        readings = [raw_of(r) for r in sink.readings]
        assert readings == [
            {
                "cmd": "clock_reading",
                "game": "1.1",
                "at": readings[0]["at"],
                "white_ms": 7_195_000,
                "black_ms": 7_200_000,
                "running": "white",
                "by": "dgt:31337",
                "command_id": (
                    f"dgt:31337/1.1/clock/{parse_instant(readings[0]['at'])}/7195000/7200000/white"
                ),
            }
        ]
        if "clock_reading" in REGISTRY:
            assert not sink.refusals, sink.refusals


class TestClockSides:
    def test_configured_side(self) -> None:
        sides = ClockSides.of("left")
        [mapped] = sides.observe(ClockReading(5, 100, 200, "left"), True, False)
        assert mapped == ColouredReading(5, 100, 200, "white")
        with pytest.raises(ValueError, match="'left' or 'right', not 'north'"):
            ClockSides.of("north")

    def test_never_assumed_held_until_presses_agree_then_released_in_order(self) -> None:
        sides = ClockSides()
        r1 = ClockReading(1, 7_200_000, 7_200_000, "right")  # the arbiter starts White's clock
        assert sides.observe(r1, True, True) == []
        r2 = ClockReading(2, 7_200_000, 7_190_000, "right")
        assert sides.observe(r2, False, False) == []  # no press: no evidence
        assert not sides.known
        r3 = ClockReading(3, 7_200_000, 7_185_000, "left")  # White pressed; Black to move
        released = sides.observe(r3, False, True)
        assert sides.white_side == "right"
        assert [(r.at_ms, r.white_ms, r.running) for r in released] == [
            (1, 7_200_000, "white"),
            (2, 7_190_000, "white"),
            (3, 7_185_000, "black"),
        ]

    def test_contradicting_presses_keep_it_unknown(self) -> None:
        sides = ClockSides()
        sides.observe(ClockReading(1, 1, 1, "right"), True, True)
        sides.observe(ClockReading(2, 1, 1, "left"), True, True)
        assert not sides.known

    def test_inferred_through_a_session_from_the_lever_and_the_board(self) -> None:
        hands = Hands()
        hands.clock(7_200_000, 7_200_000, "left")  # White's clock started: left is White
        hands.move("e2", "e4").settle()
        hands.clock(7_195_000, 7_200_000, "right")  # White pressed
        assert hands.session.clock_sides.white_side == "left"
        readings = hands.seen("clock_reading")
        assert readings[-1] == {
            "type": "clock_reading",
            "white_ms": 7_195_000,
            "black_ms": 7_200_000,
            "running": "black",
        }
