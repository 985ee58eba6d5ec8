"""The gateway's stream on loopback: snapshot, deltas, resume, encodings, delay, slow clients.

Real ``websockets`` clients against the real server following a real store
(SQLite, and PostgreSQL when ``CANDIDATES_TEST_PG`` is set).
"""

from __future__ import annotations

import threading
import time

import pytest

from adapters.gateway.hub import Limits
from adapters.store import Store
from adapters.store.queries import game_object, standings_object
from engine.events import AlertRaised
from engine.timefmt import format_instant, parse_instant
from tests.gateway_support import (
    ARBITER_TOKEN,
    COMMENTATOR_TOKEN,
    Peer,
    RunningGateway,
    StalledReader,
    dump,
    now_at,
)
from tests.helpers import T0_MS, at, ok, paired_tournament, play


@pytest.fixture
def started(store: Store) -> Store:
    """The 2013 field paired, game 1.1 started."""
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    return store


@pytest.fixture
def live(store: Store) -> Store:
    """The 2013 field paired, game 1.1 started a minute ago: moves are made in real time."""
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": now_at(-60)})
    return store


class TestSnapshotAndDeltas:
    def test_snapshot_names_the_sequence_number_its_objects_are_valid_at(
        self, started: Store
    ) -> None:
        play(started, "1.1", "d4 Nf6")
        with RunningGateway(started.url) as gw, Peer(gw) as peer:
            peer.subscribe()
            hello = peer.next("subscribed")
            snap = peer.next("snapshot")
            assert hello["seq"] == snap["seq"] == started.last_seq()
            games = {g["game"]: g for g in snap["games"]}
            assert dump(games["1.1"]) == dump(game_object(started.reads, "1.1"))
            assert games["1.1"]["moves"] == ["d4", "Nf6"]
            # every paired game of the 14 rounds is in the snapshot, not started yet
            assert len(games) == 56 and games["14.4"]["status"] == "not_started"

    def test_every_later_change_is_a_delta_with_its_sequence_number(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as peer:
            peer.subscribe()
            seq = peer.next("snapshot")["seq"]
            ok(started, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(5)})
            delta = peer.next("delta")
            assert delta["seq"] == seq + 1 == started.last_seq()
            assert delta["kind"] == "MovePlayed" and delta["game"] == "1.1"
            assert delta["event"]["san"] == "e4" and delta["event"]["at"] == at(5)
            assert delta["object"]["moves"] == ["e4"]
            assert delta["object"]["fen"] == game_object(started.reads, "1.1")["fen"]

    def test_a_game_ending_carries_the_result_in_its_object(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as peer:
            peer.subscribe()
            peer.next("snapshot")
            play(started, "1.1", "f3 e5 g4 Qh4")  # fool's mate: 5.1 a, the game ends at once
            result = peer.next(lambda f: f.get("kind") == "ResultRecorded")
            assert result["object"]["result"] == "0-1"
            assert result["object"]["termination"] == "checkmate"
            assert result["object"]["status"] == "finished"

    def test_a_subscription_to_some_games_gets_only_their_deltas(self, started: Store) -> None:
        ok(started, {"cmd": "start_game", "game": "1.2", "at": at(0)})
        with RunningGateway(started.url) as gw, Peer(gw) as peer:
            peer.send({"op": "subscribe", "games": ["1.2"]})
            snap = peer.next("snapshot")
            assert [g["game"] for g in snap["games"]] == ["1.2"]
            play(started, "1.1", "e4")
            play(started, "1.2", "c4")
            delta = peer.next("delta")
            assert delta["game"] == "1.2" and delta["event"]["san"] == "c4"


class TestEncodings:
    def test_msgpack_binary_frames_by_default(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as peer:
            assert peer.ws.subprotocol is None
            peer.subscribe()
            peer.next("snapshot")
            assert all(isinstance(m, bytes) for m in peer.raw)

    def test_json_text_frames_with_the_json_subprotocol(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw, json_text=True) as peer:
            assert peer.ws.subprotocol == "json"
            peer.subscribe()
            snap = peer.next("snapshot")
            play(started, "1.1", "e4")
            delta = peer.next("delta")
            assert all(isinstance(m, str) for m in peer.raw)
            assert delta["seq"] == snap["seq"] + 1 and delta["object"]["moves"] == ["e4"]

    def test_both_encodings_carry_the_same_frames(self, started: Store) -> None:
        with (
            RunningGateway(started.url) as gw,
            Peer(gw) as packed,
            Peer(gw, json_text=True) as text,
        ):
            packed.subscribe()
            text.subscribe()
            a, b = packed.next("snapshot"), text.next("snapshot")
            assert dump({**a, "now": None}) == dump({**b, "now": None})
            play(started, "1.1", "e4")
            assert dump(packed.next("delta")) == dump(text.next("delta"))


class TestResume:
    def test_since_gets_exactly_what_was_missed_without_gap_or_duplicate(
        self, started: Store
    ) -> None:
        with RunningGateway(started.url) as gw:
            with Peer(gw) as watcher, Peer(gw) as leaver:
                watcher.subscribe()
                leaver.subscribe()
                watcher.next("snapshot")
                play(started, "1.1", "e4")
                last_seen = leaver.next("delta")["seq"]
                watcher.next("delta")
            # the leaver is away while three moves and a resignation are stored
            with Peer(gw) as watcher2:
                watcher2.subscribe(since=last_seen)
                play(started, "1.1", "e5 Nf3 Nc6", start_s=20)
                ok(started, {"cmd": "resign", "game": "1.1", "by": "black", "at": at(60)})
                missed = [
                    seq
                    for seq, _ in started.cache.events_since(last_seen)
                    if seq <= started.last_seq()
                ]
                watched = [watcher2.next("delta")["seq"] for _ in missed]
            with Peer(gw) as back:
                back.subscribe(since=last_seen)
                hello = back.next("subscribed")
                assert hello["resumed"] is True
                got = [back.next("delta") for _ in missed]
                assert [d["seq"] for d in got] == missed == watched
                assert back.quiet(0.3) == []  # no duplicate, and no snapshot
                assert got[-1]["object"]["result"] == "1-0"
                assert dump(got[-1]["object"]) == dump(game_object(started.reads, "1.1"))

    def test_since_that_is_current_sends_nothing_but_new_deltas(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as peer:
            peer.subscribe(since=started.last_seq())
            assert peer.next("subscribed")["resumed"] is True
            play(started, "1.1", "e4")
            assert peer.next(lambda f: f["op"] != "subscribed")["op"] == "delta"

    def test_since_too_old_gets_a_fresh_snapshot(self, started: Store) -> None:
        play(started, "1.1", "e4 e5 Nf3 Nc6")
        with RunningGateway(started.url, resume_limit=2) as gw, Peer(gw) as peer:
            peer.subscribe(since=started.last_seq() - 3)
            assert peer.next("subscribed")["resumed"] is False
            snap = peer.next(lambda f: f["op"] != "subscribed")
            assert snap["op"] == "snapshot" and snap["seq"] == started.last_seq()

    def test_since_ahead_of_the_store_gets_a_fresh_snapshot(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as peer:
            peer.subscribe(since=started.last_seq() + 100)
            assert peer.next("snapshot")["seq"] == started.last_seq()


class TestSeveralGateways:
    def test_a_second_gateway_process_sees_what_the_first_was_told(self, started: Store) -> None:
        with (
            RunningGateway(started.url) as a,
            RunningGateway(started.url) as b,
            Peer(a) as arbiter,
            Peer(b) as viewer,
        ):
            arbiter.subscribe(token=ARBITER_TOKEN)
            viewer.subscribe(token=COMMENTATOR_TOKEN)
            arbiter.next("snapshot")
            viewer.next("snapshot")
            move = {"cmd": "play_move", "game": "1.1", "move": "Nf3", "at": at(3)}
            arbiter.send({"op": "command", "id": "c1", "command": move})
            assert arbiter.next("result")["ok"] is True
            assert viewer.next("delta")["event"]["san"] == "Nf3"


class TestPublicDelay:
    """Fair play: a public client never receives a move before the delay has passed."""

    def test_public_client_receives_nothing_early(self, live: Store) -> None:
        delay = 1.5
        with (
            RunningGateway(live.url, public_delay_s=delay) as gw,
            Peer(gw) as public,
            Peer(gw) as studio,
        ):
            studio.subscribe(token=COMMENTATOR_TOKEN)
            studio.next("snapshot")
            public.subscribe()
            hello = public.next("subscribed")
            assert hello["delay_ms"] == 1500 and hello["role"] == "public"
            snap = public.next("snapshot")
            assert snap["delay_ms"] == 1500
            stored = time.monotonic()  # before the move is made: nothing may come early
            ok(live, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": now_at()})
            studio.next("delta", timeout=30)  # the live feed has it at once
            # every frame until the move's instant plus the delay (from before the move was
            # made: on a busy machine the studio's delta may take much of it)
            early = public.quiet(max(0.0, stored + delay - 0.2 - time.monotonic()))
            assert [f for f in early if f.get("op") == "delta"] == []
            delta = public.next("delta", timeout=3.0)
            assert time.monotonic() - stored >= delay
            assert delta["object"]["moves"] == ["e4"]

    def test_public_snapshot_does_not_show_a_move_within_its_delay(self, live: Store) -> None:
        with RunningGateway(live.url, public_delay_s=2.0) as gw:
            with Peer(gw) as first:
                first.subscribe()
                before = first.next("snapshot")
            ok(live, {"cmd": "play_move", "game": "1.1", "move": "d4", "at": now_at()})
            time.sleep(0.3)
            with Peer(gw) as late:
                late.subscribe()
                snap = late.next("snapshot")
                game = next(g for g in snap["games"] if g["game"] == "1.1")
                assert game["moves"] == [] and snap["seq"] == before["seq"]

    def test_a_gateway_started_after_a_move_shows_the_past_at_once_and_holds_the_move(
        self, live: Store
    ) -> None:
        at_ms = time.time_ns() // 1_000_000  # the move's own instant: the bounds' origin
        ok(live, {"cmd": "play_move", "game": "1.1", "move": "c4", "at": format_instant(at_ms)})
        with RunningGateway(live.url, public_delay_s=1.0) as gw, Peer(gw) as public:
            public.subscribe()
            assert public.next("subscribed")["role"] == "public"
            snap = public.next("snapshot", timeout=30)  # the view at now - delay, at once
            game = next(g for g in snap["games"] if g["game"] == "1.1")
            assert game["status"] == "in_progress"
            if parse_instant(snap["now"], "now") < at_ms:  # the view is from before the move
                assert game["moves"] == []
                delta = public.next("delta", timeout=30)
                assert time.time_ns() // 1_000_000 >= at_ms + 1000  # released after its delay
                assert delta["object"]["moves"] == ["c4"]
            else:  # a machine so slow the delay had passed: the move is public already
                assert game["moves"] == ["c4"]

    def test_a_public_resume_gets_nothing_that_is_still_within_the_delay(self, live: Store) -> None:
        with RunningGateway(live.url, public_delay_s=1.0) as gw:
            with Peer(gw) as public:
                public.subscribe()
                since = public.next("snapshot")["seq"]
            at_ms = time.time_ns() // 1_000_000
            ok(live, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": format_instant(at_ms)})
            with Peer(gw) as back:
                back.subscribe(since=since)
                hello = back.next("subscribed")
                # the public view is released by the events' instants, not in the store's
                # order: a public client that comes back gets the view afresh
                assert hello["resumed"] is False and hello["seq"] == since
                snap = back.next("snapshot", timeout=30)
                game = next(g for g in snap["games"] if g["game"] == "1.1")
                if parse_instant(snap["now"], "now") < at_ms:  # nothing public yet
                    assert game["moves"] == []
                    delta = back.next("delta", timeout=30)
                    assert time.time_ns() // 1_000_000 >= at_ms + 1000
                    assert delta["seq"] == since + 1 and delta["object"]["moves"] == ["e4"]
                else:  # released already (a slow machine): in the snapshot
                    assert game["moves"] == ["e4"]

    def test_moves_of_long_ago_are_public_at_once(self, started: Store) -> None:
        play(started, "1.1", "e4 e5")  # 2013: long past its delay
        with RunningGateway(started.url, public_delay_s=60) as gw, Peer(gw) as public:
            public.subscribe()
            snap = public.next("snapshot", timeout=2.0)
            game = next(g for g in snap["games"] if g["game"] == "1.1")
            assert game["moves"] == ["e4", "e5"]


class TestSlowClients:
    """Per-client bounded queues: the hub never waits for a socket."""

    @pytest.mark.parametrize("max_resets", [0, 1000])
    def test_a_slow_client_does_not_delay_a_fast_one(self, started: Store, max_resets: int) -> None:
        limits = Limits(
            max_pending=100, max_resets=max_resets, send_timeout_s=30, socket_send_buffer=16384
        )
        with RunningGateway(started.url, limits=limits) as gw:
            subscribe = {"op": "subscribe", "games": "*", "token": ARBITER_TOKEN}
            slow = StalledReader(gw, subscribe)
            with Peer(gw) as fast:
                fast.send(subscribe)
                fast.next("snapshot")

                # 150 alerts of 8 kB each: far more than the stalled reader takes in
                def board_writes() -> None:
                    for n in range(1, 151):
                        started.append([board_alert(n, "x" * 8000)])
                        time.sleep(0.002)

                writer = threading.Thread(target=board_writes)
                stored = time.monotonic()
                writer.start()
                alerts = [fast.next("alert") for _ in range(150)]
                writer.join()
                assert [a["details"]["n"] for a in alerts] == list(range(1, 151))
                assert time.monotonic() - stored < 10
                frames, code, reason = slow.drain(timeout=3.0)
                if max_resets == 0:
                    # dropped at once, told why
                    assert (code, reason[:8]) == (1013, "too slow")
                    assert gw_clients(gw) == 1
                else:
                    # it missed frames, and got a fresh snapshot instead of them
                    ops = [f["op"] for f in frames]
                    assert code is None and ops.count("snapshot") >= 2, ops
                    got = [f["details"]["n"] for f in frames if f["op"] == "alert"]
                    assert got != list(range(1, 151)) and got == sorted(got)
            slow.close()

    def test_a_client_that_falls_behind_gets_a_fresh_snapshot(self, started: Store) -> None:
        from adapters.gateway.frames import Frame
        from adapters.gateway.hub import Client
        from adapters.gateway.tokens import ANONYMOUS

        class Socket:  # the writer is not started: only the queue's policy is checked
            remote_address = ("127.0.0.1", 0)

        client = Client(Socket(), "msgpack", Limits(max_pending=3, max_resets=5), ANONYMOUS)
        client.offer([Frame({"op": "delta", "seq": s}, s, "1.1") for s in range(1, 5)])
        assert not client.needs_snapshot  # one tick's burst, sent as one message
        client.offer([Frame({"op": "delta", "seq": 5}, 5, "1.1")])
        assert client.needs_snapshot and not client.queue and client.resets == 1
        assert client.closing is None


def board_alert(n: int, text: str) -> AlertRaised:
    return AlertRaised(
        originator_id="alerts/board-1",
        originator_version=n,
        at_ms=T0_MS + n,
        by="dgt:test",
        game="1.1",
        kind="board_disconnected",
        message=f"board 1 sent nothing ({n})",
        details={"n": n, "log": text},
    )


def gw_clients(gw: RunningGateway, wait_s: float = 5.0) -> int:
    """The number of connections the gateway holds, once it settled."""
    import json
    import urllib.request

    deadline = time.monotonic() + wait_s
    while True:
        with urllib.request.urlopen(f"{gw.http}/status") as answer:
            count = json.load(answer)["clients"]
        if count <= 1 or time.monotonic() > deadline:
            return int(count)
        time.sleep(0.1)


class TestStandings:
    """Standings ride on the delta that changed them (3.7: the tie-break columns)."""

    def test_a_result_sends_the_new_standings_to_every_subscriber(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as peer:
            peer.send({"op": "subscribe", "games": ["1.2"]})  # another game
            snap = peer.next("snapshot")
            assert snap["standings"] == standings_object(started.reads)
            ok(started, {"cmd": "resign", "game": "1.1", "by": "black", "at": at(30)})
            delta = peer.next(lambda f: "standings" in f)
            assert delta["game"] == "1.1" and delta["kind"] == "ResultRecorded"
            assert dump(delta["standings"]) == dump(standings_object(started.reads))


class TestClockReadings:
    """Clocks are not sent every second: readings that agree with the countdown stay quiet."""

    def test_only_a_reading_with_news_is_pushed(self, started: Store) -> None:
        t0 = T0_MS
        with RunningGateway(started.url) as gw, Peer(gw) as peer:
            peer.subscribe()
            peer.next("snapshot")

            def reading(seconds: int, white_ms: int, running: str | None = "white") -> None:
                ok(
                    started,
                    {
                        "cmd": "clock_reading",
                        "game": "1.1",
                        "at": at(seconds),
                        "white_ms": white_ms,
                        "black_ms": 7_200_000,
                        "running": running,
                    },
                )

            start = 7_200_000
            reading(1, start - 1000)
            first = peer.next("delta")  # the first reading is news: no device clock before
            assert first["kind"] == "ClockReadingRecorded"
            reading(2, start - 2000)
            reading(3, start - 3000)
            assert [f for f in peer.quiet(0.4) if f["op"] == "delta"] == []
            reading(4, start - 4000, running=None)  # the clock was stopped
            stopped = peer.next("delta")
            assert stopped["object"]["clock"]["device"]["running"] is None
            assert t0 > 0


class TestTournamentEvents:
    """3.4.1: the drawing of lots pairs every game; subscribers get every new game object."""

    def test_drawing_of_lots_sends_the_paired_games(self, store: Store) -> None:
        from tests.helpers import ARBITERS, PLAYERS_2013

        ok(
            store,
            {
                "cmd": "create_tournament",
                "tournament": "london-2013",
                "name": "FIDE Candidates Tournament 2013",
                "start_date": "2013-03-13",
                "players": PLAYERS_2013,
                "arbiters": ARBITERS,
            },
        )
        with RunningGateway(store.url) as gw, Peer(gw) as peer:
            peer.send({"op": "subscribe", "games": ["1.1"]})
            assert peer.next("snapshot")["games"] == []
            numbers = {p["id"]: i for i, p in enumerate(PLAYERS_2013, start=1)}
            ok(store, {"cmd": "draw_lots", "tournament": "london-2013", "numbers": numbers})
            delta = peer.next("delta")
            assert delta["kind"] == "LotsDrawn" and delta["game"] is None
            games = {g["game"]: g for g in delta["games"]}
            assert len(games) == 56 and games["1.1"]["white"] == "aronian"
