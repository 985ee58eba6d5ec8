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
of ``docs/commands.md`` to a store so prepared and checks the answer printed), and
the schemas of the query objects and gateway frames (``QUERY_SCHEMAS``,
``FRAME_SCHEMAS``), which the tests check against real objects and every frame of
the gateway tests.
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
from tools.examples import EXAMPLES, SETTINGS, Example

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_ID = "https://candidates.example/schema/"
"""Base of the schemas' ``$id`` (a name, not a place they are fetched from)."""

INSTANT_PATTERN = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}(:[0-9]{2}(:[0-9]{2}([.,][0-9]{1,6})?)?)?)?"
    r"([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)$"
)
"""ISO-8601 instants as the engine reads them: with a time and a zone (none: refused)."""

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
    ``notes``, else ``engine.commands.COMMON_NOTES``)."""
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


# -- query objects and frames --------------------------------------------------------------------

SIDE = {"enum": ["white", "black"]}
SIDE_OR_NULL = {"enum": ["white", "black", None]}
INSTANT = {"type": "string", "pattern": INSTANT_PATTERN}
SCORE = {"type": ["number", "null"]}
PER_SIDE = {
    "type": "object",
    "required": ["white", "black"],
    "properties": {"white": {"type": "integer"}, "black": {"type": "integer"}},
}

QUERY_SCHEMAS: dict[str, dict[str, Any]] = {
    "game": {
        "title": "game",
        "description": "One game: players, moves, position, status, clock and claims "
        "(`candidates game ID --format json`, the gateway's game objects).",
        "type": "object",
        "required": ["game", "white", "black", "moves", "fen", "ply", "status", "result"],
        "properties": {
            "game": {"type": "string"},
            "round": {"type": ["integer", "null"]},
            "board": {"type": ["integer", "null"]},
            "white": {"type": "string"},
            "black": {"type": "string"},
            "time_control": {"type": ["string", "null"]},
            "moves": {"type": "array", "items": {"type": "string"}},
            "uci": {"type": "array", "items": {"type": "string"}},
            "fen": {"type": "string"},
            "ply": {"type": "integer", "minimum": 0},
            "status": {"enum": ["not_started", "in_progress", "finished"]},
            "result": {"enum": list(RESULTS)},
            "termination": {"type": ["string", "null"]},
            "clock": {
                "type": ["object", "null"],
                "properties": {
                    "white_ms": {"type": ["integer", "null"]},
                    "black_ms": {"type": ["integer", "null"]},
                    "running": SIDE_OR_NULL,
                    "at": {"type": ["string", "null"]},
                },
            },
            "claims": {"type": "array", "items": {"type": "object"}},
            "incorrect_claims": PER_SIDE,
            "illegal_moves": PER_SIDE,
        },
    },
    "standings": {
        "title": "standings",
        "description": "The standings after a round: points, tie-breaks (3.7), winner or "
        "leader, playoffs, prizes (`candidates standings --format json`).",
        "type": "object",
        "required": ["tournament", "after_round", "rounds", "final", "rows", "playoff"],
        "properties": {
            "tournament": {"type": "string"},
            "after_round": {"type": "integer", "minimum": 0},
            "rounds": {"type": "integer", "minimum": 0},
            "final": {"type": "boolean"},
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["rank", "player", "name", "points", "games"],
                    "properties": {
                        "rank": {"type": "integer", "minimum": 1},
                        "player": {"type": "string"},
                        "name": {"type": "string"},
                        "points": {"type": "number"},
                        "games": {"type": "integer"},
                        "wins": {"type": "integer"},
                        "h2h": SCORE,
                        "sb": SCORE,
                    },
                },
            },
            "winner": {"type": ["object", "null"]},
            "leader": {"type": ["object", "null"]},
            "playoff": {"type": "object", "required": ["needed"]},
            "playoffs": {"type": "array"},
            "shared_places": {"type": "array"},
            "prizes": {"type": "array"},
            "withdrawn": {"type": "array"},
        },
    },
    "crosstable": {
        "title": "crosstable",
        "description": "Every result against every opponent, players in drawn-number order "
        "until there are results, then by rank (`candidates crosstable --format json`).",
        "type": "object",
        "required": ["tournament", "after_round", "players"],
        "properties": {
            "tournament": {"type": "string"},
            "after_round": {"type": "integer"},
            "players": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["player", "name", "points", "results"],
                    "properties": {
                        "player": {"type": "string"},
                        "name": {"type": "string"},
                        "number": {"type": ["integer", "null"]},
                        "rank": {"type": ["integer", "null"]},
                        "points": {"type": ["number", "null"]},
                        "results": {"type": "object"},
                    },
                },
            },
        },
    },
    "pairings": {
        "title": "pairings",
        "description": "Each round's boards with colours, players and results so far "
        "(`candidates pairings --format json`).",
        "type": "object",
        "required": ["tournament", "name", "numbers_drawn", "rounds"],
        "properties": {
            "tournament": {"type": "string"},
            "name": {"type": "string"},
            "numbers_drawn": {"type": "boolean"},
            "rounds": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["round", "boards"],
                    "properties": {
                        "round": {"type": "integer", "minimum": 1},
                        "date": {"type": ["string", "null"]},
                        "boards": {
                            "type": "array",
                            "items": {"$ref": "#/$defs/board"},
                        },
                        "bye": {"anyOf": [{"$ref": "#/$defs/entrant"}, {"type": "null"}]},
                    },
                },
            },
        },
    },
    "board": {
        "title": "board",
        "description": "One board of a round's pairings.",
        "type": "object",
        "required": ["game", "board", "white", "black", "result", "status"],
        "properties": {
            "game": {"type": "string"},
            "board": {"type": "integer", "minimum": 1},
            "white": {"$ref": "#/$defs/entrant"},
            "black": {"$ref": "#/$defs/entrant"},
            "result": {"type": ["string", "null"]},
            "status": {"enum": ["not_started", "in_progress", "finished", "not_played"]},
        },
    },
    "entrant": {
        "title": "entrant",
        "type": "object",
        "required": ["player", "name", "number", "federation", "rating"],
        "properties": {
            "player": {"type": "string"},
            "name": {"type": "string"},
            "number": {"type": "integer", "minimum": 1},
            "federation": {"type": "string"},
            "rating": {"type": "number"},
        },
    },
}

ANY_OBJECT = {"type": "object"}

FRAME_SCHEMAS: dict[str, dict[str, Any]] = {
    # client -> server
    "subscribe": {
        "type": "object",
        "required": ["op"],
        "properties": {
            "op": {"const": "subscribe"},
            "games": {"anyOf": [{"const": "*"}, {"type": "array", "items": {"type": "string"}}]},
            "since": {"type": ["integer", "null"]},
            "token": {"type": ["string", "null"]},
            "tournament": {
                "description": "one tournament of the store, or `*` for all (the default)",
                "type": "string",
            },
        },
        "additionalProperties": False,
    },
    "command": {
        "type": "object",
        "required": ["op", "id", "command"],
        "properties": {
            "op": {"const": "command"},
            "id": {"type": "string"},
            "command": {
                "description": "a command of the contract (commands.schema.json); the engine "
                "decides it and answers with a result frame",
                "type": "object",
                "required": ["cmd"],
            },
        },
        "additionalProperties": False,
    },
    "ping": {
        "type": "object",
        "required": ["op"],
        "properties": {"op": {"const": "ping"}, "id": {"type": ["string", "null"]}},
        "additionalProperties": False,
    },
    # server -> client
    "subscribed": {
        "type": "object",
        "required": ["op", "seq", "role", "games", "delay_ms", "resumed"],
        "properties": {
            "op": {"const": "subscribed"},
            "seq": {"type": "integer", "minimum": 0},
            "role": {"enum": ["arbiter", "commentator", "public"]},
            "name": {"type": ["string", "null"]},
            "games": {"anyOf": [{"const": "*"}, {"type": "array", "items": {"type": "string"}}]},
            "delay_ms": {"type": "integer", "minimum": 0},
            "since": {"type": ["integer", "null"]},
            "resumed": {"type": "boolean"},
            "tournament": {"type": "string"},
            "tournaments": {"type": "array", "items": ANY_OBJECT},
        },
    },
    "snapshot": {
        "type": "object",
        "required": ["op", "seq", "games", "standings", "now", "delay_ms"],
        "properties": {
            "op": {"const": "snapshot"},
            "seq": {"type": "integer", "minimum": 0},
            "games": {"type": "array", "items": {"$ref": "queries.schema.json#/$defs/game"}},
            "standings": {
                "anyOf": [{"$ref": "queries.schema.json#/$defs/standings"}, {"type": "null"}]
            },
            "now": INSTANT,
            "delay_ms": {"type": "integer", "minimum": 0},
        },
    },
    "delta": {
        "type": "object",
        "required": ["op", "seq", "kind", "game", "event"],
        "properties": {
            "op": {"const": "delta"},
            "seq": {"type": "integer", "minimum": 1},
            "kind": {"type": "string"},
            "game": {"type": ["string", "null"]},
            "event": {
                "type": "object",
                "required": ["type", "stream", "version", "at"],
                "properties": {
                    "type": {"type": "string"},
                    "stream": {"type": "string"},
                    "version": {"type": "integer"},
                    "at": INSTANT,
                },
            },
            "object": {"$ref": "queries.schema.json#/$defs/game"},
            "games": {"type": "array", "items": {"$ref": "queries.schema.json#/$defs/game"}},
            "standings": {"$ref": "queries.schema.json#/$defs/standings"},
        },
    },
    "alert": {
        "description": "an alert for the arbiters; later versions of the gateway may add "
        "fields (an alert that is closed, for instance)",
        "type": "object",
        "required": ["op", "kind"],
        "properties": {
            "op": {"const": "alert"},
            "seq": {"type": ["integer", "null"]},
            "kind": {"type": "string"},
            "game": {"type": ["string", "null"]},
            "tournament": {
                "description": "the alert's tournament, when it is not the store's first",
                "type": "string",
            },
            "key": {
                "description": "what the alert is about: `<game>/...`, `<tournament>/<game>/...` "
                "for a further tournament's game",
                "type": "string",
            },
            "closed": {"type": "boolean"},
            "message": {"type": "string"},
            "details": {"type": ["object", "null"]},
            "claim": ANY_OBJECT,
        },
    },
    "result": {
        "type": "object",
        "required": ["op", "id", "ok"],
        "properties": {
            "op": {"const": "result"},
            "id": {"type": ["string", "null"]},
            "ok": {"type": "boolean"},
            "events": {"type": "array", "items": ANY_OBJECT},
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            },
        },
        "oneOf": [
            {"properties": {"ok": {"const": True}}, "required": ["events"]},
            {"properties": {"ok": {"const": False}}, "required": ["error"]},
        ],
    },
    "error": {
        "type": "object",
        "required": ["op", "code", "message"],
        "properties": {
            "op": {"const": "error"},
            "code": {
                "type": "string",
                "description": "malformed_frame, unknown_op, invalid_token, forbidden, ...",
            },
            "message": {"type": "string"},
            "id": {},
        },
    },
    "incidents": {
        "description": "arbiters: a tournament's incident book (who is out of the playing "
        "area, with whom; every incident and ruling), after a snapshot or a resume and when "
        "it changes; one frame per subscribed tournament",
        "type": "object",
        "required": ["op", "tournament", "book"],
        "properties": {
            "op": {"const": "incidents"},
            "seq": {"type": ["integer", "null"]},
            "tournament": {"description": "the book's tournament", "type": "string"},
            "book": {"type": "object"},
        },
    },
    "pong": {
        "type": "object",
        "required": ["op"],
        "properties": {"op": {"const": "pong"}, "id": {}},
    },
}
CLIENT_OPS = ("subscribe", "command", "ping")
SERVER_OPS = ("subscribed", "snapshot", "delta", "alert", "incidents", "result", "error", "pong")


def _by_op(ops: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["op"],
        "properties": {"op": {"enum": list(ops)}},
        "allOf": [
            {
                "if": {"properties": {"op": {"const": op}}, "required": ["op"]},
                "then": {"$ref": f"#/$defs/{op}"},
            }
            for op in ops
        ],
    }


def queries_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID + "queries.schema.json",
        "title": "The query objects: game, standings, crosstable, pairings",
        "$defs": QUERY_SCHEMAS,
    }


def frames_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID + "frames.schema.json",
        "title": "The gateway's frames (docs/protocol.md)",
        "description": "`#/$defs/client`: a frame a client sends; `#/$defs/server`: a frame "
        "the gateway sends (one frame, or an array of frames sent in one tick).",
        "$defs": {
            "client": _by_op(CLIENT_OPS),
            "server": _by_op(SERVER_OPS),
            **FRAME_SCHEMAS,
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
        'appended) or `{"ok": false, "error": {"code": ..., "message": ...}}` (nothing',
        "appended). Codes are stable; messages are for people and name the article.",
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
