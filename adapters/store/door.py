"""The store's one door: every command, alone or in a batch, is decided and saved here.

``open_store(url)`` opens a store (``adapters.store.opening``: a SQLite path or a
PostgreSQL URL). The door holds the store's parts, each with one job: the cache of
states and the reads of the log (``cache``), the tournaments and their views
(``registry``), the path of a command up to its save (``decisions``) and the writer
(``writer``: the insert with the position check, its retry, the links and seals).
Every command is decided against the cached states of the aggregates on its
tournament's view and its events are appended in one transaction
(``adapters.store.log_writer``) only while the log is still at the position those
states stand at; a refused command appends nothing. When another writer appended
meanwhile to a stream the decision read or writes, the cache takes in what it
appended and the command is decided again on the new state (a refusal stands only
on the same condition); ``conflict`` only after ``ATTEMPTS`` decisions in a row were
overtaken, or for events appended as they are on a taken stream position.

The four ways in (``execute``, ``handle``, ``execute_many``, ``execute_all``)
differ only in what a refusal does to the others of a batch; each command takes
the same path (``Decider.decide_in``): its ``command_id`` (``engine.command_ids``), its
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

from collections.abc import Callable, Iterable, Sequence

from adapters.host.clock import wall_clock_ms
from adapters.store.answers import Answer, answer_of, duplicate_answer, refusal
from adapters.store.application import future_tolerance_ms, store_url
from adapters.store.cache import StateCache
from adapters.store.decisions import Decider
from adapters.store.memory_log import MemoryLog
from adapters.store.opening import log_writer, open_application
from adapters.store.registry import Registry, StoreReads
from adapters.store.views import TournamentView
from adapters.store.writer import ATTEMPTS, Stale, Writer
from engine.commands import Command
from engine.errors import AlreadyRecorded, CommandRefused, Conflict, MalformedCommand
from engine.events import Event

__all__ = ["Store", "open_store"]

CONFLICT_MESSAGE = (
    "other commands kept changing what this command reads ({attempts} decisions in a row "
    "were overtaken); nothing was appended: send it again"
)


class Store:
    """Commands in, events stored: the one door, holding the store's parts.

    ``cache`` (the reads of the log and the cached states), ``registry`` (the
    tournaments and their views: ``view()``; ``reads``, the default one's reads),
    ``decider`` (a command's path up to its
    save), ``writer`` (the appends, the position check, the seals: ``writer.log`` is the
    database's inserts and looks) and ``chain`` (the writer's links and seals)."""

    def __init__(
        self,
        url: str | None = None,
        *,
        wall_clock: Callable[[], int] = wall_clock_ms,
        future_tolerance: int | None = None,
        tournament: str | None = None,
        memory: MemoryLog | None = None,
        read_only: bool = False,
    ) -> None:
        opened = open_application(url, memory=memory, read_only=read_only)
        self.url = opened.url
        self.app = opened.app
        self.created = opened.created
        """Whether opening this store set it up (``adapters.store.opening``)."""
        self.is_postgres = opened.is_postgres
        log = log_writer(self.app.recorder)
        self.cache = StateCache(self.app, log)
        self.registry = Registry(self.cache, tournament)
        self.reads = StoreReads(self.registry)
        """The default tournament's reads, as the contract's queries read them."""
        self.writer = Writer(self.app, self.cache, log, self.registry.first_tournament)
        self.chain = self.writer.chain
        tolerance = future_tolerance if future_tolerance is not None else future_tolerance_ms()
        self.decider = Decider(self.app, self.cache, self.registry, wall_clock, tolerance)

    def close(self) -> None:
        self.writer.log.close()
        self.app.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def view(self, tournament: str | None = None) -> TournamentView:
        """One tournament's reads: ``tournament``, else the default one, else the only one
        (``Registry.view``: refused with the choices when none is named among several)."""
        return self.registry.view(tournament)

    def last_seq(self) -> int:
        """The log's last notification id: one query on the writer's own connection."""
        return self.cache.last_seq()

    def seal(self) -> Event | None:
        """Seal every event not yet sealed (docs/audit.md); None if nothing to seal."""
        return self.writer.seal()

    def append(
        self, events: Sequence[Event], *, positions: Sequence[int] | None = None
    ) -> list[int]:
        """Append events as they are, in one transaction; Conflict if a stream moved on
        meanwhile (``Writer.append``: seals and a replay log's records only)."""
        return self.writer.append(events, positions=positions)

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
        decider, cache = self.decider, self.cache
        batch = decider.batch()
        with decider.deciding(batch):
            try:
                decided = decider.decide_in(batch, raw)
            except (CommandRefused, AlreadyRecorded):
                cache.restore(batch.before)
                self.writer.confirm(batch)  # a refusal stands only on the current state
                raise
            except BaseException:
                cache.forget(batch.touched)
                raise
        if not decided.repeat:
            self.writer.save(batch)
        return decided.command, decided.events

    def handle(self, raw: object) -> Answer:
        """The contract's answer: ``{"ok": true, "events": [...]}`` or ``{"ok": false, ...}``.

        A refusal names the position of the log it was decided at (``seq``: the state
        after that event, confirmed still current when it was answered), so anyone can
        decide the command again on the log up to there and find the same refusal."""
        try:
            _, events = self.execute(raw)
        except AlreadyRecorded as repeat:
            return duplicate_answer(repeat)
        except CommandRefused as refused:
            return {**refusal(refused), "seq": self.cache.synced_seq}
        return answer_of(events)

    def execute_many(self, raws: Iterable[object]) -> list[Answer]:
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
        decider = self.decider
        for _ in range(ATTEMPTS):
            batch = decider.batch()
            answers: list[Answer] = []
            refused_after: dict[int, int] = {}
            """answer -> how many of the batch's events were decided before its refusal"""
            with decider.deciding(batch):
                decider.read_clock_logs(raws)
                for raw in raws:
                    try:
                        decided = decider.decide_in(batch, raw)
                    except AlreadyRecorded as repeat:
                        answers.append(duplicate_answer(repeat))
                    except CommandRefused as refused:
                        refused_after[len(answers)] = len(batch.pending)
                        answers.append(refusal(refused))
                    else:
                        answers.append(answer_of(decided.events))
            try:
                ids = self.writer.save(batch)
            except Stale:
                continue
            # each refusal at its position: after the batch's events decided before it
            synced = self.cache.synced_seq
            for index, before in refused_after.items():
                position = ids[before - 1] if before else (ids[0] - 1 if ids else None)
                answers[index]["seq"] = synced if position is None else position
            return answers
        return [self.handle(raw) for raw in raws]

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
        decider, cache = self.decider, self.cache
        decided: list[tuple[Command, list[Event]]] = []
        batch = decider.batch()
        with decider.deciding(batch):
            try:
                for raw in raws:
                    one = decider.decide_in(batch, raw)
                    decided.append((one.command, one.events))
            except (CommandRefused, AlreadyRecorded):
                cache.restore(batch.before)
                self.writer.confirm(batch)
                raise
            except BaseException:
                cache.forget(batch.touched)
                raise
        self.writer.save(batch)
        return decided


def open_store(
    url: str | None = None,
    future_tolerance_s: float | None = None,
    *,
    tournament: str | None = None,
    read_only: bool = False,
) -> Store:
    tolerance = future_tolerance_ms(future_tolerance_s)
    try:
        return Store(url, future_tolerance=tolerance, tournament=tournament, read_only=read_only)
    except Exception as exc:
        raise MalformedCommand(f"cannot open the store {store_url(url)!r}: {exc}") from exc
