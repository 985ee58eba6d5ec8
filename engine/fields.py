"""Checked fields of decoded JSON: one vocabulary for every input of the engine.

Commands (``engine.commands``), qualification files
(``engine.qualification.inputs``) and bids
(``engine.qualification.bidding``) read their JSON through these checkers. A
checker takes ``where`` (the fault's place in words: ``field 'at'``,
``players[3] (carlsen).july_2011.rating``) and the raw value, and returns the
value in its typed form or raises ``MalformedCommand`` naming the place and
what it got; ``optional`` lets ``null`` (or an absent key) through as None.

Typed command fields pick their checker from their type (``str``, ``int``,
``bool``, ``float``, ``Side``, ``list``, ``dict``); the aliases at the end
carry the checker for types that need more than their Python type (an
instant is a string on the wire, a claim id a number or a string, a result
one of four texts).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Annotated, Any, TypeVar

from engine.errors import MalformedCommand
from engine.side import SIDES, Side
from engine.timefmt import quoted, read_instant

T = TypeVar("T")
Checker = Callable[[str, object], Any]

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")

INT_LIMIT = 2**53 - 1
"""The largest integer a command field may hold: exact in every JSON reader, and far
inside the store's 64-bit integers (a clock of 2**53 ms is 285,000 years)."""


MAX_TEXT_CHARS = 4096
"""Longest string a command may carry, anywhere in it (a ``reason``, a ``message``, a
value inside ``details``): 4 KB of words is a long page of an incident report; a 1 MB
reason is a mistake or an attack, and each client it reaches pays for it."""
MAX_FIELD_CHARS = 64 * 1024
"""Most a structured field (an object or a list: ``details``, ``players``, ``moves``) may
hold, counted as the characters of its strings plus 8 per other value: a 300-move game's
moves, instants and clocks take about 12 K."""


def within_bounds(where: str, value: object) -> None:
    """MalformedCommand when a string of ``value`` is longer than ``MAX_TEXT_CHARS`` or an
    object or list holds more than ``MAX_FIELD_CHARS`` (nothing is kept of either)."""
    if isinstance(value, str):
        if len(value) > MAX_TEXT_CHARS:
            raise MalformedCommand(
                f"{where} is too long ({len(value)} characters); at most {MAX_TEXT_CHARS}"
            )
        return
    if not isinstance(value, dict | list | tuple):
        return
    size = 0
    pending: list[object] = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if len(item) > MAX_TEXT_CHARS:
                raise MalformedCommand(
                    f"{where} holds a string of {len(item)} characters; at most {MAX_TEXT_CHARS}"
                )
            size += len(item)
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
        else:
            size += 8
        if size > MAX_FIELD_CHARS:
            raise MalformedCommand(
                f"{where} holds more than {MAX_FIELD_CHARS} characters; at most {MAX_FIELD_CHARS}"
            )


def optional(check: Callable[[str, object], T], where: str, value: object) -> T | None:
    """None for ``null`` (or an absent key read with ``.get``), else ``check``'s answer."""
    return None if value is None else check(where, value)


def text(where: str, value: object) -> str:
    """A non-empty string, as given (identifiers: ``1.1``, ``carlsen``)."""
    if not isinstance(value, str) or not value:
        raise MalformedCommand(f"{where} must be a non-empty string, got {quoted(value)}")
    return value


def words(where: str, value: object) -> str:
    """A string with something in it, stripped of surrounding blanks (names, reasons)."""
    if not isinstance(value, str) or not value.strip():
        raise MalformedCommand(f"{where} must be a non-empty string, got {quoted(value)}")
    return value.strip()


def string(where: str, value: object) -> str:
    """Any string, empty included."""
    if not isinstance(value, str):
        raise MalformedCommand(f"{where} must be a string, got {quoted(value)}")
    return value


def integer(where: str, value: object) -> int:
    """An integer (not a boolean) within ``INT_LIMIT``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedCommand(f"{where} must be an integer, got {quoted(value)}")
    if abs(value) > INT_LIMIT:
        raise MalformedCommand(f"{where} is out of range (|n| <= 2**53 - 1), got {value}")
    return value


def whole(where: str, value: object) -> int:
    """A whole number: an integer, or a Decimal without a fraction (JSON read with Decimals)."""
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        shown = str(value) if isinstance(value, Decimal) else repr(value)
        raise MalformedCommand(f"{where} must be a whole number, got {shown}")
    return value


def number(where: str, value: object) -> float | int:
    """An integer or a float (not a boolean)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MalformedCommand(f"{where} must be a number, got {quoted(value)}")
    return value


def boolean(where: str, value: object) -> bool:
    """``true`` or ``false``."""
    if not isinstance(value, bool):
        raise MalformedCommand(f"{where} must be true or false, got {quoted(value)}")
    return value


def mapping(where: str, value: object) -> dict[str, Any]:
    """A JSON object (integers inside it within ``INT_LIMIT``)."""
    if not isinstance(value, dict):
        raise MalformedCommand(f"{where} must be an object, got {quoted(value)}")
    _integers_in_range(where, value)
    return value


def array(where: str, value: object) -> list[Any]:
    """A JSON array (integers inside it within ``INT_LIMIT``)."""
    if not isinstance(value, list):
        raise MalformedCommand(f"{where} must be a list, got {quoted(value)}")
    _integers_in_range(where, value)
    return value


def _integers_in_range(where: str, value: object) -> None:
    """Every integer nested in ``value`` within ``INT_LIMIT``: an event holds only what its
    store and every JSON reader hold exactly (a larger one is refused, never stored)."""
    pending: list[tuple[str, object]] = [("", value)]
    while pending:
        path, item = pending.pop()
        if isinstance(item, dict):
            pending.extend((f"{path}.{key}", inner) for key, inner in item.items())
        elif isinstance(item, list | tuple):
            pending.extend((f"{path}[{index}]", inner) for index, inner in enumerate(item))
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) > INT_LIMIT:
            at = f" at {path.lstrip('.')}" if path else ""
            raise MalformedCommand(f"{where} holds {item}{at}, out of range (|n| <= 2**53 - 1)")


def side(where: str, value: object) -> Side:
    """``"white"`` or ``"black"``."""
    found = _SIDE_NAMED.get(value) if isinstance(value, str) else None
    if found is None:
        raise MalformedCommand(f"{where} must be 'white' or 'black', got {quoted(value)}")
    return found


_SIDE_NAMED = {str(s.value): s for s in SIDES}


def result(where: str, value: object) -> str:
    """A game result as the PGN writes it."""
    if value not in RESULTS:
        raise MalformedCommand(f"{where} must be one of {', '.join(RESULTS)}; got {quoted(value)}")
    return str(value)


EARLIEST_MS = 631_152_000_000
"""1990-01-01T00:00:00Z: no game this engine records (electronic boards and clocks, the
2012 regulations) is older; year 1, 1900 or 1970 (epoch 0) is a mistake, not a game."""
LATEST_MS = 4_102_444_800_000
"""2100-01-01T00:00:00Z (excluded)."""
INSTANT_WINDOW = "from 1990-01-01T00:00:00Z to before 2100-01-01T00:00:00Z"
DURATION_LIMIT_MS = 24 * 3600 * 1000
"""The most a duration in milliseconds may be either way: a real clock holds hours (the
2012 time control gives each player at most about 4 hours), not 10**15 ms."""
DURATION_RANGE = f"|n| <= {DURATION_LIMIT_MS} (24 hours)"


def instant(where: str, value: object) -> int:
    """An ISO-8601 UTC instant, epoch milliseconds once checked, within ``INSTANT_WINDOW``."""
    at_ms = read_instant(where, value)
    if not EARLIEST_MS <= at_ms < LATEST_MS:
        raise MalformedCommand(f"{where} is out of range ({INSTANT_WINDOW}), got {quoted(value)}")
    return at_ms


def duration(where: str, value: object) -> int:
    """An integer number of milliseconds within ``DURATION_RANGE``."""
    ms = integer(where, value)
    if abs(ms) > DURATION_LIMIT_MS:
        raise MalformedCommand(f"{where} is out of range ({DURATION_RANGE}), got {ms}")
    return ms


def identifier(where: str, value: object) -> str:
    """A string or an integer, kept as a string (``"claim": 1`` and ``"1"`` are the same)."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise MalformedCommand(f"{where} must be a string or integer, got {quoted(value)}")
    return str(value)


def unknown_keys(raw: Mapping[str, Any], known: Iterable[str]) -> list[str]:
    """The keys of ``raw`` that are not ``known``, sorted."""
    return sorted(set(raw) - set(known))


def refuse_unknown_keys(where: str, raw: Mapping[str, Any], known: Iterable[str]) -> None:
    """MalformedCommand naming the keys of ``raw`` that are not ``known``, if any."""
    unknown = unknown_keys(raw, known)
    if unknown:
        raise MalformedCommand(f"{where}: unknown field(s) {unknown}")


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
"""The checker of a command field declared with a plain type (``list[...]`` by its origin)."""
