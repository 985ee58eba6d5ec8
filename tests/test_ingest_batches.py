"""The ingest path's shortcuts give the answers the long way gives.

A second's readings of many boards go through ``Store.execute_many`` on the cached
states, with what does not change from one command to the next worked out once (an
instant's text, a stream's stored name, a command kind's fields, an event's start
date) and the clock decided without the mismatch analysis when the device agrees.
Here the same commands, readings that agree, mismatch, show a flag or 0:00, come late
or out of order, are decided both ways: in batches by one store, and one by one by a
store opened afresh for each (nothing cached); the answers and the stored records are
the same.
"""

from __future__ import annotations

from typing import Any

import pytest

from adapters.store import Store, views
from engine.clock.regulation import Clock
from engine.clock.time_control import parse_time_control
from engine.errors import MalformedCommand
from engine.events import physical_stream
from engine.side import SIDES, Side
from engine.timefmt import _instant_ms, read_instant
from engine.tournament import event_window
from tests.helpers import ARBITERS, PLAYERS_2013, T0_MS, at

TWO_HOURS_MS = 7_200_000
RECEIVED_MS = T0_MS + 10 * 3_600_000
"""When the stores receive the commands (a fixed clock, after every instant used)."""


def tournaments() -> list[dict[str, Any]]:
    commands: list[dict[str, Any]] = []
    for tid in ("open", "womens"):  # the second one's streams are namespaced
        commands.append(
            {
                "cmd": "create_tournament",
                "tournament": tid,
                "name": f"Section {tid}",
                "start_date": "2013-03-13",
                "players": PLAYERS_2013,
                "arbiters": ARBITERS,
            }
        )
        for game in ("1.1", "1.2"):
            commands.append(
                {
                    "cmd": "start_game",
                    "tournament": tid,
                    "game": game,
                    "white": PLAYERS_2013[0]["id"],
                    "black": PLAYERS_2013[1]["id"],
                    "at": at(0),
                }
            )
    return commands


def reading(tid: str, game: str, seconds: float, white_ms: int, black_ms: int, **extra: Any):
    return {
        "cmd": "clock_reading",
        "tournament": tid,
        "game": game,
        "at": at(seconds),
        "white_ms": white_ms,
        "black_ms": black_ms,
        "running": "white",
        "by": f"dgt:{tid}:{game}",
        **extra,
    }


def seconds_of_readings() -> list[list[dict[str, Any]]]:
    """Each second's batch: every board's reading, and what goes wrong on some."""
    second: list[list[dict[str, Any]]] = []
    for s in range(1, 8):
        batch: list[dict[str, Any]] = []
        for tid in ("open", "womens"):
            white = TWO_HOURS_MS - s * 1000
            batch.append(reading(tid, "1.1", s, white, TWO_HOURS_MS))  # agrees
            off = {3: 10_000, 4: 10_500, 5: 20_000}.get(s, 0)  # a mismatch, kept, moved
            zero = {"black_ms": 0} if s == 6 else {}  # 0:00 shown for Black
            flag = {"flag": "white"} if s == 7 else {}
            batch.append({**reading(tid, "1.2", s, white + off, TWO_HOURS_MS), **zero, **flag})
        second.append(batch)
    late = [
        {"cmd": "play_move", "tournament": "open", "game": "1.1", "move": "e4", "at": at(9)},
        reading("open", "1.1", 8.5, TWO_HOURS_MS - 8500, TWO_HOURS_MS),  # before the move
        reading("open", "1.1", 8.0, TWO_HOURS_MS - 8000, TWO_HOURS_MS),  # out of order
        reading("open", "9.9", 9, TWO_HOURS_MS, TWO_HOURS_MS),  # no such game
        reading("womens", "1.1", 7205, 0, TWO_HOURS_MS),  # White's time ran out
        reading("womens", "1.2", 7206, 0, TWO_HOURS_MS, tolerance_ms=-1),  # refused
    ]
    second.append(late)
    return second


def records(store: Store) -> list[tuple[int, str, int, str, bytes]]:
    return [
        (n.id, str(n.originator_id), n.originator_version, n.topic, bytes(n.state))
        for n in store.cache.notifications()
    ]


def test_batches_on_cached_states_answer_and_store_as_commands_decided_afresh(
    store_url: str, tmp_path
) -> None:
    afresh_url = str(tmp_path / "afresh.sqlite")
    batches = seconds_of_readings()
    with Store(store_url, wall_clock=lambda: RECEIVED_MS) as store:
        assert all(a["ok"] for a in store.execute_many(tournaments()))
        batched = [store.execute_many(batch) for batch in batches]
        stored = records(store)
    alone: list[list[dict[str, Any]]] = []
    for command in tournaments():
        with Store(afresh_url, wall_clock=lambda: RECEIVED_MS) as fresh:
            assert fresh.handle(command)["ok"]
    for batch in batches:
        answers = []
        for command in batch:
            with Store(afresh_url, wall_clock=lambda: RECEIVED_MS) as fresh:
                answers.append(fresh.handle(command))
        alone.append(answers)
    with Store(afresh_url) as fresh:
        assert records(fresh) == stored
    assert batched == alone
    kinds = [e.get("kind") for answers in batched for a in answers for e in a.get("events", [])]
    assert {"clock_mismatch", "flag_fall"} <= set(kinds), kinds  # the long way was taken too
    refusals = [a["error"]["code"] for a in batched[-1] if not a["ok"]]
    assert refusals == ["out_of_order", "unknown_game", "malformed_command"]


def test_6_9_the_falls_without_a_kept_fall_are_those_each_side_reports() -> None:
    """``Clock.falls`` asks only the running side when no fall is kept: the same answer
    as asking each side (``fell_at_ms``), before, at and after the instant it runs out,
    with the clock stopped, after a move, and with a fall kept or ruled away."""
    control = parse_time_control("40/7200:20/3600:900+30")
    start = Clock.start(control, 0)
    clocks = [
        start,
        start.complete_move(Side.WHITE, 60_000),
        start.stop(1000),
        start.adjust(Side.BLACK, -TWO_HOURS_MS, 5000),  # Black's time taken: a fall kept
        start.at(TWO_HOURS_MS + 1),  # White's fall kept by running the clock on
        start.at(TWO_HOURS_MS + 1).without_fall(Side.WHITE),
        start.set_remaining(Side.WHITE, 0, 10),
    ]
    for clock in clocks:
        for at_ms in (None, 0, 59_999, TWO_HOURS_MS - 1, TWO_HOURS_MS, TWO_HOURS_MS + 60_000):
            each = [(s, t) for s in SIDES if (t := clock.fell_at_ms(s, at_ms)) is not None]
            expected = sorted(each, key=lambda f: (f[1], f[0]))
            assert clock.falls(at_ms) == expected, (clock, at_ms)


def test_an_instant_read_again_is_read_as_the_first_time() -> None:
    texts = ["2013-03-15T14:00:00.000Z", "2013-03-15T15:00:00+01:00", "2013-03-15t14:00:00z"]
    for text in texts * 2:
        assert read_instant("field 'at'", text) == _instant_ms.__wrapped__(text)
    for bad, says in (("2013-03-15T14:00:00", "has no time zone"), ("yesterday", "is not an")):
        for _ in range(2):  # a refusal is not remembered as an answer
            with pytest.raises(MalformedCommand, match=says):
                read_instant("field 'at'", bad)


def test_a_start_date_worked_out_once_is_the_same_date() -> None:
    for start in ("2013-03-13", "", "13 March", "2026-01-01"):
        for _ in range(2):
            assert event_window._earliest_of(start) == event_window._earliest_of.__wrapped__(start)


def test_a_view_names_streams_as_stored_also_after_it_started_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setattr(views, "PHYSICAL_NAMES", 3)
    with Store(str(tmp_path / "s.sqlite")) as store:
        for namespace in (None, "womens"):
            view = views.TournamentView(store.cache, namespace, store.registry.first_tournament_id)
            names = [f"game/{i}.1" for i in range(5)] + ["clock/1.1", "tournament", "board/7"]
            for name in names * 2:
                assert view.physical(name) == physical_stream(name, namespace)
            assert len(view._physical) <= 3
