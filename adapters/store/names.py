"""The first tournament's plain names: how a tournament's streams are stored and read.

A store holds its first tournament on the plain stream names (``tournament``,
``game/<id>``...) and each further one under its id (``engine.events.physical_stream``);
the store's own streams (``tournaments``, ``board/<serial>``) are shared. This module is
the one place that turns one into the other: a stored event under the engine's name
(``logical_event``), a decided one under its stored name (``stored_event``), the
tournament an event belongs to (``event_tournament``, ``board_alert_tournament``) and
how a game is named among every tournament's (``game_key``).
"""

from __future__ import annotations

from engine.events import (
    AlertRaised,
    Event,
    TournamentListed,
    physical_stream,
    split_stream,
    stream_game_id,
)


def _renamed(event: Event, stream: str) -> Event:
    """The same event on another stream name: a copy of its fields, not a new
    construction (``dataclasses.replace`` runs ``__init__`` and costs 10x more)."""
    copy = object.__new__(type(event))
    copy.__dict__.update(event.__dict__)
    object.__setattr__(copy, "originator_id", stream)
    return copy


def logical_event(event: Event, namespace: str | None) -> Event:
    """A stored event under the name the engine knows its stream by."""
    if namespace is None:
        return event
    return _renamed(event, split_stream(event.originator_id)[1])


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


def board_alert_tournament(event: AlertRaised) -> str | None:
    """The further tournament a board's alert (on the shared ``board/<serial>``) was
    raised for (``stored_event`` names it in the details); None for the first's."""
    if stream_game_id(event.originator_id) is not None:
        return None
    tournament = (event.details or {}).get("tournament")
    return tournament if isinstance(tournament, str) else None


def event_tournament(event: Event, first: str | None) -> str | None:
    """The tournament a stored event belongs to (``first``: the store's first one's id;
    the store's list names the one it lists)."""
    if isinstance(event, TournamentListed):
        return event.tournament
    namespace, _ = split_stream(event.originator_id)
    if namespace is None and isinstance(event, AlertRaised):
        namespace = board_alert_tournament(event)
    return namespace if namespace is not None else first


def game_key(tournament: str | None, game_id: str, first: str | None) -> str:
    """How a game is named among every tournament's: its id in the store's first
    tournament, ``<tournament>/<id>`` in the others (as ``stream_game_id`` names them)."""
    if tournament is None or tournament == first:
        return game_id
    return f"{tournament}/{game_id}"
