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
of ``docs/commands.md`` to a store so prepared and checks the answer printed); the
schemas of the query objects and gateway frames are tables of
``tools/schema_tables.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

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
from tools.examples import EXAMPLES, SETTINGS, Example
from tools.schema_tables import INSTANT_PATTERN, SCHEMA_ID, frames_schema, queries_schema

ROOT = Path(__file__).resolve().parents[1]


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
        schema = {"type": "string", "minLength": 1}
    elif check is fields.string:
        schema = {"type": "string"}
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
        "`malformed_command`); *result* is `1-0`, `0-1`, `1/2-1/2` or `*`; a *string*",
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
