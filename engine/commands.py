"""The command vocabulary of the contract (DESIGN.md): typed, declared once.

One JSON object per command, ``{"cmd": NAME, ...}``, serves the CLI, the arbiter
channel and the Python API alike. Each command is one ``@command`` dataclass in the
chapter of the rulebook that decides it: ``parse_command`` checks its form only
(fields present and typed, instants parsed), and its ``decide`` says whether it is
allowed; the reference (docs/commands.md, docs/schema/) is generated from these
declarations. How to declare one is in docs/architecture.md, "Declaring a command"."""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from engine import fields
from engine.errors import (
    CommandIdReused,
    CommandRefused,
    MalformedCommand,
    NotAnArbiter,
    OutOfOrder,
    UnknownTournament,
)
from engine.events import Event
from engine.fields import Checker
from engine.timefmt import format_instant

WIRE_NAMES = {"at_ms": "at"}
"""Attribute -> wire name, where they differ: instants are ``at`` on the wire, ``at_ms`` inside."""


@dataclass(frozen=True, kw_only=True)
class Command(ABC):
    """A command of the contract whose form has been checked (base of every command)."""

    cmd: ClassVar[str] = ""
    """The command's name, as the wire's ``"cmd"`` field gives it."""

    tournament: str | None = None
    """The tournament of the store the command is for (its ``create_tournament`` id).
    Every command has it: optional, defaulting to the store's only tournament (a store
    holding several refuses a command without it). Commands that name the tournament
    in their decision (``create_tournament``, ``draw_lots``, ``withdraw``...) redeclare
    it required."""

    @abstractmethod
    def decide(self, world: Any) -> list[Event]:
        """The events this command appends, read from ``world`` (an ``engine.world.World``);
        raises ``CommandRefused``. Every command declares it (``@command`` checks)."""

    def to_wire(self) -> dict[str, Any]:
        """The command's JSON form, as ``parse_command`` reads it (an optional field left
        out when absent or at its default, as a client that does not give it sends it)."""
        spec = REGISTRY[self.cmd]
        raw: dict[str, Any] = {"cmd": self.cmd}
        for f in spec.fields:
            value = getattr(self, f.attribute)
            if not f.required and (value is None or _at_default(value, f.default)):
                continue
            if f.check is fields.instant and value is not None:
                value = format_instant(value)
            raw[f.wire] = str(value) if isinstance(value, str) else value
        return raw


def _at_default(value: object, default: object) -> bool:
    """Whether an optional field holds its declared default (of the same type: 0 is not
    ``False``)."""
    return type(value) is type(default) and value == default


@dataclass(frozen=True)
class FieldSpec:
    """One wire field of a command."""

    attribute: str
    wire: str
    check: Checker
    required: bool
    nullable: bool
    """Required but may be ``null`` (``clock_reading.running``: no clock running)."""
    default: object = None
    note: str = ""
    """What the field means in this command (its declaration's ``notes``, else
    ``COMMON_NOTES``)."""

    @functools.cached_property
    def where(self) -> str:
        """The field as a refusal names it (``field 'at'``)."""
        return f"field {self.wire!r}"


@dataclass(frozen=True)
class Refusal:
    """One way a command is refused: the error class raised (its ``code`` is what the
    answer carries), the article (or "") and when."""

    error: type[CommandRefused]
    article: str
    when: str

    @property
    def code(self) -> str:
        return self.error.code


def refusal_codes() -> set[str]:
    """Every ``code`` an error of ``engine.errors`` carries."""
    found: set[str] = set()
    pending: list[type[CommandRefused]] = [CommandRefused]
    while pending:
        cls = pending.pop()
        found.add(cls.code)
        pending.extend(cls.__subclasses__())
    return found


COMMON_NOTES: dict[str, str] = {
    "tournament": "the tournament's id (as given to `create_tournament`); may be left out "
    "when the store holds one tournament",
    "game": "the game's id: `<round>.<board>` for a paired game (`1.1`), a playoff game's id, "
    "or any id with `white` and `black`",
    "at": "the instant it happened, ISO-8601 with its zone (`2013-03-15T14:00:00.000Z`)",
    "arbiter": "the id of the arbiter who rules (an arbiter of `create_tournament`)",
    "command_id": "a client-chosen id, unique in the store: a command sent again with it is "
    "answered as before and appends nothing",
}
"""Notes of the fields that mean the same in every command that has them; a command
whose field of that name means something else declares its own note."""

COMMON_REFUSALS = (
    Refusal(MalformedCommand, "", "a field is missing, unknown, of the wrong type or out of range"),
    Refusal(
        UnknownTournament,
        "",
        "no tournament of that id in the store, or none named where it holds several",
    ),
    Refusal(CommandIdReused, "", "its `command_id` was applied to another command"),
)
"""Refusals of every command (the form ``parse_command`` checks; the tournament it is
for; the store's command ids)."""

TIME_ORDER_REFUSAL = Refusal(OutOfOrder, "", "it is dated before the game's last recorded event")
"""The refusal of a time-ordered command (``in_time_order``): what
``engine.game.state.require_in_time_order`` raises."""

ROLE_NAMES = {
    "chief": "the Chief Arbiter",
    "deputy": "a Deputy",
    "advisor": "the Technical Advisor",
}


ROLE_ARTICLE = "Laws 2009 13.1"
"""What an arbiter-only command cites when someone else sends it: 13.1, the arbiter sees
that the Laws are observed (13.4: his penalties). A command on draw claims declares its
own refusal citing 3.9.2 b, which is about draw claims only."""


def role_refusal(roles: tuple[str, ...]) -> Refusal:
    """The refusal of a command sent by an arbiter not in its ``roles`` (Laws 2009 13.1)."""
    names = " or ".join(ROLE_NAMES.get(role, role) for role in roles)
    return Refusal(NotAnArbiter, ROLE_ARTICLE, f"the arbiter is not {names}")


@dataclass(frozen=True)
class CommandSpec:
    """The declaration of one command: what a command reference is generated from."""

    name: str
    cls: type[Command]
    fields: tuple[FieldSpec, ...]
    summary: str
    roles: tuple[str, ...]
    """Arbiter roles that may send it (``chief``, ``deputy``, ``advisor``); () for anyone."""
    events: tuple[type[Event], ...]
    """The events its decision may append (none: it is only ever refused)."""
    in_time_order: bool
    """On one game, refused when dated before the game's last recorded event."""
    refusals: tuple[Refusal, ...] = ()
    """How its decision refuses it (code, article, when), as declared with it."""

    def all_refusals(self) -> tuple[Refusal, ...]:
        """Every refusal of the command: the common ones, the refusal of an arbiter not in
        its roles (unless it declares its own), then its own."""
        common = (*COMMON_REFUSALS, *((TIME_ORDER_REFUSAL,) if self.in_time_order else ()))
        if self.roles and not any(r.code == "not_an_arbiter" for r in self.refusals):
            common += (role_refusal(self.roles),)
        return common + self.refusals

    def field(self, wire: str) -> FieldSpec | None:
        return next((f for f in self.fields if f.wire == wire), None)

    @functools.cached_property
    def wires(self) -> frozenset[str]:
        """Every key a command of this kind may carry (``cmd`` and its fields' names)."""
        return frozenset({"cmd", *(f.wire for f in self.fields)})

    @functools.cached_property
    def reading(self) -> tuple[tuple[str, str, Checker, str, bool, bool], ...]:
        """What ``parse_command`` reads of each field: (wire name, attribute, check, the
        field as a refusal names it, required, nullable), worked out once."""
        return tuple(
            (f.wire, f.attribute, f.check, f.where, f.required, f.nullable) for f in self.fields
        )


REGISTRY: dict[str, CommandSpec] = {}
"""Command name -> declaration; filled by ``@command`` as the chapters are imported
(``engine.dispatch`` imports them all)."""

C = TypeVar("C", bound=type[Command])
K = TypeVar("K", bound=Command)


def _checker_and_nullable(annotation: object) -> tuple[Checker, bool]:
    """The checker a field's type asks for, and whether the type admits ``None``."""
    nullable = False
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        nullable = len(args) < len(typing.get_args(annotation))
        if len(args) != 1:
            raise TypeError(f"a command field has one type (or None), got {annotation!r}")
        annotation = args[0]
    if typing.get_origin(annotation) is typing.Annotated:
        check: Checker = typing.get_args(annotation)[1]
        return check, nullable
    base = typing.get_origin(annotation) or annotation
    if base not in fields.BY_TYPE:
        raise TypeError(f"no field checker for type {annotation!r} (see engine.fields)")
    return fields.BY_TYPE[base], nullable


def _field_specs(name: str, cls: type[Command], notes: dict[str, str]) -> tuple[FieldSpec, ...]:
    hints = typing.get_type_hints(cls, include_extras=True)
    specs = []
    for f in dataclasses.fields(cls):
        check, nullable = _checker_and_nullable(hints[f.name])
        has_default = f.default is not dataclasses.MISSING
        wire = WIRE_NAMES.get(f.name, f.name)
        note = notes.get(wire) or COMMON_NOTES.get(wire)
        if not note:
            raise TypeError(f"{name}: field {wire!r} has no note (declare it in notes=)")
        if check is fields.integer and wire.endswith("_ms"):  # a duration, by its unit
            check = fields.duration
        specs.append(
            FieldSpec(
                attribute=f.name,
                wire=wire,
                check=check,
                required=not has_default,
                nullable=nullable and not has_default,
                default=f.default if has_default else None,
                note=note,
            )
        )
    unknown = sorted(set(notes) - {f.wire for f in specs})
    if unknown:
        raise TypeError(f"{name}: notes for fields it does not have: {unknown}")
    return tuple(specs)


def command(
    name: str,
    *,
    summary: str,
    roles: tuple[str, ...] = (),
    events: tuple[type[Event], ...] = (),
    in_time_order: bool = False,
    refusals: tuple[tuple[type[CommandRefused], str, str], ...] = (),
    notes: dict[str, str] | None = None,
) -> Callable[[C], C]:
    """Declare a command of the contract (see the module docstring)."""
    declared = tuple(Refusal(error, article, when) for error, article, when in refusals)
    wrong = [
        r.error
        for r in declared
        if not (isinstance(r.error, type) and issubclass(r.error, CommandRefused))
    ]
    if wrong:
        raise TypeError(f"{name}: refusals are declared with errors of engine.errors: {wrong}")

    def register(cls: C) -> C:
        if name in REGISTRY:
            raise TypeError(f"command {name!r} is declared twice")
        params = getattr(cls, "__dataclass_params__", None)
        if params is None or not params.frozen or "__dataclass_fields__" not in vars(cls):
            raise TypeError(f"{cls.__name__}: a command is a frozen dataclass")
        if cls.decide is Command.decide:
            raise TypeError(f"{cls.__name__}: a command declares its decision (decide)")
        specs = _field_specs(name, cls, notes or {})
        if in_time_order:
            by_name = {f.attribute: f for f in specs}
            game, at = by_name.get("game"), by_name.get("at_ms")
            if game is None or not game.required or at is None or not at.required:
                raise TypeError(f"{name}: a time-ordered command has required 'game' and 'at_ms'")
        cls.cmd = name
        REGISTRY[name] = CommandSpec(
            name=name,
            cls=cls,
            fields=specs,
            summary=summary,
            roles=roles,
            events=events,
            in_time_order=in_time_order,
            refusals=declared,
        )
        return cls

    return register


def as_command(raw: object) -> Command:
    """``raw`` itself when it is a command already, else ``parse_command(raw)``."""
    # ``Command`` is abstract: asking a dict whether it is one costs more than the dict test
    if isinstance(raw, dict) or not isinstance(raw, Command):
        return parse_command(raw)
    return raw


def checked(cmd: K) -> K:
    """``cmd`` with its fields checked as ``parse_command`` checks a client's (a command
    built in-process from values read from outside, a file's names and ratings): the same
    command, or MalformedCommand naming the field."""
    again = parse_command(cmd.to_wire())
    if not isinstance(again, type(cmd)):  # pragma: no cover - a command reads back as itself
        raise TypeError(f"{cmd.cmd} does not read back as {type(cmd).__name__}")
    return again


def parse_command(raw: object) -> Command:
    """Check a decoded JSON object against the contract and return the typed command."""
    if not isinstance(raw, dict):
        raise MalformedCommand(f"a command must be a JSON object, got {type(raw).__name__}")
    name = raw.get("cmd")
    if not isinstance(name, str):
        raise MalformedCommand("a command needs a string field 'cmd'")
    spec = REGISTRY.get(name)
    if spec is None:
        known = ", ".join(sorted(REGISTRY))
        raise MalformedCommand(f"unknown command {name!r}; known commands: {known}")
    if not spec.wires.issuperset(raw):
        unknown = sorted(set(raw) - spec.wires)
        raise MalformedCommand(f"{name}: unknown field(s) {', '.join(map(repr, unknown))}")
    values: dict[str, Any] = {}
    for wire, attribute, check, where, required, nullable in spec.reading:
        value = raw.get(wire, _ABSENT)
        if value is _ABSENT:
            if required:
                raise MalformedCommand(f"{name}: missing field {wire!r}")
            continue
        if value is None and (nullable or not required):
            if nullable:
                values[attribute] = None  # given, and null: e.g. no clock running
            continue  # an optional null counts as absent
        fields.within_bounds(where, value)
        values[attribute] = check(where, value)
    return spec.cls(**values)


_ABSENT = object()
"""A field the command does not carry (``None`` is ``null``, which it may carry)."""
