"""The path of one command through the store's door, up to its save.

Each command takes the same path (``Decider.decide_in``): its ``command_id``
(``engine.command_ids``: a repeat answers what the first time answered, read back from
the events it names), its tournament (``adapters.store.registry``: a further one is
listed as it is created, ``engine.tournament.listing``), the engine's decision, and the
folding of the decided events into the cached states (``adapters.store.cache``) before
the writer saves them (``adapters.store.writer``). Decisions are made on the cached
states as they are (the store is looked at first only when nothing is cached yet),
noting every stream they read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from adapters.store.application import CandidatesApplication
from adapters.store.cache import EVOLVERS, StateCache
from adapters.store.names import stored_event
from adapters.store.registry import Registry
from adapters.store.writer import Batch
from engine.command_ids import check_repeat, command_applied, command_identity
from engine.commands import Command, as_command, parse_command
from engine.dispatch import decide
from engine.errors import AlreadyRecorded, CommandIdReused, CommandRefused
from engine.events import Event, TournamentCreated, command_stream
from engine.tournament import listing
from engine.tournament.founding import CreateTournament

CLOCK_READERS = frozenset({"clock_reading", "play_move"})
"""Commands whose decision reads their game's clock log (a move with the clock's times)."""


@dataclass
class Decided:
    """One command through the door: its events (stored names, without its record)."""

    command: Command
    events: list[Event]
    repeat: bool = False
    """Applied before under its ``command_id``: ``events`` are read back, nothing added."""


class Decider:
    """Decides commands on a store's cached states, each into a batch to be saved."""

    def __init__(
        self,
        app: CandidatesApplication,
        cache: StateCache,
        registry: Registry,
        wall_clock: Callable[[], int],
        future_tolerance_ms: int,
    ) -> None:
        self.app = app
        self.cache = cache
        self.registry = registry
        self.wall_clock = wall_clock
        """When a command is received (UTC epoch ms); tests inject a fixed clock."""
        self.future_tolerance_ms = future_tolerance_ms
        """How far ahead of ``wall_clock`` a command's instant may be."""

    def batch(self) -> Batch:
        """A new batch, received now."""
        return Batch(self.wall_clock())

    @contextmanager
    def deciding(self, batch: Batch) -> Iterator[None]:
        """Decisions on the cached states as they are (the store is looked at first only
        when nothing is cached yet), noting every stream they read."""
        cache = self.cache
        with cache.session(look=not cache._cache):
            cache.reads = batch.reads
            try:
                yield
            finally:
                cache.reads = None

    def decide(self, raw: object, received: int) -> tuple[Command, list[Event], list[Event]]:
        """Decide one command on its tournament; the events come back with their stored names
        (and, for a further tournament's creation, its listing on ``tournaments``), then as
        the engine decided them (the same list for the store's first tournament)."""
        cmd = as_command(raw)
        creating = cmd.cmd == CreateTournament.cmd
        view = self.registry.view(cmd.tournament, creating=creating)
        _, events = decide(cmd, view, received, self.future_tolerance_ms)
        namespace = view.namespace
        if namespace is None:
            return cmd, events, events
        stored = [stored_event(e, namespace) for e in events]
        if creating:
            created = next(e for e in events if isinstance(e, TournamentCreated))
            stored.append(listing.list_tournament(self.registry.listed(), created))
        return cmd, stored, events

    def decide_in(self, batch: Batch, raw: object) -> Decided:
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
            cmd, events, decided = self.decide(body, batch.received)
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
            self.cache.fold_pending(event, self._read_for_pending, batch.before, engine)
            batch.touched.add(event.originator_id)
        batch.pending.extend(recorded)
        return Decided(cmd, events)

    def _read_for_pending(self, stream: str, namespace: str | None, name: str) -> None:
        """Bring a stream's cached state up to date before a pending event is folded in
        (a clock's from its last reading, as its view reads it)."""
        kind, _, rest = name.partition("/")
        if kind == "clock":
            registry = self.registry
            view = (
                registry._views[None]
                if namespace is None
                else registry.view(namespace, creating=True)
            )
            view.clock_log(rest)
        else:
            self.cache.fold(stream, EVOLVERS[kind], namespace)

    def read_clock_logs(self, raws: list[object]) -> None:
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
                view = self.registry.view(tournament)
            except CommandRefused:
                continue  # its commands are refused, each with its answer
            view.clock_logs(game_ids)

    def applied(self, command_id: str, digest: str) -> list[Event] | None:
        """The events a ``command_id`` appended when it was applied, None if it never was;
        CommandIdReused if it was applied to a command with another body."""
        recorder = self.app.recorder
        stored = recorder.select_events(command_stream(command_id), limit=1)
        if not stored:
            return None
        record = check_repeat(command_id, digest, self.app.mapper.to_domain_event(stored[0]))
        events: list[Event] = []
        for stream, version in record.events:
            found = recorder.select_events(stream, gt=version - 1, lte=version, limit=1)
            event = self.app.mapper.to_domain_event(found[0]) if found else None
            if not isinstance(event, Event):
                raise CommandRefused(
                    f"command_id {command_id!r} was applied, but its event {stream} v{version} "
                    "cannot be read back (run `candidates audit`)"
                )
            events.append(event)
        return events
