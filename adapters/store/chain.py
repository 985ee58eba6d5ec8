"""Tamper evidence: hash links between stored events, and seals over their global order.

Each stored event carries a link, ``SHA-256`` of its stream predecessor's link and its
own canonical bytes, so a changed event breaks its stream's chain; ``ChainSealed``
events on the ``tournament`` stream hold a running digest over the links in global
order, so a moved or lost event shows too. A seal is due every ``seal_every``
positions, whoever appended them, and on close or request. The link travels in the
stored record (``ChainMapper``), never in the domain event. The design and its limits
are in docs/audit.md."""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from eventsourcing.application import Application
from eventsourcing.persistence import Mapper, Notification, StoredEvent, Transcoder
from eventsourcing.utils import get_topic

from adapters.store.codec import pack
from engine.errors import Conflict
from engine.events import TOURNAMENT_STREAM, ChainSealed, Event
from engine.tournament.tournament import Tournament

log = logging.getLogger(__name__)

LINK_KEY = "_link"
"""Key of the hash link inside a stored record's msgpack map."""
GENESIS = bytes(32)
"""The predecessor of every stream's first event, and the digest before the first seal."""
PREFIX_BYTES = 4
DEFAULT_SEAL_EVERY = 1000
REMEMBERED = 100_000
"""At most about this many of its own appends a store keeps for its next seal."""


FRAME = ("originator_id", "originator_version", "at_ms", LINK_KEY)


def event_fields(event: Event) -> dict[str, Any]:
    """The fields the event carries but ``at_ms`` (stream and version apart), in order.

    Read from the event's own attributes, not from its class: an event stored
    before its class gained a field (with a default) keeps exactly the fields it
    was stored with, so its link still holds.
    """
    fields = vars(event).copy()
    for name in FRAME:
        fields.pop(name, None)
    return fields


def canonical(stream: str, version: int, kind: str, at_ms: int, body: dict[str, Any]) -> bytes:
    """The bytes a link hashes: msgpack of ``[stream, version, type, at_ms, fields]``."""
    return pack([stream, version, kind, at_ms, body])


def event_canonical(event: Event) -> bytes:
    return canonical(
        event.originator_id,
        event.originator_version,
        type(event).__name__,
        event.at_ms,
        event_fields(event),
    )


def next_link(previous: bytes, content: bytes) -> bytes:
    """The link of an event: SHA-256 of its predecessor's link and its canonical bytes."""
    return hashlib.sha256(previous + content).digest()


def extend_digest(digest: bytes, links: Iterable[bytes]) -> bytes:
    """The running order digest after these links (``D_k`` of the module docstring)."""
    h = hashlib.sha256(digest)
    for link in links:
        h.update(link)
    return h.digest()


def prefixes(links: Iterable[bytes]) -> str:
    return "".join(link[:PREFIX_BYTES].hex() for link in links)


def split_prefixes(order: str) -> list[str]:
    width = 2 * PREFIX_BYTES
    return [order[i : i + width] for i in range(0, len(order), width)]


class ChainMapper(Mapper[str]):
    """The eventsourcing mapper, plus the hash link kept in the stored record."""

    def __init__(self, transcoder: Transcoder) -> None:
        super().__init__(transcoder)
        self.pending: dict[tuple[str, int], bytes] = {}
        """Links to store, by (stream, version), set by ``Chain.link`` before a save."""

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        state = dict(vars(domain_event))
        stream = state.pop("originator_id")
        version = state.pop("originator_version")
        link = self.pending.get((stream, version))
        if link is not None:
            state[LINK_KEY] = link
        return StoredEvent(
            originator_id=stream,
            originator_version=version,
            topic=get_topic(type(domain_event)),
            state=self.transcoder.encode(state),
        )

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        return self.event_and_link(stored_event)[0]

    def event_and_link(self, stored_event: StoredEvent) -> tuple[Any, bytes | None]:
        """The domain event and the hash link stored with it (None if it has none)."""
        event = super().to_domain_event(stored_event)
        link = vars(event).pop(LINK_KEY, None)
        return event, link if isinstance(link, bytes) else None


class ChainReads(Protocol):
    """The reads of the log the chain makes (``adapters.store.cache.StateCache``)."""

    def stream(self, stream_id: str, after_version: int = 0) -> list[Event]: ...

    def notifications(self, start: int = 1, limit: int | None = None) -> Iterator[Notification]: ...


class ChainedStore(Protocol):
    """What the chain reads and writes through: the store's writer
    (``adapters.store.writer.Writer``)."""

    @property
    def app(self) -> Application[str]: ...

    @property
    def cache(self) -> ChainReads: ...

    def first_tournament(self) -> Tournament | None: ...

    def append(self, events: Sequence[Event]) -> list[int]: ...


@dataclass
class SealPoint:
    """Where the last seal stopped: events covered, digest, notification id reached."""

    events: int
    digest: bytes
    seq: int


class Chain:
    """The store's side of the chains: links computed at append, seals appended after."""

    def __init__(self, store: ChainedStore, seal_every: int | None = None) -> None:
        self.store = store
        env = os.environ.get("CANDIDATES_SEAL_EVERY")
        self.seal_every = (
            seal_every
            if seal_every is not None
            else int(env)
            if env and env.strip().isdigit()
            else DEFAULT_SEAL_EVERY
        )
        self.heads: dict[str, tuple[int, bytes]] = {}
        self.sealed: SealPoint | None = None
        self.sealed_version = 0
        """The tournament stream's version when ``sealed`` was known to be the last seal."""
        self._sealing = False
        self.appended: list[tuple[int, bytes, str, int, int, bool]] = []
        """(notification id, link, stream, version, at_ms, is a seal) of this store's own
        last appends, with no gap between them: a seal due right after them that they
        cover from the last seal on needs no read of the log."""

    @property
    def mapper(self) -> ChainMapper:
        mapper = self.store.app.mapper
        assert isinstance(mapper, ChainMapper)
        return mapper

    # --- links ----------------------------------------------------------------

    def stored_link(self, stream: str, version: int) -> bytes | None:
        """The link stored with one event, None if absent or unlinked."""
        if version < 1:
            return None
        found = self.store.app.recorder.select_events(
            stream, gt=version - 1 if version > 1 else None, lte=version, limit=1
        )
        if not found or found[0].originator_version != version:
            return None
        return self.mapper.event_and_link(found[0])[1]

    def predecessor(self, stream: str, version: int) -> bytes:
        if version <= 1:
            return GENESIS
        head = self.heads.get(stream)
        if head is not None and head[0] == version - 1:
            return head[1]
        return self.stored_link(stream, version - 1) or GENESIS

    def link(self, events: Sequence[Event]) -> list[bytes]:
        """Compute the link of each event (in order) and hand them to the mapper."""
        batch: dict[str, tuple[int, bytes]] = {}
        links: list[bytes] = []
        pending = self.mapper.pending
        for event in events:
            stream, version = event.originator_id, event.originator_version
            head = batch.get(stream)
            previous = (
                head[1]
                if head is not None and head[0] == version - 1
                else self.predecessor(stream, version)
            )
            link = next_link(previous, event_canonical(event))
            batch[stream] = (version, link)
            links.append(link)
            pending[(stream, version)] = link
        return links

    def done(self) -> None:
        self.mapper.pending.clear()

    def saved(self, events: Sequence[Event], links: Sequence[bytes], ids: Sequence[int]) -> None:
        """After an append: the heads of the streams, what a seal may take from memory,
        and the seal when one is due."""
        for event, link in zip(events, links, strict=True):
            self.heads[event.originator_id] = (event.originator_version, link)
        if not self.seal_every or not ids:
            return
        self._remember(events, links, ids)
        if self._sealing:
            return
        try:
            if self.seal_due(ids[-1]):
                self.seal(through=ids[-1])
        except Exception:  # the events are stored: a seal that fails waits for the next
            log.warning("automatic seal failed; the next one covers the same events", exc_info=True)

    def _remember(
        self, events: Sequence[Event], links: Sequence[bytes], ids: Sequence[int]
    ) -> None:
        follows = not self.appended or self.appended[-1][0] + 1 == ids[0]
        if not follows or len(self.appended) > REMEMBERED:
            self.appended.clear()
        if ids[-1] - ids[0] != len(ids) - 1:  # another writer's records among them
            return
        seal = ChainSealed.__name__
        self.appended.extend(
            (seq, link, e.originator_id, e.originator_version, e.at_ms, e.kind == seal)
            for seq, link, e in zip(ids, links, events, strict=True)
        )

    def remembered_after(
        self, seq: int, through: int
    ) -> list[tuple[int, bytes, str, int, int, bool]] | None:
        """This store's own appends after ``seq`` up to ``through`` when they are every
        event in between (no other writer's among them), else None."""
        if not self.appended or self.appended[-1][0] != through:
            return None
        first = self.appended[0][0]
        if first > seq + 1:
            return None
        return self.appended[seq + 1 - first :] if seq >= first else list(self.appended)

    def seal_due(self, last_seq: int) -> bool:
        """Whether the log reached ``seal_every`` positions past the last seal.

        Reads where the last seal is only when the known one looks due (another
        writer may have sealed since): one cheap comparison per append otherwise."""
        if self.sealed is not None and last_seq - self.sealed.seq < self.seal_every:
            return False
        tournament = self.store.first_tournament()  # the seals' stream, as in ``seal``
        if tournament is None:
            # no tournament, no seal yet: the log's start is the last seal point, so the
            # next appends compare with it instead of looking for a tournament each time
            self.sealed, self.sealed_version = SealPoint(0, GENESIS, 0), 0
            return False
        if self.sealed is None or tournament.version != self.sealed_version:
            self.sealed = self.last_seal_point()
            self.sealed_version = tournament.version
        return last_seq - self.sealed.seq >= self.seal_every

    def forget(self, streams: Iterable[str]) -> None:
        for stream in streams:
            self.heads.pop(stream, None)

    # --- seals ----------------------------------------------------------------

    def records_after(self, seq: int) -> Iterator[tuple[Notification, bytes | None, int, bool]]:
        """(notification, link, at_ms, is a seal) of every stored event after ``seq``."""
        decode = self.store.app.mapper.transcoder.decode
        seal_topic = get_topic(ChainSealed)
        for notification in self.store.cache.notifications(seq + 1):
            state = decode(notification.state)
            link = state.get(LINK_KEY) if isinstance(state, dict) else None
            at_ms = state.get("at_ms", 0) if isinstance(state, dict) else 0
            yield (
                notification,
                link if isinstance(link, bytes) else None,
                int(at_ms or 0),
                notification.topic == seal_topic,
            )

    def last_seal_point(self) -> SealPoint:
        """Where the last seal of the tournament stream stopped (verified hint, else counted)."""
        last: ChainSealed | None = None
        for event in self.store.cache.stream(TOURNAMENT_STREAM):
            if isinstance(event, ChainSealed):
                last = event
        if last is None:
            return SealPoint(0, GENESIS, 0)
        digest = bytes.fromhex(last.order_digest)
        tail = split_prefixes(last.order)[-1:] or [""]
        hinted = next(iter(self.store.cache.notifications(last.through_seq, 1)), None)
        if hinted is not None and hinted.id == last.through_seq:
            link = self.mapper.event_and_link(hinted)[1]
            if link is not None and link[:PREFIX_BYTES].hex() == tail[0]:
                return SealPoint(last.events_before, digest, last.through_seq)
        seq = 0
        for index, notification in enumerate(self.store.cache.notifications(), start=1):
            seq = notification.id
            if index == last.events_before:
                break
        return SealPoint(last.events_before, digest, seq)

    def seal(self, minimum: int = 1, through: int | None = None) -> ChainSealed | None:
        """Append a seal over every event not yet sealed (at least ``minimum`` of them).

        Needs the tournament to exist (the seal lives on its stream). Returns None
        when there is nothing to seal or another writer moved the tournament stream
        first (the next seal covers the same events). ``through``: the log's last
        notification id as this store's own append just left it; the events this store
        appended up to it are then taken from memory when they are all the unsealed ones.
        """
        tournament = self.store.first_tournament()  # the seals' stream is the store's first
        if tournament is None or self._sealing:
            return None
        if self.sealed is None or tournament.version != self.sealed_version:
            # another writer may have sealed (or the stream moved): read where the last seal is
            self.sealed = self.last_seal_point()
            self.sealed_version = tournament.version
        point = self.sealed
        links: list[bytes] = []
        last_seq, latest_ms, seals = point.seq, 0, 0
        heads: dict[str, int] = {}
        remembered = self.remembered_after(point.seq, through) if through is not None else None
        records = remembered if remembered is not None else self._records(point.seq)
        for seq, link, stream, version, at_ms, is_seal in records:
            links.append(link or GENESIS)
            heads[stream] = version
            last_seq, latest_ms = seq, max(latest_ms, at_ms)
            seals += is_seal
        if len(links) - seals < max(minimum, 1):
            return None  # nothing but earlier seals to cover
        digest = extend_digest(point.digest, links)
        seal = ChainSealed(
            originator_id=TOURNAMENT_STREAM,
            originator_version=tournament.version + 1,
            at_ms=latest_ms,
            by="store",
            events_before=point.events + len(links),
            order_digest=digest.hex(),
            order=prefixes(links),
            heads=dict(sorted(heads.items())),
            through_seq=last_seq,
        )
        self._sealing = True
        try:
            self.store.append([seal])
        except Conflict:
            return None
        finally:
            self._sealing = False
        self.sealed = SealPoint(point.events + len(links), digest, last_seq)
        self.sealed_version = seal.originator_version
        self.appended = [r for r in self.appended if r[0] > last_seq]
        return seal

    def _records(self, seq: int) -> Iterator[tuple[int, bytes | None, str, int, int, bool]]:
        for notification, link, at_ms, is_seal in self.records_after(seq):
            yield (
                notification.id,
                link,
                str(notification.originator_id),
                notification.originator_version,
                at_ms,
                is_seal,
            )
