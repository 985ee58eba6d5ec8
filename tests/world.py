"""The engine's ``World`` in memory: commands decided, events kept in a list, no store.

Rule tests need the engine's decisions, not a backend: this world answers the
same calls the store does (``handle``, ``execute``, ``execute_many``, ``execute_all``,
``append``, ``stream``, ``count``, ``game``, ``tournament``, ``clock_log``,
``board_log``, ``incident_book``,
``readings``, ``reading_at``, ``game_ids``, ``events_since``) with the state
folded by the engine's own ``evolve`` functions, and refuses a stale version
the way the store's optimistic concurrency does. It answers with the store's own
answer functions (``answer_of``, ``duplicate_answer``). ``tests/test_world_contract.py``
runs the same command sequences on this world and on real stores and requires the same
answers, events and objects: the world cannot drift from the store unnoticed. It holds
one tournament and knows no ``command_id``: stores of several tournaments and command
ids are tested on real stores, as are the backends themselves (SQLite, PostgreSQL:
transactions, links, seals, concurrent writers; the ``store`` fixture).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from adapters.store import game_order
from adapters.store.door import answer_of, duplicate_answer
from engine.arbiter import board_log as board_logs
from engine.arbiter import incident_book as incident_books
from engine.arbiter.board_log import BoardLog
from engine.arbiter.incident_book import IncidentBook
from engine.dispatch import decide
from engine.errors import AlreadyRecorded, CommandRefused, Conflict
from engine.events import (
    INCIDENTS_STREAM,
    TOURNAMENT_STREAM,
    ClockReadingRecorded,
    Event,
    board_stream,
    clock_stream,
    game_stream,
)
from engine.game import clock_log as clock_logs
from engine.game import state as games
from engine.game.clock_log import ClockLog
from engine.game.state import Game
from engine.tournament import tournament as tournaments
from engine.tournament.tournament import Tournament

EVOLVERS: dict[str, Callable[[Any, Event], Any]] = {
    TOURNAMENT_STREAM: tournaments.evolve,
    INCIDENTS_STREAM: incident_books.evolve,
    "game": games.evolve,
    "clock": clock_logs.evolve,
    "board": board_logs.evolve,
}


class World:
    """Every event in one list, every stream's state folded as it is appended."""

    url = "memory"

    def __init__(self) -> None:
        self.log: list[Event] = []
        self.streams: dict[str, list[Event]] = {}
        self.states: dict[str, Any] = {}

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        pass

    @property
    def reads(self) -> World:
        """Its reads, where a store's are (``Store.reads``): a world is its own."""
        return self

    @property
    def cache(self) -> World:
        """Its log's reads, where a store's are (``Store.cache``): a world is its own."""
        return self

    # --- the engine's World -------------------------------------------------

    def tournament(self) -> Tournament | None:
        state: Tournament | None = self.states.get(TOURNAMENT_STREAM)
        return state

    def game(self, game_id: str) -> Game | None:
        state: Game | None = self.states.get(game_stream(game_id))
        return state

    def clock_log(self, game_id: str) -> ClockLog | None:
        state: ClockLog | None = self.states.get(clock_stream(game_id))
        return state

    def board_log(self, serial: str) -> BoardLog | None:
        state: BoardLog | None = self.states.get(board_stream(serial))
        return state

    def incident_book(self) -> IncidentBook | None:
        state: IncidentBook | None = self.states.get(INCIDENTS_STREAM)
        return state

    # --- what the store answers too ------------------------------------------

    def append(self, events: Sequence[Event]) -> list[int]:
        """All or nothing: a version that is not the next of its stream is a Conflict."""
        heads = {s: len(e) for s, e in self.streams.items()}
        for event in events:
            stream = event.originator_id
            if event.originator_version != heads.get(stream, 0) + 1:
                raise Conflict(f"another command changed {stream} first; nothing was appended")
            heads[stream] = event.originator_version
        for event in events:
            stream = event.originator_id
            self.streams.setdefault(stream, []).append(event)
            self.log.append(event)
            evolve = EVOLVERS.get(stream.partition("/")[0] if "/" in stream else stream)
            if evolve is not None:
                self.states[stream] = evolve(self.states.get(stream), event)
        return list(range(len(self.log) - len(events) + 1, len(self.log) + 1))

    def execute(self, raw: object) -> tuple[Any, list[Event]]:
        cmd, events = decide(raw, self)
        self.append(events)
        return cmd, events

    def handle(self, raw: object) -> dict[str, Any]:
        """The store's answer (``Store.handle``), built by the store's own functions."""
        try:
            _, events = self.execute(raw)
        except AlreadyRecorded as repeat:
            return duplicate_answer(repeat)
        except CommandRefused as refused:
            return {"ok": False, "error": refused.as_error()}
        return answer_of(events)

    def execute_many(self, raws: Iterable[object]) -> list[dict[str, Any]]:
        return [self.handle(raw) for raw in raws]

    def execute_all(self, raws: Iterable[object]) -> list[tuple[Any, list[Event]]]:
        """Every command, each decided on the state the ones before it left, or none."""
        log, states = list(self.log), dict(self.states)
        streams = {s: list(e) for s, e in self.streams.items()}
        try:
            return [self.execute(raw) for raw in raws]
        except BaseException:
            self.log, self.states, self.streams = log, states, streams
            raise

    def seal(self) -> None:
        """Seals belong to the store's hash chains (adapters/store/chain.py): none here."""
        return None

    def stream(self, stream_id: str, after_version: int = 0) -> list[Event]:
        return self.streams.get(stream_id, [])[after_version:]

    def count(self) -> int:
        return len(self.log)

    def last_seq(self) -> int:
        return len(self.log)

    def events_since(self, seq: int = 0, limit: int | None = None) -> Iterator[tuple[int, Event]]:
        end = None if limit is None else seq + limit
        yield from enumerate(self.log[seq:end], start=seq + 1)

    def readings(self, game_id: str) -> list[ClockReadingRecorded]:
        return [
            e for e in self.stream(clock_stream(game_id)) if isinstance(e, ClockReadingRecorded)
        ]

    def reading_at(self, game_id: str, at_ms: int) -> tuple[ClockReadingRecorded, int] | None:
        found = [r for r in self.readings(game_id) if r.at_ms <= at_ms]
        return (found[-1], found[-1].originator_version) if found else None

    def game_ids(self) -> list[str]:
        ids = {s.removeprefix("game/") for s in self.streams if s.startswith("game/")}
        return sorted(ids, key=game_order)
