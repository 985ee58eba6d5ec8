"""Replay a log through the same store and projections, paced, up to any instant.

``candidates replay FILE`` appends a log's events to a fresh store in their
global order, waiting between them as the recorded instants say (divided by
``--speed``; nights and rest days, any gap longer than ``max_gap_ms`` of event
time, take ``gap_s`` wall seconds). The store is an ordinary one, so every
projection (boards, clocks, claims, standings) and the gateway (``--serve``)
see the replay exactly as they saw the event live.

"The state at instant T" is the store after every event with ``at_ms <= T``:
each stream's events up to T (a stream stops at its first event after T, so its
versions stay contiguous). ``--round N`` is the instant the last game of round
N ended.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypedDict

from adapters.formats.replay_log import Record, append_records, event_classes
from adapters.store import Store, queries
from engine.errors import MalformedCommand
from engine.events import stream_game_id
from engine.timefmt import format_instant
from projections.claims_view import ClaimShown
from projections.game_view import GameObject
from projections.standings import Standings

DEFAULT_MAX_GAP_MS = 20 * 60 * 1000
"""Event-time gaps longer than this (between rounds, overnight) are shortened."""


@dataclass(frozen=True)
class Pace:
    """How fast to replay: ``speed`` times real time, or as fast as possible (None)."""

    speed: float | None = None
    max_gap_ms: int = DEFAULT_MAX_GAP_MS
    gap_s: float = 1.0
    batch: int = 500

    def wait_s(self, delta_ms: int) -> float:
        if self.speed is None or delta_ms <= 0:
            return 0.0
        if delta_ms > self.max_gap_ms:
            return self.gap_s
        return delta_ms / 1000 / self.speed


def parse_speed(text: str) -> float | None:
    """``max`` (or 0) for no waiting, else a positive factor of real time."""
    if text.lower() in ("max", "0", "inf"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise MalformedCommand(f"--speed must be a number or 'max', got {text!r}") from None
    if value <= 0:
        raise MalformedCommand(f"--speed must be positive, got {text!r}")
    return value


def round_of(record: Record) -> int | None:
    game_id = stream_game_id(record.stream)
    if game_id is None:
        return None
    head = game_id.split(".")[0]
    return int(head) if head.isdigit() else None


def round_end_ms(records: Iterable[Record], round_no: int) -> int:
    """The instant the last game of round N ended (its last event)."""
    ends = [r.at_ms for r in records if round_of(r) == round_no]
    if not ends:
        raise MalformedCommand(f"the log has no game of round {round_no}")
    return max(ends)


def until(records: Iterable[Record], until_ms: int | None) -> Iterator[Record]:
    """The records of the state at ``until_ms``: each stream's events up to that instant."""
    stopped: set[str] = set()
    for record in records:
        if until_ms is not None and (record.stream in stopped or record.at_ms > until_ms):
            stopped.add(record.stream)
            continue
        yield record


def schedule(records: Iterable[Record], pace: Pace) -> Iterator[tuple[float, list[Record]]]:
    """(wall seconds to wait, then the batch to append): the replay's timetable."""
    batch: list[Record] = []
    wait = 0.0
    latest: int | None = None
    for record in records:
        delta = 0 if latest is None else record.at_ms - latest
        step = pace.wait_s(delta)
        latest = record.at_ms if latest is None else max(latest, record.at_ms)
        if batch and (step > 0.01 or len(batch) >= pace.batch):
            yield wait, batch
            batch, wait = [], 0.0
        wait += step
        batch.append(record)
    if batch:
        yield wait, batch


Progress = Callable[[Store, list[Record]], None]


def replay(
    store: Store,
    records: Iterable[Record],
    pace: Pace,
    progress: Progress | None = None,
    sleep: Callable[[float], object] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    stopped: Callable[[], bool] = lambda: False,
) -> int:
    """Append the records to the store on the pace's timetable; return how many.

    ``stopped`` is asked before each batch: a replay served from a thread ends
    as soon as its caller says so (Ctrl-C).
    """
    classes = event_classes()
    count = 0
    target = clock()
    for wait, batch in schedule(records, pace):
        if stopped():
            break
        if wait:
            target += wait
            delay = target - clock()
            if delay > 0:
                sleep(delay)
            else:
                target = clock()
        count += append_records(store, batch, classes)
        if progress is not None:
            progress(store, batch)
    return count


# --- the state at an instant ---------------------------------------------------------


class PendingClaim(ClaimShown):
    """A claim waiting for the arbiter, with its game."""

    game: str


class StateAt(TypedDict):
    """What ``candidates replay --at`` shows: the store as it stood at an instant."""

    at: str | None
    events: int
    games: list[GameObject]
    standings: Standings | None
    pending_claims: list[PendingClaim]


def state_at(store: Store, at_ms: int | None) -> StateAt:
    """Boards, clocks (run on to ``at_ms``), standings and pending claims as the store
    holds them; the store's latest state when ``at_ms`` is None."""
    games = [queries.game_object(store.reads, game_id, at_ms) for game_id in store.reads.game_ids()]
    pending = [
        PendingClaim(**claim, game=game["game"])
        for game in games
        for claim in game["claims"]
        if claim["status"] == "pending"
    ]
    return {
        "at": format_instant(at_ms) if at_ms is not None else None,
        "events": store.cache.count(),
        "games": games,
        "standings": queries.standings_object(store.reads) if store.reads.tournament() else None,
        "pending_claims": pending,
    }


def render_state(state: StateAt) -> str:
    lines = [f"State at {state['at'] or 'the end of the log'} ({state['events']} events)"]
    for game in state["games"]:
        clock = game["clock"]
        clocks = ""
        if clock["white_ms"] is not None and clock["black_ms"] is not None:
            clocks = f"  {_hms(clock['white_ms'])} / {_hms(clock['black_ms'])}"
        last = game["moves"][-1] if game["moves"] else "-"
        lines.append(
            f"  {game['game']:>5}  {game['white']:<10} - {game['black']:<10} "
            f"ply {game['ply']:>3}  last {last:<7} {game['result']:<7}{clocks}"
        )
    table = state["standings"]
    if table is not None and table["rows"]:
        lines.append(f"Standings after round {table['after_round']}:")
        for row in table["rows"]:
            lines.append(f"  {row['rank']!s:>2}. {row['player']:<12} {row['points']}")
    if state["pending_claims"]:
        lines.append("Pending claims:")
        for claim in state["pending_claims"]:
            lines.append(f"  game {claim['game']}: {claim['by']} {claim['kind']}")
    return "\n".join(lines)


def _hms(ms: int) -> str:
    seconds = max(0, ms) // 1000
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
