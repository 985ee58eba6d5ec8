"""One clock object on the wire: the clock a client receives states the instant its
values hold (``at``), so ``remaining - (now - at)`` is the clock on the table.

For every command that changes a running clock (an adjustment, Laws 2009 6.10 b and
6.13; a penalty adding time to the opponent, 13.4 b; incident time taken from the
offender, 13.4 c; an illegal move's 2 minutes, 7.4 b; a correction setting the
times, 7.4 a and 6.13) the test applies it to Black's running clock and reads the
clock back where clients read it: the websocket frame, ``/api/games/1.1`` and the
live page in headless Chromium. The frame and the API are checked exactly against
the engine at a common instant; the page (which counts down on its own) between
the engine's clock just before and just after the page was read.
"""

from __future__ import annotations

import json
import math
import re
import time
import urllib.request
from typing import Any

import pytest

from adapters.store import Store
from adapters.store.queries import game_object
from engine.timefmt import parse_instant
from tests.gateway_support import Peer, RunningGateway, now_at
from tests.helpers import ok, paired_tournament
from tests.test_gateway_browser import CHROMIUM, Browser, card

MIN = 60_000


def adjust(game: dict[str, Any]) -> dict[str, Any]:
    return {
        "cmd": "adjust_clock",
        "game": "1.1",
        "side": "black",
        "delta_ms": MIN,
        "reason": "6.10 b: the clock was set a minute short",
        "arbiter": "chief",
        "at": now_at(),
    }


def penalty_with_time(game: dict[str, Any]) -> dict[str, Any]:
    return {
        "cmd": "record_incident",
        "game": "1.1",
        "player": game["white"],
        "kind": "disturbance",
        "arbiter": "chief",
        "at": now_at(),
        "details": "kept talking to his opponent",
        "penalty": {"kind": "time_added", "ms": 2 * MIN},
    }


def incident_time(game: dict[str, Any]) -> dict[str, Any]:
    return {
        "cmd": "record_incident",
        "game": "1.1",
        "player": game["black"],
        "kind": "disturbance",
        "arbiter": "chief",
        "at": now_at(),
        "details": "tapped the table while his opponent thought",
        "penalty": {"kind": "time_deducted", "side": "black", "ms": 5 * MIN},
    }


def illegal_move(game: dict[str, Any]) -> dict[str, Any]:
    return {
        "cmd": "record_illegal_move",
        "game": "1.1",
        "by": "white",
        "arbiter": "chief",
        "at": now_at(),
    }


def correction(game: dict[str, Any]) -> dict[str, Any]:
    return {
        "cmd": "correct_moves",
        "game": "1.1",
        "arbiter": "chief",
        "reason": "the clocks were set after a board misread",
        "at": now_at(),
        "from_ply": 0,
        "moves": ["e4"],
        "black_ms": 110 * MIN,
    }


COMMANDS = {
    "6_10_b_adjust_clock": adjust,
    "13_4_b_penalty_with_time": penalty_with_time,
    "13_4_c_incident_time": incident_time,
    "7_4_b_illegal_move": illegal_move,
    "7_4_a_6_13_correction": correction,
}


@pytest.fixture
def running_black(sqlite_store: Store) -> Store:
    """Game 1.1 started 100 s ago; White played e4 90 s ago: Black's clock runs."""
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": now_at(-100)})
    ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": now_at(-90)})
    return sqlite_store


def counted_down(clock: dict[str, Any], side: str, at_ms: int) -> int:
    """What a client shows for ``side`` at ``at_ms`` from the clock object it received."""
    left = int(clock[f"{side}_ms"])
    if clock.get("running") == side:
        left -= at_ms - parse_instant(clock["at"], "at")
    return max(0, left)


def engine_ms(store: Store, side: str, at_ms: int) -> int:
    """The engine's own clock at ``at_ms`` (``candidates game ID --at``)."""
    return int(game_object(store.reads, "1.1", at_ms=at_ms)["clock"][f"{side}_ms"])


def api_clock(gw: RunningGateway) -> dict[str, Any]:
    with urllib.request.urlopen(gw.http + "/api/games/1.1", timeout=5) as answer:
        return dict(json.load(answer)["clock"])


def page_seconds(text: str) -> int:
    parts = [int(p) for p in re.findall(r"\d+", text)]
    seconds = 0
    for part in parts:
        seconds = seconds * 60 + part
    return seconds


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make browser)")
@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_clock_after_a_clock_changing_command_counts_down_right_everywhere(
    running_black: Store, name: str
) -> None:
    store = running_black
    game = game_object(store.reads, "1.1")
    with RunningGateway(store.url, public_delay_s=0) as gw, Peer(gw) as peer:
        peer.subscribe()
        peer.next("snapshot")
        browser = Browser(gw.http + "/")
        try:
            black = card("1.1", ".clock[data-side=black]")
            browser.wait_for(f"{black}?.classList.contains('running')")
            command = COMMANDS[name](game)
            events = ok(store, command)
            changed = parse_instant(command["at"], "at")
            kinds = {e["type"] for e in events}
            assert kinds & {"ClockAdjusted", "MovesCorrected"}, kinds

            # the frame: its clock states the instant its values hold
            frame = peer.next(
                lambda f: (
                    f.get("op") == "delta"
                    and f.get("game") == "1.1"
                    and (f.get("object") or {}).get("clock", {}).get("at") == command["at"]
                )
            )
            clock = frame["object"]["clock"]
            later = changed + 7_000
            for side in ("white", "black"):
                assert counted_down(clock, side, later) == engine_ms(store, side, later)

            # the API: the same object
            api = api_clock(gw)
            assert api["at"] == command["at"]
            assert counted_down(api, "black", later) == engine_ms(store, "black", later)

            # the page: between the engine's clock just before and just after reading it
            expected = engine_ms(store, "black", changed)
            browser.wait_for(
                f"Math.abs(({black}.textContent.match(/\\d+/g) || []).reduce((s, p) => "
                f"s * 60 + Number(p), 0) - {expected // 1000}) < 30"
            )
            before = engine_ms(store, "black", time.time_ns() // 1_000_000)
            shown = page_seconds(browser.js(f"{black}.textContent"))
            after = engine_ms(store, "black", time.time_ns() // 1_000_000)
            assert math.floor(after / 1000) - 2 <= shown <= math.ceil(before / 1000) + 2, (
                shown,
                before,
                after,
            )
        finally:
            browser.close()
