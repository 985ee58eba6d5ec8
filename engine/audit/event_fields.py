"""Is a stored event well formed: every field its class declares, each of its type?

A store or a log edited by hand (or written by a broken writer) can hold an
event whose fields do not match its class: a field missing, one too many, a
``time_control`` of ``7``, a ``white_ms`` of ``"lots"``. Folding such an event
would fail far from it; the audit asks this module first and names the event.
"""

from __future__ import annotations

import types
import typing
from dataclasses import MISSING, fields
from enum import Enum
from typing import Any

from engine.events import Event

FRAME = ("originator_id", "originator_version", "at_ms")


_HINTS: dict[str, dict[str, Any]] = {}


def _hints(cls: type[Event]) -> dict[str, Any]:
    """The resolved annotations of an event class (read once per class)."""
    key = f"{cls.__module__}.{cls.__qualname__}"
    if key not in _HINTS:
        _HINTS[key] = typing.get_type_hints(cls)
    return _HINTS[key]


def _fits(value: object, hint: Any) -> bool:
    """Does ``value`` (as msgpack gives it back) fit the annotation ``hint``?"""
    if hint is Any or hint is object:
        return True
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, arm) for arm in typing.get_args(hint))
    if hint is None or hint is type(None):
        return value is None
    if origin in (tuple, list):
        if not isinstance(value, tuple | list):
            return False
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_fits(v, args[0]) for v in value)
        return len(args) == len(value) and all(
            _fits(v, a) for v, a in zip(value, args, strict=True)
        )
    if origin is dict:
        key, item = typing.get_args(hint) or (Any, Any)
        return isinstance(value, dict) and all(
            _fits(k, key) and _fits(v, item) for k, v in value.items()
        )
    if typing.is_typeddict(hint):
        return _fits_entry(value, hint)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return value in {m.value for m in hint}
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True  # an annotation this check does not read is not held against the event


def _fits_entry(value: object, hint: Any) -> bool:
    """Does ``value`` fit a declared entry (a ``TypedDict``: a player of ``TournamentCreated``):
    a map with every key it requires, each it declares of its type (a key it does not
    declare is not held against it, as a map's was not before its entries were declared)."""
    if not isinstance(value, dict):
        return False
    declared = typing.get_type_hints(hint)
    required: frozenset[str] = hint.__required_keys__
    return required <= value.keys() and all(
        _fits(item, declared[key]) for key, item in value.items() if key in declared
    )


def field_problems(event: Event) -> list[str]:
    """What is wrong with the event's fields (empty when it is well formed)."""
    cls = type(event)
    present = vars(event)
    declared = {f.name: f for f in fields(cls)}
    problems = [f"no field {name!r} in {cls.__name__}" for name in present if name not in declared]
    hints = _hints(cls)
    for name, spec in declared.items():
        if name not in present:
            if spec.default is MISSING and spec.default_factory is MISSING:
                problems.append(f"field {name!r} is missing")
            continue
        value = present[name]
        if not _fits(value, hints.get(name, Any)):
            problems.append(f"field {name!r} is {value!r}, not {_describe(hints.get(name))}")
    return problems


def _describe(hint: Any) -> str:
    text = getattr(hint, "__name__", None) or str(hint)
    return text.replace("typing.", "")
