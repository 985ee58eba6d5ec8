"""Followers on PostgreSQL wake on the store's ``NOTIFY`` instead of polling.

The gateway below reads the store on its own only every 120 s (``fallback_s``); a
move another process appends still reaches its viewers at once, so it was woken by
the notification of the append's commit. On SQLite the store's files are watched
instead (tests/test_file_wakeup.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from adapters.store import Store
from adapters.store.wakeup import ChangeListener, NotifyListener, listen_for_changes
from tests.conftest import PG_URL, _pg_schema_url
from tests.gateway_support import Peer, RunningGateway
from tests.helpers import at, ok, paired_tournament

pytestmark = pytest.mark.skipif(
    not PG_URL, reason="CANDIDATES_TEST_PG is not set: PostgreSQL tests skipped"
)


@pytest.fixture
def pg_url() -> Iterator[str]:
    yield from _pg_schema_url(PG_URL)


def test_a_listener_is_woken_by_another_process_commit(pg_url: str) -> None:
    with Store(pg_url) as follower, Store(pg_url) as writer:
        woken = threading.Semaphore(0)
        listener = listen_for_changes(follower, woken.release)
        assert isinstance(listener, NotifyListener) and isinstance(listener, ChangeListener)
        try:
            assert listener.listening.wait(10)
            assert woken.acquire(timeout=10)  # the wake-up after LISTEN (catch-up)
            paired_tournament(writer)  # two commands: two commits
            assert woken.acquire(timeout=10)
            assert listener.notifications >= 1
            assert follower.last_seq() == writer.last_seq()
        finally:
            listener.close()


def test_the_gateway_delivers_a_move_woken_by_notify_not_by_its_timer(pg_url: str) -> None:
    with Store(pg_url) as store:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        with RunningGateway(pg_url, fallback_s=120.0) as gw, Peer(gw) as viewer:
            viewer.subscribe()
            viewer.next("snapshot")
            with Store(pg_url) as other_process:
                ok(other_process, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(5)})
            delta = viewer.next("delta", timeout=15)  # far less than the 120 s timer
            assert delta["object"]["moves"] == ["e4"]
            assert delta["seq"] == store.last_seq()
