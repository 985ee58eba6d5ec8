"""A store held in memory on a log of our own (``adapters.store.memory_log``): read and
written like any store, and able to let records go without renumbering the others."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.utils import get_topic

from adapters.store import MemoryLog, Store
from engine.events import ClockReadingRecorded
from tests.helpers import at, ok, paired_tournament, refused

READING = get_topic(ClockReadingRecorded)


@pytest.fixture
def held() -> Iterator[tuple[MemoryLog, Store]]:
    log = MemoryLog()
    with Store("memory-log-test", memory=log) as store:
        yield log, store


def record(stream: str, version: int, topic: str = "t:Other") -> StoredEvent:
    return StoredEvent(stream, version, topic, b"")


def test_a_store_in_memory_decides_refuses_and_reads_like_any(
    held: tuple[MemoryLog, Store],
) -> None:
    log, store = held
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    ok(store, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(5)})
    refused(store, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(9)}, "illegal_move")
    assert store.created and log.held() == store.cache.count() == store.last_seq()
    game = store.reads.game("1.1")
    assert game is not None and list(game.moves) == ["e2e4"]
    with pytest.raises(IntegrityError):  # a position in a stream is written once
        log.insert_events([record("game/1.1", 1)])
    assert log.held() == store.cache.count()


def test_dropping_leaves_gaps_and_never_gives_an_id_twice() -> None:
    log = MemoryLog()
    ids = log.insert_events([record("clock/a", v, READING) for v in range(1, 11)])
    ids = [*ids, *log.insert_events([record("game/a", 1), record("clock/b", 1, READING)])]
    assert ids == list(range(1, 13))
    assert log.drop(upto=12, topic=READING, keep=3) == 7  # clock/a: 1..7; clock/b keeps its one
    assert log.held() == 5 and log.max_notification_id() == 12
    assert [r.originator_version for r in log.select_events("clock/a")] == [8, 9, 10]
    assert [r.originator_version for r in log.select_events("clock/a", lte=8, desc=True)] == [8]
    assert log.select_events("clock/a", lte=7, desc=True, limit=1) == []
    assert [n.id for n in log.select_notifications(start=3, limit=10)] == [8, 9, 10, 11, 12]
    later = log.select_notifications(start=9, limit=2, inclusive_of_start=False)
    assert [n.id for n in later] == [10, 11]
    assert [n.id for n in log.select_notifications(1, 10, topics=["t:Other"])] == [11]
    assert log.insert_events([record("clock/a", 11, READING)]) == [13]
    assert log.drop(upto=12, topic=READING, keep=3) == 1  # version 8; 11 is after ``upto``
    assert [r.originator_version for r in log.select_events("clock/a")] == [9, 10, 11]


def test_a_subscription_follows_what_is_appended() -> None:
    log = MemoryLog()
    log.insert_events([record("game/a", 1)])
    seen: list[int] = []
    with log.subscribe(gt=0) as subscription:
        reader = threading.Thread(target=lambda: seen.extend(next(subscription).id for _ in "ab"))
        reader.start()
        log.insert_events([record("game/a", 2)])
        reader.join(timeout=10)
    assert seen == [1, 2]
