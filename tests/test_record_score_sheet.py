"""``record_score_sheet``: a game recorded after the fact is decided by the engine like
every other command, and a tournament made from a file is appended whole or not at all."""

from __future__ import annotations

from typing import Any

from adapters.store import Store
from engine.errors import CommandRefused
from engine.events import ClockReadingRecorded, GameStarted, MovePlayed, ResultRecorded
from engine.game.importing import RecordScoreSheet, import_score_sheet
from tests.helpers import PLAYERS_2013, T0, T0_MS, ok, paired_tournament, refused
from tests.world import World

MOVES = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]


def sheet_command(world: Any, game: str = "1.1", **changes: Any) -> dict[str, Any]:
    """The score sheet of round 1's ``game`` as the lots pair it, in the contract's form."""
    white, black = world.tournament().round_robin_pairings()[game]
    round_no, board_no = (int(part) for part in game.split("."))
    cmd = {
        "cmd": "record_score_sheet",
        "game": game,
        "round": round_no,
        "board": board_no,
        "white": white,
        "black": black,
        "result": "1-0",
        "moves": MOVES,
        "at": T0,
    }
    return {**cmd, **changes}


def test_a_score_sheet_appends_the_events_of_the_import(world: World) -> None:
    paired_tournament(world)  # type: ignore[arg-type]
    cmd = sheet_command(
        world, clocks_ms=[7_199_000, 7_198_000, None, 7_190_000, 7_180_000, 7_170_000]
    )
    events = ok(world, cmd)  # type: ignore[arg-type]
    expected = import_score_sheet(
        RecordScoreSheet(
            game="1.1",
            round=1,
            board=1,
            white=cmd["white"],
            black=cmd["black"],
            result="1-0",
            moves=MOVES,
            at_ms=T0_MS,
            clocks_ms=cmd["clocks_ms"],
        ),
        "candidates-2012",
    )
    assert [e["type"] for e in events] == [type(e).__name__ for e in expected]
    stored = world.stream("game/1.1") + world.stream("clock/1.1")
    assert stored == expected
    kinds = {type(e) for e in stored}
    assert kinds == {GameStarted, MovePlayed, ResultRecorded, ClockReadingRecorded}
    game = world.game("1.1")
    assert game is not None and game.result == "1-0" and game.termination == "imported"


def test_a_game_already_recorded_is_refused(world: World) -> None:
    paired_tournament(world)  # type: ignore[arg-type]
    ok(world, sheet_command(world))  # type: ignore[arg-type]
    message = refused(world, sheet_command(world), "malformed_command")  # type: ignore[arg-type]
    assert "game 1.1 is already recorded" in message


def test_art_3_4_a_sheet_must_be_a_pairing_of_its_round(world: World) -> None:
    paired_tournament(world)  # type: ignore[arg-type]
    cmd = sheet_command(world)
    swapped = {**cmd, "white": cmd["black"], "black": cmd["white"]}
    message = refused(world, swapped, "malformed_command")  # type: ignore[arg-type]
    assert "round 1 of 'london-2013' does not pair them so" in message
    stranger = refused(world, {**cmd, "white": "nobody"}, "malformed_command")  # type: ignore[arg-type]
    assert "'nobody' not a player of 'london-2013'" in stranger
    late = {**cmd, "game": "15.1", "round": 15}
    assert "round 15 is not a round" in refused(world, late, "malformed_command")  # type: ignore[arg-type]


def test_an_illegal_move_names_the_game_and_appends_nothing(world: World) -> None:
    paired_tournament(world)  # type: ignore[arg-type]
    cmd = sheet_command(world, moves=["e4", "e5", "Ke3"])
    message = refused(world, cmd, "illegal_move")  # type: ignore[arg-type]
    assert message.startswith("game 1.1 (") and "illegal move 'Ke3' at ply 3" in message


def test_lists_of_the_wrong_kind_are_refused_by_name(world: World) -> None:
    cmd = {
        "cmd": "record_score_sheet",
        "game": "g1",
        "round": 1,
        "board": 1,
        "white": "a",
        "black": "b",
        "result": "*",
        "at": T0,
    }
    message = refused(world, {**cmd, "moves": ["e4", 5]}, "malformed_command")  # type: ignore[arg-type]
    assert "'moves' must be a list of moves" in message
    bad_clock = {**cmd, "moves": ["e4"], "clocks_ms": ["1:59:00"]}
    assert "'clocks_ms'" in refused(world, bad_clock, "malformed_command")  # type: ignore[arg-type]
    short = {**cmd, "moves": ["e4", "e5"], "clocks_ms": [7_199_000]}
    assert "1 entries in 'clocks_ms' for 2 moves" in refused(world, short, "malformed_command")  # type: ignore[arg-type]
    no_position = {**cmd, "moves": [], "initial_fen": "not a fen"}
    assert "is not a position" in refused(world, no_position, "malformed_command")  # type: ignore[arg-type]
    # Outside a tournament the game follows the rules given (or the default profile).
    events = ok(world, {**cmd, "moves": ["e4"], "rules": "fide-2023"})  # type: ignore[arg-type]
    assert [e["type"] for e in events] == ["GameStarted", "MovePlayed"]
    started = world.stream("game/g1")[0]
    assert isinstance(started, GameStarted) and started.rules == "fide-2023"


def create(tournament: str = "t-2013") -> dict[str, Any]:
    return {
        "cmd": "create_tournament",
        "tournament": tournament,
        "name": "T",
        "start_date": "2013-03-13",
        "cycles": 2,
        "players": PLAYERS_2013,
    }


def test_execute_all_appends_every_command_or_none(sqlite_store: Store) -> None:
    """On the store and on the in-memory world alike."""
    for target in (sqlite_store, World()):
        all_or_nothing(target)  # type: ignore[arg-type]


def all_or_nothing(target: Store) -> None:
    lots = {"cmd": "draw_lots", "tournament": "t-2013", "numbers": {"carlsen": 9}}
    try:
        target.execute_all([create(), lots])
    except CommandRefused as refusal:
        assert refusal.code == "malformed_command"
    else:
        raise AssertionError("draw_lots with a number out of range was accepted")
    assert target.cache.count() == 0 and target.reads.tournament() is None
    numbers = {p["id"]: i for i, p in enumerate(PLAYERS_2013, start=1)}
    decided = target.execute_all([create(), {**lots, "numbers": numbers}])
    assert [c.cmd for c, _ in decided] == ["create_tournament", "draw_lots"]
    assert target.cache.count() == sum(len(events) for _, events in decided)
    tournament = target.reads.tournament()
    assert tournament is not None and tournament.numbers == numbers
