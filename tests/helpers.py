"""Small builders for tests: commands in the contract's form."""

from __future__ import annotations

from typing import Any

from adapters.store import Store
from engine.timefmt import format_instant, parse_instant
from tools.sample import PLAYERS_BY_ID

T0 = "2013-03-15T14:00:00.000Z"
T0_MS = parse_instant(T0)

PLAYERS_2013 = PLAYERS_BY_ID
"""The 2013 field; tests number it 1..8 in this order (the real draw, inferred by
import-pgn from the games, differs: see docs/tournament.md)."""

ARBITERS = [
    {"id": "chief", "name": "Chief Arbiter", "role": "chief"},
    {"id": "deputy", "name": "Deputy Arbiter", "role": "deputy"},
    {"id": "advisor", "name": "Technical Advisor", "role": "advisor"},
]


def at(seconds: float) -> str:
    """An instant ``seconds`` after 14:00:00 on 15 March 2013, in the contract's form."""
    return format_instant(T0_MS + round(seconds * 1000))


def ok(store: Store, cmd: dict[str, Any]) -> list[dict[str, Any]]:
    """Apply a command that must succeed; return its events."""
    result = store.handle(cmd)
    assert result["ok"], result
    return result["events"]


def refused(store: Store, cmd: dict[str, Any], code: str) -> str:
    """Apply a command that must be refused with ``code``, appending nothing; return the message."""
    before = store.cache.count()
    result = store.handle(cmd)
    assert not result["ok"], result
    assert result["error"]["code"] == code, result
    assert store.cache.count() == before, "a refused command appended events"
    return result["error"]["message"]


def paired_tournament(store: Store, rules: str = "candidates-2012") -> None:
    """The 2013 field, lots drawn in the real event's order."""
    ok(
        store,
        {
            "cmd": "create_tournament",
            "tournament": "london-2013",
            "name": "FIDE Candidates Tournament 2013",
            "rules": rules,
            "start_date": "2013-03-13",
            "cycles": 2,
            "players": PLAYERS_2013,
            "arbiters": ARBITERS,
        },
    )
    ok(
        store,
        {
            "cmd": "draw_lots",
            "tournament": "london-2013",
            "numbers": {p["id"]: i for i, p in enumerate(PLAYERS_2013, start=1)},
        },
    )


def play(store: Store, game: str, moves: str, start_s: float = 1.0, step_s: float = 10.0) -> None:
    """Play space-separated moves, one every ``step_s`` seconds from ``start_s``."""
    for i, move in enumerate(moves.split()):
        ok(store, {"cmd": "play_move", "game": game, "move": move, "at": at(start_s + i * step_s)})
