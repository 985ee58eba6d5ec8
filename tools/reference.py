"""The command reference and the JSON Schemas, generated from the engine's declarations.

``docs/commands.md`` and ``docs/schema/*.schema.json`` are written by ``make
docs`` (``python -m tools.reference``) from ``engine.commands.REGISTRY``:
each command's fields and types (its dataclass), who may send it, the events
it appends and the ways it is refused (its ``@command`` declaration). A test
(``tests/test_reference.py``) fails when the files differ from what this
module generates now, so the reference cannot fall behind the engine.

Each field's meaning is declared with its command (``engine.commands``), each
refusal with the error class it raises. What the registry cannot say is written
here: one example per command with the store it is sent to and its answer
(``tools/examples.py``; ``tests/test_reference_examples.py`` applies every example
of ``docs/commands.md`` to a store so prepared and checks the answer printed).

The schemas of the query objects and of the gateway's frames are generated from their
types (``msgspec.json.schema_components``): each query object is a TypedDict of the
projection that builds it, each frame one of ``adapters.gateway.frames`` (the
``analysis`` frame: ``projections.evaluation``), their constraints (ranges, patterns,
enumerations, descriptions) declared on the types.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import msgspec

from adapters.formats.jsontext import MAX_NUMBER_DIGITS
from adapters.gateway.frames import CLIENT_FRAMES, SERVER_FRAMES
from engine import dispatch, fields
from engine.arbiter.penalties import PENALTIES, penalty_form
from engine.commands import (
    COMMON_NOTES,
    REGISTRY,
    TIME_ORDER_REFUSAL,
    CommandSpec,
    FieldSpec,
)
from engine.fields import INT_LIMIT, RESULTS, Checker
from engine.tournament import event_window
from projections.game_view import GameObject
from projections.needs import Needs
from projections.pairings import Board, Entrant, Pairings
from projections.shapes import INSTANT_PATTERN
from projections.standings import Crosstable, Standings
from tools.examples import EXAMPLES, SETTINGS, Example

ROOT = Path(__file__).resolve().parents[1]

SCHEMA_ID = "https://candidates.example/schema/"
"""Base of the schemas' ``$id`` (a name, not a place they are fetched from)."""

QUERY_OBJECTS: dict[str, object] = {
    "game": GameObject,
    "standings": Standings,
    "crosstable": Crosstable,
    "pairings": Pairings,
    "needs": Needs,
    "board": Board,
    "entrant": Entrant,
}
"""The query objects of the contract by their name in ``queries.schema.json``."""


ROLE_WORDS = {
    "chief": "the Chief Arbiter",
    "deputy": "a Deputy Arbiter",
    "advisor": "the Technical Advisor",
}


# -- field types -------------------------------------------------------------------------------

TYPE_NAMES: dict[Checker, str] = {
    fields.text: "string",
    fields.words: "string",
    fields.string: "string",
    fields.integer: "integer",
    fields.whole: "integer",
    fields.duration: "integer (ms)",
    fields.number: "number",
    fields.boolean: "boolean",
    fields.mapping: "object",
    fields.array: "list",
    fields.side: "side (`white`, `black`)",
    fields.result: "result",
    fields.instant: "instant",
    fields.identifier: "string or integer",
    penalty_form: "penalty (a name, or an object with `kind`)",
}


def field_note(command: str, f: FieldSpec) -> str:
    """What the field means in ``command``: declared with the command (``@command``'s
    ``notes``, else ``engine.commands.COMMON_NOTES``), with the range its checker holds
    it to (instants, durations in milliseconds)."""
    if f.check is fields.instant:
        return f"{f.note} ({fields.INSTANT_WINDOW})"
    if f.check is fields.duration:
        return f"{f.note} ({fields.DURATION_RANGE})"
    return f.note


def field_schema(command: str, f: FieldSpec) -> dict[str, Any]:
    """The JSON Schema of one wire field, as ``parse_command`` checks it."""
    check = f.check
    schema: dict[str, Any]
    if check in (fields.text, fields.words):
        schema = {"type": "string", "minLength": 1, "maxLength": fields.MAX_TEXT_CHARS}
    elif check is fields.string:
        schema = {"type": "string", "maxLength": fields.MAX_TEXT_CHARS}
    elif check in (fields.integer, fields.whole):
        schema = {"type": "integer", "minimum": -INT_LIMIT, "maximum": INT_LIMIT}
    elif check is fields.duration:
        limit = fields.DURATION_LIMIT_MS
        schema = {"type": "integer", "minimum": -limit, "maximum": limit}
    elif check is fields.number:
        schema = {"type": "number"}
    elif check is fields.boolean:
        schema = {"type": "boolean"}
    elif check is fields.mapping:
        schema = {"type": "object"}
    elif check is fields.array:
        schema = {"type": "array"}
    elif check is fields.side:
        schema = {"enum": ["white", "black"]}
    elif check is fields.result:
        schema = {"enum": list(RESULTS)}
    elif check is fields.instant:
        schema = {"type": "string", "pattern": INSTANT_PATTERN}
    elif check is fields.identifier:
        schema = {"type": ["string", "integer"]}
    elif check is penalty_form:
        kinds = {"enum": list(PENALTIES)}
        schema = {
            "anyOf": [
                kinds,
                {"type": "object", "required": ["kind"], "properties": {"kind": kinds}},
            ]
        }
    else:
        schema = {}
    note = field_note(command, f)
    if note:
        schema["description"] = note.replace("`", "")
    if f.nullable or not f.required:  # null: absent for an optional field, "none" for a nullable
        if "anyOf" in schema:
            schema = {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
        elif "enum" in schema:
            schema = {"anyOf": [schema, {"type": "null"}]}
        else:
            schema = _or_null(schema)
    return schema


def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if kind is None:
        return schema
    kinds = kind if isinstance(kind, list) else [kind]
    return {**schema, "type": [*kinds, "null"]}


COMMAND_ID_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": 200,
    "pattern": "^[^\\x00-\\x1f\\x7f]+$",
    "description": COMMON_NOTES["command_id"].replace("`", ""),
}
"""``command_id``: any command may carry it (the store keeps it, ``Store.handle``)."""


def command_schema(spec: CommandSpec) -> dict[str, Any]:
    return {
        "title": spec.name,
        "description": spec.summary,
        "type": "object",
        "properties": {
            "cmd": {"const": spec.name},
            **{f.wire: field_schema(spec.name, f) for f in spec.fields},
            "command_id": COMMAND_ID_SCHEMA,
        },
        "required": ["cmd", *(f.wire for f in spec.fields if f.required)],
        "additionalProperties": False,
    }


def commands_schema() -> dict[str, Any]:
    """One schema for every command: ``cmd`` picks the command's own schema."""
    names = sorted(REGISTRY)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID + "commands.schema.json",
        "title": "A command of the contract",
        "description": "Generated from the engine's command declarations (make docs).",
        "type": "object",
        "required": ["cmd"],
        "properties": {"cmd": {"enum": names}},
        "allOf": [
            {
                "if": {"properties": {"cmd": {"const": name}}, "required": ["cmd"]},
                "then": {"$ref": f"#/$defs/{name}"},
            }
            for name in names
        ],
        "$defs": {name: command_schema(REGISTRY[name]) for name in names},
    }


# -- the query objects and the frames, from their types ----------------------------------------

Schema = dict[str, Any]
"""A JSON Schema as ``json`` writes it (an open map: any keyword of the standard)."""


def def_name(component: str) -> str:
    """A nested type's name under ``$defs``: its class name in snake case."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", component.rsplit(".", 1)[-1]).lower()


def _refs(schema: object) -> list[str]:
    """The components a schema refers to, in order."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        own = [ref.rpartition("/")[2]] if isinstance(ref, str) else []
        return own + [r for v in schema.values() for r in _refs(v)]
    if isinstance(schema, list):
        return [r for v in schema for r in _refs(v)]
    return []


def _renamed(schema: object, where: dict[str, str]) -> Any:
    """``schema`` with each reference to a component pointed at its ``$defs`` entry
    (``where``: component -> reference)."""
    if isinstance(schema, dict):
        out = {k: _renamed(v, where) for k, v in schema.items()}
        ref = out.get("$ref")
        if isinstance(ref, str):
            out["$ref"] = where[ref.rpartition("/")[2]]
        return out
    if isinstance(schema, list):
        return [_renamed(v, where) for v in schema]
    return schema


def _reachable(start: list[str], components: dict[str, Schema]) -> list[str]:
    seen: list[str] = []
    todo = list(start)
    while todo:
        name = todo.pop(0)
        if name not in seen:
            seen.append(name)
            todo.extend(_refs(components[name]))
    return seen


def contract_defs() -> tuple[dict[str, Schema], dict[str, Schema]]:
    """The ``$defs`` of ``queries.schema.json`` and of ``frames.schema.json``, generated
    from the types: each query object and frame under its name, the types they are made
    of under their own (``def_name``), in the file of the query objects when a query
    object holds them; a frame refers to those as ``queries.schema.json#/$defs/...``."""
    frames = {**CLIENT_FRAMES, **SERVER_FRAMES}
    tops, components = msgspec.json.schema_components(
        [*QUERY_OBJECTS.values(), *frames.values()],
        ref_template="#/$defs/{name}",
        schema_hook=_any_value,
    )
    query_tops = dict(zip(QUERY_OBJECTS, tops[: len(QUERY_OBJECTS)], strict=True))
    frame_tops = dict(zip(frames, tops[len(QUERY_OBJECTS) :], strict=True))

    def component(top: Schema) -> str:
        return str(top["$ref"]).rpartition("/")[2]

    query_of = {component(top): (name, top) for name, top in query_tops.items()}
    frame_of = {component(top): (name, top) for name, top in frame_tops.items()}
    in_queries = _reachable(list(query_of), components)
    in_frames = [c for c in _reachable(list(frame_of), components) if c not in in_queries]
    named = {**query_of, **frame_of}

    def name_of(c: str) -> str:
        return named[c][0] if c in named else def_name(c)

    local = {c: f"#/$defs/{name_of(c)}" for c in components}
    remote = {c: f"queries.schema.json#/$defs/{name_of(c)}" for c in in_queries}

    def entry(c: str, where: dict[str, str]) -> Schema:
        extra = {k: v for k, v in named[c][1].items() if k != "$ref"} if c in named else {}
        body = {**components[c], **extra, "title": name_of(c)}
        if isinstance(body.get("description"), str):  # a docstring's ``code`` as Markdown's
            body["description"] = " ".join(body["description"].replace("``", "`").split())
        return dict(_renamed(body, where))

    def order(names: list[str], tops: dict[str, Schema]) -> list[str]:
        """The objects in their declared order, then what they are made of by name."""
        own = [c for t in tops.values() for c in [component(t)] if c in names]
        return own + sorted((c for c in names if c not in own), key=name_of)

    queries = {name_of(c): entry(c, local) for c in order(in_queries, query_tops)}
    framed = {name_of(c): entry(c, {**local, **remote}) for c in order(in_frames, frame_tops)}
    return queries, framed


def _any_value(kind: type) -> Schema:
    """``object``, the value of an open map (an event's own fields, a claim's evidence):
    any JSON value."""
    if kind is object:
        return {"description": "any JSON value"}
    raise TypeError(f"no JSON Schema for {kind!r}")


def _by_op(ops: list[str]) -> Schema:
    return {
        "type": "object",
        "required": ["op"],
        "properties": {"op": {"enum": ops}},
        "allOf": [
            {
                "if": {"properties": {"op": {"const": op}}, "required": ["op"]},
                "then": {"$ref": f"#/$defs/{op}"},
            }
            for op in ops
        ],
    }


def queries_schema() -> Schema:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID + "queries.schema.json",
        "title": "The query objects: game, standings, crosstable, pairings, needs",
        "$defs": contract_defs()[0],
    }


def frames_schema() -> Schema:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID + "frames.schema.json",
        "title": "The gateway's frames (docs/protocol.md)",
        "description": "`#/$defs/client`: a frame a client sends; `#/$defs/server`: a frame "
        "the gateway sends (one frame, or an array of frames sent in one tick).",
        "$defs": {
            "client": _by_op(list(CLIENT_FRAMES)),
            "server": _by_op(list(SERVER_FRAMES)),
            **contract_defs()[1],
        },
    }


def schemas() -> dict[str, dict[str, Any]]:
    """File name under ``docs/schema/`` -> schema."""
    return {
        "commands.schema.json": commands_schema(),
        "queries.schema.json": queries_schema(),
        "frames.schema.json": frames_schema(),
    }


# -- the command reference -----------------------------------------------------------------------


def example(spec: CommandSpec) -> dict[str, Any]:
    """The command's example (``tools/examples.py``)."""
    return EXAMPLES[spec.name].command


def answer_text(shown: Example) -> str:
    """The answer an example gets, as the reference prints it (and the tests read it)."""
    if shown.refused:
        return f"refused, `{shown.refused}` (nothing appended)."
    return "`ok`, appending " + ", ".join(f"`{e}`" for e in shown.events) + "."


def example_text(spec: CommandSpec) -> list[str]:
    shown = EXAMPLES[spec.name]
    given = SETTINGS[shown.setting].words
    return [
        f"Example, given {given}:",
        "",
        "    " + json.dumps(shown.command, ensure_ascii=False),
        "",
        f"Answer: {answer_text(shown)}",
        "",
    ]


def _type_text(f: FieldSpec) -> str:
    name = TYPE_NAMES.get(f.check, "value")
    return f"{name} or null" if f.nullable else name


def _who(spec: CommandSpec) -> str:
    if not spec.roles:
        return "anyone with access to the store or the arbiters' channel"
    return ", ".join(ROLE_WORDS.get(r, r) for r in spec.roles) + " (the `arbiter` field)"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def command_section(spec: CommandSpec) -> str:
    lines = [f"## `{spec.name}`", "", spec.summary, ""]
    lines.append(f"- **Sent by**: {_who(spec)}.")
    events = ", ".join(f"`{e.__name__}`" for e in spec.events) or "none (always refused)"
    lines.append(f"- **Appends**: {events}.")
    if spec.in_time_order:
        lines.append(
            f"- **Time order**: refused (`{TIME_ORDER_REFUSAL.code}`) when dated before the "
            "game's last event."
        )
    lines += ["", "| field | type | required | meaning |", "| --- | --- | --- | --- |"]
    lines.append(f"| `cmd` | string | yes | `{spec.name}` |")
    for f in spec.fields:
        if f.required:
            required = "yes"
        elif f.default is None:
            required = "no"
        else:
            required = f"no (default `{json.dumps(f.default)}`)"
        note = field_note(spec.name, f)
        lines.append(f"| `{f.wire}` | {_cell(_type_text(f))} | {required} | {_cell(note)} |")
    lines.append(f"| `command_id` | string | no | {_cell(COMMON_NOTES['command_id'])} |")
    lines += ["", "Refused (nothing is appended):", ""]
    lines += ["| code | article | when |", "| --- | --- | --- |"]
    for r in spec.all_refusals():
        article = r.article or "-"
        lines.append(f"| `{r.code}` | {article} | {_cell(r.when)} |")
    lines += ["", *example_text(spec)]
    return "\n".join(lines)


def commands_markdown() -> str:
    names = sorted(REGISTRY)
    lines = [
        "# Command reference",
        "",
        "<!-- Generated by `make docs` (python -m tools.reference) from the engine's",
        "     command declarations; do not edit by hand. -->",
        "",
        'Every change to the tournament is a command: one JSON object `{"cmd": NAME, ...}`,',
        "sent with `candidates apply FILE.jsonl` (one a line), over the gateway's arbiters'",
        'channel (`{"op": "command", "id": ..., "command": {...}}`, docs/protocol.md) or from',
        'Python (`Store.handle`). The answer is `{"ok": true, "events": [...]}` (the events',
        'appended) or `{"ok": false, "error": {"code": ..., "message": ...}, "seq": n}` (nothing',
        "appended). Codes are stable; messages are for people and name the article. A",
        "refusal's `seq` is the position of the log it was decided at (the state after that",
        'event, still the current one when it was answered: docs/architecture.md, "One log,',
        'many processes"); the same command decided on the log up to there is refused alike.',
        "A command refused before it could be read (not JSON, not a command) has none.",
        "",
        "Types: *instant* is an ISO-8601 string with its zone (`2013-03-15T14:00:00.000Z`,",
        "or an offset such as `+01:00`; an instant without a zone is refused as",
        "`malformed_command`), in the extended form with a `T`, and at most milliseconds",
        "(`.123`): a space for the `T`, a fourth fractional digit, a trailing character",
        "(a NUL), the basic form (`20130315T140000Z`) or an offset without its colon is",
        "refused, never rounded; *result* is `1-0`, `0-1`, `1/2-1/2` or `*`; a *string*",
        "field is not empty; an *integer* is at most 2^53 - 1 in size. An optional field",
        "given as `null` counts as absent; a field the command does not have is refused.",
        "The JSON Schema of every command is `docs/schema/commands.schema.json`; the query",
        "objects are in `docs/schema/queries.schema.json`, the gateway's frames in",
        "`docs/schema/frames.schema.json`.",
        "",
        f"Instants: every instant lies {fields.INSTANT_WINDOW} (year 1, 1900 or",
        "1970 are typos, not games). Where there is an event the window is its own:",
        f"{event_window.RULE}. A command dated outside its window is refused as",
        "`malformed_command` and appends nothing. The future tolerance is",
        "`--future-tolerance` (README); a score sheet that gives no day",
        "(`record_score_sheet` with `date_known` false) is not judged by the event's window.",
        "",
        "Limits: a string anywhere in a command (a `reason`, a `message`, a value inside",
        f"`details`) is at most {fields.MAX_TEXT_CHARS:,} characters (4 KB); an object or list",
        f"field (`details`, `players`, `moves`) holds at most {fields.MAX_FIELD_CHARS // 1024} K",
        "(the characters of its strings, plus 8 for each other value: a 300-move game's",
        "moves, instants and clocks take about 12 K); a number in JSON text is at most",
        f"{MAX_NUMBER_DIGITS} characters (a 5,000-digit one is refused before it is read); a",
        "line of `candidates apply` is at most 1 MiB (a longer one is refused by its",
        "number and the next lines still run). Each is `malformed_command`, names the",
        "field and its length without echoing it, and appends nothing.",
        "",
        "| command | what | sent by |",
        "| --- | --- | --- |",
    ]
    for name in names:
        spec = REGISTRY[name]
        who = ", ".join(spec.roles) if spec.roles else "anyone"
        lines.append(f"| [`{name}`](#{name}) | {_cell(spec.summary)} | {who} |")
    lines.append("")
    lines += [command_section(REGISTRY[name]) for name in names]
    return "\n".join(lines).rstrip("\n") + "\n"


def generated_files() -> dict[Path, str]:
    """Path (relative to the repository) -> the text it must hold."""
    out = {Path("docs/commands.md"): commands_markdown()}
    for name, schema in schemas().items():
        out[Path("docs/schema") / name] = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the generated files (``--check``: only say which differ, exit 1 if any)."""
    args = sys.argv[1:] if argv is None else argv
    check = "--check" in args
    assert dispatch.COMMAND_MODULES  # every chapter imported: the registry is complete
    stale = []
    for rel, text in generated_files().items():
        path = ROOT / rel
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(str(rel))
        if not check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    verb = "out of date" if check else "written"
    print(f"{verb}: {', '.join(stale)}" if stale else "docs are up to date")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
