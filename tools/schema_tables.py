"""The JSON Schemas of the query objects and of the gateway's frames (declarative tables).

``tools/reference.py`` writes them to ``docs/schema/`` beside the commands' schema; the
tests check them against real query objects and every frame of the gateway tests.
"""

from __future__ import annotations

from typing import Any

from engine.fields import RESULTS

SCHEMA_ID = "https://candidates.example/schema/"
"""Base of the schemas' ``$id`` (a name, not a place they are fetched from)."""

INSTANT_PATTERN = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}(:[0-9]{2}(:[0-9]{2}([.,][0-9]{1,6})?)?)?)?"
    r"([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)$"
)
"""ISO-8601 instants as the engine reads them: with a time and a zone (none: refused)."""


SIDE = {"enum": ["white", "black"]}
SIDE_OR_NULL = {"enum": ["white", "black", None]}
INSTANT = {"type": "string", "pattern": INSTANT_PATTERN}
SCORE = {"type": ["number", "null"]}
PER_SIDE = {
    "type": "object",
    "required": ["white", "black"],
    "properties": {"white": {"type": "integer"}, "black": {"type": "integer"}},
}

PROBABILITY = {"type": "number", "minimum": 0, "maximum": 1}
COUNT = {"type": "integer", "minimum": 0}
PLAYER_NEEDS: dict[str, Any] = {
    "name": {"type": "string"},
    "outright": COUNT,
    "playoff": COUNT,
    "not_first": COUNT,
    "first_if": {"type": ["string", "null"]},
    "playoff_if": {"type": ["string", "null"]},
    "needs": {"type": "string"},
    "chance": PROBABILITY,
    "chance_outright": PROBABILITY,
    "chance_playoff": PROBABILITY,
}
"""One player's entry of the ``needs`` object (docs/needs.md)."""

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
                    "at": {
                        "type": ["string", "null"],
                        "description": "the instant the values hold: the last change of the "
                        "clock (a move, an adjustment, a penalty, a correction) or the instant "
                        "queried; clients show remaining - (now - at) for the running side",
                    },
                    "flag": {
                        "type": ["object", "null"],
                        "description": "the first flag that fell (Laws 2009 6.9): side, "
                        "fell_at, the result and termination it means, recorded",
                    },
                    "falls": {
                        "type": "array",
                        "items": {"type": "object"},
                        "description": "every fallen flag in order: [{side, fell_at}]",
                    },
                    "device": {
                        "type": ["object", "null"],
                        "description": "the clock on the table as last read (6.10 a): "
                        "white_ms, black_ms, running, read_at, by, open_alerts",
                    },
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
                        "koya": SCORE,
                    },
                },
            },
            "format": {"type": "string"},
            "first_place_level": {"type": "array", "items": {"type": "string"}},
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
    "needs": {
        "title": "needs",
        "description": "What each player needs to finish first, and his chances "
        "(`candidates needs --format json`, `/api/needs`, the `needs` frame; docs/needs.md).",
        "type": "object",
        "required": [
            *("tournament", "after_round", "rounds", "criteria", "games", "method"),
            *("scenarios", "players", "chances"),
        ],
        "properties": {
            "tournament": {"type": "string"},
            "after_round": {"type": "integer", "minimum": 0},
            "rounds": {"type": "integer", "minimum": 1},
            "rules": {"type": "string"},
            "criteria": {"type": "array", "items": {"enum": ["h2h", "wins", "sb", "koya"]}},
            "games": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": [
                        "game",
                        "round",
                        "white",
                        "black",
                        "probabilities",
                        "source",
                    ],
                    "properties": {
                        "game": {"type": "string"},
                        "round": {"type": "integer", "minimum": 1},
                        "white": {"type": "string"},
                        "black": {"type": "string"},
                        "probabilities": {
                            "type": "array",
                            "items": PROBABILITY,
                            "minItems": 3,
                            "maxItems": 3,
                        },
                        "source": {"enum": ["analysis", "ratings"]},
                    },
                },
            },
            "method": {
                "type": "object",
                "required": ["kind", "scenarios", "combinations", "seed"],
                "properties": {
                    "kind": {"enum": ["every combination", "sample"]},
                    "scenarios": {"type": "integer", "minimum": 0},
                    "combinations": {"type": "integer", "minimum": 1},
                    "seed": {"type": ["integer", "null"]},
                },
            },
            "scenarios": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["results", "winner", "playoff"],
                    "properties": {
                        "results": {
                            "type": "object",
                            "additionalProperties": {"enum": ["1-0", "1/2-1/2", "0-1"]},
                        },
                        "winner": {"type": ["string", "null"]},
                        "playoff": {"type": "array", "items": {"type": "string"}},
                        "decided_by": {
                            "enum": ["points", "h2h", "wins", "sb", "koya", "withdrawal", "playoff"]
                        },
                    },
                },
            },
            "scenarios_omitted": {
                "description": "the `needs` frame only: how many scenarios /api/needs lists",
                "type": "integer",
                "minimum": 0,
            },
            "players": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "required": list(PLAYER_NEEDS),
                    "properties": PLAYER_NEEDS,
                },
            },
            "chances": {
                "type": "object",
                "required": ["exact", "simulations", "seed", "draw_rate"],
                "properties": {
                    "exact": {"type": "boolean"},
                    "simulations": {"type": "integer", "minimum": 0},
                    "seed": {"type": "integer"},
                    "draw_rate": PROBABILITY,
                },
            },
            "decided": {"type": ["string", "null"]},
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
            "needs": {
                "description": "true: the `needs` frames too (what each player needs to "
                "finish first; docs/needs.md)",
                "type": "boolean",
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
            "not_resumed": {
                "description": "with a since that does not resume: why a snapshot follows",
                "enum": ["public", "position_unknown", "too_old"],
            },
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
            "seq": {
                "description": "a refusal's position of the log: decided on the state after "
                "that event",
                "type": "integer",
                "minimum": 0,
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
                            "kind": {"enum": ["mistake", "blunder"]},
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
    "needs": {
        "description": "what each player needs to finish first and his chances (docs/needs.md): "
        "a tournament's needs object, at start and whenever its standings change; the "
        "scenarios listed when at most 729 (else `scenarios_omitted`; /api/needs lists all)",
        "type": "object",
        "required": ["op", "tournament", "needs"],
        "properties": {
            "op": {"const": "needs"},
            "seq": {"type": ["integer", "null"]},
            "tournament": {"type": "string"},
            "needs": {
                "anyOf": [
                    {"$ref": "queries.schema.json#/$defs/needs"},
                    {"type": "null"},
                ]
            },
        },
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
    "needs",
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
        "title": "The query objects: game, standings, crosstable, pairings, needs",
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
