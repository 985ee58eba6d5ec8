"""Replay logs: a tournament's stored events as one msgpack stream (docs/replay-log.md).

A header, one record per stored event in the store's global order (with its hash link
and, where an older store left a gap, its position), and a trailer with the count,
the order digest and the final state ``candidates audit FILE`` compares with what it
re-derives. ``export_log`` writes a store's log; ``import_log`` loads one into an
empty store at the same positions, all or nothing after ``verify_log`` checked the
whole of it, so the round trip gives the same bytes and positions and a refused or
killed import leaves the store as it was."""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Iterator
from dataclasses import MISSING, dataclass, field
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import IO, Any, cast

import msgpack

from adapters.formats.log_state import (
    FinalState,
    GameFinal,
    LogHeader,
    Trailer,
    header_contradictions,
    plain,
    trailer_contradictions,
)
from adapters.store import Store
from adapters.store.chain import (
    GENESIS,
    canonical,
    event_canonical,
    event_fields,
    extend_digest,
    next_link,
)
from adapters.store.names import logical_event
from engine.arbiter import incident_book as incident_books
from engine.arbiter.incident_book import IncidentBook
from engine.audit.event_fields import field_problems
from engine.errors import CommandRefused, MalformedCommand
from engine.events import INCIDENTS_STREAM, TOURNAMENT_STREAM, ChainSealed, Event, split_stream
from engine.tournament import tournament as tournaments
from engine.tournament.tournament import Tournament
from projections.game_view import fold_game, position_fen
from projections.standings import standings

FORMAT = "candidates-replay-log"
FORMAT_VERSION = 1
"""The version of a log whose positions are those of its records' order (1, 2, ...)."""
POSITIONS_VERSION = 2
"""The version of a log that carries the store's positions where they jump."""
READ_VERSIONS = (FORMAT_VERSION, POSITIONS_VERSION)
BATCH = 500


class LogError(CommandRefused):
    """A replay log that cannot be read, or whose links do not hold."""

    code = "invalid_log"


def event_classes() -> dict[str, type[Event]]:
    """Every event class by its type name (the ``type`` of a log record): every event is
    declared in ``engine.events``."""
    found: dict[str, type[Event]] = {}
    todo: list[type[Event]] = [Event]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub.__name__ in found and found[sub.__name__] is not sub:
                raise LogError(f"two event classes are named {sub.__name__}")
            found[sub.__name__] = sub
            todo.append(sub)
    return found


@dataclass(frozen=True)
class Record:
    """One stored event as a log carries it."""

    seq: int
    """Index in the log's global order, from 1 (what seals count)."""
    stream: str
    version: int
    type: str
    at_ms: int
    fields: dict[str, Any]
    link: bytes | None
    position: int = 0
    """The event's position in the store (its notification id: the ``seq`` clients see);
    0: the same as ``seq``."""

    @property
    def store_seq(self) -> int:
        return self.position or self.seq

    def as_list(self, after: int | None = None) -> list[Any]:
        """The record's items; with ``after`` (the position of the record before it), its
        position too when it does not follow that one."""
        items = [self.stream, self.version, self.type, self.at_ms, self.fields, self.link]
        if after is not None and self.store_seq != after + 1:
            items.append(self.store_seq)
        return items

    def where(self) -> str:
        return f"{self.stream} v{self.version} ({self.type}, log position {self.seq})"

    def event(self, classes: dict[str, builtins.type[Event]] | None = None) -> Event:
        """The domain event with exactly the recorded fields; LogError naming the record
        if its type is unknown, a field is unknown, or a field without default is missing.

        Built as the store's mapper builds a stored event (the recorded values as its
        attributes), so an event recorded before its class gained a field (with a
        default) stays as it was recorded, and so does its hash link.
        """
        classes = classes or event_classes()
        cls = classes.get(self.type)
        if cls is None:
            raise LogError(f"{self.where()}: unknown event type {self.type!r}")
        declared = {f.name: f for f in dataclass_fields(cls)}
        unknown = sorted(set(self.fields) - set(declared))
        if unknown:
            raise LogError(f"{self.where()}: {self.type} has no field(s) {unknown}")
        missing = sorted(
            name
            for name, f in declared.items()
            if name not in self.fields
            and name not in ("originator_id", "originator_version", "at_ms")
            and f.default is MISSING
            and f.default_factory is MISSING
        )
        if missing:
            raise LogError(f"{self.where()}: {self.type} needs the field(s) {missing}")
        event: Event = object.__new__(cls)
        object.__setattr__(
            event,
            "__dict__",
            {
                "originator_id": self.stream,
                "originator_version": self.version,
                "at_ms": self.at_ms,
                **self.fields,
            },
        )
        return event


def record_of(seq: int, event: Event, link: bytes | None, position: int = 0) -> Record:
    return Record(
        seq,
        event.originator_id,
        event.originator_version,
        type(event).__name__,
        event.at_ms,
        event_fields(event),
        link,
        position if position != seq else 0,
    )


@dataclass
class Log:
    """A whole log in memory: header, records, trailer."""

    header: LogHeader
    records: list[Record]
    trailer: Trailer | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def tournament(self) -> str | None:
        value = self.header.get("tournament")
        return value if isinstance(value, str) else None


# --- reading -------------------------------------------------------------------


def _unpacker(handle: IO[bytes]) -> msgpack.Unpacker:
    return msgpack.Unpacker(handle, raw=False, use_list=False, strict_map_key=False)


def read_log(path: str | Path) -> Log:
    """Read and check the form of a log (not its links: see ``verify_links``)."""
    try:
        with open(path, "rb") as handle:
            return parse_objects(_unpacker(handle), str(path))
    except OSError as exc:
        raise LogError(f"cannot read the replay log {str(path)!r}: {exc.strerror}") from None


def parse_objects(objects: Iterable[Any], name: str = "log") -> Log:
    items = iter(objects)
    try:
        header = next(items)
    except StopIteration:
        raise LogError(f"{name}: empty file, not a replay log") from None
    except (
        msgpack.ExtraData,
        msgpack.FormatError,
        msgpack.StackError,
        ValueError,
        TypeError,
        RecursionError,
    ) as exc:
        raise LogError(f"{name}: not msgpack ({exc})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise LogError(f"{name}: not a replay log (the first object must be its header)")
    version = header.get("version")
    if version not in READ_VERSIONS:
        raise LogError(
            f"{name}: replay-log format version {version!r}; "
            f"this engine reads versions {', '.join(map(str, READ_VERSIONS))}"
        )
    header = cast(LogHeader, header)  # its other fields are checked where they are read
    records: list[Record] = []
    trailer: Trailer | None = None
    try:
        for item in items:
            index = len(records) + 1
            if trailer is not None:
                raise LogError(f"{name}: data after the trailer (object {index + 1})")
            if isinstance(item, dict):
                trailer = cast(Trailer, item)  # each field checked where it is read
                continue
            after = records[-1].store_seq if records else 0
            records.append(_record(item, index, name, after, version == POSITIONS_VERSION))
    except (
        msgpack.ExtraData,
        msgpack.FormatError,
        msgpack.StackError,
        ValueError,
        TypeError,  # a map key that is itself a map or an array: "unhashable type"
        RecursionError,
    ) as exc:
        raise LogError(f"{name}: corrupt after record {len(records)} ({exc})") from None
    return Log(header, records, trailer)


def _record(item: object, seq: int, name: str, after: int, positions: bool) -> Record:
    """One record; ``after``: the store position of the record before it (0: none);
    ``positions``: the log may give a record's position (a seventh item, version 2)."""
    arity = (6, 7) if positions else (6,)
    if not isinstance(item, tuple | list) or len(item) not in arity:
        shape = "[stream, version, type, at_ms, fields, link" + (", position?" if positions else "")
        shape += "]"
        raise LogError(f"{name}: record {seq} is not {shape}")
    stream, version, kind, at_ms, body, link = item[:6]
    position = item[6] if len(item) == 7 else after + 1
    if not isinstance(position, int) or isinstance(position, bool) or position <= after:
        raise LogError(
            f"{name}: record {seq} gives the position {position!r}; positions increase "
            f"(the record before it is at {after})"
        )
    if not (
        isinstance(stream, str)
        and isinstance(version, int)
        and isinstance(kind, str)
        and isinstance(at_ms, int)
        and isinstance(body, dict)
        and all(isinstance(key, str) for key in body)
        and (link is None or (isinstance(link, bytes) and len(link) == 32))
    ):
        raise LogError(f"{name}: record {seq} ({stream!r} v{version!r}) has ill-typed items")
    return Record(
        seq, stream, version, kind, at_ms, dict(body), link, position if position != seq else 0
    )


# --- writing -------------------------------------------------------------------


def store_records(store: Store) -> Iterator[Record]:
    """Every stored event of a store as a record, in global order, with its stored link."""
    mapper = store.chain.mapper
    for seq, notification in enumerate(store.cache.notifications(), start=1):
        event, link = mapper.event_and_link(notification)
        if isinstance(event, Event):
            yield record_of(seq, event, link, notification.id)


def standings_by_tournament(events: Iterable[Event]) -> dict[str | None, Any]:
    """Each tournament's standings (3.6.1, 3.7) folded from the events alone, by namespace
    (None: the store's first tournament): its own games, its own incident book, never
    another tournament's (their streams are ``game/<ns>/<id>``)."""
    t_of: dict[str | None, Tournament | None] = {}
    book_of: dict[str | None, IncidentBook | None] = {}
    games_of: dict[str | None, dict[str, list[Event]]] = {}
    for event in events:
        namespace, name = split_stream(event.originator_id)
        logical = logical_event(event, namespace)
        if name.startswith("game/"):
            games_of.setdefault(namespace, {}).setdefault(name, []).append(logical)
        elif name == TOURNAMENT_STREAM:
            t_of[namespace] = tournaments.evolve(t_of.get(namespace), logical)
        elif name == INCIDENTS_STREAM:
            book_of[namespace] = incident_books.evolve(book_of.get(namespace), logical)
    found: dict[str | None, Any] = {}
    for namespace, tournament in t_of.items():
        if tournament is None:
            continue
        folded = [
            game
            for stream_events in games_of.get(namespace, {}).values()
            if (game := fold_game(stream_events)) is not None
        ]
        found[namespace] = plain(standings(tournament, folded, book=book_of.get(namespace)))
    return found


def final_state(events: Iterable[Event]) -> FinalState:
    """What the trailer records, folded from the events alone: each game's fen, ply,
    result and termination (a further tournament's as ``<ns>/<id>``), and the standings
    of the store's first tournament (3.6.1, 3.7) when there is one."""
    events = list(events)
    games: dict[str, GameFinal] = {}
    by_stream: dict[str, list[Event]] = {}
    for event in events:
        if event.originator_id.startswith("game/"):
            by_stream.setdefault(event.originator_id, []).append(event)
    for stream, stream_events in by_stream.items():
        game = fold_game(stream_events)
        if game is not None:
            games[stream.removeprefix("game/")] = GameFinal(
                fen=position_fen(game),
                ply=game.ply,
                result=game.result,
                termination=game.termination,
            )
    state = FinalState(games=dict(sorted(games.items())))
    first = standings_by_tournament(events)
    if None in first:
        state["standings"] = first[None]
    return state


def header_for(
    store: Store, notes: str = "", generated: Iterable[str] = (), extract: str | None = None
) -> LogHeader:
    """The header of the store's log: it names the store's first tournament (its founding
    event is the log's first), or ``extract``, the one tournament an extract holds
    (version 1: ``write_log`` makes it 2 where the store's positions jump)."""
    tournament = store.view(extract).tournament() if extract else store.registry.first_tournament()
    return LogHeader(
        format=FORMAT,
        version=FORMAT_VERSION,
        tournament=tournament.id if tournament else None,
        name=tournament.name if tournament else None,
        notes=notes,
        generated=list(generated),
    )


def write_log(
    handle: IO[bytes],
    header: LogHeader,
    records: Iterable[Record],
    classes: dict[str, type[Event]] | None = None,
) -> int:
    """Write header, records, trailer; return the number of records. A log whose records'
    store positions jump (a gap an older store's database left) is of version 2 and
    gives those positions; any other is of version 1, as it always was."""
    packer = msgpack.Packer(use_bin_type=True)
    records = list(records)
    jumps = any(r.store_seq != i for i, r in enumerate(records, start=1))
    handle.write(packer.pack({**header, "version": POSITIONS_VERSION} if jumps else header))
    classes = classes or event_classes()
    count, links, events = 0, [], []
    after = 0
    for record in records:
        handle.write(packer.pack(record.as_list(after if jumps else None)))
        after = record.store_seq
        count += 1
        links.append(record.link or GENESIS)
        events.append(record.event(classes))
    trailer = Trailer(
        end=True,
        events=count,
        order_digest=extend_digest(GENESIS, links).hex(),
        state=final_state(events),
    )
    handle.write(packer.pack(trailer))
    return count


def export_log(
    store: Store,
    path: str | Path,
    notes: str = "",
    generated: Iterable[str] = (),
    *,
    tournament: str | None = None,
) -> int:
    """Write the store's whole log to ``path``; return the number of events. With
    ``tournament`` (one of several in the store), only that tournament's streams are
    written, whole, and the header says the log is an extract (``extract_of``)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    records: Iterable[Record] = store_records(store)
    ids = store.registry.tournament_ids()
    if tournament is not None and len(ids) > 1:
        if tournament not in ids:
            raise MalformedCommand(
                f"no tournament {tournament!r} in this store (it holds {', '.join(ids)})"
            )
        namespace = None if tournament == ids[0] else tournament
        records = (r for r in records if owner(r.stream) == namespace)
        header = header_for(store, notes, generated, extract=tournament)
        header["extract_of"] = ids
    else:
        header = header_for(store, notes, generated)
    try:
        with open(partial, "wb") as handle:
            count = write_log(handle, header, records)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return count


def owner(stream: str) -> str | None:
    """The namespace of the tournament a stream belongs to (None: the store's first, whose
    stream also carries the store's seals); the store's list of further tournaments
    (``tournaments``) and the shared streams (boards' alerts, command ids) are the first's."""
    return split_stream(stream)[0]


# --- checking and loading ---------------------------------------------------------


@dataclass
class LinkProblem:
    record: Record
    message: str


def verify_links(records: Iterable[Record], classes: dict[str, type[Event]]) -> list[LinkProblem]:
    """Recompute every link from its predecessor's and compare; one problem per bad record."""
    heads: dict[str, tuple[int, bytes | None]] = {}
    problems: list[LinkProblem] = []
    for record in records:
        head = heads.get(record.stream)
        expected_version = head[0] + 1 if head else 1
        if record.version != expected_version:
            what = (
                f"follows v{head[0]}: versions {expected_version}..{record.version - 1} are missing"
                if head and record.version > expected_version
                else f"expected v{expected_version} of {record.stream} here"
            )
            problems.append(LinkProblem(record, f"{record.where()}: {what}"))
        previous = GENESIS if record.version == 1 else (head[1] if head else None)
        event = record.event(classes)
        if record.link is None:
            problems.append(LinkProblem(record, f"{record.where()}: stored without a hash link"))
        elif previous is not None and record.link != next_link(previous, event_canonical(event)):
            problems.append(
                LinkProblem(
                    record,
                    f"{record.where()}: hash link does not match its content and its "
                    "predecessor's link (changed, or its predecessor was)",
                )
            )
        heads[record.stream] = (record.version, record.link)
    return problems


def seal_problems(records: list[Record]) -> list[str]:
    """Every seal the records carry, checked against them (docs/audit.md): the digest of
    the links of the events it covers (from the seal before it) must be the one it
    holds, and it must follow the events it covers. One message per seal that does not
    hold (``candidates audit`` names the first event out of place)."""
    problems: list[str] = []
    digest, covered = GENESIS, 0
    for index, record in enumerate(records):
        if record.stream != TOURNAMENT_STREAM or record.type != ChainSealed.__name__:
            continue
        wanted = record.fields.get("events_before")
        sealed = record.fields.get("order_digest")
        if not isinstance(wanted, int) or not isinstance(sealed, str) or wanted < covered:
            problems.append(f"{record.where()}: the seal is unreadable")
            continue
        if wanted > index:
            problems.append(
                f"{record.where()}: the seal covers {wanted} events but only {index} precede it"
            )
        else:
            links = [r.link or GENESIS for r in records[covered:wanted]]
            if extend_digest(digest, links).hex() != sealed:
                problems.append(
                    f"{record.where()}: the seal's digest is not that of the {wanted} events "
                    "before it (records moved, added, removed or changed since it was sealed)"
                )
        try:
            digest = bytes.fromhex(sealed)
        except ValueError:
            problems.append(f"{record.where()}: the seal's digest is not hexadecimal")
        covered = wanted
    return problems


VERIFY_SHOWN = 5
"""How many problems a refused import names (the audit lists them all)."""


def verify_log(log: Log, classes: dict[str, type[Event]] | None = None) -> list[Event]:
    """The log's events, if the whole log holds; else LogError naming the problems.

    Checks the trailer is there (a log without one was cut short), every record
    is of a known type with its fields of the declared types, every stream's
    versions run 1, 2, ... and every link (the first of each stream from 32 zero
    bytes; a nil link is refused) is the hash of its content and predecessor,
    every seal the log carries holds over the records it covers (``seal_problems``),
    the trailer's count and order digest are those of the records, the trailer's
    ``state`` is the one the events fold to and the header's tournament and name are the
    founding event's (``adapters.formats.log_state``)."""
    classes = classes or event_classes()
    problems: list[str] = []
    events: list[Event] = []
    heads: dict[str, tuple[int, bytes]] = {}
    links: list[bytes] = []
    for record in log.records:
        try:
            event = record.event(classes)
        except LogError as exc:
            problems.append(exc.message)
        else:
            events.append(event)
            problems.extend(f"{record.where()}: {p}" for p in field_problems(event))
        head = heads.get(record.stream)
        expected = head[0] + 1 if head else 1
        if record.version != expected:
            problems.append(f"{record.where()}: expected v{expected} of {record.stream} here")
        if record.link is None:
            problems.append(f"{record.where()}: no hash link (every record needs one)")
            links.append(GENESIS)
            continue
        previous = GENESIS if record.version == 1 or head is None else head[1]
        content = canonical(record.stream, record.version, record.type, record.at_ms, record.fields)
        if record.link != next_link(previous, content):
            problems.append(
                f"{record.where()}: hash link does not match its content and its "
                "predecessor's link (changed, or its predecessor was)"
            )
        heads[record.stream] = (record.version, record.link)
        links.append(record.link)
    problems.extend(seal_problems(log.records))
    trailer = log.trailer
    if trailer is None:
        problems.append(
            f"no trailer after record {len(log.records)}: the log was cut short "
            "(a whole log ends with its trailer)"
        )
    else:
        if trailer.get("events") != len(log.records):
            problems.append(
                f"the trailer counts {trailer.get('events')!r} events; the log holds "
                f"{len(log.records)}"
            )
        digest = extend_digest(GENESIS, links).hex()
        if trailer.get("order_digest") != digest:
            problems.append(
                "the trailer's order digest is not the digest of the records' links "
                "(records added, removed, moved or changed)"
            )
        if not problems:  # the events hold: what the trailer says of them must too
            problems.extend(trailer_contradictions(trailer, events, final_state))
    if not problems:
        problems.extend(header_contradictions(log.header, events))
    if problems:
        shown = "; ".join(problems[:VERIFY_SHOWN])
        more = f" (and {len(problems) - VERIFY_SHOWN} more)" if len(problems) > VERIFY_SHOWN else ""
        raise LogError(
            f"the log does not hold, {len(problems)} problem(s): {shown}{more}. Nothing was "
            "appended; run `candidates audit FILE` for the full report"
        )
    return events


def import_log(store: Store, log: Log) -> int:
    """Load a log into an empty store, exactly, at the positions it gives (each event's
    ``seq`` as in the store it was exported from), in one transaction; refuse a log that
    does not hold (``verify_log``) with nothing appended."""
    if store.last_seq() != 0:
        raise MalformedCommand(
            f"the store {store.url!r} is not empty: a replay log is loaded into an empty store"
        )
    if log.header.get("extract_of"):
        raise LogError(
            f"the log holds only tournament {log.tournament!r} of a store of several "
            "(`export --tournament`): an extract is read (`candidates audit FILE`), not "
            "loaded; export the whole store to load it. Nothing was appended"
        )
    events = verify_log(log)
    positions = [r.store_seq for r in log.records]
    dense = all(p == i for i, p in enumerate(positions, start=1))
    saved_every, store.chain.seal_every = store.chain.seal_every, 0
    try:
        # one save: one transaction, all or nothing
        store.append(events, positions=None if dense else positions)
    finally:
        store.chain.seal_every = saved_every
    return len(events)


def append_records(
    store: Store, records: Iterable[Record], classes: dict[str, type[Event]] | None = None
) -> int:
    """Append records as they are (no automatic seals: the log carries its own)."""
    classes = classes or event_classes()
    saved_every, store.chain.seal_every = store.chain.seal_every, 0
    count = 0
    batch: list[Event] = []
    try:
        for record in records:
            batch.append(record.event(classes))
            if len(batch) >= BATCH:
                store.append(batch)
                count += len(batch)
                batch = []
        if batch:
            store.append(batch)
            count += len(batch)
    finally:
        store.chain.seal_every = saved_every
    return count
