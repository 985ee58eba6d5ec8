"""``candidates audit``: is the log intact, and is every result backed by the rules?

Integrity findings (a broken hash link or seal, a version gap, a projection that
differs when re-derived, an illegal move...) make the exit status 1; rule findings
(every arbiter override, every result without a legal reason behind it) are listed,
and fail only with ``--strict``. Every finding names its event, and the audit never
stops with an error. The rules are the engine's (``engine/audit``); this module reads
the store or the log, checks links, seals and trailer, compares the projections and
writes the report (docs/audit.md)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from eventsourcing.utils import resolve_topic

from adapters.audit.report import AuditReport, Finding
from adapters.formats.log_state import as_recorded, plain
from adapters.formats.replay_log import (
    Log,
    LogError,
    Record,
    event_classes,
    final_state,
    record_of,
    standings_by_tournament,
    verify_links,
)
from adapters.store.chain import (
    GENESIS,
    PREFIX_BYTES,
    extend_digest,
    split_prefixes,
)
from adapters.store.door import Store
from adapters.store.names import logical_event
from adapters.store.queries import standings_object
from engine.audit import findings as engine_findings
from engine.audit.clocks import judge_clocks
from engine.audit.event_fields import field_problems
from engine.audit.findings import INFO, INTEGRITY, RULE
from engine.audit.games import GamesAudit, judge_games
from engine.audit.incidents import judge_book
from engine.events import (
    INCIDENTS_STREAM,
    TOURNAMENT_STREAM,
    TOURNAMENTS_STREAM,
    ChainSealed,
    Event,
    physical_stream,
    split_stream,
    stream_game_id,
)
from engine.game.state import Game
from engine.tournament import tournament as tournaments
from engine.tournament.tournament import Tournament
from projections.game_view import game_view

__all__ = ["INFO", "INTEGRITY", "RULE", "AuditReport", "Finding", "audit_log", "audit_store"]


BOARD_STREAM_PREFIX = "board/"
"""An electronic board's own stream (``adapters.dgt.feed``): alerts before its game is known."""


# --- reading the raw store -------------------------------------------------------


def store_records(store: Store, report: AuditReport) -> Iterator[tuple[Record, int, bool]]:
    """(record, notification id, readable) of every stored event, in global order.

    A row that cannot be read (an unknown topic, state bytes that are not an event)
    is reported here, naming its stream, version and topic, and yielded as a record
    with no fields so the seals still count it in its place."""
    mapper = store.chain.mapper
    position = 0
    try:
        for notification in store.cache.notifications():
            position += 1
            stream, version = notification.originator_id, notification.originator_version
            topic = notification.topic
            kind, problem = "unreadable_event", ""
            try:
                cls = resolve_topic(topic)
            except Exception:
                cls = None
            if not (isinstance(cls, type) and issubclass(cls, Event)):
                kind, problem = "unknown_event_type", f"{topic!r} is not an event of this engine"
            else:
                try:
                    event, link = mapper.event_and_link(notification)
                    yield record_of(position, event, link), notification.id, True
                    continue
                except Exception as exc:
                    problem = f"{type(exc).__name__}: {exc}"
            placeholder = Record(
                position, str(stream), int(version), topic.rpartition(":")[2], -1, {}, None
            )
            report.add(
                INTEGRITY,
                kind,
                f"stored event {stream} v{version} (notification {notification.id}, "
                f"{topic}) cannot be read: {problem}",
                placeholder,
            )
            yield placeholder, notification.id, False
    except Exception as exc:  # the store itself cannot be read on from here
        report.add(
            INTEGRITY,
            "unreadable_store",
            f"the store cannot be read after log position {position}: {type(exc).__name__}: {exc}",
        )


# --- the checks --------------------------------------------------------------------


def check_links(
    records: list[Record], report: AuditReport, classes: dict[str, type[Event]]
) -> None:
    for problem in verify_links(records, classes):
        kind = (
            "missing_event"
            if "missing" in problem.message
            else "out_of_order"
            if ": expected v" in problem.message
            else "unlinked_event"
            if "without a hash link" in problem.message
            else "broken_link"
        )
        report.add(INTEGRITY, kind, problem.message, problem.record)


def _describe(records: list[Record], index: int) -> str:
    return records[index].where() if 0 <= index < len(records) else "nothing"


def check_seals(records: list[Record], report: AuditReport) -> None:
    """Each seal's digest over the first N links; name the first event out of place."""
    digest, covered, seals = GENESIS, 0, 0
    for index, record in enumerate(records):
        if record.stream != TOURNAMENT_STREAM or record.type != ChainSealed.__name__:
            continue
        seals += 1
        wanted = record.fields.get("events_before")
        sealed_digest = record.fields.get("order_digest")
        order = record.fields.get("order")
        if not isinstance(wanted, int) or not isinstance(sealed_digest, str):
            report.add(INTEGRITY, "seal_mismatch", "the seal is unreadable", record)
            continue
        segment = records[covered : min(wanted, index)]
        links = [r.link or GENESIS for r in segment]
        actual = extend_digest(digest, links)
        if actual.hex() != sealed_digest or wanted > index:
            message = _seal_diagnosis(
                records, covered, links, order if isinstance(order, str) else ""
            )
            lost = _lost_heads(records[: min(wanted, index)], record.fields.get("heads"))
            if lost:
                message += "; " + "; ".join(lost)
            if wanted > index:
                message = (
                    f"the seal covers {wanted} events but only {index} precede it "
                    f"({wanted - index} missing); {message}"
                )
            report.add(INTEGRITY, "seal_mismatch", message, record)
            digest = bytes.fromhex(sealed_digest)
        else:
            digest = actual
        covered = wanted
    report.seals = seals
    tail = len(records) - covered
    if records and seals == 0:
        report.add(
            INFO,
            "no_seal",
            "no seal in the log: the global order and each stream's last event are "
            "protected by nothing but the stream chains",
        )
    elif tail > 0:
        report.add(
            INFO,
            "unsealed_tail",
            f"{tail} event(s) after the last seal are protected by their stream chains only "
            "(a deleted last event of a stream there would not show; `candidates seal`)",
        )


def _lost_heads(covered: list[Record], heads: object) -> list[str]:
    """The streams whose sealed last event is not among the covered events any more."""
    if not isinstance(heads, dict):
        return []
    have: dict[str, int] = {}
    for record in covered:
        have[record.stream] = max(have.get(record.stream, 0), record.version)
    return [
        f"{stream} v{version} (its last event when sealed) is missing"
        for stream, version in sorted(heads.items())
        if isinstance(version, int) and have.get(stream, 0) < version
    ]


def _seal_diagnosis(records: list[Record], start: int, links: list[bytes], order: str) -> str:
    actual = [link[:PREFIX_BYTES].hex() for link in links]
    sealed = split_prefixes(order)
    if not sealed:
        return "the seal's digest does not match the events it covers"
    for offset in range(max(len(actual), len(sealed))):
        have = actual[offset] if offset < len(actual) else None
        want = sealed[offset] if offset < len(sealed) else None
        if have == want:
            continue
        here = start + offset
        if have is None:
            return (
                f"the event sealed at log position {here + 1} is missing (deleted); it came "
                f"after {_describe(records, here - 1)}"
            )
        if want is None:
            return (
                f"an event not covered by the seal stands at log position {here + 1}: "
                f"{_describe(records, here)}"
            )
        moved_to = next(
            (start + i for i, p in enumerate(actual) if p == want and i != offset), None
        )
        if moved_to is not None:
            return (
                f"events out of the sealed order: log position {here + 1} holds "
                f"{_describe(records, here)}, but the seal has there the event now at "
                f"position {moved_to + 1}: {_describe(records, moved_to)}"
            )
        if have in sealed:
            return (
                f"the event sealed at log position {here + 1} is missing (deleted); "
                f"{_describe(records, here)} follows in its place"
            )
        return (
            f"the event at log position {here + 1} is not the one sealed there "
            f"(changed or replaced): {_describe(records, here)}"
        )
    return "the seal's digest does not match the events it covers"


def check_trailer(log: Log, report: AuditReport) -> None:
    trailer = log.trailer
    if trailer is None:
        report.add(INTEGRITY, "truncated_log", "the log has no trailer: it was cut short")
        return
    if trailer.get("events") != len(log.records):
        report.add(
            INTEGRITY,
            "truncated_log",
            f"the trailer counts {trailer.get('events')} events, the log holds {len(log.records)}",
        )
    digest = extend_digest(GENESIS, [r.link or GENESIS for r in log.records]).hex()
    if trailer.get("order_digest") != digest:
        report.add(
            INTEGRITY,
            "trailer_mismatch",
            "the trailer's order digest does not match the log's events in their order",
        )


def check_projections(
    store: Store | None,
    log: Log | None,
    events: list[Event],
    records: dict[int, Record],
    folded: dict[str, Game],
    unsound: set[str],
    report: AuditReport,
) -> None:
    """Re-derive from scratch and compare with the live projections (store) or the trailer.

    Games the engine could not have recorded (``unsound``: an illegal move, an event
    that cannot be folded) are named already; their positions cannot be rebuilt, so
    they and the standings that count them are not compared."""
    last_of: dict[str, Event] = {}
    for event in events:
        last_of[event.originator_id] = event

    def where(stream: str) -> Record | None:
        last = last_of.get(stream)
        return records.get(id(last)) if last is not None else None

    if store is not None:
        first = store.registry.first_tournament_id()
        for game_id, game in sorted(folded.items()):
            if game_id in unsound:
                continue
            in_tournament, _, plain_id = game_id.rpartition("/")  # a further tournament's
            try:
                live = store.view(in_tournament or first).game(plain_id)
                differs = live is None or game_view(live) != game_view(game)
            except Exception as exc:
                report.add(
                    INTEGRITY,
                    "projection_unreadable",
                    f"game {game_id}: the live projection cannot be built from the stored "
                    f"events ({type(exc).__name__}: {exc})",
                    where(f"game/{game_id}"),
                )
                continue
            if differs:
                report.add(
                    INTEGRITY,
                    "projection_differs",
                    f"game {game_id}: the live projection differs from the one re-derived "
                    "from the stored events",
                    where(f"game/{game_id}"),
                )
        derived_ts: dict[str | None, Tournament | None] = {None: None}
        try:
            for event in events:
                namespace, name = split_stream(event.originator_id)
                if name == TOURNAMENT_STREAM:
                    derived_ts[namespace] = tournaments.evolve(
                        derived_ts.get(namespace), logical_event(event, namespace)
                    )
            live_ts = {ns: store.view(ns or first).tournament() for ns in derived_ts}
        except Exception as exc:
            report.add(
                INTEGRITY,
                "projection_unreadable",
                f"the tournament cannot be folded from its events ({type(exc).__name__}: {exc})",
                where(TOURNAMENT_STREAM),
            )
            return
        for namespace, derived_t in derived_ts.items():
            if live_ts[namespace] != derived_t:
                report.add(
                    INTEGRITY,
                    "projection_differs",
                    f"the live state of tournament {namespace or first!r} differs from the one "
                    "re-derived from the stored events",
                    where(physical_stream(TOURNAMENT_STREAM, namespace)),
                )
    sound = [e for e in events if stream_game_id(e.originator_id) not in unsound]
    try:
        derived_state = final_state(sound)
    except Exception as exc:
        report.add(
            INTEGRITY,
            "projection_unreadable",
            f"the final state cannot be derived from the events ({type(exc).__name__}: {exc})",
        )
        return
    if unsound:
        report.add(
            INFO,
            "not_compared",
            f"the standings and game(s) {', '.join(sorted(unsound))} are not compared with "
            "the live or recorded ones: their events cannot be folded as the engine would",
        )
    if store is not None and not unsound and "standings" in derived_state:
        try:
            live = plain(standings_object(store.view(first)))
        except Exception as exc:
            report.add(
                INTEGRITY,
                "projection_unreadable",
                f"the live standings cannot be built ({type(exc).__name__}: {exc})",
            )
        else:
            if live != derived_state["standings"]:
                report.add(
                    INTEGRITY,
                    "projection_differs",
                    "the live standings differ from the standings re-derived from the stored "
                    "events",
                )
        for namespace, derived in standings_by_tournament(sound).items():
            if namespace is None:
                continue  # the first tournament's: compared above
            try:
                live = plain(standings_object(store.view(namespace)))
            except Exception as exc:
                report.add(
                    INTEGRITY,
                    "projection_unreadable",
                    f"the live standings of tournament {namespace!r} cannot be built "
                    f"({type(exc).__name__}: {exc})",
                )
                continue
            if live != derived:
                report.add(
                    INTEGRITY,
                    "projection_differs",
                    f"the live standings of tournament {namespace!r} differ from the standings "
                    "re-derived from its stored events",
                )
    if log is not None and log.trailer is not None:
        recorded_state = log.trailer.get("state", {})
        if not isinstance(recorded_state, dict):
            report.add(INTEGRITY, "trailer_mismatch", "the trailer's state is not a map")
            return
        if (
            not unsound
            and "standings" in recorded_state
            and not as_recorded(recorded_state["standings"], derived_state.get("standings"))
        ):
            report.add(
                INTEGRITY,
                "projection_differs",
                "the standings the trailer records differ from those the events give",
            )
        recorded = recorded_state.get("games", {})
        recorded = recorded if isinstance(recorded, dict) else {}
        derived = derived_state["games"]
        for game_id in sorted(set(recorded) | set(derived)):
            if game_id in unsound:
                continue
            if not as_recorded(recorded.get(game_id), derived.get(game_id)):
                report.add(
                    INTEGRITY,
                    "projection_differs",
                    f"game {game_id}: the trailer records {plain(recorded.get(game_id))}, the "
                    f"events give {plain(derived.get(game_id))}",
                    where(f"game/{game_id}"),
                )


# --- entry points --------------------------------------------------------------------


def read_events(
    records: list[Record], report: AuditReport, classes: dict[str, type[Event]], skip: set[int]
) -> tuple[list[Record], list[Event], set[str]]:
    """The records that are events of this engine, and those events, each checked well
    formed; the streams with an event that is not."""
    readable: list[Record] = []
    events: list[Event] = []
    broken: set[str] = set()
    for record in records:
        if record.seq in skip:
            broken.add(record.stream)
            continue
        if record.type not in classes:
            report.add(
                INTEGRITY,
                "unknown_event_type",
                f"{record.where()}: {record.type!r} is not an event type of this engine",
                record,
            )
            broken.add(record.stream)
            continue
        try:
            event = record.event(classes)
        except LogError as exc:
            report.add(INTEGRITY, "ill_typed_field", exc.message, record)
            broken.add(record.stream)
            continue
        readable.append(record)
        events.append(event)
        problems = field_problems(event) + (
            [f"at_ms is {record.at_ms!r}, not int"]
            if isinstance(record.at_ms, bool) or not isinstance(record.at_ms, int)
            else []
        )
        if problems:
            report.add(
                INTEGRITY,
                "ill_typed_field",
                f"{record.where()}: " + "; ".join(problems),
                record,
            )
            broken.add(record.stream)
    return readable, events, broken


def audit_records(
    source: str,
    records: list[Record],
    report: AuditReport,
    store: Store | None = None,
    log: Log | None = None,
    unreadable: set[int] | None = None,
) -> AuditReport:
    """Every check, in order; whatever fails on the way becomes a finding, never an error."""
    classes = event_classes()
    report.events = len(records)
    readable, events, broken = read_events(records, report, classes, unreadable or set())
    by_event = {id(e): r for e, r in zip(events, readable, strict=True)}
    steps: list[tuple[str, Any]] = [("links", lambda: check_links(readable, report, classes))]
    if log is not None and log.header.get("extract_of"):
        report.add(
            INFO,
            "extract",
            f"the log holds only tournament {log.tournament!r} of a store of several "
            "(export --tournament): the store's seals cover events left out and are not "
            "checked; every stream in it is whole and its links are",
        )
    else:
        steps.append(("seals", lambda: check_seals(records, report)))
    if log is not None:
        steps.append(("trailer", lambda: check_trailer(log, report)))
    for name, step in steps:
        _guarded(name, step, report)
    broken_games = {s.removeprefix("game/") for s in broken if s.startswith("game/")}
    broken_clocks = {s.removeprefix("clock/") for s in broken if s.startswith("clock/")}
    judged = [
        e
        for e in events
        if e.originator_id not in broken and stream_game_id(e.originator_id) not in broken_games
    ]
    games = GamesAudit()
    try:
        games = judge_games(judged)
        clocks = judge_clocks(judged, games.unsound | broken_clocks)
        book = judge_book(judged)
    except Exception as exc:  # each event is guarded in the engine: this is a last resort
        clocks, book = [], []
        report.add(INTEGRITY, "check_failed", f"the rules could not be checked ({exc!r})")
    for found in (*games.findings, *clocks, *book):
        report.findings.append(_from_engine(found, by_event))
    report.games = len({r.stream for r in records if r.stream.startswith("game/")})
    unsound = games.unsound | broken_games
    if TOURNAMENT_STREAM in broken:
        report.add(
            INFO,
            "not_compared",
            "the projections are not compared: an event of the tournament stream is unreadable",
        )
    else:
        _guarded(
            "projections",
            lambda: check_projections(store, log, judged, by_event, games.games, unsound, report),
            report,
        )
    boards: set[str] = set()
    for record in readable:
        if record.stream.startswith(BOARD_STREAM_PREFIX):  # audited: links and seals above
            boards.add(record.stream)
            report.board_alerts += 1
        elif (
            stream_game_id(record.stream) is None
            and split_stream(record.stream)[1]
            not in (TOURNAMENT_STREAM, TOURNAMENTS_STREAM, INCIDENTS_STREAM)
            and not record.stream.startswith("board/")
            and not record.stream.startswith("command/")  # CommandApplied: links and seals
        ):
            report.add(INFO, "unknown_stream", f"stream {record.stream!r} is not audited", record)
    report.boards = len(boards)
    return report


def _guarded(name: str, step: Any, report: AuditReport) -> None:
    """Run one check; a failure of the check itself is a finding, not a traceback."""
    try:
        step()
    except Exception as exc:
        report.add(
            INTEGRITY,
            "check_failed",
            f"the {name} check could not finish on this log ({type(exc).__name__}: {exc})",
        )


def _from_engine(found: engine_findings.Finding, by_event: dict[int, Record]) -> Finding:
    record = by_event.get(id(found.event)) if found.event is not None else None
    return Finding(found.severity, found.kind, found.message, record)


def audit_store(store: Store) -> AuditReport:
    report = AuditReport(source=store.url)
    rows = list(store_records(store, report))
    records = [r for r, _, _ in rows]
    unreadable = {r.seq for r, _, ok in rows if not ok}
    audit_records(store.url, records, report, store=store, unreadable=unreadable)
    ids = {r.seq: seq for r, seq, _ in rows}
    report.findings = [
        replace(f, store_seq=ids.get(f.record.seq)) if f.record is not None else f
        for f in report.findings
    ]
    return report


def audit_log(log: Log, source: str) -> AuditReport:
    report = AuditReport(source=source)
    return audit_records(source, log.records, report, log=log)
