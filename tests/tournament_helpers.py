"""Builders for tournament tests: small events, results by pairing, fast finishing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapters.store import Store
from tests.helpers import ARBITERS, at, ok

Result = Callable[[int, str, str], str]
"""(round, white id, black id) -> "1-0" | "0-1" | "1/2-1/2"."""

START_DATE = "2013-03-13"


def players(ids: list[str], ratings: list[float] | None = None, feds: list[str] | None = None):
    return [
        {
            "id": pid,
            "name": pid.capitalize(),
            "federation": feds[i] if feds else f"F{i}",
            "rating": ratings[i] if ratings else 2700 + 10 * (len(ids) - i),
        }
        for i, pid in enumerate(ids)
    ]


def event(
    store: Store,
    ids: list[str],
    cycles: int = 2,
    ratings: list[float] | None = None,
    feds: list[str] | None = None,
    tournament: str = "t",
) -> None:
    """Create a tournament of these players and draw lots in list order (1, 2, ...)."""
    ok(
        store,
        {
            "cmd": "create_tournament",
            "tournament": tournament,
            "name": "Test round robin",
            "start_date": START_DATE,
            "cycles": cycles,
            "players": players(ids, ratings, feds),
            "arbiters": ARBITERS,
        },
    )
    ok(
        store,
        {
            "cmd": "draw_lots",
            "tournament": tournament,
            "numbers": {pid: i for i, pid in enumerate(ids, start=1)},
        },
    )


def finish(store: Store, game: str, result: str, seconds: float = 0) -> None:
    """Start a paired game and have the Chief Arbiter record its result."""
    ok(store, {"cmd": "start_game", "game": game, "at": at(seconds)})
    if result == "1/2-1/2":
        reason = "threefold repetition upheld (9.2)"
    else:
        reason = "loss on time" if result in ("1-0", "0-1") else "ruling"
    ok(
        store,
        {
            "cmd": "declare_result",
            "game": game,
            "result": result,
            "reason": reason,
            "arbiter": "chief",
            "at": at(seconds + 60),
        },
    )


def play_rounds(store: Store, results: Result, rounds: range | None = None) -> None:
    """Finish every round-robin game of these rounds with ``results``."""
    tournament = store.reads.tournament()
    assert tournament is not None
    for game_id, (white, black) in tournament.round_robin_pairings().items():
        round_no = int(game_id.split(".")[0])
        if (
            store.reads.game(game_id) is not None
            or tournament.withdrawal(white)
            or tournament.withdrawal(black)
        ):
            continue  # already played, or cancelled by a withdrawal
        if rounds is None or round_no in rounds:
            finish(store, game_id, results(round_no, white, black))


def all_draws(_round: int, _white: str, _black: str) -> str:
    return "1/2-1/2"


def rows(table: dict[str, Any]) -> list[tuple[int, str]]:
    return [(r["rank"], r["player"]) for r in table["rows"]]


def by_pair(spec: dict[tuple[str, str], list[str]], default: str = "1/2") -> Result:
    """Results from each pair's scores in chronological order, from the first player's side:
    ``{("a", "b"): ["1", "1/2"]}``: a won their first game and drew the second."""
    seen: dict[frozenset[str], int] = {}
    order: dict[tuple[int, frozenset[str]], int] = {}

    def result(round_no: int, white: str, black: str) -> str:
        pair = frozenset((white, black))
        key = (round_no, pair)
        if key not in order:
            order[key] = seen.get(pair, 0)
            seen[pair] = order[key] + 1
        index = order[key]
        if (white, black) in spec:
            score, first = spec[(white, black)][index], white
        elif (black, white) in spec:
            score, first = spec[(black, white)][index], black
        else:
            score, first = default, white
        if score == "1/2":
            return "1/2-1/2"
        first_won = score == "1"
        return "1-0" if first_won == (first == white) else "0-1"

    return result
