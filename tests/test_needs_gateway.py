"""What each player needs, live (3.7, 3.7.1): the ``needs`` frame, ``/api/needs``, the page.

A four-player double round robin after round 5 (a, b and c beat d and draw among
themselves): round 6 decides first place among three. The gateway sends the needs
object, answers it over HTTP, narrows it when a round-6 result comes, and the page
shows a bar per player and the words; a screenshot is kept under ``test-output/``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.request
from typing import Any

import pytest

from adapters.gateway.hub import Channel
from adapters.gateway.needs_feed import NeedsFeed, NeedsService
from adapters.store import Store
from adapters.store.queries import needs_inputs
from tests.gateway_support import COMMENTATOR_TOKEN, Peer, RunningGateway
from tests.test_gateway_browser import CHROMIUM, OUTPUT, Browser
from tests.tournament_helpers import by_pair, event, finish, play_rounds

BEAT_D = by_pair({("a", "d"): ["1", "1"], ("b", "d"): ["1", "1"], ("c", "d"): ["1", "1"]})


@pytest.fixture
def before_round_6(sqlite_store: Store) -> Store:
    event(sqlite_store, ["a", "b", "c", "d"])
    play_rounds(sqlite_store, BEAT_D, range(1, 6))
    return sqlite_store


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)


def test_3_7_1_the_needs_frame_and_api_follow_a_result(before_round_6: Store) -> None:
    with (
        RunningGateway(before_round_6.url, public_delay_s=0) as gw,
        Peer(gw, json_text=True) as peer,
    ):
        peer.subscribe(token=COMMENTATOR_TOKEN, needs=True)
        peer.next("snapshot")
        needs = peer.next(lambda f: f.get("op") == "needs" and f["needs"] is not None)["needs"]
        assert needs["method"]["scenarios"] == 9
        assert needs["players"]["b"]["needs"] == (
            "B cannot finish first outright but reaches a playoff with a win if A draws"
        )
        api = get(gw.http + "/api/needs?token=" + COMMENTATOR_TOKEN)
        assert api["players"] == needs["players"] and len(api["scenarios"]) == 9
        assert get(gw.http + "/api/needs?tournament=t") == api  # the public: no delay here

        finish(before_round_6, "6.1", "0-1")  # b beats d: 4 points
        frame = peer.next("needs")
        assert frame["tournament"] == "t"
        narrowed = frame["needs"]
        assert len(narrowed["scenarios"]) == 3 and [g["game"] for g in narrowed["games"]] == ["6.2"]
        assert narrowed["players"]["b"]["needs"] == (
            "B cannot finish first outright but reaches a playoff if A draws"
        )
        assert narrowed["players"]["a"]["needs"] == (
            "A finishes first with a win; at least a playoff with a win or a draw"
        )
    with RunningGateway(before_round_6.url, public_delay_s=0) as gw:
        deadline = time.monotonic() + 10
        while (found := get(gw.http + "/api/needs")) is None and time.monotonic() < deadline:
            time.sleep(0.05)  # computed in its own thread after the start
        assert found is not None and len(found["scenarios"]) == 3


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make browser)")
def test_3_7_the_page_shows_a_bar_per_player_and_the_words(before_round_6: Store) -> None:
    with RunningGateway(before_round_6.url, public_delay_s=0) as gw:
        browser = Browser(gw.http + "/")
        try:
            bars = browser.wait_for("document.querySelectorAll('#needs .need').length")
            assert bars == 4
            words = browser.wait_for("document.querySelector('#needs .needs-words').textContent")
            b_needs = "B cannot finish first outright but reaches a playoff with a win if A draws"
            assert b_needs in words
            width = browser.js(
                "document.querySelector('#needs .need[data-player=d] .fill').style.width"
            )
            assert width == "0%"
            finish(before_round_6, "6.1", "0-1")
            browser.wait_for(
                "document.querySelector('#needs .needs-words').textContent"
                ".includes('B cannot finish first outright but reaches a playoff if A draws')"
            )
            assert browser.js("document.querySelector('#needs p').textContent") == (
                "1 game to play (round 6): every combination of their results (3)."
            )
            browser.js("document.getElementById('needs').scrollIntoView()")
            browser.screenshot(OUTPUT / "needs-panel.png")
            assert (OUTPUT / "needs-panel.png").stat().st_size > 10_000
        finally:
            browser.close()


def test_3_7_an_analysis_of_a_game_in_progress_reweighs_the_chances(
    before_round_6: Store,
) -> None:
    """The plain input an analysis service feeds: game -> win/draw/loss."""
    feed = NeedsFeed()
    by_ratings = feed.compute("t", needs_inputs(before_round_6.reads))
    table = feed.tables["t"]
    feed.set_wdl("t", {"6.1": [0, 0, 1], "9.9": [1, 0, 0]})  # d-b: b wins; 9.9 is no game
    analysed = feed.compute("t", feed.inputs["t"])
    assert feed.tables["t"].outcomes == table.outcomes  # the scenarios are not scored again
    sources = {g["game"]: g["source"] for g in analysed["games"]}
    assert sources == {"6.1": "analysis", "6.2": "ratings"}
    assert analysed["players"]["b"]["chance"] > by_ratings["players"]["b"]["chance"]
    assert analysed["players"]["d"]["chance"] == 0


def test_3_7_needs_frames_go_to_the_subscribers_that_ask_and_follow_a_resume(
    before_round_6: Store,
) -> None:
    with (
        RunningGateway(before_round_6.url, public_delay_s=0) as gw,
        Peer(gw) as plain,
        Peer(gw) as asking,
    ):
        plain.subscribe()
        asking.subscribe(needs=True)
        since = plain.next("snapshot")["seq"]
        asking.next(lambda f: f.get("op") == "needs" and f["needs"] is not None)
        finish(before_round_6, "6.1", "0-1")
        assert len(asking.next("needs")["needs"]["scenarios"]) == 3
        plain.next(lambda f: f.get("kind") == "ResultRecorded")
        assert not any(f.get("op") == "needs" for f in [*plain.frames, *plain.quiet(0.3)])
        with Peer(gw) as back:  # a resume: the deltas missed, then the needs as they stand
            back.subscribe(since=since, needs=True)
            assert back.next("subscribed")["resumed"] is True
            back.next(lambda f: f.get("kind") == "ResultRecorded")
            assert len(back.next("needs")["needs"]["scenarios"]) == 3
        with Peer(gw) as wrong:
            wrong.send({"op": "subscribe", "games": "*", "needs": "yes"}, valid=False)
            error = wrong.next("error")
            assert error["code"] == "malformed_frame" and "'needs'" in error["message"]


def test_3_7_changes_that_come_while_the_needs_are_computed_leave_only_the_newest(
    before_round_6: Store,
) -> None:
    """At a replay's speed every result changes the standings: the gateway computes the
    newest inputs once the computation under way is done, never a queue of every change."""
    inputs = [needs_inputs(before_round_6.reads, r) for r in (3, 4, 5)]

    async def scenario() -> tuple[int, Any, int, Any]:
        service = NeedsService()
        channel = Channel("live", 0)
        try:
            for given in inputs:  # three changes before the computation starts
                service.later(channel, {"t": given})
            while service.tasks:
                await asyncio.gather(*service.tasks)
            first = (service.computed, channel.needs["t"]["after_round"])
            hold = threading.Event()
            service.pool.submit(hold.wait)  # the needs' thread busy with an earlier one
            service.later(channel, {"t": inputs[0]})
            await asyncio.sleep(0)  # its computation waits for the thread
            service.later(channel, {"t": inputs[1]})
            service.later(channel, {"t": inputs[2]})
            hold.set()
            while service.tasks:
                await asyncio.gather(*service.tasks)
            return (*first, service.computed, channel.needs["t"]["after_round"])
        finally:
            service.close()

    computed, after, again, newest = asyncio.run(scenario())
    assert (computed, after) == (1, 5)  # one computation, of the newest inputs
    assert (again, newest) == (3, 5)  # the one under way, then the newest of the two after
