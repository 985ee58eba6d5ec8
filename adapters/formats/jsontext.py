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

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted (a command needs 3)."""

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
    try:
        value = json.loads(text, **options)
    except json.JSONDecodeError as exc:
        raise TextError(f"not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise TextError("JSON nested too deeply") from None
    check_unicode(value)
    return value
