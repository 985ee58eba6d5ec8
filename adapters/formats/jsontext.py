"""JSON text from outside (a command line, a frame, a file), read defensively.

``json.loads`` recurses once per nesting level (``'[' * 100000`` ends in a
``RecursionError``) and accepts ``"\\ud800"``, a lone surrogate that no encoder
can write back (SQLite, msgpack and stdout all raise on it). ``loads`` measures
the nesting before parsing, and refuses a decoded text that is not Unicode, with
a message that says which.
"""

from __future__ import annotations

import json
import re
from typing import Any

from engine.timefmt import quoted

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted (a command needs 3)."""
MAX_NUMBER_DIGITS = 32
"""Longest number accepted, in characters (sign, digits, point and exponent): a field's
integer is at most 2**53 - 1 (16 digits), and a 5,000-digit one is refused here, before
Python converts it (which it refuses beyond 4,300 digits, with a ``ValueError``)."""

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class TextError(ValueError):
    """The text is not acceptable JSON: the message says why, for a person."""


def depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` outside strings (linear, no recursion)."""
    deepest = level = 0
    for bracket in _BRACKETS.findall(_STRING.sub("", text)):
        if bracket in "[{":
            level += 1
            deepest = max(deepest, level)
        else:
            level -= 1
    return deepest


def check_unicode(value: Any, where: str = "") -> None:
    """TextError if a string (key or value) holds a lone surrogate."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise TextError(
                    f"{where}text that is not Unicode (a lone surrogate such as \\ud800)"
                )
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, list | tuple):
            todo.extend(item)


def unique_keys(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """An object's members as a dict; TextError if a key appears twice (RFC 8259 4: the
    names "SHOULD be unique"; which value a reader keeps is unpredictable, so a command
    saying ``"cmd"`` twice is refused, not run as its last one)."""
    found: dict[Any, Any] = {}
    for key, value in pairs:
        if key in found:
            raise TextError(f"the key {quoted(key)} appears twice in one object")
        found[key] = value
    return found


class NumberTooLong(TextError):
    """A number longer than ``MAX_NUMBER_DIGITS`` characters."""


def _bounded(convert: Any) -> Any:
    """``convert`` (``int``, ``float``, ``Decimal``) of a JSON number, refused first when
    the number is longer than ``MAX_NUMBER_DIGITS`` characters."""

    def read(literal: str) -> Any:
        if len(literal) > MAX_NUMBER_DIGITS:
            raise NumberTooLong(
                f"a number of {len(literal)} characters; at most {MAX_NUMBER_DIGITS} are read"
            )
        return convert(literal)

    return read


def loads(text: str | bytes, max_depth: int = MAX_DEPTH, **options: Any) -> Any:
    """Parse JSON text (bytes: UTF-8, with or without a byte order mark); TextError
    for undecodable bytes, nesting beyond ``max_depth``, text that is not JSON, or
    strings that are not Unicode. ``options`` go to ``json.loads``."""
    if isinstance(text, bytes):
        if text.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise TextError(
                "UTF-16 text (it starts with a UTF-16 byte order mark); save it as UTF-8"
            )
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise TextError(f"not UTF-8 (byte {exc.start + 1})") from None
    text = text.removeprefix("\ufeff")
    if _SURROGATE.search(text):
        raise TextError("text that is not Unicode (a lone surrogate)")
    found = depth(text)
    if found > max_depth:
        raise TextError(f"JSON nested {found} levels deep; at most {max_depth}")
    options.setdefault("object_pairs_hook", unique_keys)
    options["parse_int"] = _bounded(options.get("parse_int", int))
    options["parse_float"] = _bounded(options.get("parse_float", float))
    try:
        value = json.loads(text, **options)
    except json.JSONDecodeError as exc:
        raise TextError(f"not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise TextError("JSON nested too deeply") from None
    except NumberTooLong as exc:
        raise TextError(str(exc)) from None
    except TextError as exc:  # a duplicate key (``unique_keys``)
        raise TextError(f"not a JSON object of unique keys: {exc}") from None
    except ValueError as exc:  # a number the converter given refuses
        raise TextError(f"not JSON ({exc})") from None
    check_unicode(value)
    return value
