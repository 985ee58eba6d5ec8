"""The gateway: a ``websockets`` server that follows the store and serves the page.

``serve_forever`` runs it until ``stop`` is set (``candidates serve``, ``replay
--serve``). One server answers websocket connections (the frames of docs/protocol.md,
``adapters.gateway.session``) and plain HTTP GETs (``adapters.gateway.routes``), each
connection guarded (its opening request, a budget for what it sends). The ``Gateway``
is the wiring of the log's reading, the arbiters' commands, the sessions and the
routes; per-message compression is off, as the same encoded bytes go to every client."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.typing import Subprotocol

from adapters.gateway.alerts import OpenAlerts
from adapters.gateway.analysis_feed import AnalysisFeed
from adapters.gateway.commands import CommandDesk
from adapters.gateway.connection import guarded_connection
from adapters.gateway.frames import JSON, MSGPACK
from adapters.gateway.hub import Channel, Limits
from adapters.gateway.outputs import DEFAULT_MAX_AGE_S, Outputs
from adapters.gateway.reading import LogReading, Stats
from adapters.gateway.routes import Routes
from adapters.gateway.session import RESUME_LIMIT, Sessions
from adapters.gateway.tokens import Tokens, load_tokens
from adapters.host import public_delay
from adapters.store.wakeup import FALLBACK_S

POLL_INTERVAL_S = 0.05
"""The tick of the public channel's releases, and how often the store is read where no
listener announces its commits. The gateway is woken by the store's listener
(``adapters.store.wakeup``: ``NOTIFY`` on PostgreSQL, the database's files watched on
SQLite) and reads the store then (or every ``FALLBACK_S``)."""


class Gateway:
    """Follows one store and serves its tournament to websocket clients and browsers."""

    def __init__(
        self,
        store_url: str,
        tokens: Tokens | None = None,
        public_delay_s: float = public_delay.DEFAULT_S,
        *,
        poll_interval_s: float = POLL_INTERVAL_S,
        limits: Limits | None = None,
        resume_limit: int = RESUME_LIMIT,
        fallback_s: float = FALLBACK_S,
        http_max_age_s: int = DEFAULT_MAX_AGE_S,
        keep: bool = True,
        analysis_to_arbiters: bool = False,
    ) -> None:
        self.store_url = store_url
        self.tokens = tokens or Tokens()
        self.delay_ms = public_delay.delay_ms(max(0.0, public_delay_s))
        self.stats = Stats()
        self.live = Channel("live", 0)
        self.public = Channel("public", self.delay_ms) if self.delay_ms else self.live
        self.alerts = OpenAlerts()
        self.live.alerts = self.alerts
        """The arbiters' open alerts (sent after each arbiter snapshot and resume)."""
        self.desk = CommandDesk(store_url)
        self.reading = LogReading(
            store_url,
            self.live,
            self.public,
            self.alerts,
            self.stats,
            self.desk,
            poll_interval_s=poll_interval_s,
            fallback_s=fallback_s,
            keep=keep,
        )
        self.limits = limits or Limits()
        self.sessions = Sessions(
            self.tokens, self.reading, self.desk, self.stats, self.limits, resume_limit
        )
        self.outputs = Outputs(
            self.tokens,
            self.live,
            self.public,
            self.reading.stores,
            self.reading.read,
            http_max_age_s,
        )
        """The read-only HTTP routes (``/api/...``, ``/pgn/...``)."""
        self.analysis = AnalysisFeed(
            store_url, self.live, self.public, self.delay_ms, to_arbiters=analysis_to_arbiters
        )
        """The engine's evaluations: commentators at once, the public after the delay."""
        self.outputs.analysis = self.analysis
        self.routes = Routes(
            self.tokens,
            self.live,
            self.public,
            self.stats,
            self.outputs,
            lambda: len(self.sessions.clients),
        )

    async def open(self) -> None:
        """The first read of the store (``LogReading.open``)."""
        await self.reading.open()

    async def close(self) -> None:
        """Keep the state, close the stores and the threads (after ``run``, or after
        ``open`` alone)."""
        await self.reading.stop(None)
        await self.desk.close()

    async def run(
        self,
        host: str,
        port: int,
        stop: asyncio.Event,
        ready: Callable[[Server], Awaitable[None] | None] | None = None,
    ) -> None:
        """Serve until ``stop`` is set (the store is read once before listening: again
        every second while it cannot be, ``LogReading.open_retrying``)."""
        follower: asyncio.Task[None] | None = None
        evaluations: asyncio.Task[None] | None = None
        stop_waiter = asyncio.create_task(stop.wait())
        stop_waiter.add_done_callback(lambda _: self.reading.notified())
        try:
            if not await self.reading.open_retrying(stop):
                return  # stopped before the store could be read
            follower = asyncio.create_task(self.reading.follow(stop))
            evaluations = asyncio.create_task(self.analysis.follow(stop))
            async with serve(
                self.sessions.handler,
                host,
                port,
                subprotocols=[Subprotocol(JSON), Subprotocol(MSGPACK)],
                select_subprotocol=_select_subprotocol,
                process_request=self.routes.process_request,
                compression=None,
                close_timeout=self.limits.close_grace_s,
                max_size=2**20,
                max_queue=self.limits.max_queue,
                ping_interval=self.limits.ping_interval_s,
                ping_timeout=self.limits.ping_timeout_s,
                write_limit=self.limits.write_limit,
                create_connection=guarded_connection(self.limits),
            ) as server:
                if ready is not None:
                    waited = ready(server)
                    if waited is not None:
                        await waited
                await asyncio.wait({stop_waiter, follower}, return_when=asyncio.FIRST_COMPLETED)
                if follower.done() and not stop.is_set():
                    follower.result()  # reading the store failed for good: raise it
        finally:
            stop_waiter.cancel()
            if evaluations is not None:
                evaluations.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await evaluations
            # the reading in progress ends (and is dispatched) before the state is kept
            await self.reading.stop(follower)
            await self.desk.close()


def _select_subprotocol(connection: ServerConnection, offered: Any) -> Subprotocol | None:
    """JSON when asked for; msgpack when asked for or when nothing is asked for."""
    if JSON in offered:
        return Subprotocol(JSON)
    if MSGPACK in offered:
        return Subprotocol(MSGPACK)
    return None


async def serve_forever(
    store_url: str,
    host: str = "127.0.0.1",
    port: int = 8765,
    tokens: Tokens | str | Path | None = None,
    public_delay_s: float = public_delay.DEFAULT_S,
    stop: asyncio.Event | None = None,
    *,
    ready: Callable[[Server], Awaitable[None] | None] | None = None,
    **options: Any,
) -> None:
    """Run the gateway on ``store_url`` until ``stop`` is set (forever without one).

    ``tokens`` is a ``Tokens`` object or the path of a token file; ``ready`` is
    called with the listening server (its ``sockets`` tell the port when
    ``port`` is 0). Other options go to ``Gateway`` (``poll_interval_s``,
    ``limits``, ``resume_limit``).
    """
    if not isinstance(tokens, Tokens):
        tokens = load_tokens(tokens)
    gateway = Gateway(store_url, tokens, public_delay_s, **options)
    await gateway.run(host, port, stop or asyncio.Event(), ready)
