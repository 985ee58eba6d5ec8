"""The command vocabulary of the contract (DESIGN.md), validated.

One JSON object per command, ``{"cmd": NAME, ...}``; the same form serves the
CLI (``candidates apply``), the arbiter channel and the Python API. This
module checks the form only (fields present, of the right type, instants
parsed to epoch ms); whether the command is allowed is decided by the
aggregates. A field spec ending in ``?`` is optional.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import MalformedCommand
from engine.timefmt import parse_instant

SIDES = ("white", "black")
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


def _str(name: str, value: object) -> str:
    if not isinstance(value, str) or not value:
        raise MalformedCommand(f"field {name!r} must be a non-empty string, got {value!r}")
    return value


INT_LIMIT = 2**53 - 1
"""The largest integer a field may hold: exact in every JSON reader, and far inside
the store's 64-bit integers (a clock of 2**53 ms is 285,000 years)."""


def _int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedCommand(f"field {name!r} must be an integer, got {value!r}")
    if abs(value) > INT_LIMIT:
        raise MalformedCommand(f"field {name!r} is out of range (|n| <= 2**53 - 1), got {value}")
    return value


def _number(name: str, value: object) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MalformedCommand(f"field {name!r} must be a number, got {value!r}")
    return value


def _side(name: str, value: object) -> str:
    if value not in SIDES:
        raise MalformedCommand(f"field {name!r} must be 'white' or 'black', got {value!r}")
    return str(value)


def _side_or_null(name: str, value: object) -> str | None:
    return None if value is None else _side(name, value)


def _result(name: str, value: object) -> str:
    if value not in RESULTS:
        raise MalformedCommand(f"field {name!r} must be one of {', '.join(RESULTS)}; got {value!r}")
    return str(value)


def _list(name: str, value: object) -> list[Any]:
    if not isinstance(value, list):
        raise MalformedCommand(f"field {name!r} must be a list, got {value!r}")
    return value


def _dict(name: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MalformedCommand(f"field {name!r} must be an object, got {value!r}")
    return value


def _bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise MalformedCommand(f"field {name!r} must be true or false, got {value!r}")
    return value


def _any(name: str, value: object) -> object:
    return value


def _instant(name: str, value: object) -> int:
    return parse_instant(value, name)


def _str_or_int(name: str, value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise MalformedCommand(f"field {name!r} must be a string or integer, got {value!r}")
    return str(value)


Checker = Callable[[str, object], Any]

STR: Checker = _str
INT: Checker = _int
NUMBER: Checker = _number
SIDE: Checker = _side
SIDE_OR_NULL: Checker = _side_or_null
RESULT: Checker = _result
LIST: Checker = _list
DICT: Checker = _dict
ANY: Checker = _any
BOOL: Checker = _bool
INSTANT: Checker = _instant
ID: Checker = _str_or_int

# name -> {field (``?`` = optional): checker}. Instants named ``at`` become
# ``at_ms`` in the parsed arguments. Extend freely; names are binding.
SPECS: dict[str, dict[str, Checker]] = {
    "create_tournament": {
        "tournament": STR,
        "name": STR,
        "rules?": STR,
        "start_date": STR,
        "cycles?": INT,
        "players": LIST,
        "arbiters?": LIST,
        "at?": INSTANT,
        "by?": STR,
    },
    "draw_lots": {
        "tournament": STR,
        "seed?": ID,
        "numbers?": DICT,
        "check_federations?": BOOL,
        "at?": INSTANT,
        "by?": STR,
    },
    "start_game": {
        "game": STR,
        "at": INSTANT,
        "by?": STR,
        "white?": STR,
        "black?": STR,
        "time_control?": STR,
        "fen?": STR,
        "stage?": STR,
    },
    "play_move": {
        "game": STR,
        "move": STR,
        "at": INSTANT,
        "white_ms?": INT,
        "black_ms?": INT,
        "by?": STR,
        "ply?": INT,
    },
    "resign": {"game": STR, "by": SIDE, "at": INSTANT},
    "withdraw": {
        "tournament": STR,
        "player": STR,
        "at": INSTANT,
        "reason": STR,
        "arbiter?": STR,
        "by?": STR,
    },
    "start_playoff": {
        "tournament": STR,
        "arbiter": STR,
        "at": INSTANT,
        "place?": INT,
        "seed?": ID,
        "numbers?": DICT,
    },
    "advance_playoff": {
        "tournament": STR,
        "arbiter": STR,
        "at": INSTANT,
        "place?": INT,
        "seed?": ID,
        "numbers?": DICT,
        "lot_winner?": STR,
    },
    "choose_colour": {
        "tournament": STR,
        "game": STR,
        "colour": SIDE,
        "arbiter": STR,
        "at": INSTANT,
    },
    "declare_result": {
        "game": STR,
        "result": RESULT,
        "reason": STR,
        "arbiter": STR,
        "at": INSTANT,
        "termination?": STR,
    },
    # 3.9.2 b: draw claims through the arbiter (engine/arbiter/draw_claims.py).
    "claim_draw": {
        "game": STR,
        "by": STR,
        "kind": STR,
        "intended_move?": STR,
        "claim?": ID,
        "at": INSTANT,
    },
    "advise_claim": {
        "game": STR,
        "claim": ID,
        "opinion": STR,
        "advisor": STR,
        "reason?": STR,
        "at": INSTANT,
    },
    "rule_claim": {
        "game": STR,
        "claim": ID,
        "decision": STR,
        "arbiter": STR,
        "reason?": STR,
        "at": INSTANT,
    },
    "record_illegal_move": {
        "game": STR,
        "by": STR,
        "arbiter": STR,
        "move?": STR,
        "at": INSTANT,
    },
    # Accepted in form only to be refused with 3.9.2 b (no draw by agreement).
    "offer_draw": {"game": STR, "by?": STR, "at?": INSTANT},
    "agree_draw": {"game": STR, "by?": STR, "at?": INSTANT},
    # Clocks (3.5.1, Laws 6): readings of the physical clock, arbiter adjustments,
    # flag checks on a timer. See engine/game/reconciliation.py, engine/arbiter/clock_rulings.py.
    "clock_reading": {
        "game": STR,
        "at": INSTANT,
        "white_ms": INT,
        "black_ms": INT,
        "running": SIDE_OR_NULL,
        "by?": STR,
        "ply?": INT,
        "tolerance_ms?": INT,
    },
    "adjust_clock": {
        "game": STR,
        "side": SIDE,
        "delta_ms": INT,
        "reason": STR,
        "arbiter": STR,
        "at": INSTANT,
    },
    "check_flags": {"game?": STR, "games?": LIST, "at": INSTANT, "by?": STR},
}


@dataclass(frozen=True)
class Command:
    """A command of the contract whose form has been checked."""

    name: str
    args: Mapping[str, Any]

    @property
    def at_ms(self) -> int | None:
        value = self.args.get("at_ms")
        return value if isinstance(value, int) else None

    def get(self, key: str, default: Any = None) -> Any:
        return self.args.get(key, default)

    def __getitem__(self, key: str) -> Any:
        return self.args[key]


def parse_command(raw: object) -> Command:
    """Check a decoded JSON object against the contract and return the command."""
    if not isinstance(raw, dict):
        raise MalformedCommand(f"a command must be a JSON object, got {type(raw).__name__}")
    name = raw.get("cmd")
    if not isinstance(name, str):
        raise MalformedCommand("a command needs a string field 'cmd'")
    spec = SPECS.get(name)
    if spec is None:
        known = ", ".join(sorted(SPECS))
        raise MalformedCommand(f"unknown command {name!r}; known commands: {known}")
    args: dict[str, Any] = {}
    allowed = {key.rstrip("?") for key in spec}
    unknown = sorted(set(raw) - allowed - {"cmd"})
    if unknown:
        raise MalformedCommand(f"{name}: unknown field(s) {', '.join(map(repr, unknown))}")
    for key, check in spec.items():
        optional = key.endswith("?")
        field = key.rstrip("?")
        if field not in raw or (optional and raw[field] is None and check is not SIDE_OR_NULL):
            if not optional:
                raise MalformedCommand(f"{name}: missing field {field!r}")
            continue
        value = check(field, raw[field])
        args["at_ms" if field == "at" else field] = value
    return Command(name, args)
