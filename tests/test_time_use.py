"""Time use per move (3.5.1: 40 moves in 120 min, 20 in 60, then 15 min + 30 s): what each
player spent on each move and the clock left, in ``/api/games/{id}`` (delayed like the rest)."""

from __future__ import annotations

import json
import time

from adapters.store import Store
from engine.clock.time_control import parse_time_control
from engine.events import game_stream
from engine.timefmt import format_instant
from projections.time_use import controls_at_moves, time_use
from tests.gateway_support import COMMENTATOR_TOKEN, RunningGateway
from tests.helpers import ok, paired_tournament
from tests.test_gateway_http import get

T0 = 1_363_356_000_000  # 2013-03-15T14:00:00Z
TWO_HOURS = 7_200_000


def play(store: Store, spent_s: list[int], start_ms: int = T0) -> None:
    ok(store, {"cmd": "start_game", "game": "1.1", "at": format_instant(start_ms)})
    sans = ["d4", "Nf6", "c4", "e6", "Nf3", "Bb4+"]
    at = start_ms
    for san, seconds in zip(sans, spent_s, strict=False):
        at += seconds * 1000
        ok(store, {"cmd": "play_move", "game": "1.1", "move": san, "at": format_instant(at)})


def test_3_5_1_each_move_spent_and_left_and_the_controls_at_40_and_60(
    sqlite_store: Store,
) -> None:
    paired_tournament(sqlite_store)
    play(sqlite_store, [10, 20, 300, 60, 5])
    used = time_use(sqlite_store.cache.stream(game_stream("1.1")))
    assert used["controls_at_moves"] == [40, 60]
    rows = used["moves"]
    assert [(r["ply"], r["side"], r["san"]) for r in rows] == [
        (1, "white", "d4"),
        (2, "black", "Nf6"),
        (3, "white", "c4"),
        (4, "black", "e6"),
        (5, "white", "Nf3"),
    ]
    assert [r["spent_ms"] for r in rows] == [10_000, 20_000, 300_000, 60_000, 5_000]
    # the mover's clock after the move: 120 min less what that side spent so far
    assert [r["left_ms"] for r in rows] == [
        TWO_HOURS - 10_000,
        TWO_HOURS - 20_000,
        TWO_HOURS - 310_000,
        TWO_HOURS - 80_000,
        TWO_HOURS - 315_000,
    ]


def test_controls_are_listed_up_to_the_first_beyond_the_game() -> None:
    assert controls_at_moves(parse_time_control("40/7200:20/3600:900+30"), 70) == [40, 60]
    assert controls_at_moves(parse_time_control("40/7200"), 90) == [40, 80, 120]
    assert controls_at_moves(parse_time_control("300+3"), 10) == []
    assert controls_at_moves(None, 10) == []


def test_the_game_json_carries_it_delayed_like_the_rest(sqlite_store: Store) -> None:
    paired_tournament(sqlite_store)
    now = time.time_ns() // 1_000_000 // 1000 * 1000
    play(sqlite_store, [10, 20, 30], start_ms=now - 600_000)  # ten minutes ago
    ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": "e6", "at": format_instant(now)})
    with RunningGateway(sqlite_store.url, public_delay_s=300) as gw:
        status, _, body = get(gw, "/api/games/1.1")
        assert status == 200
        public = json.loads(body)
        assert [m["san"] for m in public["time_use"]["moves"]] == ["d4", "Nf6", "c4"]
        assert public["opening"]["name"] == "Indian Defense: Normal Variation"  # A50, ply 3
        status, _, body = get(gw, f"/api/games/1.1?token={COMMENTATOR_TOKEN}")
        live = json.loads(body)
        assert [m["san"] for m in live["time_use"]["moves"]] == ["d4", "Nf6", "c4", "e6"]
        assert live["time_use"]["moves"][-1]["spent_ms"] == 600_000 - 60_000
