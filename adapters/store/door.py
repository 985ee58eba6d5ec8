"""The event store: an ``eventsourcing`` application on SQLite or PostgreSQL.

``open_store(url)`` takes a SQLite path (default ``./var/candidates.sqlite``,
or ``$CANDIDATES_STORE``) or a ``postgresql://user@host:port/db[?schema=s]``
URL. Every command is decided against the current state of the aggregates
and its events are appended in one transaction; a refused command appends
nothing. Concurrent writers are kept honest by the library's optimistic
concurrency (a stream position can be written once): the loser gets a
``conflict`` error.

State is cached per stream together with its version, and brought up to date
from the store (only the events after the cached version) before every
decision, so several processes can share one store.

The store is the door of every writer (CLI, gateway, DGT boards): it tells the
engine when it received each command (its wall clock, ``wall_clock_ms``), and
the engine refuses a command dated more than ``future_tolerance_ms`` later than
that (default 5 minutes; ``$CANDIDATES_FUTURE_TOLERANCE_S`` or ``candidates
--future-tolerance SECONDS``). Tests inject both.

A command may carry ``command_id`` (a client-chosen string, unique per store):
the store appends a ``CommandApplied`` event on ``command/<command_id>`` in the
same transaction as the command's events, so an id applies once. A repeat
answers exactly what the first time answered (read back from the events it
names) and appends nothing; the same id with another body is refused
(``command_id_reused``). A refused command records nothing: it may be sent
again under the same id.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, unquote, urlparse

from eventsourcing.application import Application
from eventsourcing.persistence import IntegrityError, Notification
from eventsourcing.postgres import PostgresApplicationRecorder
from psycopg.errors import DuplicateObject
from psycopg.sql import SQL, Identifier

from adapters.store.chain import Chain, ChainMapper
from adapters.store.codec import TOPIC as MSGPACK_TOPIC
from engine.arbiter import board_log as board_logs
from engine.arbiter import incident_book as incident_books
from engine.arbiter.board_log import BoardLog
from engine.arbiter.incident_book import IncidentBook
from engine.commands import Command, parse_command
from engine.dispatch import DEFAULT_FUTURE_TOLERANCE_MS, decide
from engine.errors import (
    AlreadyRecorded,
    CommandIdReused,
    CommandRefused,
    Conflict,
    MalformedCommand,
    UnknownTournament,
)
from engine.events import (
    INCIDENTS_STREAM,
    TOURNAMENT_STREAM,
    TOURNAMENTS_STREAM,
    AlertRaised,
    ClockReadingRecorded,
    CommandApplied,
    Event,
    TournamentCreated,
    TournamentListed,
    board_stream,
    clock_stream,
    command_stream,
    game_stream,
    physical_stream,
    split_stream,
)
from engine.game import clock_log as clock_logs
from engine.game import state as games
from engine.game.clock_log import ClockLog
from engine.game.state import Game
from engine.tournament import tournament as tournaments
from engine.tournament.founding import CreateTournament
from engine.tournament.tournament import Tournament

DEFAULT_STORE = "./var/candidates.sqlite"
SYNC_SCAN_LIMIT = 5000
"""Beyond this many notifications since the last look, every cached stream is read again
from its version rather than the notifications scanned for their stream names."""
MAX_COMMAND_ID = 200
"""Longest ``command_id`` accepted (characters)."""
S = TypeVar("S")
log = logging.getLogger(__name__)


def command_identity(raw: object) -> tuple[object, str | None, str | None]:
    """(the command without its ``command_id``, the id, the digest of the rest).

    The digest is SHA-256 of the body as canonical JSON (sorted keys), so the
    same command sent again, in any key order, has the same digest."""
    if not isinstance(raw, dict) or "command_id" not in raw:
        return raw, None, None
    command_id = raw["command_id"]
    if not isinstance(command_id, str) or not command_id:
        raise MalformedCommand(f"field 'command_id' must be a non-empty string, got {command_id!r}")
    if len(command_id) > MAX_COMMAND_ID:
        raise MalformedCommand(
            f"field 'command_id' is {len(command_id)} characters long; at most {MAX_COMMAND_ID}"
        )
    if not command_id.isprintable():
        raise MalformedCommand("field 'command_id' must be printable text (no control characters)")
    body = {k: v for k, v in raw.items() if k != "command_id"}
    try:
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        command_id.encode("utf-8")
        data = text.encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError, RecursionError) as exc:
        raise MalformedCommand(f"the command is not JSON text: {exc}") from None
    return body, command_id, hashlib.sha256(data).hexdigest()


def answer_of(events: Sequence[Event]) -> dict[str, Any]:
    return {"ok": True, "events": [e.to_wire() for e in events]}


def store_url(explicit: str | None = None) -> str:
    """The store to use: the argument, else ``$CANDIDATES_STORE``, else the default path."""
    return explicit or os.environ.get("CANDIDATES_STORE") or DEFAULT_STORE


def wall_clock_ms() -> int:
    """The receiving process's clock: UTC epoch milliseconds."""
    return time.time_ns() // 1_000_000


def future_tolerance_ms(explicit_s: float | None = None) -> int:
    """The tolerance for instants ahead of the wall clock: the argument (seconds), else
    ``$CANDIDATES_FUTURE_TOLERANCE_S``, else 5 minutes."""
    if explicit_s is None:
        text = os.environ.get("CANDIDATES_FUTURE_TOLERANCE_S")
        if not text:
            return DEFAULT_FUTURE_TOLERANCE_MS
        try:
            explicit_s = float(text)
        except ValueError:
            raise MalformedCommand(
                f"CANDIDATES_FUTURE_TOLERANCE_S must be a number of seconds, got {text!r}"
            ) from None
    if explicit_s < 0:
        raise MalformedCommand(f"the future tolerance must be 0 or more seconds, got {explicit_s}")
    return round(explicit_s * 1000)


def store_env(url: str) -> dict[str, str]:
    """The eventsourcing environment for a SQLite path or a PostgreSQL URL."""
    env = {"TRANSCODER_TOPIC": MSGPACK_TOPIC, "ORIGINATOR_ID_TYPE": "text"}
    if url.startswith(("postgresql://", "postgres://")):
        parts = urlparse(url)
        query = parse_qs(parts.query)
        env.update(
            PERSISTENCE_MODULE="eventsourcing.postgres",
            POSTGRES_DBNAME=(parts.path or "/").lstrip("/") or "postgres",
            POSTGRES_HOST=parts.hostname or "127.0.0.1",
            POSTGRES_PORT=str(parts.port or 5432),
            POSTGRES_USER=unquote(parts.username or "postgres"),
            POSTGRES_PASSWORD=unquote(parts.password or ""),
            POSTGRES_ENABLE_DB_FUNCTIONS="y",
            CREATE_TABLE="n",  # set up once, under a lock: set_up_postgres
        )
        if "schema" in query:
            env["POSTGRES_SCHEMA"] = query["schema"][0]
    else:
        path = url.removeprefix("sqlite:///").removeprefix("sqlite://")
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        env.update(
            PERSISTENCE_MODULE="eventsourcing.sqlite",
            SQLITE_DBNAME=path,
            SQLITE_LOCK_TIMEOUT="10",
        )
    return env


class CandidatesApplication(Application[str]):
    """The eventsourcing application that holds every stream of the store's tournaments."""

    name = "Candidates"
    log_section_size = 1000

    def construct_mapper(self) -> ChainMapper:
        """Stored records carry their hash link (adapters/store/chain.py, docs/audit.md)."""
        return ChainMapper(self.construct_transcoder())


@dataclass
class _Cached:
    state: Any
    version: int


class Store:
    """Commands in, events stored, state and events out."""

    def __init__(
        self,
        url: str | None = None,
        *,
        wall_clock: Callable[[], int] = wall_clock_ms,
        future_tolerance: int | None = None,
        tournament: str | None = None,
    ) -> None:
        self.url = store_url(url)
        self.default_tournament = tournament
        """The tournament of reads and commands that name none (``--tournament``); None:
        the store's only one."""
        self.wall_clock = wall_clock
        """When a command is received (UTC epoch ms); tests inject a fixed clock."""
        self.future_tolerance_ms = (
            future_tolerance if future_tolerance is not None else future_tolerance_ms()
        )
        """How far ahead of ``wall_clock`` a command's instant may be."""
        env = store_env(self.url)
        sqlite_path = env.get("SQLITE_DBNAME")
        self.created = bool(sqlite_path) and (
            sqlite_path == ":memory:" or not Path(str(sqlite_path)).exists()
        )
        """Whether opening this store set it up (a new SQLite file, a new PostgreSQL schema)."""
        self.app = CandidatesApplication(env=env)
        if isinstance(self.app.recorder, PostgresApplicationRecorder):
            try:
                self.created = set_up_postgres(self.app.recorder)
            except Exception:
                self.app.close()
                raise
        self._cache: dict[str, _Cached] = {}
        self._first_id: str | None = None
        self._views: dict[str | None, TournamentView] = {None: TournamentView(self, None)}
        self._stale: set[str] = set()
        """Cached streams another writer appended to (read again from their version)."""
        self._synced_seq = 0
        """Every cached state not in ``_stale`` holds every event up to this notification id."""
        self._session = False
        self.stream_reads = 0
        """Streams read from the database (not from the cached states), ever: a follower
        knows from it whether what it read came from the cache alone."""
        self.chain = Chain(self)
        """Hash links computed at append, seals every ``chain.seal_every`` positions."""
        self._appended = False
        """Whether this store appended anything since it opened (``seal_appended``)."""

    @property
    def is_postgres(self) -> bool:
        return self.url.startswith(("postgresql://", "postgres://"))

    def close(self) -> None:
        self.app.close()

    def seal_appended(self) -> Event | None:
        """Seal if this store appended anything since it opened: the end of a command
        batch (``candidates apply``) and the shutdown of a writer (gateway, DGT feed)
        call it. Never raises: a seal that fails waits for the next (docs/audit.md)."""
        if not self._appended or not self.chain.seal_every:
            return None
        try:
            return self.seal()
        except Exception:
            log.warning(
                "the closing seal failed; the next one covers the same events", exc_info=True
            )
            return None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading ------------------------------------------------------------

    def stream(self, stream_id: str, after_version: int = 0) -> list[Event]:
        """The events of one stored stream after a version, in order (names as stored)."""
        self.stream_reads += 1
        events = self.app.events.get(stream_id, gt=after_version or None)
        return [e for e in events if isinstance(e, Event)]

    def _fold(
        self,
        stream_id: str,
        evolve: Callable[[S | None, Event], S | None],
        namespace: str | None = None,
    ) -> S | None:
        if not self._session:
            self._sync()
        cached = self._cache.get(stream_id)
        if cached is not None and stream_id not in self._stale:
            state_now: S | None = cached.state  # nothing appended to it since it was read
            return state_now
        state: S | None = cached.state if cached else None
        version = cached.version if cached else 0
        for event in self.stream(stream_id, version):
            state = evolve(state, logical_event(event, namespace))
            version = event.originator_version
        self._cache[stream_id] = _Cached(state, version)
        self._stale.discard(stream_id)
        return state

    def _sync(self) -> None:
        """Bring the cached states up to the store's last notification.

        One query (the store's last notification id) when nothing was appended by
        anyone else, instead of one catch-up read per stream a decision reads; the
        notifications after the last look otherwise, whose events the cached states
        take in (``_take_in``), or, after a long absence, every cached stream is read
        again from its version."""
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
        wanted = (
            n
            for n in self.notifications(self._synced_seq + 1, current - self._synced_seq)
            if n.id <= current and (n.originator_id in self._cache or n.originator_version == 1)
        )
        decoded = (self.app.mapper.to_domain_event(n) for n in wanted)
        self._take_in([e for e in decoded if isinstance(e, Event)], current)

    def absorb(self, after: int, events: Sequence[tuple[int, Event]]) -> None:
        """Events read from the log after ``after`` (a follower's read of what others
        appended): the cached states take them in, so that the objects read next stand
        at the last one's sequence number without another look at the store.

        Nothing is taken when the cached states are known only up to before ``after``
        (some notifications were not read): the next look at the store reads them."""
        if not events or after > self._synced_seq:
            return
        upto = events[-1][0]
        if upto <= self._synced_seq:
            return
        self._take_in([e for seq, e in events if seq > self._synced_seq], upto)

    def _take_in(self, events: Sequence[Event], upto: int) -> None:
        """Every event of the log after ``_synced_seq`` up to ``upto``, in log order, into
        the cached states."""
        self._fold_in(events)
        self._synced_seq = upto

    def _fold_in(self, events: Sequence[Event]) -> None:
        """Fold events (in log order) into the cached state of their streams: a stream not
        cached is read when needed, unless the event starts it; one whose cached version
        does not lead to the event is read again when next needed (``_stale``)."""
        for event in events:
            stream = event.originator_id
            version = event.originator_version
            namespace, name = split_stream(stream)
            evolve = _EVOLVERS.get(name.partition("/")[0])
            cached = self._cache.get(stream)
            if stream in self._stale:
                continue
            if evolve is None:  # a stream folded its own way (the list of tournaments)
                if cached is not None:
                    self._stale.add(stream)
                continue
            if cached is None:
                if version != 1:
                    continue  # not cached: read when needed
                cached = _Cached(None, 0)  # the event starts its stream: nothing to read
            if version <= cached.version:
                continue  # already folded (our own append)
            if version == cached.version + 1:
                state = evolve(cached.state, logical_event(event, namespace))
                self._cache[stream] = _Cached(state, version)
            else:
                self._stale.add(stream)

    @contextmanager
    def session(self, look: bool = True) -> Iterator[Store]:
        """Reads and decisions made together: the store is looked at once, on entry
        (``_sync``), and the cached states are used as they are inside. ``look=False``:
        not even on entry (a follower that has just absorbed what it read)."""
        if self._session:
            yield self
            return
        if look:
            self._sync()
        self._session = True
        try:
            yield self
        finally:
            self._session = False

    def _after_own_append(self, events: Sequence[Event], ids: Sequence[int], folded: bool) -> None:
        """After our own append: the cached states take our events (``folded``: already
        done by ``execute_many``), and if no one else appended meanwhile the store stays
        known up to our last notification."""
        if not folded:
            self._fold_in(events)
        if ids and ids[0] == self._synced_seq + 1 and ids[-1] - ids[0] == len(ids) - 1:
            self._synced_seq = ids[-1]

    # --- the store's tournaments ---------------------------------------------

    def first_tournament_id(self) -> str | None:
        """The id of the store's first tournament (the one on the plain stream names)."""
        if self._first_id is None:
            first = self._fold(TOURNAMENT_STREAM, tournaments.evolve)
            self._first_id = first.id if first is not None else None
        return self._first_id

    def first_tournament(self) -> Tournament | None:
        """The state of the store's first tournament (on the plain ``tournament`` stream,
        which also carries the seals of the whole store)."""
        return self._views[None].tournament()

    def _listed(self) -> tuple[tuple[str, ...], int]:
        """The further tournaments (``TournamentListed``) and the version of their list."""
        self._fold(TOURNAMENTS_STREAM, _list_tournament)
        cached = self._cache[TOURNAMENTS_STREAM]
        return cached.state or (), cached.version

    def tournament_ids(self) -> list[str]:
        """Every tournament of the store, the first one first."""
        first = self.first_tournament_id()
        return ([first] if first is not None else []) + list(self._listed()[0])

    def view(self, tournament: str | None = None, *, creating: bool = False) -> TournamentView:
        """One tournament of the store: ``tournament`` (its id), else the only one.

        Refused with the choices when the store holds several and none is named,
        or when the named one is not in the store (unless ``creating`` it)."""
        first = self.first_tournament_id()
        tournament = tournament or self.default_tournament
        if tournament is None:
            listed = self._listed()[0]
            if listed:
                raise MalformedCommand(
                    f"this store holds {len(listed) + 1} tournaments "
                    f"({', '.join([str(first), *listed])}): name one with 'tournament' "
                    "(--tournament on the command line)"
                )
            return self._views[None]
        if first is None or tournament == first:
            return self._views[None]
        if tournament not in self._views:
            if not creating and tournament not in self._listed()[0]:
                raise UnknownTournament(
                    f"no tournament {tournament!r} in this store; it holds "
                    f"{', '.join(map(repr, self.tournament_ids()))}"
                )
            if "/" in tournament:
                raise MalformedCommand(f"a tournament id cannot contain '/': {tournament!r}")
            self._views[tournament] = TournamentView(self, tournament)
        return self._views[tournament]

    # --- the default tournament's reads (a store with one tournament) ----------

    def tournament(self) -> Tournament | None:
        return self.view().tournament()

    def game(self, game_id: str) -> Game | None:
        return self.view().game(game_id)

    def board_log(self, serial: str) -> BoardLog | None:
        """The state of a board's ``board/<serial>`` alert stream."""
        return self._fold(board_stream(serial), board_logs.evolve)

    def incident_book(self) -> IncidentBook | None:
        """The Chief Arbiter's incident book (``engine.arbiter.incident_book``)."""
        return self.view().incident_book()

    def clock_log(self, game_id: str) -> ClockLog | None:
        return self.view().clock_log(game_id)

    def reading_at(self, game_id: str, at_ms: int) -> tuple[ClockReadingRecorded, int] | None:
        return self.view().reading_at(game_id, at_ms)

    def readings(self, game_id: str) -> list[ClockReadingRecorded]:
        return self.view().readings(game_id)

    def game_ids(self) -> list[str]:
        return self.view().game_ids()

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
            if skip_streams and notification.originator_id.startswith(skip_streams):
                continue
            event = self.app.mapper.to_domain_event(notification)
            if isinstance(event, Event):
                yield notification.id, event

    def last_seq(self) -> int:
        return self.app.recorder.max_notification_id() or 0

    def count(self) -> int:
        """Number of stored events (every stream)."""
        return sum(1 for _ in self.notifications())

    # --- writing ------------------------------------------------------------

    def append(self, events: Sequence[Event]) -> list[int]:
        """Append events in one transaction; Conflict if a stream moved on meanwhile."""
        if not events:
            return []
        links = self.chain.link(events)
        try:
            recordings = self.app.save(*events)
        except UnicodeEncodeError:
            raise MalformedCommand(
                "the command holds text that is not Unicode (a lone surrogate such as "
                "\\ud800); nothing was appended"
            ) from None
        except IntegrityError:
            streams = sorted({e.originator_id for e in events})
            for stream in streams:
                self._cache.pop(stream, None)
            self.chain.forget(streams)
            raise Conflict(
                f"another command changed {', '.join(streams)} first; "
                "nothing was appended: read the new state and decide again"
            ) from None
        finally:
            self.chain.done()
        ids = [r.notification.id for r in recordings]
        self._appended = True
        self.chain.saved(events, links, ids[-1] if ids else None)
        return ids

    def seal(self) -> Event | None:
        """Seal every event not yet sealed (docs/audit.md); None if nothing to seal."""
        return self.chain.seal()

    def _decide(self, raw: object, received: int) -> tuple[Command, list[Event]]:
        """Decide one command on its tournament; the events come back with their stored names
        (and, for a further tournament's creation, its listing on ``tournaments``)."""
        cmd = raw if isinstance(raw, Command) else parse_command(raw)
        creating = isinstance(cmd, CreateTournament)
        view = self.view(cmd.tournament, creating=creating)
        _, events = decide(cmd, view, received, self.future_tolerance_ms)
        namespace = view.namespace
        if namespace is None:
            return cmd, events
        stored = [stored_event(e, namespace) for e in events]
        if creating:
            _, version = self._listed()
            created = next(e for e in events if isinstance(e, TournamentCreated))
            stored.append(
                TournamentListed(
                    originator_id=TOURNAMENTS_STREAM,
                    originator_version=version + 1,
                    at_ms=created.at_ms,
                    by=created.by,
                    tournament=created.tournament,
                    name=created.name,
                )
            )
        return cmd, stored

    def execute(self, raw: object) -> tuple[Command, list[Event]]:
        """Decide and append one command; raises CommandRefused (nothing appended).

        With a ``command_id`` already applied, the events it appended then (nothing
        is appended now); AlreadyRecorded for a ``play_move`` whose ``ply`` holds it."""
        with self.session():
            body, command_id, digest = command_identity(raw)
            if command_id is None or digest is None:
                cmd, events = self._decide(body, self.wall_clock())
                ids = self.append(events)
                self._after_own_append(events, ids, folded=False)
                return cmd, events
            earlier = self.applied(command_id, digest)
            if earlier is not None:
                return parse_command(body), earlier
            cmd, events = self._decide(body, self.wall_clock())
            recorded = [*events, command_applied(command_id, digest, cmd, events)]
            try:
                ids = self.append(recorded)
            except Conflict:
                earlier = self.applied(command_id, digest)  # the same id, sent twice at once
                if earlier is None:
                    raise
                return cmd, earlier
            self._after_own_append(recorded, ids, folded=False)
        return cmd, events

    def applied(self, command_id: str, digest: str) -> list[Event] | None:
        """The events a ``command_id`` appended when it was applied, None if it never was;
        CommandIdReused if it was applied to a command with another body."""
        stored = self.app.recorder.select_events(command_stream(command_id), limit=1)
        if not stored:
            return None
        record = self.app.mapper.to_domain_event(stored[0])
        if not isinstance(record, CommandApplied):
            raise CommandIdReused(f"command_id {command_id!r} names a stream that is not a command")
        if record.digest != digest:
            raise CommandIdReused(
                f"command_id {command_id!r} was already applied to another {record.command} "
                "command (a different body); an id names one command: nothing was appended"
            )
        events: list[Event] = []
        for stream, version in record.events:
            found = self.app.recorder.select_events(stream, gt=version - 1, lte=version, limit=1)
            event = self.app.mapper.to_domain_event(found[0]) if found else None
            if not isinstance(event, Event):
                raise CommandRefused(
                    f"command_id {command_id!r} was applied, but its event {stream} v{version} "
                    "cannot be read back (run `candidates audit`)"
                )
            events.append(event)
        return events

    def execute_many(self, raws: Iterable[object]) -> list[dict[str, Any]]:
        """Decide many commands and append all their events in one save (one transaction).

        For clock readings from many boards (``performance-facts.md``: one save
        per event is fsync- or round-trip-bound). Each command is decided on the
        state left by the ones before it in the batch; a refused command appends
        nothing and the others go on. If the save conflicts with another writer,
        the batch is decided again command by command. Returns one contract
        answer per command, in order. A ``command_id`` already applied (in the
        store or earlier in the batch) answers as it did then.
        """
        raws = list(raws)
        received = self.wall_clock()
        answers: list[dict[str, Any]] = []
        pending: list[Event] = []
        touched: set[str] = set()
        in_batch: dict[str, tuple[str, dict[str, Any]]] = {}
        with self.session():
            for raw in raws:
                try:
                    body, command_id, digest = command_identity(raw)
                    if command_id is not None and digest is not None:
                        if command_id in in_batch:
                            first_digest, first_answer = in_batch[command_id]
                            if first_digest != digest:
                                raise CommandIdReused(
                                    f"command_id {command_id!r} names another command earlier "
                                    "in the same batch; nothing was appended"
                                )
                            answers.append(first_answer)
                            continue
                        earlier = self.applied(command_id, digest)
                        if earlier is not None:
                            answers.append(answer_of(earlier))
                            continue
                    cmd, events = self._decide(body, received)
                    if command_id is not None and digest is not None:
                        record = command_applied(command_id, digest, cmd, events)
                        events = [*events, record]
                except AlreadyRecorded as repeat:
                    answers.append(duplicate_answer(repeat))
                    continue
                except CommandRefused as refused:
                    answers.append({"ok": False, "error": refused.as_error()})
                    continue
                for event in events:
                    self._apply_pending(event)
                    touched.add(event.originator_id)
                pending.extend(events)
                answer = answer_of([e for e in events if not isinstance(e, CommandApplied)])
                if command_id is not None and digest is not None:
                    in_batch[command_id] = (digest, answer)
                answers.append(answer)
        try:
            ids = self.append(pending)
        except Conflict:
            for stream in touched:
                self._cache.pop(stream, None)
            return [self.handle(raw) for raw in raws]
        except Exception:
            for stream in touched:
                self._cache.pop(stream, None)
            raise
        self._after_own_append(pending, ids, folded=True)
        return answers

    def execute_all(self, raws: Iterable[object]) -> list[tuple[Command, list[Event]]]:
        """Decide several commands and append all their events in one save, or none.

        Each command is decided on the state left by the ones before it; the first
        refusal (or a conflict with another writer) raises and appends nothing: a
        tournament created from a file with its lots and round order is whole or
        absent. Returns (command, events) for each command, in order."""
        raws = list(raws)
        received = self.wall_clock()
        decided: list[tuple[Command, list[Event]]] = []
        pending: list[Event] = []
        touched: set[str] = set()
        self._batch_fresh = set()
        try:
            for raw in raws:
                cmd, events = decide(raw, self, received, self.future_tolerance_ms)
                for event in events:
                    self._apply_pending(event)
                    touched.add(event.originator_id)
                pending.extend(events)
                decided.append((cmd, events))
            self._batch_fresh = None
            self.append(pending)
        except BaseException:
            for stream in touched:
                self._cache.pop(stream, None)
            raise
        finally:
            self._batch_fresh = None
        return decided

    def _apply_pending(self, event: Event) -> None:
        """Fold a decided, not yet saved event (stored name) into its stream's cached state."""
        stream = event.originator_id
        namespace, name = split_stream(stream)
        kind = name.partition("/")[0]
        evolve = _EVOLVERS.get(kind)
        if evolve is None:
            self._cache.pop(stream, None)
            return
        if event.originator_version == 1 and stream not in self._cache:
            self._cache[stream] = _Cached(None, 0)  # the event starts its stream
        elif stream not in self._cache or stream in self._stale:
            view = self._views[None] if namespace is None else self.view(namespace, creating=True)
            if kind == "clock":
                view.clock_log(name.partition("/")[2])
            else:
                self._fold(stream, evolve, namespace)
        cached = self._cache[stream]
        state = evolve(cached.state, logical_event(event, namespace))
        self._cache[stream] = _Cached(state, event.originator_version)

    def handle(self, raw: object) -> dict[str, Any]:
        """The contract's answer: ``{"ok": true, "events": [...]}`` or ``{"ok": false, ...}``."""
        try:
            _, events = self.execute(raw)
        except AlreadyRecorded as repeat:
            return duplicate_answer(repeat)
        except CommandRefused as refused:
            return {"ok": False, "error": refused.as_error()}
        return answer_of(events)


def duplicate_answer(repeat: AlreadyRecorded) -> dict[str, Any]:
    """A ``play_move`` whose ``ply`` already holds the move: ok, nothing appended."""
    return {"ok": True, "events": [], "duplicate": True, "message": repeat.message}


def command_applied(
    command_id: str, digest: str, cmd: Command, events: Sequence[Event]
) -> CommandApplied:
    """The record of a command applied under an id (version 1 of its stream)."""
    instants = [e.at_ms for e in events]
    values = vars(cmd)
    by = values.get("by") if isinstance(values.get("by"), str) else values.get("arbiter")
    at_ms = values.get("at_ms")
    return CommandApplied(
        originator_id=command_stream(command_id),
        originator_version=1,
        at_ms=max(instants) if instants else (at_ms if isinstance(at_ms, int) else 0),
        by=str(by) if isinstance(by, str) else "client",
        command_id=command_id,
        command=cmd.cmd,
        digest=digest,
        events=tuple((e.originator_id, e.originator_version) for e in events),
    )


def _list_tournament(state: tuple[str, ...] | None, event: Event) -> tuple[str, ...] | None:
    if isinstance(event, TournamentListed):
        return (*(state or ()), event.tournament)
    return state


def _renamed(event: Event, stream: str) -> Event:
    """The same event on another stream name: a copy of its fields, not a new
    construction (``dataclasses.replace`` runs ``__init__`` and costs 10x more)."""
    copy = object.__new__(type(event))
    copy.__dict__.update(event.__dict__)
    object.__setattr__(copy, "originator_id", stream)
    return copy


def stored_event(event: Event, namespace: str | None) -> Event:
    """A decided event under the name its stream is stored as.

    An alert a further tournament's board raises goes to the store's shared stream
    ``board/<serial>``: its details name the tournament (``"tournament"``), so the
    gateway hands it to that tournament's arbiters. The first tournament's alerts are
    as in a store of one."""
    if namespace is None:
        return event
    stream = physical_stream(event.originator_id, namespace)
    stored = _renamed(event, stream)
    if stream == event.originator_id and isinstance(event, AlertRaised):
        object.__setattr__(stored, "details", {**event.details, "tournament": namespace})
    return stored


def logical_event(event: Event, namespace: str | None) -> Event:
    """A stored event under the name the engine knows its stream by."""
    if namespace is None:
        return event
    return _renamed(event, split_stream(event.originator_id)[1])


class TournamentView:
    """One tournament of a store, as its decisions and queries see it (an
    ``engine.world.World``): streams named as if it were alone in the store."""

    def __init__(self, store: Store, namespace: str | None) -> None:
        self.store = store
        self.namespace = namespace
        """None for the store's first tournament (plain stream names), else its id."""

    @property
    def id(self) -> str | None:
        return self.namespace if self.namespace is not None else self.store.first_tournament_id()

    def physical(self, stream: str) -> str:
        return physical_stream(stream, self.namespace)

    def stream(self, stream_id: str, after_version: int = 0) -> list[Event]:
        """The events of one of this tournament's streams (named as the engine names it)."""
        events = self.store.stream(self.physical(stream_id), after_version)
        if self.namespace is None:
            return events
        return [logical_event(e, self.namespace) for e in events]

    def tournament(self) -> Tournament | None:
        return self.store._fold(
            self.physical(TOURNAMENT_STREAM), tournaments.evolve, self.namespace
        )

    def game(self, game_id: str) -> Game | None:
        return self.store._fold(self.physical(game_stream(game_id)), games.evolve, self.namespace)

    def board_log(self, serial: str) -> BoardLog | None:
        """A board's alert stream: the store's, shared by its tournaments."""
        return self.store.board_log(serial)

    def incident_book(self) -> IncidentBook | None:
        """This tournament's incident book (``incidents``, namespaced like its other streams)."""
        return self.store._fold(
            self.physical(INCIDENTS_STREAM), incident_books.evolve, self.namespace
        )

    def clock_log(self, game_id: str) -> ClockLog | None:
        """The state of a game's ``clock/<id>`` stream (its version, its last reading).

        Read from the stream's last events only (the last reading carries what
        the next decision needs), then kept up to date like every cached state:
        a game with 10,000 readings costs one short query, not a fold.
        """
        stream = self.physical(clock_stream(game_id))
        if stream not in self.store._cache:
            self.store._cache[stream] = _Cached(*self._clock_log_from_tail(stream, game_id))
        return self.store._fold(stream, clock_logs.evolve, self.namespace)

    def _decoded(self, stored: Any) -> Event | None:
        event = self.store.app.mapper.to_domain_event(stored)
        return logical_event(event, self.namespace) if isinstance(event, Event) else None

    def _clock_log_from_tail(self, stream: str, game_id: str) -> tuple[ClockLog | None, int]:
        recorder = self.store.app.recorder
        self.store.stream_reads += 1
        newest = recorder.select_events(stream, desc=True, limit=1)
        if not newest:
            return None, 0
        version = newest[0].originator_version
        limit = 8
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
        recorder = self.store.app.recorder
        self.store.stream_reads += 1
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
        for n in self.store.notifications():
            namespace, name = split_stream(n.originator_id)
            if namespace == self.namespace and name.startswith("game/"):
                ids.add(name.removeprefix("game/"))
        return sorted(ids, key=game_order)

    # --- the store's other reads and writes, for code given a view for a store ---

    def session(self) -> AbstractContextManager[Store]:
        return self.store.session()

    def last_seq(self) -> int:
        return self.store.last_seq()

    def append(self, events: Sequence[Event]) -> list[int]:
        """Append events built with the engine's names to this tournament's streams."""
        return self.store.append([stored_event(e, self.namespace) for e in events])

    def handle(self, raw: object) -> dict[str, Any]:
        """The store's ``handle`` for a command of this tournament (named unless it names one)."""
        if isinstance(raw, dict) and raw.get("tournament") is None and self.namespace:
            raw = {**raw, "tournament": self.namespace}
        return self.store.handle(raw)


_EVOLVERS: dict[str, Callable[[Any, Event], Any]] = {
    TOURNAMENT_STREAM: tournaments.evolve,
    INCIDENTS_STREAM: incident_books.evolve,
    "game": games.evolve,
    "clock": clock_logs.evolve,
    "board": board_logs.evolve,
}
"""Stream kind -> fold, for states updated by ``execute_many`` before the save."""


SETUP_LOCK = "candidates: set up the schema {schema}"
"""Names the advisory lock held while a PostgreSQL schema is set up."""


def set_up_postgres(recorder: PostgresApplicationRecorder) -> bool:
    """Create the schema, its table, type and insert function once; True if it did.

    Every open of a PostgreSQL store comes here (``candidates init`` too), under
    a session advisory lock named after the schema: the first process creates
    what is missing, the others wait for it and then find everything there, so
    opening one store from many processes at once never runs two ``CREATE OR
    REPLACE FUNCTION`` together ("tuple concurrently updated")."""
    datastore = recorder.datastore
    schema = datastore.schema or "public"
    table = f"{schema}.{recorder.events_table_name}"
    with datastore.get_connection() as conn:
        key = SETUP_LOCK.format(schema=schema)
        conn.execute("SELECT pg_advisory_lock(hashtext(%s))", (key,))
        try:
            row = conn.execute(
                "SELECT to_regclass(%s) IS NOT NULL AS has_table, EXISTS (SELECT 1 FROM "
                "pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname = %s AND p.proname = %s) AS has_function",
                (table, schema, recorder.pg_function_name_insert_events),
            ).fetchone()
            ready = row is not None and row["has_table"] and row["has_function"]
            if not ready:
                conn.execute(SQL("CREATE SCHEMA IF NOT EXISTS {}").format(Identifier(schema)))
                for statement in recorder.sql_create_statements:
                    try:
                        conn.execute(statement, prepare=False)
                    except DuplicateObject:  # a type left by an earlier, interrupted set-up
                        if "CREATE TYPE" not in statement.as_string():
                            raise
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (key,))
    datastore.register_type_adapters()
    return not ready


def game_order(game_id: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key: numeric parts of ``<round>.<board>`` in number order, text after."""
    return tuple(
        (0, int(piece)) if piece.isdigit() else (1, piece)
        for piece in game_id.replace("-", ".").split(".")
    )


def open_store(
    url: str | None = None,
    future_tolerance_s: float | None = None,
    *,
    tournament: str | None = None,
) -> Store:
    tolerance = future_tolerance_ms(future_tolerance_s)
    try:
        return Store(url, future_tolerance=tolerance, tournament=tournament)
    except Exception as exc:
        raise MalformedCommand(f"cannot open the store {store_url(url)!r}: {exc}") from exc
