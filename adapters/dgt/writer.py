"""The boards' writes to the store, off the event loop.

``candidates serve --dgt`` runs the boards' links in the event loop of the gateway,
which never waits for the database; ``candidates dgt run`` keeps many boards' links
in one loop. So a board's observations are handed to its sink (``StoreSink``, which
calls ``Store.handle``) in a thread of its own, as the gateway's commands are
(``adapters.gateway.commands``):

- ``StoreThread``: one thread and the one store it alone uses (opened there, sealed
  and closed there);
- ``BoardWriter``: one board's queue. The link hands it observations on the loop and
  goes on reading the board; they are delivered to the sink in the order they came,
  one batch at a time, so every move, reading and alert of a board reaches the store
  in order and gets its answer. What the sink does to the board's session comes back
  to the loop (``on_session``). A failure of the store in the thread is raised to the
  link at its next delivery, so the board is restarted from the record
  (``adapters.dgt.service.kept_running``) as it was when the store ran on the loop.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, TypeVar

from adapters.dgt.observations import Observation
from adapters.store import Store

log = logging.getLogger(__name__)

T = TypeVar("T")


class Feed(Protocol):
    """What a writer delivers to: a board's feed (``adapters.dgt.service.BoardFeed``)."""

    def deliver(self, observations: list[Observation]) -> None: ...


class StoreThread:
    """One thread for the store calls of a process's boards, with its own store."""

    def __init__(self, open_store: Callable[[], Store]) -> None:
        self._open = open_store
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="dgt-store")
        self._store: Store | None = None

    @property
    def store(self) -> Store:
        """The store (open it with ``start`` first); used in this thread only."""
        if self._store is None:
            raise RuntimeError("the boards' store is not open")
        return self._store

    async def call(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` in the store's thread; the loop goes on meanwhile."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, functools.partial(fn, *args))

    async def start(self) -> Store:
        def opened() -> Store:
            self._store = self._open()
            return self._store

        return await self.call(opened)

    async def close(self) -> None:
        """Seal what the boards appended and close the store (in its thread)."""

        def closing() -> None:
            store, self._store = self._store, None
            if store is not None:
                try:
                    store.seal_appended()  # a seal on shutdown (docs/audit.md)
                finally:
                    store.close()

        try:
            await self.call(closing)
        finally:
            self.executor.shutdown(wait=False)


class BoardWriter:
    """One board's observations, delivered to its feed in the store's thread, in order."""

    def __init__(self, feed: Feed, thread: StoreThread, label: str) -> None:
        self.feed = feed
        self.thread = thread
        self.label = label
        self._pending: list[Observation] = []
        self._draining: asyncio.Task[None] | None = None
        self._failure: Exception | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._loop = asyncio.get_running_loop()

    def on_session(self, call: Callable[[], None]) -> None:
        """Run ``call`` on the event loop, where the board's session lives (the sink's
        ``on_session``: it runs in the store's thread)."""
        self._loop.call_soon_threadsafe(call)

    def deliver(self, observations: list[Observation]) -> None:
        """Queue ``observations`` (on the loop; never waits). Raises the store's failure
        of an earlier batch, once."""
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure
        if not observations:
            return
        self._pending.extend(observations)
        if self._draining is None or self._draining.done():
            self._idle.clear()
            self._draining = self._loop.create_task(self._drain())

    @property
    def queued(self) -> int:
        """Observations not yet handed to the store's thread."""
        return len(self._pending)

    async def _drain(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                await self.thread.call(self.feed.deliver, batch)
        except Exception as exc:
            log.error("board %s: the store failed: %s", self.label, exc)
            self._failure, self._pending = exc, []
        finally:
            self._idle.set()

    async def settled(self) -> None:
        """Wait until every observation queued so far has been delivered; raise the
        store's failure if there was one."""
        await self._idle.wait()
        self.deliver([])
