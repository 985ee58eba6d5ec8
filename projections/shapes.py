"""The scalar types the contract's shapes share, declared once with their constraints.

The query objects (``projections``) and the gateway's frames (``adapters/gateway``) are
TypedDicts whose fields use these: ``msgspec`` reads the constraints (``Meta``) when it
generates the JSON Schemas of ``docs/schema/`` (``make docs``) and when it validates a
decoded value, so a range or a pattern is said here and nowhere else.
"""

from __future__ import annotations

from typing import Annotated, Literal, Required, TypedDict

from msgspec import Meta

INSTANT_PATTERN = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]{1,3})?)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})$"
)
"""ISO-8601 instants as the engine reads them (``engine.timefmt.INSTANT_FORM``): a ``T``,
at most milliseconds, and a zone (none: refused)."""

Instant = Annotated[str, Meta(pattern=INSTANT_PATTERN)]
Count = Annotated[int, Meta(ge=0)]
"""A number of things: 0 or more."""
Ordinal = Annotated[int, Meta(ge=1)]
"""A round, a board, a rank, a ply that exists: 1 or more."""
Probability = Annotated[float, Meta(ge=0, le=1)]
Number = int | float
"""Points and tie-break scores: an int when whole, else a float (8.5)."""
PgnResult = Literal["1-0", "0-1", "1/2-1/2", "*"]
"""A game's result as PGN writes it (``engine.fields.RESULTS``)."""
Decisive = Literal["1-0", "1/2-1/2", "0-1"]
Criterion = Literal["h2h", "wins", "sb", "koya"]


class PerSide(TypedDict):
    """A count for each side (incorrect claims, illegal moves)."""

    white: int
    black: int


class EventWire(TypedDict, total=False):
    """An event in its contract form (``Event.to_wire``): its envelope, then its own
    fields (docs/commands.md names each event's)."""

    type: Required[str]
    stream: Required[str]
    version: Required[int]
    at: Required[Instant | None]
