"""A database outage in a gateway's journal: one line when it goes, one when it is back.

The fourth hardening pass killed the event's PostgreSQL under the gateways: their
journals showed chained tracebacks (``AdminShutdown``, ``OperationalError``) and
``saving kept state 'gateway' failed``, and never the runbook's ``reading the store
failed (...); retrying every 1 s`` nor a line when it worked again. Here the server
ends every connection of the gateway's database (``pg_terminate_backend``: the
``AdminShutdown`` of a restart) while the gateway follows it; its log then holds no
traceback, each activity that failed says so once, and once when it works again; and
a move played after the outage reaches its clients.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator

import pytest

from adapters.store import Store
from tests.conftest import PG_URL
from tests.gateway_support import Peer, RunningGateway
from tests.helpers import at, ok, paired_tournament

pytestmark = pytest.mark.skipif(PG_URL is None, reason="CANDIDATES_TEST_PG is not set")


@pytest.fixture
def own_database() -> Iterator[str]:
    """A database of its own on the test server, so that ending its connections touches
    no other test's."""
    import psycopg

    assert PG_URL is not None
    name = f"outage_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_URL, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    base, _, _ = PG_URL.rpartition("/")
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as connection:
            connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _end_connections(url: str) -> int:
    """End every connection to the database ``url`` names, as a server restart does."""
    import psycopg

    assert PG_URL is not None
    name = url.rpartition("/")[2]
    with psycopg.connect(PG_URL, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        ).fetchall()
    return len(rows)


def _each_failure_recovered(caplog: pytest.LogCaptureFixture) -> bool:
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    failed = {line.split(" failed (")[0] for line in lines if " failed (" in line}
    return all(any(x.startswith(what + " works again") for x in lines) for what in failed)


def test_an_outage_is_one_line_each_way_and_no_traceback(
    own_database: str, caplog: pytest.LogCaptureFixture
) -> None:
    with Store(own_database) as store:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    caplog.set_level(logging.WARNING)
    with RunningGateway(own_database) as gw:
        peer = Peer(gw, json_text=True)
        peer.subscribe()
        peer.next("snapshot")
        assert _end_connections(own_database) > 0
        time.sleep(1.5)  # the gateway's next reads meet the ended connections
        with Store(own_database) as store:
            ok(store, {"cmd": "play_move", "game": "1.1", "move": "d4", "at": at(5)})
        delta = peer.next(lambda f: f.get("op") == "delta" and "d4" in str(f), timeout=30)
        assert delta
        # every part that said it failed says it works again once it has tried again (its
        # own retry; a loaded machine may take a while): bounded, not timed
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _each_failure_recovered(caplog):
            time.sleep(0.2)
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert tracebacks == [], [r.getMessage() for r in tracebacks]
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    failed = [line for line in lines if " failed (" in line and "retrying" in line]
    again = [line for line in lines if "works again after" in line]
    assert failed, lines  # the listener's connection at least was ended
    for line in failed:
        what = line.split(" failed (")[0]
        assert sum(x.startswith(what + " failed") for x in failed) == 1, lines
        assert any(x.startswith(what + " works again") for x in again), lines
    assert "Traceback" not in caplog.text
