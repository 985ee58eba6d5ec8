"""The public's view: the tournament exactly as it was ``delay`` ago (blocking; reader thread).

FIDE fair play delays what the public sees (``--public-delay-s``). The public view is
the state at ``now - delay`` by the events' own instants, as ``candidates replay
--until`` derives it, kept in a copy of the log in memory to which each event is
copied once its release instant has passed: a restart changes nothing the public
sees, and an event appended late is never released early. The copy keeps what the
view is made of, not every clock reading. The release rules are in docs/protocol.md."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable

from eventsourcing.utils import get_topic

from adapters.gateway.follower import Follower, Update
from adapters.store import MemoryLog, Store
from engine.events import ClockReadingRecorded, Event, MovePlayed

_copies = itertools.count(1)

KEEP_READINGS = 8
"""Readings of each clock the public copy keeps (the last one is what is shown)."""
PRUNE_EVERY = 10_000
"""Readings released into the copy between two prunings."""
READING_TOPIC = get_topic(ClockReadingRecorded)
"""How a clock reading's record names its kind."""


class DelayedLog:
    """Events of the live log waiting for their release, and the copy they go to."""

    def __init__(self, delay_ms: int) -> None:
        self.delay_ms = delay_ms
        self.log = MemoryLog()
        """The copy's records (what ``prune`` lets go of)."""
        self.copy = Store(f"public-copy-{next(_copies)}", memory=self.log)
        self.copy.chain.seal_every = 0  # the copy is never audited: the store is
        self.held: dict[str, deque[tuple[int, int, Event]]] = {}
        """Stream -> (release_ms, live seq, event), in stream order."""
        self.latest_at_ms = 0
        """The latest instant read so far (dates an event without one at start)."""
        self.released = 0
        self.readings_unpruned = 0
        """Readings released into the copy since it was last pruned."""
        self.pruned = 0
        """Readings dropped from the copy (``prune``), ever."""
        self.move_readings: set[int] = set()
        """The copy's ids of the readings a move's ``[%clk]`` is written from (one with its
        ``ply``, or the first after a move): never dropped, so that a game's PGN is the
        same for the public after the delay as for commentators and arbiters."""
        self.awaiting: set[str] = set()
        """Games (``<namespace>/<id>`` as the streams name them) whose last move has no
        reading yet."""

    def release_ms(self, event: Event, seen_ms: int | None) -> int:
        """When the public may see ``event``: its instant plus the delay; without an
        instant, from when it was read (``seen_ms``), or at start from the latest
        instant before it."""
        if event.at_ms:
            return event.at_ms + self.delay_ms
        return (self.latest_at_ms if seen_ms is None else seen_ms) + self.delay_ms

    def take(self, events: Iterable[tuple[int, Event]], seen_ms: int | None) -> None:
        """Hold events read from the live log (``seen_ms`` None: already stored at start)."""
        for seq, event in events:
            release = self.release_ms(event, seen_ms)
            self.latest_at_ms = max(self.latest_at_ms, event.at_ms)
            self.held.setdefault(event.originator_id, deque()).append((release, seq, event))

    def next_release_ms(self) -> int | None:
        heads = [queue[0][0] for queue in self.held.values() if queue]
        return min(heads) if heads else None

    def release(self, now_ms: int) -> int:
        """Copy every held event whose time has come (each stream in order); how many."""
        due: list[tuple[int, Event]] = []
        for stream, queue in list(self.held.items()):
            while queue and queue[0][0] <= now_ms:
                _, seq, event = queue.popleft()
                due.append((seq, event))
            if not queue:
                del self.held[stream]
        if not due:
            return 0
        due.sort(key=lambda item: item[0])
        ids = self.copy.append([event for _, event in due])
        for copied, (_, event) in zip(ids, due, strict=True):
            self._note(copied, event)
        self.released += len(due)
        self.readings_unpruned += sum(isinstance(e, ClockReadingRecorded) for _, e in due)
        return len(due)

    def _note(self, copied: int, event: Event) -> None:
        """Keep track of the readings a move's ``[%clk]`` comes from
        (``projections.clock.ply_readings``)."""
        kind, _, game = event.originator_id.partition("/")
        if kind == "game" and isinstance(event, MovePlayed):
            self.awaiting.add(game)
        elif kind == "clock" and isinstance(event, ClockReadingRecorded):
            if event.ply is not None or game in self.awaiting:
                self.move_readings.add(copied)
            self.awaiting.discard(game)

    def prune(self, read_upto: int) -> int:
        """Drop from the copy the readings of each clock but its last ``KEEP_READINGS``,
        among those the public channel has read (copy sequence numbers up to
        ``read_upto``), once ``PRUNE_EVERY`` readings came in since the last time; how
        many were dropped."""
        if self.readings_unpruned < PRUNE_EVERY:
            return 0
        self.readings_unpruned = 0
        dropped = self.log.drop(read_upto, READING_TOPIC, KEEP_READINGS, self.move_readings)
        self.pruned += dropped
        return dropped

    def waiting(self) -> int:
        return sum(len(queue) for queue in self.held.values())

    def close(self) -> None:
        self.copy.close()


class PublicView:
    """The public channel's source (blocking; reader thread): the delayed copy of the live
    log and a follower of the copy, as the live channel has a follower of the store."""

    def __init__(self, delay_ms: int) -> None:
        self.delayed = DelayedLog(delay_ms)
        self.follower: Follower | None = None
        self.next_release_ms: int | None = None
        """When the first event held back at the last release is due (None: none held):
        the copy shows nothing from its instant on, however late the next release runs."""

    @property
    def store(self) -> Store | None:
        """The copy the public's reads come from, once started."""
        return self.follower.store if self.follower is not None else None

    def start(self, live: Follower, upto: int, now_ms: int) -> Update:
        """The public's state at ``now_ms - delay``, from the live log up to ``upto``."""
        self.delayed.take(live.events_between(0, upto), None)
        self.delayed.release(now_ms)
        self.next_release_ms = self.delayed.next_release_ms()
        self.follower = Follower(self.delayed.copy)
        public = self.follower.start()
        self.delayed.prune(public.seq)
        return public

    def poll(self, update: Update | None, now_ms: int) -> Update | None:
        """Hold what the live log gained; what the public copy gained (events released)."""
        assert self.follower is not None
        if update is not None:
            self.delayed.take(update.events, update.seen_ms)
        public = self.follower.poll() if self.delayed.release(now_ms) else None
        self.next_release_ms = self.delayed.next_release_ms()
        self.delayed.prune(self.follower.seq)
        return public

    def close(self) -> None:
        self.delayed.close()
