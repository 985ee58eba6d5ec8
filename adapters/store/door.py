"""The store's one door: every command, alone or in a batch, is decided and saved here.

``open_store(url)`` opens a store (``adapters.store.application``: a SQLite path
or a PostgreSQL URL). Every command is decided against the cached states of the
aggregates (``adapters.store.cache``) on its tournament's view
(``adapters.store.views``) and its events are appended in one transaction
(``adapters.store.log_writer``) only while the log is still at the position those
states stand at; a refused command appends nothing. When another writer appended
meanwhile to a stream the decision read or writes, the cache takes in what it
appended and the command is decided again on the new state (a refusal stands only
on the same condition); ``conflict`` only after ``ATTEMPTS`` decisions in a row were
overtaken, or for events appended as they are on a taken stream position.

The four ways in (``execute``, ``handle``, ``execute_many``, ``execute_all``)
differ only in what a refusal does to the others of a batch; each command takes
the same path (``_decide_in``): its ``command_id`` (``engine.command_ids``), its
tournament (a further one is listed as it is created: ``engine.tournament.listing``),
the engine's decision, the folding of the decided events into the cached states.

The store is the door of every writer (CLI, gateway, DGT boards): it tells the
engine when it received each command (its wall clock, ``adapters.host.clock``),
and the engine refuses a command dated more than ``future_tolerance_ms`` later
than that (default 5 minutes; ``$CANDIDATES_FUTURE_TOLERANCE_S`` or ``candidates
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

import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eventsourcing.persistence import IntegrityError

from adapters.host.clock import wall_clock_ms
from adapters.store.application import (
    CandidatesApplication,
    future_tolerance_ms,
    is_postgres_recorder,
    store_env,
    store_url,
)
from adapters.store.cache import EVOLVERS, Cached, StateCache, logical_event, stored_event
from adapters.store.chain import Chain
from adapters.store.log_writer import Inserted, log_writer
from adapters.store.memory_log import MemoryApplication, MemoryLog
from adapters.store.views import TournamentView, game_order
from engine.arbiter import board_log as board_logs
from engine.arbiter.board_log import BoardLog
from engine.arbiter.incident_book import IncidentBook
from engine.command_ids import check_repeat, command_applied, command_identity
from engine.commands import Command, as_command, parse_command
from engine.dispatch import decide
from engine.errors import (
    AlreadyRecorded,
    CommandIdReused,
    CommandRefused,
    Conflict,
    MalformedCommand,
    UnknownTournament,
)
from engine.events import (
    TOURNAMENT_STREAM,
    TOURNAMENTS_STREAM,
    ClockReadingRecorded,
    Event,
    TournamentCreated,
    board_stream,
    command_stream,
)
from engine.game.clock_log import ClockLog
from engine.game.state import Game
from engine.tournament import listing
from engine.tournament import tournament as tournaments
from engine.tournament.founding import CreateTournament
from engine.tournament.listing import TournamentList
from engine.tournament.tournament import Tournament

__all__ = ["Store", "TournamentView", "game_order", "logical_event", "open_store"]

log = logging.getLogger(__name__)


def answer_of(events: Sequence[Event]) -> dict[str, Any]:
    return {"ok": True, "events": [e.to_wire() for e in events]}


def duplicate_answer(repeat: AlreadyRecorded) -> dict[str, Any]:
    """A ``play_move`` whose ``ply`` already holds the move: ok, nothing appended."""
    return {"ok": True, "events": [], "duplicate": True, "message": repeat.message}


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


CLOCK_READERS = frozenset({"clock_reading", "play_move"})
"""Commands whose decision reads their game's clock log (a move with the clock's times)."""
ATTEMPTS = 8
"""How many times a command (or a batch) is decided again while other writers keep
changing what it reads, before it is answered ``conflict``."""
CONFLICT_MESSAGE = (
    "other commands kept changing what this command reads ({attempts} decisions in a row "
    "were overtaken); nothing was appended: send it again"
)


@dataclass
class Decided:
    """One command through the door: its events (stored names, without its record)."""

    command: Command
    events: list[Event]
    repeat: bool = False
    """Applied before under its ``command_id``: ``events`` are read back, nothing added."""


class Store(StateCache):
    """Commands in, events stored, state and events out."""

    def __init__(
        self,
        url: str | None = None,
        *,
        wall_clock: Callable[[], int] = wall_clock_ms,
        future_tolerance: int | None = None,
        tournament: str | None = None,
        memory: MemoryLog | None = None,
    ) -> None:
        super().__init__()
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
        env = store_env(self.url) if memory is None else {}
        sqlite_path = env.get("SQLITE_DBNAME")
        self.created = memory is not None or (
            bool(sqlite_path) and (sqlite_path == ":memory:" or not Path(str(sqlite_path)).exists())
        )
        """Whether opening this store set it up (a new SQLite file, a new PostgreSQL schema,
        a log in memory)."""
        self.app = CandidatesApplication(env=env) if memory is None else MemoryApplication(memory)
        """The eventsourcing application: on the store's database, or on ``memory`` (a log
        held in this process, ``adapters.store.memory_log``: ``url`` merely names it)."""
        if is_postgres_recorder(self.app.recorder):
            from adapters.store.postgres import set_up_postgres  # only with the driver

            try:
                self.created = set_up_postgres(self.app.recorder)
            except Exception:
                self.app.close()
                raise
        self._first_id: str | None = None
        self._views: dict[str | None, TournamentView] = {None: TournamentView(self, None)}
        self.chain = Chain(self)
        """Hash links computed at append, seals every ``chain.seal_every`` positions."""
        self._appended = False
        """Whether this store appended anything since it opened (``seal_appended``)."""
        self.writer = log_writer(self.app.recorder)
        """The inserts (each with the log's position it found) and the looks at the log."""

    @property
    def is_postgres(self) -> bool:
        return self.url.startswith(("postgresql://", "postgres://"))

    def close(self) -> None:
        self.writer.close()
        self.app.close()

    def last_seq(self) -> int:
        """The log's last notification id: one query on the writer's own connection."""
        return self.writer.last_id()

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

    # --- the store's tournaments ---------------------------------------------

    def first_tournament_id(self) -> str | None:
        """The id of the store's first tournament (the one on the plain stream names)."""
        if self._first_id is None:
            first = self.fold(TOURNAMENT_STREAM, tournaments.evolve)
            self._first_id = first.id if first is not None else None
        return self._first_id

    def first_tournament(self) -> Tournament | None:
        """The state of the store's first tournament (on the plain ``tournament`` stream,
        which also carries the seals of the whole store)."""
        return self._views[None].tournament()

    def listed(self) -> TournamentList:
        """The further tournaments (``TournamentListed``) and the version of their list."""
        return self.fold(TOURNAMENTS_STREAM, listing.evolve) or TournamentList()

    def tournament_ids(self) -> list[str]:
        """Every tournament of the store, the first one first."""
        first = self.first_tournament_id()
        return ([first] if first is not None else []) + list(self.listed().ids)

    def view(self, tournament: str | None = None, *, creating: bool = False) -> TournamentView:
        """One tournament of the store: ``tournament`` (its id), else the only one.

        Refused with the choices when the store holds several and none is named,
        or when the named one is not in the store (unless ``creating`` it)."""
        first = self.first_tournament_id()
        tournament = tournament or self.default_tournament
        if tournament is None:
            listed = self.listed().ids
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
            if not creating and tournament not in self.listed().ids:
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
        return self.fold(board_stream(serial), board_logs.evolve)

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

    # --- writing ------------------------------------------------------------

    def append(
        self, events: Sequence[Event], *, positions: Sequence[int] | None = None
    ) -> list[int]:
        """Append events in one transaction; Conflict if a stream moved on meanwhile.
        ``positions``: each event's position in the log (a replay log loaded where the
        store it came from had them), each after the log's last."""
        return self._append(events, None, positions=positions).ids if events else []

    def _append(
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
                inserted = self.writer.insert(records, after, positions)
            except IntegrityError:
                self.forget(streams | (batch.touched if batch is not None else set()))
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
            if not self.catch_up(inserted.before, batch.before, batch.reads):
                raise Stale  # what it read moved: its states are back as they were, caught up
            if attempt == ATTEMPTS:  # others keep appending: decided again, from the start
                self.restore(batch.before)
                raise Stale
            after = inserted.before
        self._appended = True
        self.saved(inserted.before, inserted.ids, events)
        self.chain.saved(events, links, inserted.ids)
        return inserted

    def seal(self) -> Event | None:
        """Seal every event not yet sealed (docs/audit.md); None if nothing to seal."""
        return self.chain.seal()

    # --- the door -------------------------------------------------------------

    def _decide(self, raw: object, received: int) -> tuple[Command, list[Event], list[Event]]:
        """Decide one command on its tournament; the events come back with their stored names
        (and, for a further tournament's creation, its listing on ``tournaments``), then as
        the engine decided them (the same list for the store's first tournament)."""
        cmd = as_command(raw)
        creating = cmd.cmd == CreateTournament.cmd
        view = self.view(cmd.tournament, creating=creating)
        _, events = decide(cmd, view, received, self.future_tolerance_ms)
        namespace = view.namespace
        if namespace is None:
            return cmd, events, events
        stored = [stored_event(e, namespace) for e in events]
        if creating:
            created = next(e for e in events if isinstance(e, TournamentCreated))
            stored.append(listing.list_tournament(self.listed(), created))
        return cmd, stored, events

    def _decide_in(self, batch: Batch, raw: object) -> Decided:
        """One command through the door: its id (a repeat answers as the first time), its
        tournament, the engine's decision, and its events (with the record of its id)
        added to the batch and folded into the cached states. Raises CommandRefused
        (AlreadyRecorded for a retried move); the batch is then as it was."""
        body, command_id, digest = command_identity(raw)
        if command_id is not None and digest is not None:
            earlier = batch.ids.get(command_id)
            if earlier is not None:
                if earlier[0] != digest:
                    raise CommandIdReused(
                        f"command_id {command_id!r} names another command earlier "
                        "in the same batch; nothing was appended"
                    )
                return Decided(parse_command(body), earlier[1], repeat=True)
            found = self.applied(command_id, digest)
            if found is not None:
                return Decided(parse_command(body), found, repeat=True)
        try:
            cmd, events, decided = self._decide(body, batch.received)
        except (CommandRefused, AlreadyRecorded):
            # Another writer may have applied this very command between the look-up above
            # and the decision (which then refuses what that copy did): its first answer.
            found = self.applied(command_id, digest) if command_id and digest else None
            if found is None:
                raise
            return Decided(parse_command(body), found, repeat=True)
        recorded = list(events)
        if command_id is not None and digest is not None:
            recorded.append(command_applied(command_id, digest, cmd, events))
            batch.ids[command_id] = (digest, events)
        for index, event in enumerate(recorded):
            # the engine's own event when it is ``event`` under the engine's name
            engine = decided[index] if index < len(decided) else None
            self.fold_pending(event, self._read_for_pending, batch.before, engine)
            batch.touched.add(event.originator_id)
        batch.pending.extend(recorded)
        return Decided(cmd, events)

    def _read_for_pending(self, stream: str, namespace: str | None, name: str) -> None:
        """Bring a stream's cached state up to date before a pending event is folded in
        (a clock's from its last reading, as its view reads it)."""
        kind, _, rest = name.partition("/")
        if kind == "clock":
            view = self._views[None] if namespace is None else self.view(namespace, creating=True)
            view.clock_log(rest)
        else:
            self.fold(stream, EVOLVERS[kind], namespace)

    def _save(self, batch: Batch) -> None:
        """Append what the batch decided, in one transaction, if the log is still where
        its decisions read the cached states (or moved only on streams they did not read);
        Stale otherwise. A batch with nothing to append (refusals, repeats) stands on the
        same condition, checked by one look. On failure the cached states it folded are
        dropped (read again when next needed)."""
        if not batch.pending:
            self._confirm(batch)
            return
        try:
            self._append(batch.pending, self._synced_seq, batch)
        except Stale:
            raise
        except BaseException:
            self.forget(batch.touched)
            raise

    def _confirm(self, batch: Batch) -> None:
        """Stale unless the log is still at the cached position or moved only on streams
        the batch's decisions did not read (what moved is taken into the cached states)."""
        current = self.last_seq()
        if current != self._synced_seq and not self.catch_up(current, batch.before, batch.reads):
            raise Stale

    @contextmanager
    def _deciding(self, batch: Batch) -> Iterator[None]:
        """Decisions on the cached states as they are (the store is looked at first only
        when nothing is cached yet), noting every stream they read."""
        with self.session(look=not self._cache):
            self.reads = batch.reads
            try:
                yield
            finally:
                self.reads = None

    def _batch(self) -> Batch:
        return Batch(self.wall_clock())

    def execute(self, raw: object) -> tuple[Command, list[Event]]:
        """Decide and append one command; raises CommandRefused (nothing appended).

        With a ``command_id`` already applied, the events it appended then (nothing
        is appended now); AlreadyRecorded for a ``play_move`` whose ``ply`` holds it."""
        for _ in range(ATTEMPTS):
            try:
                return self._execute_once(raw)
            except Stale:
                continue
        raise Conflict(CONFLICT_MESSAGE.format(attempts=ATTEMPTS))

    def _execute_once(self, raw: object) -> tuple[Command, list[Event]]:
        batch = self._batch()
        with self._deciding(batch):
            try:
                decided = self._decide_in(batch, raw)
            except (CommandRefused, AlreadyRecorded):
                self.restore(batch.before)
                self._confirm(batch)  # a refusal stands only on the current state
                raise
            except BaseException:
                self.forget(batch.touched)
                raise
        if not decided.repeat:
            self._save(batch)
        return decided.command, decided.events

    def handle(self, raw: object) -> dict[str, Any]:
        """The contract's answer: ``{"ok": true, "events": [...]}`` or ``{"ok": false, ...}``.

        A refusal names the position of the log it was decided at (``seq``: the state
        after that event, confirmed still current when it was answered), so anyone can
        decide the command again on the log up to there and find the same refusal."""
        try:
            _, events = self.execute(raw)
        except AlreadyRecorded as repeat:
            return duplicate_answer(repeat)
        except CommandRefused as refused:
            return {"ok": False, "error": refused.as_error(), "seq": self._synced_seq}
        return answer_of(events)

    def execute_many(self, raws: Iterable[object]) -> list[dict[str, Any]]:
        """Decide many commands and append all their events in one save (one transaction).

        For clock readings from many boards (``performance-facts.md``: one save
        per event is fsync- or round-trip-bound). Each command is decided on the
        state left by the ones before it in the batch; a refused command appends
        nothing and the others go on. If another writer changed what the batch read
        meanwhile, the batch is decided again on the new state (and, if that keeps
        happening, command by command). Returns one contract answer per command, in
        order. A ``command_id`` already applied (in the store or earlier in the batch)
        answers as it did then.
        """
        raws = list(raws)
        for _ in range(ATTEMPTS):
            batch = self._batch()
            answers: list[dict[str, Any]] = []
            with self._deciding(batch):
                self._read_clock_logs(raws)
                for raw in raws:
                    try:
                        decided = self._decide_in(batch, raw)
                    except AlreadyRecorded as repeat:
                        answers.append(duplicate_answer(repeat))
                    except CommandRefused as refused:
                        answers.append({"ok": False, "error": refused.as_error()})
                    else:
                        answers.append(answer_of(decided.events))
            try:
                self._save(batch)
            except Stale:
                continue
            return answers
        return [self.handle(raw) for raw in raws]

    def _read_clock_logs(self, raws: list[object]) -> None:
        """The clock logs the batch's readings and moves will read, those the cache does
        not hold read in one request per tournament (a batch of readings from many
        boards, ``TournamentView.clock_logs``)."""
        games: dict[str | None, list[str]] = {}
        for raw in raws:
            if isinstance(raw, dict) and raw.get("cmd") in CLOCK_READERS:
                game, tournament = raw.get("game"), raw.get("tournament")
                if isinstance(game, str) and isinstance(tournament, str | None):
                    games.setdefault(tournament, []).append(game)
        for tournament, game_ids in games.items():
            try:
                view = self.view(tournament)
            except CommandRefused:
                continue  # its commands are refused, each with its answer
            view.clock_logs(game_ids)

    def execute_all(self, raws: Iterable[object]) -> list[tuple[Command, list[Event]]]:
        """Decide several commands and append all their events in one save, or none.

        Each command is decided on the state left by the ones before it; the first
        refusal (or a conflict with another writer) raises and appends nothing: a
        tournament created from a file with its lots and round order is whole or
        absent. Each command may carry a ``command_id`` and name its tournament (a new
        one is created and listed) as through ``handle``. Returns (command, events)
        for each command, in order."""
        raws = list(raws)
        for _ in range(ATTEMPTS):
            try:
                return self._execute_all_once(raws)
            except Stale:
                continue
        raise Conflict(CONFLICT_MESSAGE.format(attempts=ATTEMPTS))

    def _execute_all_once(self, raws: list[object]) -> list[tuple[Command, list[Event]]]:
        decided: list[tuple[Command, list[Event]]] = []
        batch = self._batch()
        with self._deciding(batch):
            try:
                for raw in raws:
                    one = self._decide_in(batch, raw)
                    decided.append((one.command, one.events))
            except (CommandRefused, AlreadyRecorded):
                self.restore(batch.before)
                self._confirm(batch)
                raise
            except BaseException:
                self.forget(batch.touched)
                raise
        self._save(batch)
        return decided

    def applied(self, command_id: str, digest: str) -> list[Event] | None:
        """The events a ``command_id`` appended when it was applied, None if it never was;
        CommandIdReused if it was applied to a command with another body."""
        stored = self.app.recorder.select_events(command_stream(command_id), limit=1)
        if not stored:
            return None
        record = check_repeat(command_id, digest, self.app.mapper.to_domain_event(stored[0]))
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
