"""Several gateway processes serve one PostgreSQL store; a client of one that dies
resumes on another with ``since``: nothing lost, nothing doubled, the same sequence.

Two real ``candidates serve`` processes on their own ports; one is killed (SIGKILL)
while moves are being made by a third process. Sequence numbers are the store's, so
every gateway names every event the same way.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.sync.client import connect

from adapters.gateway.frames import JSON, decode, encode
from adapters.store import Store
from engine.events import MovePlayed
from tests.conftest import PG_URL, _pg_schema_url
from tests.helpers import at, ok, paired_tournament

pytestmark = pytest.mark.skipif(
    not PG_URL, reason="CANDIDATES_TEST_PG is not set: PostgreSQL tests skipped"
)

OPENING = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7"
MIDDLE = "c4 c6 cxb5 axb5 Nc3 Bb7 Bg5 b4 Nb1 h6 Bh4 c5 dxe5 Nxe4 Bxe7 Qxe7 exd6 Qf6 Nbd2 Nxd6"
MOVES = [*OPENING.split(), *MIDDLE.split()]


@pytest.fixture
def pg_url() -> Iterator[str]:
    yield from _pg_schema_url(PG_URL)


class Gateway:
    """``candidates serve`` in its own process, on a free port."""

    def __init__(self, store: str) -> None:
        self.proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "adapters.cli", "--store", store, "serve"),
                *("--port", "0", "--public-delay-s", "0", "--flag-check", "0"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        match = re.search(r":(\d+)/ \(websocket", line)
        assert match, line
        self.url = f"ws://127.0.0.1:{match.group(1)}/ws"

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


class Viewer(threading.Thread):
    """A client that reads frames, remembers the last ``seq`` and, when its gateway
    dies, subscribes on the next one with ``since``."""

    def __init__(self, urls: list[str]) -> None:
        super().__init__(daemon=True)
        self.urls = urls
        self.moves: list[int] = []
        """The sequence numbers of the moves received, in order of arrival."""
        self.last_seq = 0
        self.resumed: list[dict[str, Any]] = []
        self.done = threading.Event()
        self.target = 0

    def run(self) -> None:
        for n, url in enumerate(self.urls):
            try:
                # no keepalive: a killed gateway closes the socket, and a ping into it
                # would only print its broken pipe
                with connect(url, subprotocols=[JSON], ping_interval=None) as ws:
                    frame: dict[str, Any] = {"op": "subscribe", "games": "*"}
                    if n:
                        frame["since"] = self.last_seq
                    ws.send(encode(frame, JSON))
                    idle_s = 0.0
                    while not self.done.is_set() and idle_s < 30:
                        try:
                            message = ws.recv(timeout=0.5)
                        except TimeoutError:
                            idle_s += 0.5
                            continue
                        idle_s = 0.0
                        for f in _frames(message):
                            self._take(f)
                    return
            except Exception:  # the gateway died: the next one
                continue

    def _take(self, f: dict[str, Any]) -> None:
        if f.get("op") == "subscribed" and f.get("since") is not None:
            self.resumed.append(f)
        if f.get("op") == "delta" and f.get("kind") == "MovePlayed":
            self.moves.append(f["seq"])
        if f.get("op") in ("delta", "snapshot"):
            self.last_seq = max(self.last_seq, f["seq"])
        if self.target and self.last_seq >= self.target:
            self.done.set()


def _frames(message: str | bytes) -> list[dict[str, Any]]:
    data = decode(message, JSON)
    return data if isinstance(data, list) else [data]


def test_a_client_fails_over_to_another_gateway_and_misses_nothing(pg_url: str) -> None:
    with Store(pg_url) as store:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    first, second = Gateway(pg_url), Gateway(pg_url)
    try:
        moving = Viewer([first.url, second.url])  # fails over from the first to the second
        staying = Viewer([second.url])
        moving.start()
        staying.start()
        time.sleep(1.0)  # both subscribed
        with Store(pg_url) as writer:  # a third process makes the moves
            for i, move in enumerate(MOVES):
                ok(writer, {"cmd": "play_move", "game": "1.1", "move": move, "at": at(1 + i)})
                if i == len(MOVES) // 2:
                    while not moving.moves:  # it has seen some moves: now its gateway dies
                        time.sleep(0.01)
                    first.kill()
                time.sleep(0.02)
            stored = [
                seq for seq, event in writer.cache.events_since(0) if isinstance(event, MovePlayed)
            ]
            last = writer.last_seq()
        for viewer in (moving, staying):
            viewer.target = last
            if viewer.last_seq >= last:
                viewer.done.set()
            assert viewer.done.wait(30), f"the viewer stopped at {viewer.last_seq} of {last}"
            viewer.join(35)
        assert len(stored) == len(MOVES)
        assert moving.moves == stored, "lost or doubled across the failover"
        assert staying.moves == stored
        assert moving.resumed and moving.resumed[0]["resumed"] is True
    finally:
        first.stop()
        second.stop()
