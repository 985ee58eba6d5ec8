"""``candidates serve`` never ends because the database went away: whatever it was doing
(opening the store, its first read, following the log, a flag check), it tries again
every second, resumes from the store once it answers, and says so once in its log.

The moments are made exactly, not waited for: the store's calls fail as a database
that went away makes them fail (``OperationalError``) a given number of times, then
work. One of them is the event-day drill's: the database killed between a flag
check's reading of the log and its look at the log's end (the look on two broken
connections gave up at once, the check's task raised and ``candidates serve`` exited).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from eventsourcing.persistence import OperationalError

from adapters.gateway import reading as gateway_reading
from adapters.gateway.follower import Follower
from adapters.gateway.server import Gateway
from adapters.host.clock import wall_clock_ms
from adapters.store import Store
from adapters.watch import flags
from engine.timefmt import format_instant
from tests.helpers import ok, paired_tournament

T = TypeVar("T")
S = 1000
WENT_AWAY = "server closed the connection unexpectedly"


def failing(times: int, call: Callable[..., T], fails: list[int]) -> Callable[..., T]:
    """``call``, failing as a database that went away the first ``times`` calls (each
    failure counted in ``fails``)."""

    def attempt(*args: Any, **kwargs: Any) -> T:
        if len(fails) < times:
            fails.append(1)
            raise OperationalError(f"{WENT_AWAY}\n\tThis probably means the server terminated")
        return call(*args, **kwargs)

    return attempt


def said(caplog: pytest.LogCaptureFixture, what: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(what)]


def test_6_8_the_flag_check_outlives_a_database_that_went_away_and_checks_the_flag_after(
    sqlite_store: Store, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    paired_tournament(sqlite_store)
    start_ms = wall_clock_ms() - 301 * S  # White's 5 minutes ran out during the outage
    game = {"cmd": "start_game", "game": "1.1", "at": format_instant(start_ms)}
    ok(sqlite_store, {**game, "time_control": "300+3"})
    fails: list[int] = []
    opened: list[Store] = []

    def open_store(url: str) -> Store:  # the database is down when the check starts
        store = Store(url)
        monkeypatch.setattr(
            store.writer.log, "last_id", failing(3, store.writer.log.last_id, fails)
        )
        opened.append(store)
        return store

    monkeypatch.setattr(flags, "Store", failing(1, open_store, fails))
    stop = asyncio.Event()
    tick = flags.FlagWatch.tick
    answers: list[dict[str, Any] | None] = []

    def tick_then_stop(watch: flags.FlagWatch) -> dict[str, Any] | None:
        answer = tick(watch)  # a failure raises here: the watch must carry on
        answers.append(answer)
        loop.call_soon_threadsafe(stop.set)
        return answer

    monkeypatch.setattr(flags.FlagWatch, "tick", tick_then_stop)
    caplog.set_level(logging.WARNING, logger=flags.__name__)
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(flags.watch_flags(sqlite_store.url, stop, 0, retry_s=0))
    finally:
        loop.close()

    # opened on the second try; its look at the log's end failed twice, mid-check
    assert len(fails) == 3 and len(opened) == 1
    [answer] = answers
    assert answer is not None and answer["ok"]
    [alert] = [e for e in answer["events"] if e.get("kind") == "flag_fall"]
    assert alert["game"] == "1.1"
    [failed] = said(caplog, "the flag check failed")
    assert WENT_AWAY in failed and "retrying every 0 s" in failed and "\n" not in failed
    assert said(caplog, "the flag check works again") == [
        "the flag check works again after 3 failed attempt(s)"
    ]


def test_a_gateway_whose_first_read_failed_reads_again_and_serves(
    sqlite_store: Store, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": format_instant(wall_clock_ms())})
    fails: list[int] = []
    starts: list[Follower] = []
    start = Follower.start

    def start_counted(follower: Follower, *args: Any) -> Any:
        starts.append(follower)
        return start(follower, *args)

    # the database went away while the gateway was catching up from its kept state
    monkeypatch.setattr(Follower, "start", failing(2, start_counted, fails))
    closed: list[Store] = []
    close = Store.close

    def close_counted(store: Store) -> None:
        closed.append(store)
        close(store)

    monkeypatch.setattr(Store, "close", close_counted)
    caplog.set_level(logging.WARNING, logger=gateway_reading.__name__)
    gateway = Gateway(sqlite_store.url, public_delay_s=2)
    gateway.reading.retry_s = 0
    served: list[int] = []

    async def run() -> None:
        stop = asyncio.Event()

        def ready(server: Any) -> None:
            served.append(gateway.live.seq)
            stop.set()

        await gateway.run("127.0.0.1", 0, stop, ready)

    asyncio.run(run())

    assert served == [sqlite_store.last_seq()]  # it served, from the store's position
    assert len(fails) == 2 and starts  # the live start (and the public copy's) after them
    assert gateway.public.seq >= 0 and gateway.public.opened.is_set()
    # the stores of the two failed reads were closed (with the last one's, at the stop)
    assert len(closed) >= 3
    [failed] = said(caplog, "reading the store failed")
    assert WENT_AWAY in failed and "retrying every 0 s" in failed  # the interval it waits
    assert said(caplog, "reading the store works again") == [
        "reading the store works again after 2 failed attempt(s)"
    ]


def test_a_gateway_following_the_log_reads_again_and_misses_nothing(
    sqlite_store: Store, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": format_instant(wall_clock_ms())})
    caplog.set_level(logging.WARNING, logger=gateway_reading.__name__)
    gateway = Gateway(sqlite_store.url, public_delay_s=0)
    gateway.reading.retry_s = 0
    fails: list[int] = []

    async def run() -> int:
        stop = asyncio.Event()
        await gateway.open()
        assert gateway.reading.follower is not None
        follower = gateway.reading.follower
        monkeypatch.setattr(follower, "poll", failing(4, follower.poll, fails))
        for move in ("e4", "e5", "Nf3"):  # appended while the store cannot be read
            ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": move,
                              "at": format_instant(wall_clock_ms())})  # fmt: skip
        target = sqlite_store.last_seq()
        following = asyncio.create_task(gateway.reading.follow(stop))
        while gateway.live.seq < target and not following.done():
            gateway.reading.notified()
            await asyncio.sleep(0.01)
        stop.set()
        await following  # never raised
        await gateway.close()
        return target

    target = asyncio.run(run())
    assert len(fails) == 4
    assert gateway.live.seq == target
    assert gateway.live.games["1.1"]["moves"][-3:] == ["e4", "e5", "Nf3"]
    assert len(said(caplog, "reading the store failed")) == 1
    assert said(caplog, "reading the store works again") == [
        "reading the store works again after 4 failed attempt(s)"
    ]
