"""The store's one door: ``execute``, ``handle``, ``execute_many`` and ``execute_all``
take every command the same way (its ``command_id``, its tournament, the engine's
events), and differ only in what a refusal does to the rest of a batch."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.store import Store
from adapters.store.chain import event_canonical
from engine.command_ids import command_applied, command_identity
from engine.commands import parse_command
from engine.errors import CommandIdReused, MalformedCommand
from engine.events import TOURNAMENTS_STREAM, CommandApplied, TournamentCreated, TournamentListed
from engine.tournament.listing import TournamentList, evolve, list_tournament
from tests.helpers import ARBITERS, PLAYERS_2013, at


def create(tournament: str, **extra: Any) -> dict[str, Any]:
    return {
        "cmd": "create_tournament",
        "tournament": tournament,
        "name": f"Candidates {tournament}",
        "start_date": "2013-03-13",
        "cycles": 2,
        "players": PLAYERS_2013,
        "arbiters": ARBITERS,
        **extra,
    }


def lots(tournament: str, **extra: Any) -> dict[str, Any]:
    numbers = {p["id"]: i for i, p in enumerate(PLAYERS_2013, start=1)}
    return {"cmd": "draw_lots", "tournament": tournament, "numbers": numbers, **extra}


def commands() -> list[dict[str, Any]]:
    """Two tournaments in one store, the second listed as it is created, some under ids."""
    return [
        create("first"),
        lots("first", command_id="lots-1"),
        {"cmd": "start_game", "tournament": "first", "game": "1.1", "at": at(0)},
        create("second", command_id="second"),
        lots("second"),
        {"cmd": "start_game", "tournament": "second", "game": "1.1", "at": at(1)},
        {
            "cmd": "play_move",
            "tournament": "second",
            "game": "1.1",
            "move": "e4",
            "at": at(5),
            "command_id": "m1",
        },
    ]


def stored(store: Store) -> list[tuple[int, bytes]]:
    return [(seq, event_canonical(e)) for seq, e in store.cache.events_since(0)]


def test_every_door_stores_the_same_bytes_for_the_same_commands(tmp_path) -> None:
    """One decide path: the same commands give the same stored events, whichever door."""
    results = {}
    for door in ("handle", "execute", "execute_many", "execute_all"):
        with Store(str(tmp_path / f"{door}.sqlite")) as store:
            if door == "handle":
                assert all(store.handle(c)["ok"] for c in commands())
            elif door == "execute":
                for c in commands():
                    store.execute(c)
            elif door == "execute_many":
                assert all(a["ok"] for a in store.execute_many(commands()))
            else:
                store.execute_all(commands())
            results[door] = stored(store)
            assert store.registry.tournament_ids() == ["first", "second"]
            types = [type(e).__name__ for _, e in store.cache.events_since(0)]
            assert types.count("TournamentListed") == 1 and types.count("CommandApplied") == 3
    assert len({tuple(r) for r in results.values()}) == 1, "the doors stored different events"


def test_execute_all_takes_a_command_id_and_a_second_tournament_as_handle_does(
    store: Store,
) -> None:
    store.handle(create("first"))
    batch = [create("second", command_id="c2"), lots("second", command_id="l2")]
    decided = store.execute_all(batch)
    assert [type(e) for e in decided[0][1]] == [TournamentCreated, TournamentListed]
    assert store.registry.tournament_ids() == ["first", "second"]
    count = store.cache.count()
    again = store.execute_all(batch)  # the retry of a client that never saw the answer
    assert store.cache.count() == count
    assert [[e.to_wire() for e in events] for _, events in again] == [
        [e.to_wire() for e in events] for _, events in decided
    ]
    records = [e for _, e in store.cache.events_since(0) if isinstance(e, CommandApplied)]
    assert [r.command_id for r in records] == ["c2", "l2"]


def test_execute_all_refuses_an_id_reused_in_the_batch_and_appends_nothing(store: Store) -> None:
    store.handle(create("first"))
    count = store.cache.count()
    with pytest.raises(CommandIdReused):
        store.execute_all([lots("first", command_id="x"), create("other", command_id="x")])
    assert store.cache.count() == count
    assert store.reads.tournament().numbers is None  # type: ignore[union-attr]


def test_a_refusal_inside_execute_all_leaves_no_trace_in_the_cached_states(store: Store) -> None:
    store.handle(create("first"))
    with pytest.raises(MalformedCommand):
        store.execute_all([lots("first"), {"cmd": "start_game", "game": "1.1", "at": "soon"}])
    assert store.reads.tournament().numbers is None  # type: ignore[union-attr]
    store.execute_all([lots("first")])
    assert store.reads.tournament().numbers  # type: ignore[union-attr]


def test_the_listing_and_the_command_record_are_decided_in_the_engine() -> None:
    """``TournamentListed`` and ``CommandApplied`` come from engine functions of their
    inputs: the list as it stands, the command and the events it decided."""
    first = list_tournament(None, _created("a"))
    assert (first.originator_id, first.originator_version, first.tournament) == (
        TOURNAMENTS_STREAM,
        1,
        "a",
    )
    listed = evolve(evolve(None, first), list_tournament(TournamentList(("a",), 1), _created("b")))
    assert listed == TournamentList(("a", "b"), 2)
    body, command_id, digest = command_identity(
        {"cmd": "start_game", "game": "1.1", "at": at(0), "command_id": "s"}
    )
    assert command_id == "s" and digest is not None and "command_id" not in body  # type: ignore[operator]
    created = _created("a")
    record = command_applied("s", digest, parse_command(body), [created])
    assert record.events == (("tournament", 1),) and record.at_ms == created.at_ms


def _created(tournament: str) -> TournamentCreated:
    return TournamentCreated(
        originator_id="tournament",
        originator_version=1,
        at_ms=7,
        by="chief",
        tournament=tournament,
        name=tournament,
        rules="candidates-2012",
        start_date="2013-03-13",
        cycles=2,
        players=(),
        arbiters=(),
    )
