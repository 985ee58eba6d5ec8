"""The store's reads and its cache of states.

State is cached per stream together with its version, and known up to a position
of the log (a notification id), so several processes can share one store: a read
looks at the log's last notification id first (``sync``) and takes in what other
writers appended since; a decision is made on the cached states as they are and
saved only if the log is still at their position, or moved only on streams the
decision did not read (``catch_up``, the door's retry). The cache takes in events
one way only (``take_in``): those a look at the log found after the last one
(``sync``, ``catch_up``), those a follower read (the gateway), and, before they are
saved, those its own door decided (``fold_pending``, undone by ``forget`` if the
save fails).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Self, TypeVar

from eventsourcing.persistence import Notification

from adapters.store.application import CandidatesApplication
from adapters.store.log_writer import LogWriter
from adapters.store.names import logical_event
from engine.arbiter import board_log as board_logs
from engine.arbiter import incident_book as incident_books
from engine.events import (
    INCIDENTS_STREAM,
    TOURNAMENT_STREAM,
    TOURNAMENTS_STREAM,
    Event,
    split_stream,
)
from engine.game import clock_log as clock_logs
from engine.game import state as games
from engine.tournament import listing
from engine.tournament import tournament as tournaments

SYNC_SCAN_LIMIT = 5000
"""Beyond this many notifications since the last look, every cached stream is read again
from its version rather than the notifications scanned for their stream names."""
S = TypeVar("S")

EVOLVERS: dict[str, Callable[[Any, Event], Any]] = {
    TOURNAMENT_STREAM: tournaments.evolve,
    TOURNAMENTS_STREAM: listing.evolve,
    INCIDENTS_STREAM: incident_books.evolve,
    "game": games.evolve,
    "clock": clock_logs.evolve,
    "board": board_logs.evolve,
}
"""Stream kind -> its fold: the states the cache keeps up to date event by event."""


@dataclass(slots=True)
class Cached:
    """A stream's folded state and the version it stands at (one a stream the cache
    holds: slots, since a second's readings of many boards make as many)."""

    state: Any
    version: int


class StateCache:
    """Reads of the store's log and streams, and the folded state of each stream read."""

    def __init__(self, app: CandidatesApplication, log: LogWriter) -> None:
        self.app = app
        self.log = log
        """The looks at the log (``last_seq``): one query on the writer's own connection."""
        self._cache: dict[str, Cached] = {}
        self._stale: set[str] = set()
        """Cached streams another writer appended to (read again from their version)."""
        self._synced_seq = 0
        """Every cached state not in ``_stale`` holds every event up to this notification id."""
        self._session = False
        self.stream_reads = 0
        """Streams read from the database (not from the cached states), ever: a follower
        knows from it whether what it read came from the cache alone."""
        self.reads: set[str] | None = None
        """While the door decides a batch: every stream its decisions read (``fold``)."""

    # --- reading the store --------------------------------------------------------

    def stream(self, stream_id: str, after_version: int = 0) -> list[Event]:
        """The events of one stored stream after a version, in order (names as stored)."""
        self.stream_reads += 1
        events = self.app.events.get(stream_id, gt=after_version or None)
        return [e for e in events if isinstance(e, Event)]

    def notifications(self, start: int = 1, limit: int | None = None) -> Iterator[Notification]:
        """Stored records in global order from ``start`` (the notification id), lazily."""
        section = self.app.log_section_size
        remaining = limit
        while remaining is None or remaining > 0:
            size = section if remaining is None else min(section, remaining)
            batch = self.app.recorder.select_notifications(start=start, limit=size)
            if not batch:
                return
            yield from batch
            start = batch[-1].id + 1
            if remaining is not None:
                remaining -= len(batch)
            if len(batch) < size:
                return

    def events_since(
        self, seq: int = 0, limit: int | None = None, skip_streams: tuple[str, ...] = ()
    ) -> Iterator[tuple[int, Event]]:
        """(sequence number, event) of every event after ``seq``, in global order; events
        of streams whose id starts with one of ``skip_streams`` are not decoded."""
        for notification in self.notifications(seq + 1, limit):
            if skip_streams and str(notification.originator_id).startswith(skip_streams):
                continue
            event = self.app.mapper.to_domain_event(notification)
            if isinstance(event, Event):
                yield notification.id, event

    @property
    def synced_seq(self) -> int:
        """The position of the log the cached states stand at (no query)."""
        return self._synced_seq

    def last_seq(self) -> int:
        """The log's last notification id: one query (``LogWriter.last_id``)."""
        return self.log.last_id()

    def count(self) -> int:
        """Number of stored events (every stream)."""
        return sum(1 for _ in self.notifications())

    # --- the cached states ------------------------------------------------------------

    def fold(
        self,
        stream_id: str,
        evolve: Callable[[S | None, Event], S | None],
        namespace: str | None = None,
    ) -> S | None:
        """The state of a stored stream, from the cache brought up to date."""
        if not self._session:
            self.sync()
        if self.reads is not None:
            self.reads.add(stream_id)
        cached = self._cache.get(stream_id)
        if cached is not None and stream_id not in self._stale:
            state_now: S | None = cached.state  # nothing appended to it since it was read
            return state_now
        state: S | None = cached.state if cached else None
        version = cached.version if cached else 0
        for event in self.stream(stream_id, version):
            state = evolve(state, logical_event(event, namespace))
            version = event.originator_version
        self._cache[stream_id] = Cached(state, version)
        self._stale.discard(stream_id)
        return state

    def sync(self) -> None:
        """Bring the cached states up to the store's last notification.

        One query (the store's last notification id) when nothing was appended by
        anyone else, instead of one catch-up read per stream a decision reads; the
        notifications after the last look otherwise, whose events the cached states
        take in, or, after a long absence, every cached stream is read again from its
        version."""
        current = self.last_seq()
        if current == self._synced_seq:
            return
        if current < self._synced_seq or current - self._synced_seq > SYNC_SCAN_LIMIT:
            self._stale.update(self._cache)
            self._synced_seq = current
            return
        if not self._cache:
            self._synced_seq = current
            return
        self.catch_up(current)

    def catch_up(
        self,
        current: int,
        before: Mapping[str, Cached | None] | None = None,
        reads: AbstractSet[str] = frozenset(),
    ) -> bool:
        """Take in what the log gained after the cached position up to ``current`` (its
        last notification id, as a look or an insert found it).

        For a batch of decisions not yet saved (``before``: the cached state of each
        stream it appends to as it was before the batch; ``reads``: the streams its
        decisions read): True when other writers appended to none of them (the batch's
        own pending states stay), False when they did (those states are put back as they
        were, and take in what the others appended). Too many notifications to scan
        counts as False: every cached stream is read again from its version when next
        needed."""
        pending = before or {}
        if current < self._synced_seq or current - self._synced_seq > SYNC_SCAN_LIMIT:
            self.restore(pending)
            self._stale.update(self._cache)
            self._synced_seq = current
            return False
        found = [
            n
            for n in self.notifications(self._synced_seq + 1, current - self._synced_seq)
            if n.id <= current
        ]
        streams = {str(n.originator_id) for n in found}
        untouched = streams.isdisjoint(reads) and streams.isdisjoint(pending)
        if not untouched:
            self.restore(pending)
        # A stream the cache holds takes in every event; one it meets for the first time
        # is folded whole when its first event is in the range (every later one with it),
        # else read from the store when next needed.
        started = {str(n.originator_id) for n in found if n.originator_version == 1}
        wanted = (n for n in found if n.originator_id in self._cache or n.originator_id in started)
        decoded = ((n.id, self.app.mapper.to_domain_event(n)) for n in wanted)
        read = [(seq, e) for seq, e in decoded if isinstance(e, Event)]
        self.take_in(self._synced_seq, read, upto=current)
        return untouched

    def take_in(
        self, after: int, events: Sequence[tuple[int, Event]], upto: int | None = None
    ) -> None:
        """Events read from the log after ``after`` (this store's look, or a follower's
        read of what others appended), in log order: the cached states take them in, and
        the store is known up to ``upto`` (default: the last one's sequence number), so
        that the objects read next stand there without another look at the store.

        Nothing is taken when the cached states are known only up to before ``after``
        (some notifications were not read): the next look at the store reads them. A
        stream not cached is read when needed, unless the event starts it; one whose
        cached version does not lead to the event is read again when next needed."""
        if after > self._synced_seq:
            return
        upto = upto if upto is not None else (events[-1][0] if events else after)
        if upto <= self._synced_seq:
            return
        for seq, event in events:
            if seq > self._synced_seq:
                self._fold_one(event)
        self._synced_seq = upto

    def _fold_one(self, event: Event) -> None:
        stream = event.originator_id
        version = event.originator_version
        namespace, name = split_stream(stream)
        evolve = EVOLVERS.get(name.partition("/")[0])
        cached = self._cache.get(stream)
        if stream in self._stale:
            return
        if evolve is None:  # a stream the cache does not fold event by event
            if cached is not None:
                self._stale.add(stream)
            return
        if cached is None:
            if version != 1:
                return  # not cached: read when needed
            cached = Cached(None, 0)  # the event starts its stream: nothing to read
        if version <= cached.version:
            return  # already folded (our own append)
        if version == cached.version + 1:
            state = evolve(cached.state, logical_event(event, namespace))
            self._cache[stream] = Cached(state, version)
        else:
            self._stale.add(stream)

    def fold_pending(
        self,
        event: Event,
        read: Callable[[str, str | None, str], None],
        before: dict[str, Cached | None],
        decided: Event | None = None,
    ) -> None:
        """Fold an event this store decided and has not saved yet (stored name) into its
        stream's cached state; ``read(stream, namespace, name)`` first brings up to date a
        stream the cache does not hold (``name``: the stream as the engine names it).
        ``before`` keeps each stream's cached state as it was before its first pending
        event (None: not cached), for ``restore``. ``decided``: the event as the engine
        decided it, folded instead of a copy of ``event`` under the engine's name when it
        is that copy (a further tournament's event named back)."""
        stream = event.originator_id
        namespace, name = split_stream(stream)
        kind = name.partition("/")[0]
        evolve = EVOLVERS.get(kind)
        if evolve is None:
            self._cache.pop(stream, None)
            return
        if event.originator_version == 1 and stream not in self._cache:
            before.setdefault(stream, None)
            self._cache[stream] = Cached(None, 0)  # the event starts its stream
        elif stream not in self._cache or stream in self._stale:
            read(stream, namespace, name)
        cached = self._cache[stream]
        before.setdefault(stream, cached)
        if decided is None or namespace is None or decided.originator_id != name:
            decided = logical_event(event, namespace)
        state = evolve(cached.state, decided)
        self._cache[stream] = Cached(state, event.originator_version)

    def forget(self, streams: set[str] | Sequence[str]) -> None:
        """Drop the cached states of streams whose pending events were not saved."""
        for stream in streams:
            self._cache.pop(stream, None)

    def restore(self, before: Mapping[str, Cached | None]) -> None:
        """Put back the cached states of streams whose pending events were not saved, as
        they were before them (states are never changed in place: each fold makes a new
        one)."""
        for stream, cached in before.items():
            if cached is None:
                self._cache.pop(stream, None)
            else:
                self._cache[stream] = cached

    def saved(self, before: int, ids: Sequence[int], events: Sequence[Event]) -> None:
        """After this store saved ``events`` where the log's last notification id was
        ``before``: if that is the cached position and the new ids follow it with no
        gap, no one else appended meanwhile and the store stays known up to its last
        record, with no further look. The door's own decisions are folded already
        (``fold_pending``); events appended as they are (seals, a log's records) are
        folded into the streams the cache holds (no stream is read or added for them)."""
        if not (
            ids
            and before == self._synced_seq
            and ids[0] == before + 1
            and ids[-1] - ids[0] == len(ids) - 1
        ):
            return
        for event in events:
            cached = self._cache.get(event.originator_id)
            if cached is not None and event.originator_version > cached.version:
                self._fold_one(event)
        self._synced_seq = ids[-1]

    @contextmanager
    def session(self, look: bool = True) -> Iterator[Self]:
        """Reads and decisions made together: the store is looked at once, on entry
        (``sync``), and the cached states are used as they are inside. ``look=False``:
        not even on entry (a follower that has just taken in what it read)."""
        if self._session:
            yield self
            return
        if look:
            self.sync()
        self._session = True
        try:
            yield self
        finally:
            self._session = False
