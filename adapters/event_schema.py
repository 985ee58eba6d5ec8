"""Whether a recorded event's fields have the types its class declares.

A replay log or a stored row is data from outside the process: a field that
should be an int may hold a string (``white_ms: "lots"``), a time control may
be a number. ``field_problems`` names each such field against the annotations
of the event class (``int``, ``str``, ``bool``, ``X | None``, ``tuple[X, ...]``,
``dict[str, X]``, ``Any``); arrays are read as tuples, since msgpack gives
either back.
"""

from __future__ import annotations

import types
import typing
from dataclasses import fields as dataclass_fields
from functools import cache
from typing import Any

from engine.events import Event

FRAME = ("originator_id", "originator_version")


@cache
def declared_types(cls: type[Event]) -> dict[str, Any]:
    """Field name -> type of every field of the event class (stream and version apart)."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclass_fields(cls) if f.name not in FRAME}


def fits(value: object, expected: Any) -> bool:
    """Whether ``value`` (as msgpack decodes it) is of the declared type."""
    if expected is Any:
        return True
    origin = typing.get_origin(expected)
    if origin in (typing.Union, types.UnionType):
        return any(fits(value, option) for option in typing.get_args(expected))
    if expected is type(None):
        return value is None
    if expected is bool:
        return isinstance(value, bool)
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if expected is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if expected is str:
        return isinstance(value, str)
    if origin is tuple:
        if not isinstance(value, tuple | list):
            return False
        args = typing.get_args(expected)
        if len(args) == 2 and args[1] is Ellipsis:
            return all(fits(item, args[0]) for item in value)
        return len(value) == len(args) and all(
            fits(item, arg) for item, arg in zip(value, args, strict=True)
        )
    if origin is dict:
        if not isinstance(value, dict):
            return False
        key_type, value_type = typing.get_args(expected) or (Any, Any)
        return all(fits(k, key_type) and fits(v, value_type) for k, v in value.items())
    if isinstance(expected, type):
        return isinstance(value, expected)
    return True  # an annotation this checker does not know: not judged


def field_problems(cls: type[Event], values: dict[str, Any]) -> list[str]:
    """One sentence per field whose value is not of its declared type."""
    declared = declared_types(cls)
    problems = []
    for name, value in values.items():
        expected = declared.get(name)
        if expected is not None and not fits(value, expected):
            shown = repr(value)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            problems.append(f"{cls.__name__}.{name} must be {_name(expected)}, got {shown}")
    return problems


def _name(expected: Any) -> str:
    return expected.__name__ if isinstance(expected, type) else str(expected).replace("typing.", "")
