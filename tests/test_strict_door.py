"""Nothing wrong gets in: null moves, instants without a zone or in the future, files
that are not PGN, games of another event, claims out of time order. Every refusal
appends nothing (``tests.helpers.refused`` checks the store's count)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.formats.pgn_import import import_pgn
from adapters.host.clock import wall_clock_ms
from adapters.store import Store
from engine.timefmt import format_instant, parse_instant
from tests.cli import candidates
from tests.helpers import T0_MS, at, ok, paired_tournament, refused

ROOT = Path(__file__).resolve().parents[1]


def started(store: Store) -> None:
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})


@pytest.mark.parametrize("text", ["--", "Z0", "0000", "@@@@"])
def test_laws_1_1_a_null_move_is_refused_in_every_form(sqlite_store: Store, text: str) -> None:
    started(sqlite_store)
    message = refused(
        sqlite_store, {"cmd": "play_move", "game": "1.1", "move": text, "at": at(5)}, "illegal_move"
    )
    assert "null move" in message
    assert sqlite_store.reads.game("1.1").ply == 0


def test_laws_1_1_a_null_move_in_a_score_sheet_refuses_the_game(tmp_path: Path) -> None:
    pgn = tmp_path / "null.pgn"
    pgn.write_text(
        '[Event "x"]\n[Round "1.1"]\n[White "Aronian, L"]\n[Black "Carlsen, M"]\n'
        '[Result "1-0"]\n\n1. e4 -- 2. d4 1-0\n',
        encoding="utf-8",
    )
    with Store(str(tmp_path / "s.sqlite")) as store:
        reports = import_pgn(store, pgn)
        assert [r.status for r in reports] == ["refused"]
        assert "null move" in reports[0].message
        assert store.reads.game("1.1") is None


def test_an_instant_without_a_zone_is_refused(sqlite_store: Store) -> None:
    started(sqlite_store)
    for text in ("2013-03-15 14:00:05", "2013-03-15T14:00:05.000"):
        message = refused(
            sqlite_store,
            {"cmd": "play_move", "game": "1.1", "move": "e4", "at": text},
            "malformed_command",
        )
        assert "no time zone" in message
    ok(
        sqlite_store,
        {"cmd": "play_move", "game": "1.1", "move": "e4", "at": "2013-03-15T15:00:05+01:00"},
    )
    assert sqlite_store.reads.game("1.1").last_at_ms == T0_MS + 5000


def test_an_instant_in_the_future_is_refused_naming_both_instants(tmp_path: Path) -> None:
    received = T0_MS + 60_000  # the receiving process's clock: 14:01
    with Store(str(tmp_path / "s.sqlite"), wall_clock=lambda: received) as store:
        started(store)
        # A year ahead by a typo: it would run the clock past a flag that never fell.
        typo = "2014-03-15T14:00:30.000Z"
        message = refused(
            store,
            {"cmd": "play_move", "game": "1.1", "move": "e4", "at": typo},
            "malformed_command",
        )
        assert typo in message and at(60) in message
        # Within the tolerance (5 minutes by default): two machines' clocks differ.
        ok(store, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(60 + 299)})
        refused(
            store,
            {"cmd": "play_move", "game": "1.1", "move": "e5", "at": at(60 + 301)},
            "malformed_command",
        )
        assert store.reads.game("1.1").ply == 1


def test_the_future_tolerance_is_configurable(tmp_path: Path) -> None:
    received = T0_MS + 60_000
    path = str(tmp_path / "s.sqlite")
    with Store(path, wall_clock=lambda: received, future_tolerance=0) as store:
        started(store)
        refused(
            store,
            {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(61)},
            "malformed_command",
        )
        ok(store, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(60)})
    # The command line: a minute ahead of this machine's clock passes the default
    # tolerance, and not a tolerance of 0.
    soon = json.dumps(
        {"cmd": "start_game", "game": "1.2", "at": format_instant(wall_clock_ms() + 60_000)}
    )
    strict = candidates("--future-tolerance", "0", "apply", "--create", "-", store=path, stdin=soon)
    assert "cannot be dated in the future" in strict.stdout
    assert candidates("apply", "--create", "-", store=path, stdin=soon).returncode == 0


def test_import_pgn_refuses_a_file_that_is_not_pgn(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    run = candidates("import-pgn", "--create", str(ROOT / "README.md"), store=store)
    assert run.returncode != 0
    assert "is not PGN" in run.stderr
    with Store(store) as opened:
        assert opened.cache.count() == 0


def sheet(round_tag: str, white: str, black: str) -> str:
    return (
        f'[Event "x"]\n[Date "2013.03.15"]\n[Round "{round_tag}"]\n[White "{white}"]\n'
        f'[Black "{black}"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n'
    )


def test_import_pgn_refuses_games_of_another_event_naming_them(tmp_path: Path) -> None:
    with Store(str(tmp_path / "s.sqlite")) as store:
        paired_tournament(store)
        before = store.cache.count()
        pgn = tmp_path / "other.pgn"
        pgn.write_text(
            sheet("1.1", "Fischer, R", "Spassky, B")  # not players of this event
            + sheet("20.1", "Aronian, L", "Carlsen, M")  # no round 20 in a 14-round event
            + sheet("1.2", "Carlsen, M", "Aronian, L")  # round 1 pairs them the other way
            + sheet("1.1", "Aronian, L", "Carlsen, M"),  # the real pairing of round 1
            encoding="utf-8",
        )
        reports = import_pgn(store, pgn)
        assert [r.status for r in reports] == ["refused", "refused", "refused", "imported"]
        assert "'fischer', 'spassky' not a player" in reports[0].message
        assert "round 20 is not a round" in reports[1].message
        assert "does not pair them so" in reports[2].message
        assert store.cache.count() == before + reports[3].events


@pytest.mark.parametrize(
    "cmd",
    [
        {"cmd": "claim_draw", "game": "1.1", "by": "white", "kind": "fifty_moves"},
        {"cmd": "advise_claim", "game": "1.1", "claim": 1, "opinion": "draw", "advisor": "advisor"},
        {
            "cmd": "rule_claim",
            "game": "1.1",
            "claim": 1,
            "decision": "rejected",
            "arbiter": "chief",
        },
    ],
)
def test_3_9_2_b_claims_advice_and_rulings_are_held_to_time_order(
    sqlite_store: Store, cmd: dict[str, object]
) -> None:
    started(sqlite_store)
    ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(10)})
    if cmd["cmd"] != "claim_draw":
        claim = {"cmd": "claim_draw", "game": "1.1", "by": "black", "kind": "fifty_moves"}
        ok(sqlite_store, {**claim, "at": at(20)})
    message = refused(sqlite_store, {**cmd, "at": at(5)}, "out_of_order")
    assert "time order" in message
    assert parse_instant(at(5)) < sqlite_store.reads.game("1.1").last_at_ms
