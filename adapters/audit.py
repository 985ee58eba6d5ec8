"""``candidates audit``: is the log intact, and is every result backed by the rules?

Two kinds of findings (docs/audit.md):

- **integrity** (the exit status is 1): a record that cannot be read, a hash link
  that does not match (an event changed), a version gap (an event deleted), a
  seal whose digest does not match the events it covers (events moved, deleted
  or changed: the report names the first one out of place), a trailer that does
  not match the log, a projection re-derived from scratch that differs from the
  live one, an illegal move, an ending the position does not show, an event
  after a game's result, an impossible clock reading.
- **rule** (listed; the exit status is 1 only with ``--strict``): every arbiter
  correction of the record (``correct_moves``, ``correct_result``: listed as
  ``arbiter_correction``, never as an integrity failure, the moves of a corrected
  line being checked from the position where it starts), every arbiter override
  (a declared result, a clock adjustment, a regulation-clock flag dismissed with
  ``rule_flag``), every result without a legal
  reason behind it: a draw without an accepted claim or a drawn position
  (3.9.2 b: "The players cannot draw a game by agreement"), a result imported
  from a score sheet with no event behind it.

Every finding names the event: stream, version, type, position in the global
order (and, for a store, its notification id).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import chess

from adapters.chain import (
    GENESIS,
    PREFIX_BYTES,
    event_fields,
    extend_digest,
    split_prefixes,
)
from adapters.queries import standings_object
from adapters.replay_log import (
    Log,
    LogError,
    Record,
    event_classes,
    final_state,
    plain,
    verify_links,
)
from adapters.store import Store, logical_event
from engine.events import (
    TOURNAMENT_STREAM,
    TOURNAMENTS_STREAM,
    ChainSealed,
    ClaimRuled,
    ClockAdjusted,
    ClockReadingRecorded,
    Event,
    FlagRuled,
    GameStarted,
    MovePlayed,
    MovesCorrected,
    ResultCorrected,
    ResultRecorded,
    split_stream,
    stream_game_id,
)
from engine.game import state as games
from engine.game.state import Game
from engine.rules import PROFILES
from engine.timefmt import format_instant
from engine.tournament import tournament as tournaments
from engine.tournament.tournament import Tournament
from projections.clock import clock_text
from projections.game_view import game_view

INTEGRITY, RULE, INFO = "integrity", "rule", "info"

POSITION_ENDINGS = {
    "checkmate",
    "stalemate",
    "insufficient_material",
    "seventyfive_moves",
    "fivefold_repetition",
}
"""Terminations the final position itself must show (Laws 5.1, 5.2, 9.6)."""
PENALISED_BY = {"ClaimRuled", "IllegalMoveRecorded"}
"""Events whose clock penalty follows in the same decision: an incorrect claim (9.5), an
illegal move (7.4 b). The adjustment is the rule's, not an arbiter's override."""
CLAIM_KINDS = {
    "threefold_repetition",
    "fifty_moves",
    "perpetual_check",
    "stalemate",
    "insufficient_material",
    "theoretical_draw",
}


@dataclass(frozen=True)
class Finding:
    severity: str
    """``integrity``, ``rule`` or ``info``."""
    kind: str
    """Stable name: broken_link, missing_event, seal_mismatch, projection_differs, ..."""
    message: str
    record: Record | None = None
    store_seq: int | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"severity": self.severity, "kind": self.kind}
        if self.record is not None:
            out.update(
                stream=self.record.stream,
                version=self.record.version,
                type=self.record.type,
                at=format_instant(self.record.at_ms),
                position=self.record.seq,
            )
        if self.store_seq is not None:
            out["notification_id"] = self.store_seq
        out["message"] = self.message
        return out


@dataclass
class AuditReport:
    source: str
    events: int = 0
    seals: int = 0
    games: int = 0
    findings: list[Finding] = field(default_factory=list)

    def add(self, severity: str, kind: str, message: str, record: Record | None = None) -> None:
        self.findings.append(Finding(severity, kind, message, record))

    def of(self, severity: str) -> list[Finding]:
        return [f for f in self.findings if f.severity == severity]

    def exit_status(self, strict: bool = False) -> int:
        if self.of(INTEGRITY) or (strict and self.of(RULE)):
            return 1
        return 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "events": self.events,
            "seals": self.seals,
            "games": self.games,
            "integrity_failures": len(self.of(INTEGRITY)),
            "rule_findings": len(self.of(RULE)),
            "findings": [f.as_dict() for f in self.findings],
        }

    def render(self) -> str:
        lines = [
            f"Audit of {self.source}: {self.events} events, {self.games} games, {self.seals} seals",
        ]
        for severity, title in (
            (INTEGRITY, "Integrity failures"),
            (RULE, "Rule findings"),
            (INFO, "Notes"),
        ):
            found = self.of(severity)
            lines.append(f"{title}: {len(found) or 'none'}")
            for finding in found:
                where = ""
                if finding.record is not None:
                    r = finding.record
                    where = f"[{r.stream} v{r.version} {r.type} @ {format_instant(r.at_ms)}] "
                lines.append(f"  - {finding.kind}: {where}{finding.message}")
        return "\n".join(lines)


# --- reading the raw store -------------------------------------------------------


def store_records(store: Store, report: AuditReport) -> Iterator[tuple[Record, int]]:
    """(record, notification id) of every readable stored event; unreadable ones reported."""
    mapper = store.chain.mapper
    position = 0
    for notification in store.notifications():
        position += 1
        try:
            event, link = mapper.event_and_link(notification)
            if not isinstance(event, Event):
                raise TypeError(f"{notification.topic} is not an event of this engine")
            body = event_fields(event)
            record = Record(
                position,
                event.originator_id,
                event.originator_version,
                type(event).__name__,
                event.at_ms,
                body,
                link,
            )
        except Exception as exc:
            report.findings.append(
                Finding(
                    INTEGRITY,
                    "unreadable_event",
                    f"stored event {notification.originator_id} v{notification.originator_version}"
                    f" (notification {notification.id}, {notification.topic}) cannot be read: "
                    f"{exc}",
                    store_seq=notification.id,
                )
            )
            continue
        yield record, notification.id


# --- the checks --------------------------------------------------------------------


def check_links(records: list[Record], report: AuditReport, classes: dict[str, Any]) -> None:
    for problem in verify_links(records, classes):
        kind = (
            "missing_event"
            if "missing" in problem.message
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


def _game_events(events: Iterable[Event]) -> dict[str, list[Event]]:
    out: dict[str, list[Event]] = {}
    for event in events:
        if event.originator_id.startswith("game/"):
            out.setdefault(event.originator_id.removeprefix("game/"), []).append(event)
    return out


def _is_accepted_claim(event: Event) -> bool:
    """A ruling that accepted a draw claim (3.9.2 b)."""
    return isinstance(event, ClaimRuled) and event.decision == "accepted"


def check_games(records: list[Record], events: list[Event], report: AuditReport) -> dict[str, Game]:
    """Every move legal, every position-ending real, nothing after a result; rule findings."""
    by_record = dict(zip((id(e) for e in events), records, strict=True))
    folded: dict[str, Game] = {}
    for game_id, stream_events in _game_events(events).items():
        state: Game | None = None
        board: chess.Board | None = None
        finished: Event | None = None
        previous: Event | None = None
        accepted_claim = False
        for event in stream_events:
            record = by_record[id(event)]
            if finished is not None and isinstance(event, MovePlayed | ResultRecorded):
                report.add(
                    INTEGRITY,
                    "after_result",
                    f"game {game_id} goes on after its result ({format_instant(finished.at_ms)})",
                    record,
                )
            if isinstance(event, GameStarted):
                try:
                    board = chess.Board(event.initial_fen) if event.initial_fen else chess.Board()
                except ValueError:
                    report.add(
                        INTEGRITY, "bad_position", f"invalid FEN {event.initial_fen}", record
                    )
                    board = chess.Board()
            elif isinstance(event, MovePlayed):
                if board is None:
                    report.add(INTEGRITY, "illegal_move", "a move before the game started", record)
                    continue
                _check_move(board, event, record, game_id, report)
            elif isinstance(event, ResultRecorded):
                finished = event
                ruled_flag = isinstance(previous, FlagRuled) and previous.decision == "fallen"
                _check_result(board, event, record, game_id, accepted_claim or ruled_flag, report)
            elif isinstance(event, MovesCorrected):
                board = _check_correction(board, event, record, game_id, report)
            elif isinstance(event, ResultCorrected):
                finished = None if event.result is None else finished
                now = f"{event.result} ({event.termination})" if event.result else "withdrawn"
                report.add(
                    RULE,
                    "arbiter_correction",
                    f"{event.arbiter} corrected the result of game {game_id}: "
                    f"{event.replaced_result} ({event.replaced_termination}) -> {now}: "
                    f"{event.reason}",
                    record,
                )
            elif isinstance(event, FlagRuled) and event.override:
                report.add(
                    RULE,
                    "arbiter_override",
                    f"{event.arbiter} dismissed {event.side}'s flag in game {game_id}, which the "
                    f"regulation clock showed fallen (Laws 2009 6.10 a): {event.reason}",
                    record,
                )
            elif isinstance(event, ClockAdjusted) and type(previous).__name__ in PENALISED_BY:
                pass  # a penalty the rules fix (Laws 7.4 b, 9.5), recorded with its cause
            elif isinstance(event, ClockAdjusted):
                report.add(
                    RULE,
                    "arbiter_override",
                    f"{event.arbiter} adjusted {event.side}'s clock by "
                    f"{event.delta_ms / 1000:+.1f} s in game {game_id}: {event.reason}",
                    record,
                )
            if _is_accepted_claim(event):
                accepted_claim = True
            if getattr(event, "override", False) is True and not isinstance(event, FlagRuled):
                why = getattr(event, "reason", "") or "no reason"
                report.add(
                    RULE,
                    "arbiter_override",
                    f"{getattr(event, 'arbiter', event.by)} ruled against the verification in "
                    f"game {game_id} ({type(event).__name__}): {why}",
                    record,
                )
            state = games.evolve(state, event)
            previous = event
        if state is not None:
            folded[game_id] = state
    return folded


def _check_correction(
    board: chess.Board | None,
    event: MovesCorrected,
    record: Record,
    game_id: str,
    report: AuditReport,
) -> chess.Board:
    """List the correction, and check its moves from the position where it starts."""
    report.add(
        RULE,
        "arbiter_correction",
        f"{event.arbiter} corrected the moves of game {game_id} after ply {event.from_ply}: "
        f"{' '.join(event.replaced_san) or '(none)'} -> {' '.join(event.san) or '(none)'}: "
        f"{event.reason}",
        record,
    )
    board = board or chess.Board()
    if not 0 <= event.from_ply <= len(board.move_stack):
        report.add(
            INTEGRITY,
            "illegal_move",
            f"game {game_id}: a correction from ply {event.from_ply}, but "
            f"{len(board.move_stack)} move(s) were recorded",
            record,
        )
        return board
    while len(board.move_stack) > event.from_ply:
        board.pop()
    for uci, san in zip(event.uci, event.san, strict=False):
        ply = board.ply() + 1
        played = MovePlayed(
            originator_id=event.originator_id,
            originator_version=event.originator_version,
            at_ms=event.at_ms,
            by=event.by,
            uci=uci,
            san=san,
            ply=ply,
        )
        _check_move(board, played, record, game_id, report)
    return board


def _check_move(
    board: chess.Board, event: MovePlayed, record: Record, game_id: str, report: AuditReport
) -> None:
    try:
        move = chess.Move.from_uci(event.uci)
    except ValueError:
        move = None
    if move is None or move not in board.legal_moves:
        report.add(
            INTEGRITY,
            "illegal_move",
            f"{event.uci} ({event.san}) is not legal in game {game_id} at ply {board.ply() + 1} "
            f"(position {board.fen()})",
            record,
        )
        # carry on as the engine recorded it, so later moves are judged where they were played
        if move is not None and board.piece_at(move.from_square) is not None:
            board.push(move)
        return
    san = board.san(move)
    if san != event.san or event.ply != board.ply() + 1:
        report.add(
            INTEGRITY,
            "illegal_move",
            f"move {event.uci} is recorded as {event.san!r} at ply {event.ply}; "
            f"the position makes it {san!r} at ply {board.ply() + 1}",
            record,
        )
    board.push(move)


def _check_result(
    board: chess.Board | None,
    event: ResultRecorded,
    record: Record,
    game_id: str,
    accepted_claim: bool,
    report: AuditReport,
) -> None:
    board = board or chess.Board()
    shown = games.outcome_of(board, "fide-2023")
    if event.termination in POSITION_ENDINGS:
        if shown is None or shown != (event.result, event.termination):
            report.add(
                INTEGRITY,
                "impossible_result",
                f"game {game_id} is recorded as {event.result} by {event.termination}, but "
                f"the final position ({board.fen()}) does not show it",
                record,
            )
        return
    if event.termination == "imported":
        report.add(
            RULE,
            "imported_result",
            f"game {game_id}: {event.result} comes from a score sheet with no event behind "
            "it (no resignation, flag fall or claim recorded)",
            record,
        )
        return
    if event.termination == "arbiter_decision" or (
        event.arbiter is not None and not accepted_claim
    ):
        report.add(
            RULE,
            "arbiter_override",
            f"{event.arbiter or event.by} declared {event.result} in game {game_id} "
            f"({event.termination}): {event.reason or 'no reason given'}",
            record,
        )
    if event.result == "1/2-1/2" and not accepted_claim:
        report.add(
            RULE,
            "draw_without_reason",
            f"game {game_id} was drawn ({event.termination}) without an accepted claim or a "
            "drawn position: 3.9.2 b forbids draws by agreement",
            record,
        )


def check_clocks(records: list[Record], events: list[Event], report: AuditReport) -> None:
    """Every clock against the time control (3.5.1; Laws 6): the regulation clock is
    re-derived from the game's events in global order and compared with what the log
    says of it: the regulation values stored beside each reading, moves completed
    before the mover's flag fell, flag falls recorded when the time had run out."""
    states: dict[str, Game] = {}
    for record, event in zip(records, events, strict=True):
        game_id = stream_game_id(event.originator_id)
        if game_id is None:
            continue
        state = states.get(game_id)
        clock = state.clock if state is not None else None
        if isinstance(event, ClockReadingRecorded):
            if event.white_ms < 0 or event.black_ms < 0:
                report.add(
                    INTEGRITY,
                    "impossible_clock",
                    f"a clock reading of game {game_id} shows a negative time "
                    f"({event.white_ms} / {event.black_ms} ms)",
                    record,
                )
            if state is None:
                report.add(
                    INTEGRITY,
                    "impossible_clock",
                    f"a clock reading of game {game_id} before the game started",
                    record,
                )
            elif clock is not None and event.model_white_ms is not None:
                model = (
                    clock.remaining_ms("white", event.at_ms),
                    clock.remaining_ms("black", event.at_ms),
                )
                stored = (event.model_white_ms, event.model_black_ms)
                if model != stored:
                    report.add(
                        INTEGRITY,
                        "impossible_clock",
                        f"the regulation clock of game {game_id} stored with this reading "
                        f"({clock_text(stored[0])} / {clock_text(stored[1])}) is not the one "
                        f"the time control gives ({clock_text(model[0])} / "
                        f"{clock_text(model[1])}) at {format_instant(event.at_ms)}",
                        record,
                    )
            continue
        if not event.originator_id.startswith("game/"):
            continue
        fallen = clock.flag_fallen(event.at_ms) if clock is not None else None
        if (
            isinstance(event, MovePlayed)
            and fallen is not None
            and state is not None
            and state.status == games.IN_PROGRESS
            and _automatic_flags(state)
        ):
            falls_ms = clock.flag_falls_at_ms() if clock is not None else None
            report.add(
                INTEGRITY,
                "impossible_clock",
                f"move {event.san} of game {game_id} was completed after {fallen}'s flag fell "
                f"({format_instant(falls_ms or 0)}, 6.9): it does not count",
                record,
            )
        if (
            isinstance(event, ResultRecorded)
            and event.termination == "time_forfeit"
            and event.arbiter is None
            and clock is not None
        ):
            loser = "white" if event.result == "0-1" else "black"
            left = clock.remaining_ms(loser, event.at_ms)
            if left > 0:
                report.add(
                    INTEGRITY,
                    "impossible_result",
                    f"game {game_id} is recorded as lost on time by {loser}, whose regulation "
                    f"clock still shows {clock_text(left)} at {format_instant(event.at_ms)}",
                    record,
                )
        next_state = games.evolve(state, event)
        if next_state is not None:
            states[game_id] = next_state


def _automatic_flags(game: Game) -> bool:
    """Under a supervised profile a flag is fallen only when the arbiter observes it
    (Laws 2009 6.8): a move after the regulation clock reached zero is not an error."""
    rules = PROFILES.get(game.rules)
    return rules is None or rules.automatic_flag_results


def check_projections(
    store: Store | None,
    log: Log | None,
    events: list[Event],
    folded: dict[str, Game],
    report: AuditReport,
) -> None:
    """Re-derive from scratch and compare with the live projections (store) or the trailer."""
    report.games = len(folded)
    if store is not None:
        first = store.first_tournament_id()
        for game_id, game in sorted(folded.items()):
            namespace, _, plain_id = game_id.rpartition("/")  # a further tournament's game
            live = store.view(namespace or first).game(plain_id)
            if live is None or game_view(live) != game_view(game):
                report.add(
                    INTEGRITY,
                    "projection_differs",
                    f"game {game_id}: the live projection differs from the one re-derived "
                    "from the stored events",
                )
        derived_ts: dict[str | None, Tournament | None] = {None: None}
        for event in events:
            namespace, name = split_stream(event.originator_id)
            if name == TOURNAMENT_STREAM:
                derived_ts[namespace] = tournaments.evolve(
                    derived_ts.get(namespace), logical_event(event, namespace)
                )
        for namespace, derived_t in derived_ts.items():
            if store.view(namespace or first).tournament() != derived_t:
                report.add(
                    INTEGRITY,
                    "projection_differs",
                    f"the live state of tournament {namespace or first!r} differs from the one "
                    "re-derived from the stored events",
                )
    derived_state = final_state(events)
    first_view = store.view(store.first_tournament_id()) if store is not None else None
    if (
        first_view is not None
        and first_view.tournament() is not None
        and ("standings" in derived_state)
    ):
        live = plain(standings_object(first_view))
        if live != derived_state["standings"]:
            report.add(
                INTEGRITY,
                "projection_differs",
                "the live standings differ from the standings re-derived from the stored events",
            )
    if log is not None and log.trailer is not None:
        recorded_state = log.trailer.get("state", {})
        if "standings" in recorded_state and plain(recorded_state["standings"]) != plain(
            derived_state.get("standings")
        ):
            report.add(
                INTEGRITY,
                "projection_differs",
                "the standings the trailer records differ from those the events give",
            )
        recorded = recorded_state.get("games", {})
        derived = derived_state["games"]
        for game_id in sorted(set(recorded) | set(derived)):
            if plain(recorded.get(game_id)) != plain(derived.get(game_id)):
                report.add(
                    INTEGRITY,
                    "projection_differs",
                    f"game {game_id}: the trailer records {plain(recorded.get(game_id))}, the "
                    f"events give {plain(derived.get(game_id))}",
                )


# --- entry points --------------------------------------------------------------------


def audit_records(
    source: str,
    records: list[Record],
    report: AuditReport,
    store: Store | None = None,
    log: Log | None = None,
) -> AuditReport:
    classes = event_classes()
    report.events = len(records)
    events: list[Event] = []
    readable: list[Record] = []
    for record in records:
        try:
            events.append(record.event(classes))
            readable.append(record)
        except LogError as exc:
            report.add(INTEGRITY, "unreadable_event", exc.message, record)
    check_links(readable, report, classes)
    check_seals(records, report)
    if log is not None:
        check_trailer(log, report)
    folded = check_games(readable, events, report)
    check_clocks(readable, events, report)
    check_projections(store, log, events, folded, report)
    for record in readable:
        if stream_game_id(record.stream) is None and split_stream(record.stream)[1] not in (
            TOURNAMENT_STREAM,
            TOURNAMENTS_STREAM,
        ):
            report.add(INFO, "unknown_stream", f"stream {record.stream!r} is not audited", record)
    return report


def audit_store(store: Store) -> AuditReport:
    report = AuditReport(source=store.url)
    pairs = list(store_records(store, report))
    audit_records(store.url, [r for r, _ in pairs], report, store=store)
    ids = {r.seq: seq for r, seq in pairs}
    report.findings = [
        replace(f, store_seq=ids.get(f.record.seq)) if f.record is not None else f
        for f in report.findings
    ]
    return report


def audit_log(log: Log, source: str) -> AuditReport:
    report = AuditReport(source=source)
    return audit_records(source, log.records, report, log=log)
