"""The boards' writes to the store, off the event loop.

The boards' links run in an event loop that never waits for the database (the
gateway's, under ``serve --dgt``), so each board's observations go to its sink in a
thread of its own with its own store (``StoreThread``), through one queue per board
(``BoardWriter``) that delivers them in the order they came and brings the sink's
answers back to the loop. A store out of reach holds the queue; another failure is
raised to the link, which restarts the board from the record (docs/dgt.md,
section 11)."""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, TypeVar

from eventsourcing.persistence import InterfaceError, OperationalError

from adapters.dgt.observations import Observation
from adapters.dgt.outbox import Outbox, kept
from adapters.store import Store
from adapters.store.outage import RETRY_S, Outage

log = logging.getLogger(__name__)

T = TypeVar("T")


class Feed(Protocol):
    """What a writer delivers to: a board's feed (``adapters.dgt.service.BoardFeed``)."""

    def deliver(self, observations: list[Observation]) -> None: ...

    @property
    def level(self) -> bool:
        """Whether the feed holds nothing of what it was given that the store lacks."""
        ...


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
                    store.writer.seal_appended()  # a seal on shutdown (docs/audit.md)
                finally:
                    store.close()

        try:
            await self.call(closing)
        finally:
            self.executor.shutdown(wait=False)


def store_unreachable(error: BaseException) -> bool:
    """Whether ``error`` says the store is out of reach (its database went away, is
    restarting, locked by another process past its wait), not that a call was wrong."""
    if isinstance(error, OperationalError | InterfaceError):
        return True
    psycopg = sys.modules.get("psycopg")  # loaded only by a store on PostgreSQL
    return psycopg is not None and isinstance(error, psycopg.OperationalError)


class BoardWriter:
    """One board's observations, delivered to its feed in the store's thread, in order.

    While the store is out of reach the observations are held, in order (in the
    board's ``outbox`` too, when it has one, so that they survive the reader's
    restart), and delivered again every ``retry_s`` until the store answers: the
    board's link goes on reading meanwhile. One line of the log says the store went
    away, one that it answers again. Any other failure is raised to the link at its
    next delivery, so the board is restarted from the record
    (``adapters.dgt.service.kept_running``)."""

    def __init__(
        self,
        feed: Feed,
        thread: StoreThread,
        label: str,
        *,
        outbox: Outbox | None = None,
        unsent: Sequence[Observation] = (),
        retry_s: float = RETRY_S,
    ) -> None:
        self.feed = feed
        self.thread = thread
        self.label = label
        self.outbox = outbox
        self.retry_s = retry_s
        self.outage = Outage(f"board {label}: storing what it read", log, retry_s)
        self._pending: list[Observation] = list(unsent)
        """Observations not delivered yet, the first of them the ``_first``-th the
        writer was given (counted as its outbox counts them)."""
        self._first = 0
        self._draining: asyncio.Task[None] | None = None
        self._failure: Exception | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._loop = asyncio.get_running_loop()
        if self._pending:
            self._drain_now()

    def on_session(self, call: Callable[[], None]) -> None:
        """Run ``call`` on the event loop, where the board's session lives (the sink's
        ``on_session``: it runs in the store's thread)."""
        self._loop.call_soon_threadsafe(call)

    def deliver(self, observations: list[Observation]) -> None:
        """Queue ``observations`` (on the loop; never waits). Raises a failure of the
        feed (not an unreachable store) on an earlier batch, once."""
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure
        observations = [o for o in observations if kept(o)]
        if not observations:
            return
        if self.outbox is not None:
            self.outbox.add(observations)
        self._pending.extend(observations)
        self._drain_now()

    def _drain_now(self) -> None:
        if self._draining is None or self._draining.done():
            self._idle.clear()
            self._draining = self._loop.create_task(self._drain())

    @property
    def queued(self) -> int:
        """Observations not yet in the store."""
        return len(self._pending)

    def _deliver_each(self, batch: list[Observation]) -> tuple[int, int | None, Exception | None]:
        """In the store's thread: the batch's observations one by one, until one fails.
        (how many were delivered, after how many of them the feed held nothing the
        store lacks (None: after none), the failure)."""
        level: int | None = None
        for done, observation in enumerate(batch):
            try:
                self.feed.deliver([observation])
            except Exception as exc:
                return done, level, exc
            if self.feed.level:
                level = done + 1
        return len(batch), level, None

    async def _drain(self) -> None:
        try:
            while self._pending:
                batch = list(self._pending)
                done, level, failure = await self.thread.call(self._deliver_each, batch)
                if level is not None and self.outbox is not None:
                    self.outbox.stored(self._first + level)
                del self._pending[:done]
                self._first += done
                if failure is None:
                    self.outage.succeeded()
                elif store_unreachable(failure):
                    self.outage.failed(failure)
                    await asyncio.sleep(self.retry_s)
                else:
                    log.error("board %s: the store's feed failed", self.label, exc_info=failure)
                    del self._pending[:1]  # the observation it failed on is left out
                    self._first += 1
                    if self.outbox is not None:  # and never sent again after a restart
                        self.outbox.stored(self._first)
                    self._failure = failure
                    return
        finally:
            self._idle.set()

    def abandon(self) -> None:
        """Stop delivering (the board is started again with a new writer, which reads
        what is left from the outbox) and close the outbox."""
        if self._draining is not None:
            self._draining.cancel()
        self._pending = []
        if self.outbox is not None:
            self.outbox.close()
            self.outbox = None

    async def settled(self) -> None:
        """Wait until every observation queued so far is in the store; raise the feed's
        failure if there was one."""
        await self._idle.wait()
        self.deliver([])
