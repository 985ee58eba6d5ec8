"""One tournament of a store, as its decisions and queries see it.

A store holds its first tournament on the plain stream names and each further one
under its id (``engine.events.physical_stream``); a ``TournamentView`` names the
streams as if its tournament were alone in the store, so the engine's decisions
(an ``engine.world.World``) and the contract's queries read it unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any

from adapters.store.cache import Cached, StateCache
from adapters.store.names import logical_event
from engine.arbiter import board_log as board_logs
from engine.arbiter import incident_book as incident_books
from engine.arbiter.board_log import BoardLog
from engine.arbiter.incident_book import IncidentBook
from engine.events import (
    INCIDENTS_STREAM,
    TOURNAMENT_STREAM,
    ClockReadingRecorded,
    Event,
    board_stream,
    clock_stream,
    game_stream,
    physical_stream,
    split_stream,
)
from engine.game import clock_log as clock_logs
from engine.game import state as games
from engine.game.clock_log import ClockLog
from engine.game.state import Game
from engine.tournament import tournament as tournaments
from engine.tournament.tournament import Tournament

PHYSICAL_NAMES = 1 << 16
"""At most this many stream names a view keeps worked out (then it starts again)."""
TAIL = 8
"""How many of a clock stream's last events are read for its last reading at first."""


class TournamentView:
    """One tournament of a store, as its decisions and queries see it (an
    ``engine.world.World``): streams named as if it were alone in the store."""

    def __init__(
        self, cache: StateCache, namespace: str | None, first_id: Callable[[], str | None]
    ) -> None:
        self.cache = cache
        """The store's reads and cached states, shared by its tournaments' views."""
        self._first_id = first_id
        """The id of the store's first tournament (``adapters.store.registry``)."""
        self.namespace = namespace
        """None for the store's first tournament (plain stream names), else its id."""
        self._physical: dict[str, str] = {}
        """Stream name as the engine names it -> as stored (asked several times a command)."""

    @property
    def id(self) -> str | None:
        return self.namespace if self.namespace is not None else self._first_id()

    def physical(self, stream: str) -> str:
        found = self._physical.get(stream)
        if found is None:
            if len(self._physical) >= PHYSICAL_NAMES:  # game ids of refused commands too
                self._physical.clear()
            found = self._physical[stream] = physical_stream(stream, self.namespace)
        return found

    def stream(self, stream_id: str, after_version: int = 0) -> list[Event]:
        """The events of one of this tournament's streams (named as the engine names it)."""
        events = self.cache.stream(self.physical(stream_id), after_version)
        if self.namespace is None:
            return events
        return [logical_event(e, self.namespace) for e in events]

    def tournament(self) -> Tournament | None:
        return self.cache.fold(self.physical(TOURNAMENT_STREAM), tournaments.evolve, self.namespace)

    def game(self, game_id: str) -> Game | None:
        return self.cache.fold(self.physical(game_stream(game_id)), games.evolve, self.namespace)

    def board_log(self, serial: str) -> BoardLog | None:
        """A board's alert stream: the store's, shared by its tournaments."""
        return self.cache.fold(board_stream(serial), board_logs.evolve)

    def incident_book(self) -> IncidentBook | None:
        """This tournament's incident book (``incidents``, namespaced like its other streams)."""
        return self.cache.fold(
            self.physical(INCIDENTS_STREAM), incident_books.evolve, self.namespace
        )

    def clock_log(self, game_id: str) -> ClockLog | None:
        """The state of a game's ``clock/<id>`` stream (its version, its last reading).

        Read from the stream's last events only (the last reading carries what
        the next decision needs), then kept up to date like every cached state:
        a game with 10,000 readings costs one short query, not a fold.
        """
        stream = self.physical(clock_stream(game_id))
        if stream not in self.cache._cache:
            self.clock_logs([game_id])
        if stream not in self.cache._cache:
            self.cache._cache[stream] = Cached(*self._clock_log_from_tail(stream, game_id))
        return self.cache.fold(stream, clock_logs.evolve, self.namespace)

    def clock_logs(self, game_ids: Iterable[str]) -> None:
        """Bring into the cache the clock logs of these games it does not hold, from the
        last ``TAIL`` events of each stream, all read in one request (a batch of
        readings from many boards starts with this); a stream whose last ``TAIL`` events
        hold no reading is left to ``clock_log``."""
        cache = self.cache._cache
        wanted = {self.physical(clock_stream(g)): g for g in game_ids}
        missing = [stream for stream in wanted if stream not in cache]
        if not missing:
            return
        self.cache.stream_reads += 1
        for stream, tail in self.cache.log.tails(missing, TAIL).items():
            if not tail:
                cache[stream] = Cached(None, 0)
                continue
            version = tail[0].originator_version
            for stored in tail:
                event = self._decoded(stored)
                if isinstance(event, ClockReadingRecorded):
                    cache[stream] = Cached(ClockLog(wanted[stream], version, event), version)
                    break
            else:
                if len(tail) < TAIL:  # the whole stream, and no reading in it
                    cache[stream] = Cached(ClockLog(wanted[stream], version, None), version)

    def _decoded(self, stored: Any) -> Event | None:
        event = self.cache.app.mapper.to_domain_event(stored)
        return logical_event(event, self.namespace) if isinstance(event, Event) else None

    def _clock_log_from_tail(self, stream: str, game_id: str) -> tuple[ClockLog | None, int]:
        recorder = self.cache.app.recorder
        self.cache.stream_reads += 1
        newest = recorder.select_events(stream, desc=True, limit=1)
        if not newest:
            return None, 0
        version = newest[0].originator_version
        limit = TAIL * 8
        while True:
            tail = recorder.select_events(stream, desc=True, limit=limit)
            for stored in tail:
                event = self._decoded(stored)
                if isinstance(event, ClockReadingRecorded):
                    return ClockLog(game_id, version, event), version
            if len(tail) < limit:
                return ClockLog(game_id, version, None), version
            limit *= 8

    def reading_at(self, game_id: str, at_ms: int) -> tuple[ClockReadingRecorded, int] | None:
        """The last reading taken at or before ``at_ms`` and its position among the readings.

        Readings are stored in time order (``clock_reading`` refuses an earlier
        one), so this is a binary search over the stream's versions: about
        log2(N) one-row queries instead of reading N events.
        """
        stream = self.physical(clock_stream(game_id))
        recorder = self.cache.app.recorder
        self.cache.stream_reads += 1
        log = self.clock_log(game_id)
        if log is None or log.version == 0:
            return None

        def event_at(version: int) -> Event | None:
            stored = recorder.select_events(stream, lte=version, desc=True, limit=1)
            return self._decoded(stored[0]) if stored else None

        low, high, found = 1, log.version, 0
        while low <= high:
            middle = (low + high) // 2
            event = event_at(middle)
            if event is not None and event.at_ms <= at_ms:
                found, low = middle, middle + 1
            else:
                high = middle - 1
        if not found:
            return None
        for stored in recorder.select_events(stream, lte=found, desc=True, limit=8):
            event = self._decoded(stored)
            if isinstance(event, ClockReadingRecorded):
                return event, event.originator_version
        return None

    def readings(self, game_id: str) -> list[ClockReadingRecorded]:
        """Every stored reading of a game's clock, in order (for the clock projection)."""
        return [
            e for e in self.stream(clock_stream(game_id)) if isinstance(e, ClockReadingRecorded)
        ]

    def game_ids(self) -> list[str]:
        """Every game of this tournament with a stream, in (round, board) order."""
        ids = set()
        for n in self.cache.notifications():
            namespace, name = split_stream(str(n.originator_id))
            if namespace == self.namespace and name.startswith("game/"):
                ids.add(name.removeprefix("game/"))
        return sorted(ids, key=game_order)

    # --- the store's looks, for code given a view for a store ---------------

    def session(self) -> AbstractContextManager[StateCache]:
        return self.cache.session()

    def last_seq(self) -> int:
        return self.cache.last_seq()


def game_order(game_id: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key: numeric parts of ``<round>.<board>`` in number order, text after."""
    return tuple(
        (0, int(piece)) if piece.isdigit() else (1, piece)
        for piece in game_id.replace("-", ".").split(".")
    )
