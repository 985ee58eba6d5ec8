"""A store's log held in memory, in a structure of our own that can let records go.

The store's records live in the eventsourcing library's tables (SQLite or
PostgreSQL), which only ever grow: the library offers no way to remove a
record, and the project never reaches into its tables to do it. A store that
must stay small while it runs (the gateway's public copy of the log,
``adapters.gateway.public``) is held here instead: ``MemoryLog`` is an
``ApplicationRecorder`` (the library's public interface of a recorder), so a
``Store`` opened on it (``Store(name, log=MemoryLog())``) is read and written
like any other; and ``drop`` lets go of the records a reader no longer needs.

Each record keeps its notification id (its sequence number) for good: a dropped
record leaves a gap in the log and in its stream's versions, never renumbers
the others, and ids are never given twice.
"""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any
from uuid import UUID

from eventsourcing.persistence import (
    ApplicationRecorder,
    IntegrityError,
    ListenNotifySubscription,
    Notification,
    StoredEvent,
    Subscription,
)

from adapters.store.application import CandidatesApplication
from adapters.store.codec import TOPIC as MSGPACK_TOPIC


class StreamRecords:
    """One stream's records: their versions in order, and each one's notification id."""

    __slots__ = ("ids", "versions")

    def __init__(self) -> None:
        self.versions: list[int] = []
        self.ids: list[int] = []

    def holds(self, version: int) -> bool:
        at = bisect_left(self.versions, version)
        return at < len(self.versions) and self.versions[at] == version

    def add(self, version: int, notification_id: int) -> None:
        at = bisect_left(self.versions, version)
        self.versions.insert(at, version)
        self.ids.insert(at, notification_id)


class MemoryLog(ApplicationRecorder):
    """A store's records in memory: in log order (by notification id) and by stream."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._records: dict[int, tuple[str, int, str, bytes]] = {}
        """Notification id -> (stream, version, topic, state): a tuple holds a record in a
        fifth of the memory of the library's ``Notification`` (made when one is read)."""
        self._ids: list[int] = []
        """The ids held, in order."""
        self._streams: dict[str, StreamRecords] = {}
        self._last_id = 0
        """The last id given (a dropped record's id is not given again)."""
        self._listeners: set[threading.Event] = set()

    def held(self) -> int:
        """How many records are held."""
        return len(self._ids)

    # --- the recorder ---------------------------------------------------------------

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int]:
        """Append records (all or none): a version already in its stream is refused."""
        with self._lock:
            new = {(str(s.originator_id), s.originator_version) for s in stored_events}
            if len(new) < len(stored_events):
                raise IntegrityError(f"records are not unique: {stored_events}")
            for stream, version in new:
                records = self._streams.get(stream)
                if records is not None and records.holds(version):
                    raise IntegrityError(f"{stream} already holds version {version}")
            ids: list[int] = []
            for stored in stored_events:
                self._last_id += 1
                stream = str(stored.originator_id)
                self._records[self._last_id] = (
                    stream,
                    stored.originator_version,
                    stored.topic,
                    stored.state,
                )
                self._ids.append(self._last_id)
                self._streams.setdefault(stream, StreamRecords()).add(
                    stored.originator_version, self._last_id
                )
                ids.append(self._last_id)
        for listener in list(self._listeners):
            listener.set()
        return ids

    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        """A stream's records with ``gt < version <= lte``, in version order (``desc``:
        the newest first), at most ``limit``."""
        with self._lock:
            records = self._streams.get(str(originator_id))
            if records is None:
                return []
            low = 0 if gt is None else bisect_right(records.versions, gt)
            high = len(records.versions) if lte is None else bisect_right(records.versions, lte)
            ids = records.ids[low:high]
            if desc:
                ids.reverse()
            if limit is not None:
                ids = ids[:limit]
            return [self._notification(i) for i in ids]

    def select_notifications(
        self,
        start: int | None,
        limit: int,
        stop: int | None = None,
        topics: Sequence[str] = (),
        *,
        inclusive_of_start: bool = True,
    ) -> Sequence[Notification]:
        """Records in log order from ``start`` (after it: ``inclusive_of_start`` False) up
        to ``stop``, of ``topics`` if any are named, at most ``limit``."""
        with self._lock:
            if start is None:
                at = 0
            elif inclusive_of_start:
                at = bisect_left(self._ids, start)
            else:
                at = bisect_right(self._ids, start)
            found: list[Notification] = []
            for notification_id in self._ids[at:]:
                if len(found) >= limit or (stop is not None and notification_id > stop):
                    break
                if not topics or self._records[notification_id][2] in topics:
                    found.append(self._notification(notification_id))
            return found

    def _notification(self, notification_id: int) -> Notification:
        stream, version, topic, state = self._records[notification_id]
        return Notification(
            id=notification_id,
            originator_id=stream,
            originator_version=version,
            topic=topic,
            state=state,
        )

    def max_notification_id(self) -> int | None:
        with self._lock:
            return self._ids[-1] if self._ids else None

    def subscribe(
        self, gt: int | None = None, topics: Sequence[str] = ()
    ) -> Subscription[ApplicationRecorder]:
        """The records after ``gt`` as they are appended (the library's listen-notify
        iterator, woken by each append)."""
        return MemoryLogSubscription(self, gt, topics)

    def listen(self, woken: threading.Event) -> None:
        self._listeners.add(woken)

    def unlisten(self, woken: threading.Event) -> None:
        self._listeners.discard(woken)

    # --- letting records go -----------------------------------------------------------

    def drop(self, upto: int, topic: str, keep: int, kept: AbstractSet[int] = frozenset()) -> int:
        """Let go of the records of ``topic`` with ids up to ``upto``, but for the last
        ``keep`` versions of each stream (of any topic) and the ids in ``kept``; how many
        were dropped."""
        with self._lock:
            gone: set[int] = set()
            for records in self._streams.values():
                if len(records.versions) <= keep:
                    continue
                threshold = records.versions[-1] - (keep - 1)
                versions: list[int] = []
                ids: list[int] = []
                for version, i in zip(records.versions, records.ids, strict=True):
                    if (
                        version < threshold
                        and i <= upto
                        and i not in kept
                        and self._records[i][2] == topic
                    ):
                        gone.add(i)
                    else:
                        versions.append(version)
                        ids.append(i)
                records.versions, records.ids = versions, ids
            if gone:
                for notification_id in gone:
                    del self._records[notification_id]
                self._ids = [i for i in self._ids if i not in gone]
            return len(gone)


class MemoryLogSubscription(ListenNotifySubscription[MemoryLog]):
    """The library's listen-notify subscription on a ``MemoryLog``."""

    def __init__(self, log: MemoryLog, gt: int | None, topics: Sequence[str]) -> None:
        super().__init__(recorder=log, gt=gt, topics=topics)
        self._recorder.listen(self._has_been_notified)

    def stop(self) -> None:
        super().stop()
        self._recorder.unlisten(self._has_been_notified)


class MemoryApplication(CandidatesApplication):
    """The store's application on a ``MemoryLog`` (nothing written anywhere else)."""

    def __init__(self, log: MemoryLog) -> None:
        self.memory = log
        super().__init__(
            env={
                "PERSISTENCE_MODULE": "eventsourcing.popo",  # the factory of the mapper only
                "TRANSCODER_TOPIC": MSGPACK_TOPIC,
                "ORIGINATOR_ID_TYPE": "text",
            }
        )

    def construct_recorder(self) -> ApplicationRecorder:
        return self.memory
