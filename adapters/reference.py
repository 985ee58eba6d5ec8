"""The command reference and the JSON Schemas, generated from the engine's declarations.

``docs/commands.md`` and ``docs/schema/*.schema.json`` are written by ``make
docs`` (``python -m adapters.reference``) from ``engine.commands.REGISTRY``:
each command's fields and types (its dataclass), who may send it, the events
it appends and the ways it is refused (its ``@command`` declaration). A test
(``tests/test_reference.py``) fails when the files differ from what this
module generates now, so the reference cannot fall behind the engine.

What the registry cannot say is written here: a sentence per field name, one
example per command (checked against ``parse_command`` by the tests; a command
without one gets an example made from its field types), and the schemas of the
query objects and gateway frames (``QUERY_SCHEMAS``, ``FRAME_SCHEMAS``), which
the tests check against real objects and every frame of the gateway tests.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from engine import dispatch, fields
from engine.commands import REGISTRY, CommandSpec, FieldSpec
from engine.fields import INT_LIMIT, RESULTS

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_ID = "https://candidates.example/schema/"
"""Base of the schemas' ``$id`` (a name, not a place they are fetched from)."""

INSTANT_PATTERN = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}(:[0-9]{2}(:[0-9]{2}([.,][0-9]{1,6})?)?)?)?"
    r"([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)?$"
)
"""ISO-8601 instants as the engine reads them (no zone: UTC)."""

ROLE_WORDS = {
    "chief": "the Chief Arbiter",
    "deputy": "a Deputy Arbiter",
    "advisor": "the Technical Advisor",
}

FIELD_NOTES: dict[str, str] = {
    "tournament": "the tournament's id (as given to `create_tournament`)",
    "game": "the game's id: `<round>.<board>` for a paired game (`1.1`), a playoff game's id, "
    "or any id with `white` and `black`",
    "games": "game ids",
    "at": "the instant it happened, ISO-8601 UTC (`2013-03-15T14:00:00.000Z`)",
    "by": "who sent it (a player, an arbiter, `dgt:<serial>` ...); for the record",
    "arbiter": "the id of the arbiter who rules (an arbiter of `create_tournament`)",
    "advisor": "the id of the Technical Advisor",
    "name": "the tournament's name",
    "rules": "the rules profile: `candidates-2012` (default) or `fide-2023`",
    "start_date": "day 1 of the schedule (3.2), an ISO date",
    "cycles": "1 (single) or 2 (double round robin, 3.1)",
    "players": "`[{id, name, federation, rating}]`: the entrants",
    "arbiters": "`[{id, name, role}]`, role `chief`, `deputy` or `advisor`",
    "seed": "the seed of a reproducible drawing of lots",
    "numbers": "`{player: n}`: numbers drawn elsewhere, each of 1..N once",
    "check_federations": "refuse given numbers that break the federation rule (3.1)",
    "white": "the White player's id",
    "black": "the Black player's id",
    "white_ms": "White's clock display, milliseconds",
    "black_ms": "Black's clock display, milliseconds",
    "time_control": "the time control (`40/7200:20/3600:900+30`); default the profile's",
    "fen": "a starting position other than the initial one",
    "stage": "`tournament`, `rapid`, `blitz` or `sudden_death`; default the pairing's",
    "move": "the move, SAN (`Nf3`) or UCI (`g1f3`)",
    "result": "`1-0`, `0-1`, `1/2-1/2` (or `*`, refused where a result is due)",
    "reason": "why, in words, for the record",
    "termination": "how the game ended, in words (`time forfeit`, `default` ...)",
    "running": "the side whose clock runs, or null for none",
    "ply": "the ply the reading belongs to",
    "tolerance_ms": "the difference from the regulation clock that raises an alert",
    "side": "`white` or `black`",
    "delta_ms": "milliseconds added (positive) or taken (negative)",
    "kind": "`threefold_repetition`, `fifty_moves`, `perpetual_check`, `stalemate`, "
    "`insufficient_material` or `theoretical_draw`",
    "intended_move": "the move written but not played (9.2 a, 9.3 a)",
    "claim": "the claim's id (numbered 1, 2 ... in the game)",
    "opinion": "`draw` or `not_draw`",
    "decision": "`accepted` or `rejected`",
    "player": "a player's id",
    "place": "the place in dispute (1 = first)",
    "lot_winner": "the player who won the lot of a sudden-death game",
    "colour": "`white` or `black`",
    "flag": "the side whose flag the device shows fallen",
    "from_ply": "the moves after this ply are replaced (0: from the first move)",
    "moves": "the moves that replace them, SAN or UCI, in order",
    "order": "the table's rounds in the order they are played (`[1, 2, 3, 4, 5, 7, 6, ...]`)",
    "board": "the board's serial number",
    "message": "the alert in words, for the arbiters",
    "details": "what the board saw (free-form)",
    "raise_alert.kind": "the alert's kind (`board_disconnected`, `clock_mismatch` ...)",
    "record_score_sheet.round": "the round the game belongs to (a playoff game: its stage's)",
    "record_score_sheet.board": "the board it was played on, in its round",
    "record_score_sheet.moves": "every move of the sheet, SAN or UCI, in order",
    "record_score_sheet.result": "`1-0`, `0-1`, `1/2-1/2`, or `*` for a game not finished",
    "record_score_sheet.at": "when the game started, ISO-8601 UTC",
    "record_score_sheet.move_at_ms": "when each move was completed (epoch ms), if known",
    "record_score_sheet.clocks_ms": "the mover's clock after each ply (ms, null where the sheet "
    "has none), e.g. PGN `[%clk]`: each is recorded as a clock reading and, without "
    "`move_at_ms`, gives the move instants",
    "record_score_sheet.initial_fen": "a starting position other than the initial one",
    "record_score_sheet.rules": "the rules profile of a game outside a tournament: "
    "`candidates-2012` (default) or `fide-2023`; a tournament's game follows its rules",
}
"""A sentence per wire field; ``command.field`` where a field means something else there."""

EXAMPLES: dict[str, dict[str, Any]] = {
    "create_tournament": {
        "cmd": "create_tournament",
        "tournament": "london-2013",
        "name": "FIDE Candidates Tournament 2013",
        "start_date": "2013-03-15",
        "players": [
            {"id": "carlsen", "name": "Carlsen, Magnus", "federation": "NOR", "rating": 2872},
            {"id": "kramnik", "name": "Kramnik, Vladimir", "federation": "RUS", "rating": 2810},
        ],
        "arbiters": [
            {"id": "chief", "name": "Chief Arbiter", "role": "chief"},
            {"id": "advisor", "name": "Technical Advisor", "role": "advisor"},
        ],
    },
    "draw_lots": {"cmd": "draw_lots", "tournament": "london-2013", "seed": "london-2013"},
    "start_game": {"cmd": "start_game", "game": "1.1", "at": "2013-03-15T14:00:00Z"},
    "play_move": {
        "cmd": "play_move",
        "game": "1.1",
        "move": "e4",
        "at": "2013-03-15T14:00:31Z",
        "white_ms": 7169000,
        "black_ms": 7200000,
    },
    "resign": {"cmd": "resign", "game": "1.1", "by": "black", "at": "2013-03-15T18:02:00Z"},
    "declare_result": {
        "cmd": "declare_result",
        "game": "1.1",
        "result": "1-0",
        "reason": "black did not appear within the default time",
        "arbiter": "chief",
        "at": "2013-03-15T15:00:00Z",
        "termination": "default",
    },
    "clock_reading": {
        "cmd": "clock_reading",
        "game": "1.1",
        "at": "2013-03-15T14:10:00Z",
        "white_ms": 6800000,
        "black_ms": 6950000,
        "running": "white",
    },
    "claim_draw": {
        "cmd": "claim_draw",
        "game": "1.1",
        "by": "white",
        "kind": "threefold_repetition",
        "at": "2013-03-15T17:30:00Z",
    },
    "advise_claim": {
        "cmd": "advise_claim",
        "game": "1.1",
        "claim": 1,
        "opinion": "draw",
        "advisor": "advisor",
        "at": "2013-03-15T17:40:00Z",
    },
    "rule_claim": {
        "cmd": "rule_claim",
        "game": "1.1",
        "claim": 1,
        "decision": "accepted",
        "arbiter": "chief",
        "at": "2013-03-15T17:35:00Z",
    },
    "offer_draw": {"cmd": "offer_draw", "game": "1.1", "by": "white"},
    "agree_draw": {"cmd": "agree_draw", "game": "1.1", "by": "black"},
    "record_illegal_move": {
        "cmd": "record_illegal_move",
        "game": "1.1",
        "by": "black",
        "arbiter": "chief",
        "at": "2013-03-15T15:12:00Z",
    },
    "adjust_clock": {
        "cmd": "adjust_clock",
        "game": "1.1",
        "side": "white",
        "delta_ms": 120000,
        "reason": "Laws 7.4 b: two minutes for black's illegal move",
        "arbiter": "chief",
        "at": "2013-03-15T15:12:05Z",
    },
    "check_flags": {"cmd": "check_flags", "at": "2013-03-15T20:00:00Z"},
    "withdraw": {
        "cmd": "withdraw",
        "tournament": "london-2013",
        "player": "kramnik",
        "reason": "illness",
        "arbiter": "chief",
        "at": "2013-03-20T12:00:00Z",
    },
    "start_playoff": {
        "cmd": "start_playoff",
        "tournament": "london-2013",
        "arbiter": "chief",
        "at": "2013-04-02T10:00:00Z",
        "seed": "playoff-1",
    },
    "advance_playoff": {
        "cmd": "advance_playoff",
        "tournament": "london-2013",
        "arbiter": "chief",
        "at": "2013-04-02T13:00:00Z",
        "seed": "blitz-1",
    },
    "choose_colour": {
        "cmd": "choose_colour",
        "tournament": "london-2013",
        "game": "P1-SD1",
        "colour": "white",
        "arbiter": "chief",
        "at": "2013-04-02T15:00:00Z",
    },
    "correct_moves": {
        "cmd": "correct_moves",
        "game": "1.1",
        "arbiter": "chief",
        "reason": "the board read Nf3 for Nd2; the score sheets agree on Nd2",
        "at": "2013-03-15T15:20:00Z",
        "from_ply": 23,
        "moves": ["Nd2", "Nf6"],
    },
    "correct_result": {
        "cmd": "correct_result",
        "game": "1.1",
        "arbiter": "chief",
        "reason": "entered as 1-0; both score sheets say 0-1",
        "at": "2013-03-15T19:05:00Z",
        "result": "0-1",
    },
    "reorder_rounds": {
        "cmd": "reorder_rounds",
        "tournament": "london-2013",
        "order": [1, 2, 3, 4, 5, 7, 6, 8, 9, 10, 11, 12, 13, 14],
        "reason": "the organisers played the table's round 7 as round 6 (3.2)",
    },
    "record_score_sheet": {
        "cmd": "record_score_sheet",
        "game": "1.1",
        "round": 1,
        "board": 1,
        "white": "carlsen",
        "black": "aronian",
        "result": "1/2-1/2",
        "moves": ["e4", "e5", "Nf3", "Nc6"],
        "at": "2013-03-15T14:00:00Z",
        "time_control": "40/7200:20/3600:900+30",
    },
    "raise_alert": {
        "cmd": "raise_alert",
        "board": "13001",
        "kind": "board_disconnected",
        "message": "board 13001 stopped answering",
        "at": "2013-03-15T14:20:00Z",
        "by": "dgt:13001",
    },
    "rule_flag": {
        "cmd": "rule_flag",
        "game": "1.1",
        "side": "white",
        "arbiter": "chief",
        "at": "2013-03-15T18:00:00Z",
        "decision": "fallen",
    },
}


# -- field types -------------------------------------------------------------------------------

TYPE_NAMES = {
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
}


def field_note(command: str, f: FieldSpec) -> str:
    """What the field means: the command's own note, else the field name's."""
    return FIELD_NOTES.get(f"{command}.{f.wire}", FIELD_NOTES.get(f.wire, ""))


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
    else:
        schema = {}
    note = field_note(command, f)
    if note:
        schema["description"] = note.replace("`", "")
    if f.nullable or not f.required:  # null: absent for an optional field, "none" for a nullable
        schema = {"anyOf": [schema, {"type": "null"}]} if "enum" in schema else _or_null(schema)
    return schema


def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if kind is None:
        return schema
    kinds = kind if isinstance(kind, list) else [kind]
    return {**schema, "type": [*kinds, "null"]}


def command_schema(spec: CommandSpec) -> dict[str, Any]:
    return {
        "title": spec.name,
        "description": spec.summary,
        "type": "object",
        "properties": {
            "cmd": {"const": spec.name},
            **{f.wire: field_schema(spec.name, f) for f in spec.fields},
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
            "opening": {
                "description": "the named opening reached latest along the moves (the Lichess "
                "openings table, docs/analysis.md); null before one is reached",
                "anyOf": [
                    {
                        "type": "object",
                        "required": ["eco", "name", "ply"],
                        "properties": {
                            "eco": {"type": "string"},
                            "name": {"type": "string"},
                            "ply": {"type": "integer", "minimum": 1},
                        },
                    },
                    {"type": "null"},
                ],
            },
            "time_use": {
                "description": "`/api/games/{id}` only: per move, the time the mover spent and "
                "the clock left (docs/analysis.md)",
                "type": "object",
                "required": ["controls_at_moves", "moves"],
                "properties": {
                    "controls_at_moves": {"type": "array", "items": {"type": "integer"}},
                    "moves": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["ply", "side", "san", "at", "spent_ms", "left_ms"],
                            "properties": {
                                "ply": {"type": "integer", "minimum": 1},
                                "side": {"enum": ["white", "black"]},
                                "san": {"type": "string"},
                                "at": {"type": ["string", "null"]},
                                "spent_ms": {"type": ["integer", "null"]},
                                "left_ms": {"type": ["integer", "null"]},
                            },
                        },
                    },
                },
            },
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
    "analysis": {
        "description": "the engine's evaluation of one position of a game (docs/analysis.md): "
        "commentators at once, the public after the delay, arbiters only when configured",
        "type": "object",
        "required": ["op", "game", "ply", "fen", "score", "wdl", "pv", "depth"],
        "properties": {
            "op": {"const": "analysis"},
            "game": {"type": "string"},
            "tournament": {"type": "string"},
            "ply": {"type": "integer", "minimum": 0},
            "fen": {"type": "string"},
            "at": {"type": ["string", "null"]},
            "score": {
                "type": "object",
                "description": "White's point of view: `cp` centipawns, or `mate` in moves "
                "(negative: Black mates); the other null",
                "required": ["cp", "mate"],
                "properties": {
                    "cp": {"type": ["integer", "null"]},
                    "mate": {"type": ["integer", "null"]},
                },
            },
            "eval": {"type": "string", "description": "as PGN's `[%eval]` writes it"},
            "wdl": {
                "type": "array",
                "description": "White's win, draw and loss chances, per mille",
                "items": {"type": "integer", "minimum": 0, "maximum": 1000},
                "minItems": 3,
                "maxItems": 3,
            },
            "pv": {"type": "array", "items": {"type": "string"}},
            "pv_uci": {"type": "array", "items": {"type": "string"}},
            "depth": {"type": "integer", "minimum": 0},
            "nodes": {"type": "integer", "minimum": 0},
            "swing": {
                "anyOf": [
                    {
                        "type": "object",
                        "required": ["kind", "side", "drop"],
                        "properties": {
                            "kind": {"enum": ["inaccuracy", "mistake", "blunder"]},
                            "side": {"enum": ["white", "black"]},
                            "drop": {"type": "number"},
                        },
                    },
                    {"type": "null"},
                ]
            },
        },
    },
    "pong": {
        "type": "object",
        "required": ["op"],
        "properties": {"op": {"const": "pong"}, "id": {}},
    },
}
CLIENT_OPS = ("subscribe", "command", "ping")
SERVER_OPS = (
    "subscribed",
    "snapshot",
    "delta",
    "alert",
    "incidents",
    "analysis",
    "result",
    "error",
    "pong",
)


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
    """The declared example, else one made from the required fields' types."""
    if spec.name in EXAMPLES:
        return EXAMPLES[spec.name]
    made: dict[str, Any] = {"cmd": spec.name}
    sample = {
        fields.integer: 0,
        fields.whole: 0,
        fields.number: 0,
        fields.boolean: False,
        fields.mapping: {},
        fields.array: [],
        fields.side: "white",
        fields.result: "1-0",
        fields.instant: "2013-03-15T14:00:00Z",
        fields.identifier: 1,
    }
    for f in spec.fields:
        if f.required:
            made[f.wire] = sample.get(f.check, "1.1" if f.wire == "game" else "chief")
    return made


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
        lines.append("- **Time order**: refused when dated before the game's last event.")
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
    lines += ["", "Refused (nothing is appended):", ""]
    lines += ["| code | article | when |", "| --- | --- | --- |"]
    for r in spec.all_refusals():
        article = r.article or "-"
        lines.append(f"| `{r.code}` | {article} | {_cell(r.when)} |")
    lines += ["", "Example:", "", "    " + json.dumps(example(spec), ensure_ascii=False), ""]
    return "\n".join(lines)


def commands_markdown() -> str:
    names = sorted(REGISTRY)
    lines = [
        "# Command reference",
        "",
        "<!-- Generated by `make docs` (python -m adapters.reference) from the engine's",
        "     command declarations; do not edit by hand. -->",
        "",
        'Every change to the tournament is a command: one JSON object `{"cmd": NAME, ...}`,',
        "sent with `candidates apply FILE.jsonl` (one a line), over the gateway's arbiters'",
        'channel (`{"op": "command", "id": ..., "command": {...}}`, docs/protocol.md) or from',
        'Python (`Store.handle`). The answer is `{"ok": true, "events": [...]}` (the events',
        'appended) or `{"ok": false, "error": {"code": ..., "message": ...}}` (nothing',
        "appended). Codes are stable; messages are for people and name the article.",
        "",
        "Types: *instant* is an ISO-8601 UTC string (`2013-03-15T14:00:00.000Z`; without a",
        "zone it is read as UTC); *result* is `1-0`, `0-1`, `1/2-1/2` or `*`; a *string*",
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
