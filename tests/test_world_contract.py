"""The in-memory World of the rule tests and the real Store answer alike.

``tests/world.py`` re-implements the Store's reading and writing API so that rule
tests run without a backend; this is the contract that keeps it honest. The same
command sequences (every setting of the reference's examples, then every example and
its variants sent in it: accepted commands, refusals of every kind, a retried move)
are run on a World and on a Store (SQLite, and PostgreSQL when ``CANDIDATES_TEST_PG``
is set), one command at a time (``handle``), as a batch (``execute_many``) and all or
nothing (``execute_all``); the answers, the events appended (in order, on the same
streams and versions) and every object read back (tournament, games, clock logs,
board logs, incident book, readings) must be the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from adapters.store import Store
from engine.errors import CommandRefused
from engine.events import clock_stream
from tests.test_reference_examples import variants
from tests.world import World
from tools.examples import EXAMPLES, SETTINGS, Raw

Target = Store | World


def sequence(setting: str) -> list[Raw]:
    """The setting's commands, then each example sent in it and its variants.

    Not a second ``create_tournament`` in a store that holds one: the World holds one
    tournament (rule tests need no more); stores of several are tested on real stores
    (tests/test_multi_tournament.py)."""
    out = list(SETTINGS[setting].commands)
    for example in EXAMPLES.values():
        if example.setting == setting:
            out += variants(example.command)
    creates = [i for i, raw in enumerate(out) if raw["cmd"] == "create_tournament"]
    return [raw for i, raw in enumerate(out) if i not in creates[1:]]


def read_back(target: Target) -> dict[str, Any]:
    """Everything the rule tests read, from either side."""
    reads = target.reads if isinstance(target, Store) else target
    log = target.cache if isinstance(target, Store) else target
    games = reads.game_ids()
    boards = sorted(
        {e.originator_id.removeprefix("board/") for _, e in log.events_since(0)}
        & {
            s.removeprefix("board/")
            for _, e in log.events_since(0)
            for s in [e.originator_id]
            if s.startswith("board/")
        }
    )
    instants = sorted({e.at_ms for _, e in log.events_since(0)})
    return {
        "count": log.count(),
        "last_seq": target.last_seq(),
        "events": [(seq, e.to_wire()) for seq, e in log.events_since(0)],
        "tail": [(seq, e.to_wire()) for seq, e in log.events_since(3, limit=5)],
        "tournament": reads.tournament(),
        "game_ids": games,
        "games": {g: reads.game(g) for g in [*games, "9.9"]},
        "clock_logs": {g: reads.clock_log(g) for g in games},
        "readings": {g: [r.to_wire() for r in reads.readings(g)] for g in games},
        "reading_at": {
            (g, at): _reading(reads.reading_at(g, at)) for g in games for at in instants
        },
        "streams": {g: [e.to_wire() for e in reads.stream(clock_stream(g), 1)] for g in games},
        "board_logs": {b: reads.board_log(b) for b in [*boards, "none"]},
        "incident_book": reads.incident_book(),
    }


def wire(value: Any) -> Any:
    """As JSON carries it (a tuple and a list are one array), keys made text."""
    if isinstance(value, dict):
        return {str(k): wire(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [wire(v) for v in value]
    return value


def plain(answers: list[Any]) -> list[Any]:
    """Answers as the contract fixes them: the events, or the refusal's code (messages are
    for people, and the store words a few of its own)."""
    return [
        {"ok": False, "code": a["error"]["code"]}
        if isinstance(a, dict) and a.get("ok") is False
        else {"ok": False, "code": a["code"]}
        if isinstance(a, dict) and "code" in a and "ok" not in a
        else a
        for a in answers
    ]


def _reading(found: Any) -> Any:
    return None if found is None else (found[0].to_wire(), found[1])


def one_by_one(target: Target, setting: list[Raw], rest: list[Raw]) -> list[Any]:
    return [target.handle(raw) for raw in [*setting, *rest]]


def in_batches(target: Target, setting: list[Raw], rest: list[Raw]) -> list[Any]:
    return [*target.execute_many(setting), *target.execute_many(rest)]


def all_or_nothing(target: Target, setting: list[Raw], rest: list[Raw]) -> list[Any]:
    """The setting in one ``execute_all``; then the rest, which refuses somewhere, in one
    more: refused as a whole, nothing of it appended."""
    answers: list[Any] = [
        [e.to_wire() for e in events] for _, events in target.execute_all(setting)
    ]
    try:
        answers += [[e.to_wire() for e in events] for _, events in target.execute_all(rest)]
    except CommandRefused as refused:
        answers.append(refused.as_error())
    return answers


WAYS: dict[str, Callable[[Target, list[Raw], list[Raw]], list[Any]]] = {
    "handle": one_by_one,
    "execute_many": in_batches,
    "execute_all": all_or_nothing,
}


@pytest.fixture
def pair(store_url: str) -> Iterator[tuple[World, Store]]:
    with Store(store_url) as store:
        yield World(), store


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_the_world_and_the_store_answer_alike(
    setting: str, way: str, pair: tuple[World, Store]
) -> None:
    world, store = pair
    raws = sequence(setting)
    prepared, rest = (
        raws[: len(SETTINGS[setting].commands)],
        raws[len(SETTINGS[setting].commands) :],
    )
    in_world = WAYS[way](world, prepared, rest)
    in_store = WAYS[way](store, prepared, rest)
    assert plain(in_world) == plain(in_store)
    assert wire(read_back(world)) == wire(read_back(store))


def test_the_sequences_meet_acceptances_refusals_and_a_retry() -> None:
    """The contract is worth something only if the sequences go everywhere."""
    answers = [a for s in SETTINGS for a in one_by_one(World(), [], sequence(s))]
    codes = {a["error"]["code"] for a in answers if not a["ok"]}
    assert sum(a["ok"] and bool(a["events"]) for a in answers) > 100
    assert {"malformed_command", "rule_violation", "unknown_game", "not_an_arbiter"} <= codes
    assert {"game_not_in_progress", "out_of_order", "conflict"} <= codes
    assert any(a.get("duplicate") for a in answers)
