"""The store's writer: events appended with the log's position checked, retried, sealed.

``insert`` appends in one transaction (``adapters.store.log_writer``): with a position
(``after``), only while the log is still there, or moved only on streams the batch's
decisions did not read (what moved is taken into the cached states and the insert is
made again); else ``Stale``, the cached states caught up. A taken stream version is
``Conflict`` for events appended as they are (``append``: seals, a replay log's
records). Each append is linked and, when due, sealed (``adapters.store.chain``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from eventsourcing.persistence import IntegrityError

from adapters.store.application import CandidatesApplication
from adapters.store.cache import Cached, StateCache
from adapters.store.chain import Chain
from adapters.store.log_writer import Inserted, LogWriter
from engine.errors import Conflict, MalformedCommand
from engine.events import Event
from engine.tournament.tournament import Tournament

log = logging.getLogger(__name__)

ATTEMPTS = 8
"""How many times a command (or a batch) is decided again while other writers keep
changing what it reads, before it is answered ``conflict``."""


@dataclass
class Batch:
    """Commands decided together and saved in one transaction: each is decided on the
    state the ones before it left (their events folded into the cached states)."""

    received: int
    """When the store received them (its wall clock, UTC epoch ms)."""
    pending: list[Event] = field(default_factory=list)
    """What the batch will append: each command's events and its record, in order."""
    touched: set[str] = field(default_factory=set)
    ids: dict[str, tuple[str, list[Event]]] = field(default_factory=dict)
    """command_id -> (digest, events) of the commands decided under an id in the batch."""
    reads: set[str] = field(default_factory=set)
    """Every stream the batch's decisions read (stored names): another writer's event on
    one of them, or on a stream the batch appends to, makes the batch decide again."""
    before: dict[str, Cached | None] = field(default_factory=dict)
    """The cached state of each stream the batch appends to, as it was before the batch."""


class Stale(Exception):
    """Another writer appended to a stream a batch read or writes, after the cached
    states it was decided on: nothing was appended, the cached states caught up."""


class Writer:
    """The store's appends: the position check and its retry, the links and the seals."""

    def __init__(
        self,
        app: CandidatesApplication,
        cache: StateCache,
        log_writer: LogWriter,
        first_tournament: Callable[[], Tournament | None],
    ) -> None:
        self.app = app
        self.cache = cache
        self.log = log_writer
        """The inserts (each with the log's position it found) and the looks at the log."""
        self._first_tournament = first_tournament
        self.chain = Chain(self)
        """Hash links computed at append, seals every ``chain.seal_every`` positions."""
        self.appended = False
        """Whether this store appended anything since it opened (``seal_appended``)."""

    def first_tournament(self) -> Tournament | None:
        """The store's first tournament, whose stream carries the seals (the chain's)."""
        return self._first_tournament()

    def append(
        self, events: Sequence[Event], *, positions: Sequence[int] | None = None
    ) -> list[int]:
        """Append events as they are, in one transaction; Conflict if a stream moved on
        meanwhile. ``positions``: each event's position in the log (a replay log loaded
        where the store it came from had them), each after the log's last."""
        return self.insert(events, None, positions=positions).ids if events else []

    def insert(
        self,
        events: Sequence[Event],
        after: int | None,
        batch: Batch | None = None,
        positions: Sequence[int] | None = None,
    ) -> Inserted:
        """Append events in one transaction: with ``after``, only while the log is still
        at that position, or moved on streams the ``batch``'s decisions did not read
        (what moved is taken into the cached states, and the insert made again); else
        Stale, with the cached states caught up. Conflict (nothing appended) when a
        stream's version is taken, as when events are appended as they are."""
        cache = self.cache
        links = self.chain.link(events)
        try:
            records = [self.app.mapper.to_stored_event(e) for e in events]
        except UnicodeEncodeError:
            raise MalformedCommand(
                "the command holds text that is not Unicode (a lone surrogate such as "
                "\\ud800); nothing was appended"
            ) from None
        finally:
            self.chain.done()
        streams = {e.originator_id for e in events}
        for attempt in range(ATTEMPTS + 1):
            try:
                inserted = self.log.insert(records, after, positions)
            except IntegrityError:
                cache.forget(streams | (batch.touched if batch is not None else set()))
                self.chain.forget(streams)
                if batch is not None:
                    raise Stale from None
                raise Conflict(
                    f"another command changed {', '.join(sorted(streams))} first; "
                    "nothing was appended: read the new state and decide again"
                ) from None
            if inserted.ids:
                break
            assert batch is not None and after is not None
            if not cache.catch_up(inserted.before, batch.before, batch.reads):
                raise Stale  # what it read moved: its states are back as they were, caught up
            if attempt == ATTEMPTS:  # others keep appending: decided again, from the start
                cache.restore(batch.before)
                raise Stale
            after = inserted.before
        self.appended = True
        cache.saved(inserted.before, inserted.ids, events)
        self.chain.saved(events, links, inserted.ids)
        return inserted

    def save(self, batch: Batch) -> list[int]:
        """Append what the batch decided, in one transaction, if the log is still where
        its decisions read the cached states (or moved only on streams they did not read);
        Stale otherwise. A batch with nothing to append (refusals, repeats) stands on the
        same condition, checked by one look. On failure the cached states it folded are
        dropped (read again when next needed). The positions of what it appended."""
        if not batch.pending:
            self.confirm(batch)
            return []
        try:
            return self.insert(batch.pending, self.cache.synced_seq, batch).ids
        except Stale:
            raise
        except BaseException:
            self.cache.forget(batch.touched)
            raise

    def confirm(self, batch: Batch) -> None:
        """Stale unless the log is still at the cached position or moved only on streams
        the batch's decisions did not read (what moved is taken into the cached states):
        one look at the log, always (a refusal is answered only on the log as it is)."""
        cache = self.cache
        current = cache.last_seq()
        if current != cache.synced_seq and not cache.catch_up(current, batch.before, batch.reads):
            raise Stale

    def seal(self) -> Event | None:
        """Seal every event not yet sealed (docs/audit.md); None if nothing to seal."""
        return self.chain.seal()

    def seal_appended(self) -> Event | None:
        """Seal if this store appended anything since it opened: the end of a command
        batch (``candidates apply``) and the shutdown of a writer (gateway, DGT feed)
        call it. Never raises: a seal that fails waits for the next (docs/audit.md)."""
        if not self.appended or not self.chain.seal_every:
            return None
        try:
            return self.seal()
        except Exception:
            log.warning(
                "the closing seal failed; the next one covers the same events", exc_info=True
            )
            return None
