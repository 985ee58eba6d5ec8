"""A corpus of hostile input: lines for ``candidates apply`` and frames for the gateway.

Every item is refused by the contract whatever the store holds: each takes a command
of the contract that would be accepted on a started game and puts into one of its
fields a value no field accepts (a number of 5,000 digits, a string past the limits,
a lone surrogate, nesting past 32, an instant in a loose form, a move with a false
check mark, a type of the wrong kind), or is not a command at all (not JSON, not an
object, a key twice, not UTF-8). ``lines()`` is deterministic (the same bytes on every
run), so a failure names a line that can be run again alone.
"""

from __future__ import annotations

import json
import random
from typing import Any

from tests.helpers import at

BASE: list[dict[str, Any]] = [
    {"cmd": "play_move", "game": "1.1", "move": "Nf6", "at": at(30)},
    {
        "cmd": "adjust_clock",
        "game": "1.1",
        "side": "white",
        "delta_ms": 60_000,
        "reason": "clock set wrong",
        "arbiter": "chief",
        "at": at(30),
    },
    {
        "cmd": "raise_alert",
        "board": "12345",
        "kind": "board_disconnected",
        "message": "no data",
        "game": "1.1",
        "details": {"seen": "nothing"},
        "at": at(30),
    },
    {"cmd": "resign", "game": "1.1", "by": "white", "at": at(30)},
    {
        "cmd": "declare_result",
        "game": "1.1",
        "result": "1-0",
        "reason": "forfeit",
        "arbiter": "chief",
        "at": at(30),
    },
    {"cmd": "start_game", "game": "1.2", "at": at(30)},
    {
        "cmd": "clock_reading",
        "game": "1.1",
        "white_ms": 7_000_000,
        "black_ms": 7_100_000,
        "running": "black",
        "at": at(30),
    },
]
"""Commands that are accepted on game 1.1 after 1. d4 (the fixtures' started game)."""

NINES = "9" * 5000
RAW = object()
"""A marker: the value is JSON text written into the line as it is (not encoded)."""

HOSTILE: list[tuple[str, object]] = [
    ("a 5,000-digit integer", (RAW, NINES)),
    ("a negative 5,000-digit integer", (RAW, "-" + NINES)),
    ("a 5,000-digit fraction", (RAW, NINES + ".5")),
    ("an exponent of 5,000 digits", (RAW, "1e" + NINES)),
    ("a 33-digit integer", (RAW, "1" * 33)),
    ("2**53", 2**53),
    ("-(2**63)", -(2**63)),
    ("a string of 5,000 characters", "x" * 5000),
    ("a string of 70,000 characters", "y" * 70_000),
    ("a lone surrogate", (RAW, '"\\ud800"')),
    ("a surrogate in a list", (RAW, '["\\udfff"]')),
    ("nesting 40 deep", (RAW, "[" * 40 + "]" * 40)),
    ("nesting 10,000 deep", (RAW, "[" * 10_000)),
    ("an object nested 40 deep", (RAW, '{"a":' * 40 + "1" + "}" * 40)),
    ("an instant with a NUL", "2013-03-15T14:00:30.000Z\u0000"),
    ("an instant with a space", "2013-03-15 14:00:30.000Z"),
    ("an instant of 12 fractional digits", "2013-03-15T14:00:30.000000000001Z"),
    ("an instant without a zone", "2013-03-15T14:00:30"),
    ("an instant in the basic form", "20130315T140030Z"),
    ("the year 1", "0001-01-01T00:00:00Z"),
    ("NaN", (RAW, "NaN")),
    ("Infinity", (RAW, "-Infinity")),
    ("a list of 20,000 integers", list(range(20_000))),
    ("an object of 6,000 keys", {f"k{i}": i for i in range(6_000)}),
    ("an empty object", {}),
    ("an empty list", []),
    ("a float", 1.5),
]
"""Values no field of ``BASE`` accepts (each command field is checked against them), but
those of ``INSTANT_ONLY`` (text any string field takes) and ``{}`` (an empty ``details``)."""

INSTANT_ONLY = {
    "an instant with a NUL",
    "an instant with a space",
    "an instant of 12 fractional digits",
    "an instant without a zone",
    "an instant in the basic form",
    "the year 1",
}
"""Hostile for an instant (``at``) only: any other string field takes such text."""

NOT_COMMANDS: list[bytes] = [
    b"null",
    b"1",
    b'"play_move"',
    b"[]",
    b"[{}]",
    b"true",
    b"{",
    b'{"cmd": "play_move", "cmd": "resign", "game": "1.1", "by": "white"}',
    b'{"cmd": "no_such_command"}',
    b'{"cmd": 1}',
    b"{}",
    b'{"cmd": "play_move"}',
    b"\xc3(\xa0\xa1",
    b"\xff\xfe{\x00}\x00",
    b'{"cmd": "play_move", "game": "1.1", "move": "Nf6", "at": "' + b"\xed\xa0\x80" + b'"}',
    b"\x00\x00\x00",
    b"{'cmd': 'play_move'}",
    b'{"cmd": "play_move", "game": "1.1", "move": "Nf6", "at": "2013-03-15T14:00:30Z",}',
]
"""Lines that are no command (not JSON, not an object, not UTF-8, a key twice ...)."""

BAD_MOVES = ["Nf6+", "Nf6#", "N-f6", "g8-f6", "0000", "--", "Z0", "e5e4", "Nf6!!", "Kxe8", " "]


def _line(command: dict[str, Any], field: str, value: object) -> bytes:
    """``command`` with ``field`` set to ``value`` (RAW: spliced in as JSON text)."""
    if isinstance(value, tuple) and value and value[0] is RAW:
        marker = "\u0001HOSTILE\u0001"
        text = json.dumps({**command, field: marker})
        return text.replace(json.dumps(marker), str(value[1])).encode()
    return json.dumps({**command, field: value}).encode()


def commands() -> list[tuple[str, bytes]]:
    """(what, line) for every hostile command line, in a fixed order."""
    out: list[tuple[str, bytes]] = []
    for command in BASE:
        for field in command:
            if field == "cmd":
                continue
            for what, value in HOSTILE:
                if (what in INSTANT_ONLY and field != "at") or (
                    what == "an empty object" and field == "details"
                ):
                    continue
                out.append((f"{command['cmd']}.{field}: {what}", _line(command, field, value)))
        out.append((f"{command['cmd']}: an unknown field", _line(command, "colour", "red")))
    for move in BAD_MOVES:
        out.append((f"play_move.move: {move!r}", _line(BASE[0], "move", move)))
    out += [(f"not a command: {line[:30]!r}", line) for line in NOT_COMMANDS]
    out.append(("a reason of 1 MB", _line(BASE[1], "reason", "r" * 2**20)))
    out.append(("details of 4 MB", _line(BASE[2], "details", {"seen": "d" * 4 * 2**20})))
    out.append(("a line of 3 MB", b'{"cmd": "resign", "x": "' + b"z" * 3 * 2**20 + b'"}'))
    shuffled = random.Random(39)
    garbage = [bytes(shuffled.randrange(256) for _ in range(40)) for _ in range(20)]
    out += [(f"random bytes {n}", line.replace(b"\n", b" ")) for n, line in enumerate(garbage)]
    return out


def frames() -> list[tuple[str, str | bytes]]:
    """(what, message) for hostile gateway frames beyond the command lines: each is a
    malformed frame the gateway answers with an error and never closes the socket for."""
    out: list[tuple[str, str | bytes]] = []
    for what, value in HOSTILE:
        for op, field in (("ping", "id"), ("subscribe", "since"), ("subscribe", "games")):
            if (field == "id" and isinstance(value, str) and len(value) <= 128) or (
                field == "games" and value == []
            ):
                continue  # a valid id, no games: answered, not refused
            body = {"op": op, "games": "*"} if op == "subscribe" else {"op": op}
            out.append((f"{op}.{field}: {what}", _line(body, field, value).decode()))
        out.append((f"op: {what}", _line({"id": "x"}, "op", value).decode()))
    out += [(f"message: {line[:30]!r}", line) for line in NOT_COMMANDS]
    out += [
        ("a frame that is a list", "[]"),
        ("a frame of frames", '[{"op": "ping"}]'),
        ("a command without an id", '{"op": "command", "command": {}}'),
        ("a command that is a list", '{"op": "command", "id": "c", "command": []}'),
    ]
    return out
