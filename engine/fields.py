"""Checked fields of a decoded JSON object: one vocabulary for every input.

Commands (``engine.commands``), qualification data and bids read their JSON
through these checkers. A checker takes the field's name (for the message)
and the raw value, and returns the value in its typed form or raises
``MalformedCommand`` with a message that names the field and what it got.

Typed command fields pick their checker from their type (``str``, ``int``,
``bool``, ``float``, ``Side``, ``list``, ``dict``); the aliases below carry
the checker for types that need more than their Python type (an instant on
the wire is a string, a claim id may be a number or a string, a result is one
of four texts).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from engine.errors import MalformedCommand
from engine.side import SIDES, Side
from engine.timefmt import parse_instant

Checker = Callable[[str, object], Any]

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")

INT_LIMIT = 2**53 - 1
"""The largest integer a field may hold: exact in every JSON reader, and far inside
the store's 64-bit integers (a clock of 2**53 ms is 285,000 years)."""


def text(name: str, value: object) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value:
        raise MalformedCommand(f"field {name!r} must be a non-empty string, got {value!r}")
    return value


def integer(name: str, value: object) -> int:
    """An integer (not a boolean) within ``INT_LIMIT``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedCommand(f"field {name!r} must be an integer, got {value!r}")
    if abs(value) > INT_LIMIT:
        raise MalformedCommand(f"field {name!r} is out of range (|n| <= 2**53 - 1), got {value}")
    return value


def number(name: str, value: object) -> float | int:
    """An integer or a float (not a boolean)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MalformedCommand(f"field {name!r} must be a number, got {value!r}")
    return value


def side(name: str, value: object) -> Side:
    """``"white"`` or ``"black"``."""
    if not isinstance(value, str) or value not in SIDES:
        raise MalformedCommand(f"field {name!r} must be 'white' or 'black', got {value!r}")
    return Side(value)


def result(name: str, value: object) -> str:
    """A game result as the PGN writes it."""
    if value not in RESULTS:
        raise MalformedCommand(f"field {name!r} must be one of {', '.join(RESULTS)}; got {value!r}")
    return str(value)


def array(name: str, value: object) -> list[Any]:
    """A JSON array."""
    if not isinstance(value, list):
        raise MalformedCommand(f"field {name!r} must be a list, got {value!r}")
    return value


def mapping(name: str, value: object) -> dict[str, Any]:
    """A JSON object."""
    if not isinstance(value, dict):
        raise MalformedCommand(f"field {name!r} must be an object, got {value!r}")
    return value


def boolean(name: str, value: object) -> bool:
    """``true`` or ``false``."""
    if not isinstance(value, bool):
        raise MalformedCommand(f"field {name!r} must be true or false, got {value!r}")
    return value


def instant(name: str, value: object) -> int:
    """An ISO-8601 UTC instant on the wire, epoch milliseconds once checked."""
    return parse_instant(value, name)


def identifier(name: str, value: object) -> str:
    """A string or an integer, kept as a string (``"claim": 1`` and ``"1"`` are the same)."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise MalformedCommand(f"field {name!r} must be a string or integer, got {value!r}")
    return str(value)


Instant = Annotated[int, instant]
"""Epoch ms, written on the wire as an ISO instant; a field ``at_ms`` is ``at`` on the wire."""
Identifier = Annotated[str, identifier]
ResultText = Annotated[str, result]

BY_TYPE: dict[object, Checker] = {
    str: text,
    int: integer,
    float: number,
    bool: boolean,
    Side: side,
    list: array,
    dict: mapping,
}
"""The checker of a field declared with a plain type (generic ``list[...]`` by its origin)."""
