"""The arbiters' commands through one gateway: decided one at a time, off the event loop.

Commands go to the store's door (``Store.handle``) in a single-thread executor with
a store of their own, so the event loop never waits for the database. The log is
read after the commands in flight (``settled``), so an arbiter gets the result of
a command before the deltas of its events.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

from adapters.store import Store
from adapters.store.answers import Answer
from adapters.store.database_errors import database_error, said

log = logging.getLogger(__name__)

COMMAND_WAIT_S = 0.2
"""How long the reading of the log waits for this gateway's commands in flight."""


class CommandDesk:
    """Decides the commands of this gateway's arbiters, in order of arrival."""

    def __init__(self, store_url: str) -> None:
        self.store_url = store_url
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="gateway-commands")
        self._store: Store | None = None
        self._in_flight = 0
        self._no_commands = asyncio.Event()
        self._no_commands.set()

    async def decide(self, command: Mapping[str, object]) -> Answer:
        """The contract's answer to ``command`` (the store's failure said as one)."""
        self._in_flight += 1
        self._no_commands.clear()
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self.executor, self._handle, command)
        finally:
            self._in_flight -= 1
            if not self._in_flight:
                self._no_commands.set()

    async def settled(self) -> None:
        """Wait (at most ``COMMAND_WAIT_S``) until no command is being decided."""
        if self._in_flight:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._no_commands.wait(), COMMAND_WAIT_S)

    def _handle(self, command: Mapping[str, object]) -> Answer:
        try:
            if self._store is None:  # opened here: a database down at first is said the same
                self._store = Store(self.store_url)
            return self._store.handle(command)
        except Exception as exc:  # the store itself failed: say so, keep serving
            if database_error(exc) is not None:  # the database went away: one line
                log.warning("a command failed in the store (%s)", said(exc))
            else:
                log.exception("command failed in the store")
            return {
                "ok": False,
                "error": {"code": "store_unavailable", "message": f"the store failed: {exc}"},
            }

    def _close_store(self) -> None:
        if self._store is not None:
            self._store.writer.seal_appended()  # a seal on shutdown (docs/audit.md)
            self._store.close()

    async def close(self) -> None:
        """Seal what this gateway's commands appended and close their store."""
        await asyncio.get_running_loop().run_in_executor(self.executor, self._close_store)
        self.executor.shutdown(wait=False)
