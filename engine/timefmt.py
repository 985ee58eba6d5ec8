"""Instants on the wire: ISO-8601 strings with a zone <-> epoch ms.

The contract writes ``"2013-03-15T14:00:00.000Z"``; events keep ``at_ms``. An
instant must say which zone it is in (``Z`` or an offset such as ``+01:00``): a
time without one (``"2026-12-01 13:17"``) could be local time anywhere, so it is
refused rather than guessed.
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, date, datetime

from engine.errors import MalformedCommand

INSTANT_FORM = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,3})?)?"
    r"(?:[Zz]|[+-][0-9]{2}:[0-9]{2})?"
)
"""The instants read (ISO 8601 extended form, RFC 3339's profile of it): a date, ``T``, the
hours and minutes, optional seconds with at most three fractional digits (milliseconds,
what every event keeps), then ``Z`` or an offset ``+hh:mm``. A space for ``T``, a fourth
fractional digit, a trailing character (a NUL), the basic form (``20130315T140000Z``) or
an offset without its colon are refused, never rounded or guessed."""

QUOTED_CHARS = 40
"""How much of a bad value a refusal quotes (a 1 MB field is not echoed back)."""


def quoted(value: object, limit: int = QUOTED_CHARS) -> str:
    """``repr`` of a bad value for a refusal, cut to a short prefix that says its length."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def parse_instant(text: object, field: str = "at") -> int:
    """Return epoch milliseconds for an ISO-8601 instant with a zone (``Z`` or an offset)."""
    return read_instant(f"field {field!r}", text)


def read_instant(where: str, text: object) -> int:
    """``parse_instant`` with the fault's place in words (``field 'at'``, ``payments[0].on``)."""
    if not isinstance(text, str):
        raise MalformedCommand(f"{where} must be an ISO-8601 UTC string, got {quoted(text)}")
    try:
        at_ms = _instant_ms(text)
        if at_ms is not None and INSTANT_FORM.fullmatch(text) is None:
            raise ValueError(text)
    except ValueError:
        raise MalformedCommand(
            f"{where} is not an ISO-8601 instant: {quoted(text)} "
            '(expected e.g. "2013-03-15T14:00:00.000Z": a "T", at most milliseconds, '
            'then "Z" or an offset such as "+01:00")'
        ) from None
    if at_ms is None:
        raise MalformedCommand(
            f"{where} has no time zone: {quoted(text)}; write the instant in UTC with a "
            '"Z" (e.g. "2013-03-15T14:00:00.000Z") or with an offset ("+01:00")'
        )
    return at_ms


@functools.lru_cache(maxsize=4096)
def _instant_ms(text: str) -> int | None:
    """Epoch ms of an ISO-8601 instant, None when it has no zone; ValueError when it is
    not an instant (the commands of a batch, a second's readings, share theirs)."""
    parsed = datetime.fromisoformat(text.replace("z", "Z"))
    if parsed.tzinfo is None:
        return None
    return round(parsed.timestamp() * 1000)


def format_instant(at_ms: int) -> str:
    """Return the contract's ISO form (UTC, milliseconds, ``Z``) of epoch ms."""
    return _second_text(at_ms // 1000) + f"{at_ms % 1000:03d}Z"


@functools.lru_cache(maxsize=4096)
def _second_text(seconds: int) -> str:
    """``YYYY-MM-DDTHH:MM:SS.`` of a UTC second (many instants of a batch share theirs)."""
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.")


def clock_text(ms: int | None) -> str:
    """A clock's time as ``h:mm:ss`` (with ``.fff`` when there are milliseconds), as a
    PGN ``[%clk]`` comment writes it; ``-`` when it is unknown."""
    if ms is None:
        return "-"
    seconds, millis = divmod(ms, 1000)
    text = f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{text}.{millis:03d}" if millis else text


def parse_day(where: str, value: object) -> date:
    """An ISO date (``2012-10-20``) or instant (its UTC day)."""
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
        at_ms = parse_instant(value, where)
        return datetime.fromtimestamp(at_ms / 1000, tz=UTC).date()
    raise MalformedCommand(f'{where} must be an ISO date such as "2012-10-20", got {quoted(value)}')
