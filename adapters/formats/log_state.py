"""What a replay log says of itself, checked against what its events give.

A log's header names its tournament (``tournament``, ``name``) and its trailer records
the final state the exporting engine folded (each game's position, ply, result and
termination; the first tournament's standings: docs/replay-log.md). Both are written
from the events, so a header or a trailer that says something else was edited after
the export: ``candidates import-log`` refuses such a log whole, as ``candidates audit``
fails it (``contradictions``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypedDict

from engine.events import TOURNAMENT_STREAM, Event, TournamentCreated


class LogHeader(TypedDict, total=False):
    """A replay log's header (docs/replay-log.md). Read from a file, only its ``format``
    and ``version`` are known good; every other field is checked where it is read."""

    format: str
    version: int
    tournament: str | None
    """The store's first tournament's id (an extract's: its one tournament's)."""
    name: str | None
    notes: str
    generated: list[str]
    extract_of: list[str]
    """An extract's: every tournament of the store it was taken from."""


class GameFinal(TypedDict):
    """One game of a trailer's ``state``: where it stands."""

    fen: str
    ply: int
    result: str | None
    termination: str | None


class FinalState(TypedDict, total=False):
    """A trailer's ``state``: each game (a further tournament's as ``<ns>/<id>``) and
    the first tournament's standings, as ``projections.standings`` gives them (plain)."""

    games: dict[str, GameFinal]
    standings: Any


class Trailer(TypedDict, total=False):
    """A replay log's trailer. Read from a file, every field is checked where it is read."""

    end: bool
    events: int
    order_digest: str
    """The running digest of every link in order, hex."""
    state: FinalState


def plain(value: Any) -> Any:
    """Lists for tuples, all the way down: a value as msgpack gives it back."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    return value


def as_recorded(recorded: Any, derived: Any) -> bool:
    """The derived object says what the recorded one says: every field the trailer
    recorded, equal, at every depth; a field a later version of a projection added (the
    standings' ``format``, a game's ``scores``) is not a difference, so a log recorded
    before it audits clean (old replay logs load and audit unchanged)."""
    recorded, derived = plain(recorded), plain(derived)
    if isinstance(recorded, dict) and isinstance(derived, dict):
        return all(k in derived and as_recorded(v, derived[k]) for k, v in recorded.items())
    if isinstance(recorded, list) and isinstance(derived, list):
        return len(recorded) == len(derived) and all(
            as_recorded(a, b) for a, b in zip(recorded, derived, strict=True)
        )
    return bool(recorded == derived)


def founding(events: Iterable[Event]) -> TournamentCreated | None:
    """The store's first tournament's founding event (its stream without a namespace)."""
    for event in events:
        if isinstance(event, TournamentCreated) and event.originator_id == TOURNAMENT_STREAM:
            return event
    return None


def header_contradictions(header: LogHeader, events: list[Event]) -> list[str]:
    """How the header's ``tournament`` and ``name`` differ from the founding event's."""
    created = founding(events)
    problems: list[str] = []
    said = (
        ("tournament", header.get("tournament"), created.tournament if created else None),
        ("name", header.get("name"), created.name if created else None),
    )
    for key, recorded, derived in said:
        if recorded != derived:
            problems.append(
                f"the header's {key} is {_short(recorded)} but the events found "
                f"{_short(derived)} (a header edited after the export)"
            )
    return problems


def trailer_contradictions(
    trailer: Trailer, events: list[Event], fold: Callable[[list[Event]], FinalState]
) -> list[str]:
    """How the trailer's ``state`` differs from ``fold(events)`` (the exporting engine's
    ``final_state``): each game the trailer records otherwise, and the standings."""
    recorded = trailer.get("state")
    if recorded is None:
        return []
    if not isinstance(recorded, dict):
        return ["the trailer's state is not a map"]
    try:
        derived = fold(events)
    except Exception as exc:  # a game the engine could not have recorded
        return [f"the final state cannot be folded from the events ({type(exc).__name__})"]
    problems: list[str] = []
    if "standings" in recorded and not as_recorded(recorded["standings"], derived.get("standings")):
        problems.append("the standings the trailer records differ from those the events give")
    games = recorded.get("games", {})
    games = games if isinstance(games, dict) else {}
    found = derived.get("games", {})
    for game_id in sorted(set(games) | set(found), key=str):
        if not as_recorded(games.get(game_id), found.get(game_id)):
            problems.append(
                f"game {game_id}: the trailer records {_short(plain(games.get(game_id)))}, "
                f"the events give {_short(plain(found.get(game_id)))}"
            )
    return problems


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 160 else text[:157] + "..."
