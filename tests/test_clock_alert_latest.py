"""A clock alert shows the latest difference between the clock on the table and the
regulation clock (3.5.1; Laws 2009 6.10 a, b), and closes when they agree again; the
clock object ``candidates watch`` counts down from is right after a clock change.
"""

from __future__ import annotations

from typing import Any

from adapters.cli.cmd_watch import counted_down
from adapters.gateway.alerts import OpenAlerts
from adapters.gateway.deltas import alert_of
from adapters.store import Store
from adapters.store.queries import game_object
from engine.events import AlertRaised
from tests.helpers import T0_MS, at, ok, paired_tournament
from tests.test_clock_commands import reading

S = 1000
MIN = 60 * S


def mismatches(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "AlertRaised" and e["kind"] == "clock_mismatch"]


def test_6_10_a_the_mismatch_alert_carries_the_latest_difference_then_closes(
    sqlite_store: Store,
) -> None:
    store = sqlite_store
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    ok(store, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(60)})
    white = 120 * MIN - 60 * S  # what the regulation clock gives White after his move
    [first] = mismatches(reading(store, 70, white + 7 * S, 120 * MIN - 10 * S, "black"))
    assert first["details"]["difference_ms"] == 7 * S and "updated" not in first["details"]
    # the same difference again: nothing new to show
    assert mismatches(reading(store, 71, white + 7 * S, 120 * MIN - 11 * S, "black")) == []
    # 274 s off now: raised again with the new figures, marked as an update
    [second] = mismatches(reading(store, 72, white + 274 * S, 120 * MIN - 12 * S, "black"))
    assert second["details"]["difference_ms"] == 274 * S and second["details"]["updated"] is True
    assert "+274.0 s" in second["message"]
    # the desk keeps one alert per key, the latest
    desk = OpenAlerts()
    objects = {"1.1": game_object(store.reads, "1.1")}
    frames = [alert_of(n, _event(alert)) for n, alert in ((1, first), (2, second))]
    desk.update(frames, objects, 2)
    [shown] = desk.now()
    assert shown.body["key"] == "1.1/clock_mismatch:white"
    assert shown.body["details"]["difference_ms"] == 274 * S
    # back within the tolerance: the condition closes, and the desk closes the alert
    assert mismatches(reading(store, 73, white, 120 * MIN - 13 * S, "black")) == []
    objects = {"1.1": game_object(store.reads, "1.1")}
    assert objects["1.1"]["clock"]["device"]["open_alerts"] == []
    [closing] = desk.update([], objects, 3)
    assert closing.body["closed"] is True and desk.now() == []


def _event(wire: dict[str, Any]) -> AlertRaised:
    return AlertRaised(
        originator_id=wire["stream"],
        originator_version=wire["version"],
        at_ms=T0_MS,
        by=wire["by"],
        game=wire["game"],
        kind=wire["kind"],
        message=wire["message"],
        details=wire["details"],
    )


def test_6_10_b_watch_counts_down_from_the_adjusted_clock(sqlite_store: Store) -> None:
    store = sqlite_store
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    ok(store, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(10)})
    adjust = {
        "cmd": "adjust_clock",
        "game": "1.1",
        "side": "black",
        "delta_ms": MIN,
        "reason": "6.10 b: the clock was set a minute short",
        "arbiter": "chief",
        "at": at(80),
    }
    ok(store, adjust)
    clock = game_object(store.reads, "1.1")["clock"]
    assert clock["at"] == at(80)
    later = T0_MS + 200 * S
    truth = game_object(store.reads, "1.1", at_ms=later)["clock"]["black_ms"]
    assert counted_down(clock, later) == truth == 120 * MIN - 190 * S + MIN
