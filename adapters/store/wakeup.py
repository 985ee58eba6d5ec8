"""Waking a follower when the store changes: PostgreSQL ``LISTEN/NOTIFY``.

A follower (the gateway, a kept projection) reads the store's notification log
after a change. On PostgreSQL the ``eventsourcing`` recorder sends ``NOTIFY``
on its channel in the transaction that appends events (its insert function),
so a follower listening on that channel is woken the moment any process
commits, instead of asking ``max(notification_id)`` on a timer. On SQLite there
is no such signal: the follower keeps a cheap poll (one indexed ``max`` query a
tick, ``POLL_INTERVAL_S`` in the gateway).

``ChangeListener`` calls ``on_change`` from its own thread; the caller hands
that to its event loop (``loop.call_soon_threadsafe``). A notification carries
nothing but the fact of a change, so a lost one costs only latency: the
follower still reads on a slow safety timer (``FALLBACK_S``), and the listener
reconnects (waking the follower once) if its connection drops.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from eventsourcing.persistence import InterfaceError, OperationalError
from psycopg.sql import SQL, Identifier

from adapters.store.door import Store

log = logging.getLogger(__name__)

FALLBACK_S = 1.0
"""How often a listening follower reads the store anyway (a notification lost with a
dropped connection costs at most this)."""
RECONNECT_S = 1.0


def first_line(error: BaseException) -> str:
    """An error's first line: a database that went away says so in one line of the log."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


class ChangeListener:
    """A thread that ``LISTEN``s on the store's channel and calls ``on_change`` per commit."""

    def __init__(self, store: Store, on_change: Callable[[], None]) -> None:
        recorder = store.app.recorder
        self.channel: str = recorder.channel_name  # type: ignore[attr-defined]
        self._datastore = recorder.datastore  # type: ignore[attr-defined]
        self._on_change = on_change
        self._stopped = threading.Event()
        self.listening = threading.Event()
        """Set once the first ``LISTEN`` is in place (tests wait for it)."""
        self.notifications = 0
        self._thread = threading.Thread(target=self._run, name="store-listener", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                with self._datastore.get_connection() as conn:
                    conn.execute(SQL("LISTEN {0}").format(Identifier(self.channel)))
                    conn.commit()
                    self.listening.set()
                    self._on_change()  # whatever was appended before the LISTEN
                    while not self._stopped.is_set():
                        for _ in conn.notifies(timeout=0.2, stop_after=1):
                            self.notifications += 1
                            self._on_change()
            except (OperationalError, InterfaceError) as exc:  # the server went away
                if self._stopped.is_set():
                    return
                log.warning(
                    "listening for store changes failed (%s); reconnecting", first_line(exc)
                )
                self._stopped.wait(RECONNECT_S)
            except Exception:
                if self._stopped.is_set():
                    return
                log.exception("listening for store changes failed; reconnecting")
                self._stopped.wait(RECONNECT_S)

    def close(self) -> None:
        self._stopped.set()
        self._thread.join(5)


def listen_for_changes(store: Store, on_change: Callable[[], None]) -> ChangeListener | None:
    """A listener on PostgreSQL; None on SQLite (the caller polls)."""
    if not store.is_postgres:
        return None
    return ChangeListener(store, on_change)
