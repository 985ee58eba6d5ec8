"""Ranges of instants and durations: what a real hall never produces is refused, not stored.

Every instant of a command lies in ``engine.fields.INSTANT_WINDOW`` (year 1, 1900 or the
epoch's 1970 are mistakes, not games); every duration in milliseconds within 24 hours
either way (a real clock holds hours, not 10**15 ms). docs/commands.md states both, from
the field notes of the command declarations.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.store import Store
from tests.helpers import at, ok, paired_tournament


@pytest.mark.parametrize(
    "instant", ["0001-01-01T00:00:00Z", "1900-01-01T00:00:00Z", "1970-01-01T00:00:00Z"]
)
def test_an_instant_outside_the_window_is_refused_and_appends_nothing(
    sqlite_store: Store, instant: str
) -> None:
    paired_tournament(sqlite_store)
    before = sqlite_store.last_seq()
    answer = sqlite_store.handle({"cmd": "start_game", "game": "1.1", "at": instant})
    assert not answer["ok"] and answer["error"]["code"] == "malformed_command"
    assert "out of range" in answer["error"]["message"] and "1990" in answer["error"]["message"]
    assert sqlite_store.last_seq() == before


@pytest.mark.parametrize(
    "command",
    [
        {"cmd": "clock_reading", "white_ms": 10**15, "black_ms": 7_200_000, "running": "white"},
        {"cmd": "clock_reading", "white_ms": 7_200_000, "black_ms": -(10**15), "running": "white"},
        {"cmd": "adjust_clock", "side": "white", "delta_ms": 10**15, "reason": "x"},
    ],
)
def test_a_duration_beyond_24_hours_is_refused_and_appends_nothing(
    started: Store, command: dict[str, object]
) -> None:
    before = started.last_seq()
    answer = started.handle({**command, "game": "1.1", "at": at(5)})
    assert not answer["ok"] and answer["error"]["code"] == "malformed_command"
    assert "out of range" in answer["error"]["message"] and "24 hours" in answer["error"]["message"]
    assert started.last_seq() == before


def test_a_clock_of_hours_is_a_real_clock(started: Store) -> None:
    ok(
        started,
        {
            "cmd": "clock_reading",
            "game": "1.1",
            "at": at(5),
            "white_ms": 7_195_000,
            "black_ms": 7_200_000,
            "running": "white",
        },
    )


def test_docs_state_the_window_and_the_range() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "commands.md").read_text()
    assert "from 1990-01-01T00:00:00Z to before 2100-01-01T00:00:00Z" in text
    assert "86400000 (24 hours)" in text


def test_a_refusal_quotes_a_short_prefix_of_a_megabyte_value(started: Store) -> None:
    answer = started.handle({"cmd": "start_game", "game": "1.2", "at": "x" * 2**20})
    assert not answer["ok"] and len(answer["error"]["message"]) < 300
    assert "characters)" in answer["error"]["message"]


def test_art_3_2_reorder_rounds_and_renumber_boards_may_leave_out_the_one_tournament(
    sqlite_store: Store,
) -> None:
    """COMMON_NOTES: ``tournament`` may be left out when the store holds one tournament."""
    paired_tournament(sqlite_store)
    order = [1, 2, 3, 4, 5, 7, 6, 8, 9, 10, 11, 12, 13, 14]
    ok(sqlite_store, {"cmd": "reorder_rounds", "order": order, "reason": "schedule changed"})
    boards = {"2": [2, 1, 3, 4]}
    ok(sqlite_store, {"cmd": "renumber_boards", "boards": boards, "reason": "published order"})
    answer = sqlite_store.handle(
        {"cmd": "reorder_rounds", "tournament": "other", "order": order, "reason": "x"}
    )
    assert not answer["ok"] and answer["error"]["code"] == "unknown_tournament"
