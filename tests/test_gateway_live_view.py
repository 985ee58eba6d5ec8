"""The public view as the past exactly, commands in order after their subscription, and the
arbiters' open alerts, on a real gateway over loopback websockets.

Fair play (FIDE): the public sees the games ``--public-delay-s`` late. The
public view is the state at ``now - delay`` by the events' own instants, so a
gateway that (re)starts shows it at once.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from adapters.gateway.reading import LogReading
from adapters.store import Store
from engine.timefmt import format_instant, parse_instant
from tests.gateway_support import (
    ARBITER_TOKEN,
    COMMENTATOR_TOKEN,
    Peer,
    RunningGateway,
    now_at,
)
from tests.helpers import ok, paired_tournament

DELAY_S = 30.0


@pytest.fixture
def live(sqlite_store: Store) -> Store:
    """Game 1.1 started two minutes ago; moves are dated in real time."""
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": now_at(-120)})
    return sqlite_store


def move(store: Store, san: str, offset_s: float, game: str = "1.1") -> None:
    ok(store, {"cmd": "play_move", "game": game, "move": san, "at": now_at(offset_s)})


def public_game(peer: Peer, game: str = "1.1") -> dict:
    snap = peer.next("snapshot", timeout=2.0)
    return next(g for g in snap["games"] if g["game"] == game)


class TestFairPlayDelayedPublicView:
    def test_a_public_client_right_after_a_restart_gets_the_state_at_now_minus_the_delay(
        self, live: Store
    ) -> None:
        move(live, "e4", -100)  # 100 s ago: older than the delay
        move(live, "e5", -90)
        move(live, "Nf3", -5)  # within the delay: not public yet
        for _start in range(2):  # a restart changes nothing of what the public sees
            with RunningGateway(live.url, public_delay_s=DELAY_S) as gw, Peer(gw) as public:
                public.subscribe()
                hello = public.next("subscribed", timeout=1.0)
                assert hello["role"] == "public" and hello["delay_ms"] == 30_000
                game = public_game(public)
                assert game["moves"] == ["e4", "e5"]
                assert game["status"] == "in_progress"

    def test_the_snapshot_says_how_far_behind_it_is(self, live: Store) -> None:
        with RunningGateway(live.url, public_delay_s=DELAY_S) as gw, Peer(gw) as public:
            asked = time.time()
            public.subscribe()
            snap = public.next("snapshot", timeout=2.0)
            answered = time.time()
            assert snap["delay_ms"] == 30_000
            # the gateway's "now" lies between the question and the answer, however slow
            assert asked - DELAY_S - 0.001 <= _epoch(snap["now"]) <= answered - DELAY_S + 0.001

    def test_an_event_appended_late_with_an_old_instant_is_shown_once_its_delay_has_passed(
        self, live: Store
    ) -> None:
        with (
            RunningGateway(live.url, public_delay_s=DELAY_S) as gw,
            Peer(gw) as public,
            Peer(gw) as studio,
        ):
            studio.subscribe(token=COMMENTATOR_TOKEN)
            studio.next("snapshot")
            public.subscribe()
            assert public_game(public)["moves"] == []
            move(live, "d4", -60)  # recorded late: it happened a minute ago
            delta = public.next("delta", timeout=2.0)
            assert delta["object"]["moves"] == ["d4"]
            move(live, "d5", -1)  # a second ago: the public waits 29 s more
            studio.next(lambda f: f.get("op") == "delta" and f["object"]["moves"] == ["d4", "d5"])
            assert [f for f in public.quiet(1.0) if f["op"] == "delta"] == []

    def test_a_move_within_the_delay_is_never_in_a_public_snapshot(self, live: Store) -> None:
        """Bounds from the move's own instant (taken before it is appended): a snapshot
        answered before ``at + delay`` never holds it, and a later one does."""
        delay_s = 1.0
        with RunningGateway(live.url, public_delay_s=delay_s) as gw:
            at_s = time.time()
            ok(live, {"cmd": "play_move", "game": "1.1", "move": "c4", "at": _instant(at_s)})
            released_s = at_s + delay_s
            while time.time() < released_s:
                with Peer(gw) as public:
                    public.subscribe()
                    game = public_game(public)
                    if time.time() < released_s:  # answered before the move's release
                        assert game["moves"] == []
            patience = time.monotonic() + 60  # the gateway follows the log: it may lag
            while True:
                with Peer(gw) as public:
                    public.subscribe()
                    shown = public_game(public)["moves"]
                if shown == ["c4"]:
                    break
                assert shown == [] and time.monotonic() < patience, shown
                time.sleep(0.05)


class TestCommandsFollowTheirSubscription:
    def test_subscribe_and_command_sent_back_to_back_are_never_refused(self, live: Store) -> None:
        with RunningGateway(live.url, public_delay_s=DELAY_S) as gw:
            for i in range(100):
                with Peer(gw) as desk:
                    # no waiting between the two frames: the command must act with the token
                    desk.subscribe(token=ARBITER_TOKEN)
                    desk.send(
                        {
                            "op": "command",
                            "id": f"c{i}",
                            "command": {
                                "cmd": "play_move",
                                "game": "1.1",
                                "move": "e4",
                                "at": now_at(0),
                            },
                        }
                    )
                    answer = desk.next(lambda f: f.get("op") in ("result", "error"))
                    assert answer["op"] == "result", answer  # decided by the engine
                    # the first one plays e4; later ones are Black's turn: an illegal move
                    assert answer["ok"] is (i == 0), answer
        assert live.reads.game("1.1").sans == ("e4",)

    def test_a_command_without_a_subscription_is_told_to_subscribe_first(self, live: Store) -> None:
        with RunningGateway(live.url) as gw, Peer(gw) as desk:
            before = live.cache.count()
            desk.send({"op": "command", "id": "x", "command": {"cmd": "resign"}})
            error = desk.next("error")
            assert (error["code"], error["id"]) == ("not_subscribed", "x")
            assert error["message"].startswith("subscribe first")
            assert live.cache.count() == before


class TestTheDeskHasTheWholePicture:
    def mismatch(self, store: Store) -> None:
        """White's clock shows 2 minutes less than the regulation clock."""
        ok(
            store,
            {
                "cmd": "clock_reading",
                "game": "1.1",
                "at": now_at(0),
                "white_ms": 7_200_000 - 120_000 - 120_000,
                "black_ms": 7_200_000,
                "running": "white",
            },
        )

    def test_an_arbiter_who_connects_after_a_restart_gets_the_open_clock_alert(
        self, live: Store
    ) -> None:
        self.mismatch(live)
        with (
            RunningGateway(live.url, public_delay_s=DELAY_S) as gw,
            Peer(gw) as desk,
            Peer(gw) as studio,
        ):
            desk.subscribe(token=ARBITER_TOKEN)
            desk.next("snapshot")
            alert = desk.next("alert")
            assert (alert["key"], alert["kind"]) == ("1.1/clock_mismatch:white", "clock_mismatch")
            assert alert["details"]["difference_ms"] < -100_000
            studio.subscribe(token=COMMENTATOR_TOKEN)
            studio.next("snapshot")
            assert [f for f in studio.quiet(0.3) if f["op"] == "alert"] == []

    def test_a_resolved_alert_is_closed_and_no_longer_sent(self, live: Store) -> None:
        self.mismatch(live)
        with RunningGateway(live.url, public_delay_s=DELAY_S) as gw, Peer(gw) as desk:
            desk.subscribe(token=ARBITER_TOKEN)
            desk.next("alert")
            now = now_at(0)
            regulation = live.reads.game("1.1").clock
            assert regulation is not None
            at_ms = parse_instant(now, "at")
            ok(
                live,
                {
                    "cmd": "clock_reading",
                    "game": "1.1",
                    "at": now,
                    "white_ms": regulation.remaining_ms("white", at_ms),
                    "black_ms": 7_200_000,
                    "running": "white",
                },
            )
            closed = desk.next(lambda f: f.get("op") == "alert" and f.get("closed"))
            assert closed["key"] == "1.1/clock_mismatch:white"
            with Peer(gw) as later:
                later.subscribe(token=ARBITER_TOKEN)
                later.next("snapshot")
                assert [f for f in later.quiet(0.3) if f["op"] == "alert"] == []

    def test_6_8_a_flag_alert_stays_open_on_the_desk_until_the_arbiter_rules(
        self, sqlite_store: Store
    ) -> None:
        paired_tournament(sqlite_store)
        ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": now_at(-7300)})
        ok(sqlite_store, {"cmd": "check_flags", "at": now_at(0)})  # White's 2 hours are gone
        with RunningGateway(sqlite_store.url, public_delay_s=DELAY_S) as gw, Peer(gw) as desk:
            desk.subscribe(token=ARBITER_TOKEN)  # a desk that (re)connects after the alert
            desk.next("snapshot")
            alert = desk.next("alert")
            assert (alert["key"], alert["kind"]) == ("1.1/flag_fall:white", "flag_fall")
            ruling = {
                "cmd": "rule_flag",
                "game": "1.1",
                "side": "white",
                "decision": "not_fallen",
                "reason": "the clock on the table showed 0:42",
                "arbiter": "chief",
                "at": now_at(0),
            }
            desk.send({"op": "command", "id": "r1", "command": ruling})
            assert desk.next("result")["ok"] is True
            closed = desk.next(lambda f: f.get("op") == "alert" and f.get("closed"))
            assert closed["key"] == "1.1/flag_fall:white"

    def test_a_resume_carries_the_open_alerts_too(self, live: Store) -> None:
        with RunningGateway(live.url) as gw:
            with Peer(gw) as desk:
                desk.subscribe(token=ARBITER_TOKEN)
                since = desk.next("snapshot")["seq"]
            self.mismatch(live)
            with Peer(gw) as back:
                back.subscribe(token=ARBITER_TOKEN, since=since)
                assert back.next("subscribed")["resumed"] is True
                first = back.next("alert")  # however long a busy machine takes to send it
                alerts = [first, *(f for f in back.quiet(0.5) if f["op"] == "alert")]
                assert [a["key"] for a in alerts] == ["1.1/clock_mismatch:white"]

    def test_an_alert_opened_while_a_resume_reads_the_store_reaches_it_once(
        self, live: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The resume's open alerts are those of its position: an alert opened while the
        missed events are read comes once, as the frame after it (it came twice when the
        resume took the alerts open at the end of its read)."""
        read = LogReading.read

        async def mismatch_during_the_read(reading: LogReading, fn: Any, *args: Any) -> Any:
            found = await read(reading, fn, *args)
            if getattr(fn, "__name__", "") == "events_between":
                await asyncio.get_running_loop().run_in_executor(None, self.mismatch, live)
                reading.notified()
                while not reading.alerts.now():  # the live channel folded it meanwhile
                    await asyncio.sleep(0.01)
            return found

        monkeypatch.setattr(LogReading, "read", mismatch_during_the_read)
        with RunningGateway(live.url) as gw:
            with Peer(gw) as desk:
                desk.subscribe(token=ARBITER_TOKEN)
                since = desk.next("snapshot")["seq"]
            move(live, "e4", 0)
            with Peer(gw) as back:
                back.subscribe(token=ARBITER_TOKEN, since=since)
                assert back.next("subscribed")["resumed"] is True
                start = back._read
                back.next("alert")  # however long a busy machine takes to send it
                back.quiet(0.5)  # and a second copy, were there one, has time to come
                frames = back.frames[start:]
                alerts = [f for f in frames if f["op"] == "alert"]
                assert [a["key"] for a in alerts] == ["1.1/clock_mismatch:white"]
                assert any(f["op"] == "delta" for f in frames)  # the missed move came too


def _epoch(instant: str) -> float:
    return parse_instant(instant, "now") / 1000


def _instant(epoch_s: float) -> str:
    return format_instant(int(epoch_s * 1000))
