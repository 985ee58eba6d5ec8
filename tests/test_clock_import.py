"""[%clk] in PGN: export after every move, import back, the recorded clock of ten
World Championship games at the 3.5.1 control next to the regulation clock."""

from __future__ import annotations

from pathlib import Path

import chess.pgn

from adapters.formats.event_export import game_pgn_text
from adapters.formats.pgn_import import import_pgn
from adapters.store import Store
from adapters.store.queries import game_clock_report, game_object
from tests.helpers import at, ok, paired_tournament
from tests.world import World

DATA = Path(__file__).parent / "data"
CLOCKED = DATA / "clocked-games.pgn"
CANDIDATES_2013 = Path(__file__).parent.parent / "replay_logs" / "sources" / "candidates-2013.pgn"


def test_3_5_1_recorded_clocks_agree_with_the_regulation_clock_at_every_ply(
    world: World,
) -> None:
    reports = import_pgn(world, CLOCKED)
    assert [r.status for r in reports] == ["imported"] * 10
    for report in reports:
        assert report.clock is not None
        assert report.clock["mismatches"] == 0
        rows = game_clock_report(world, report.game)
        assert len(rows) == report.clock["plies"] == world.game(report.game).ply
        for row in rows:
            if row["status"] != "agrees":
                assert row["status"] == "artefact"
                assert row["kind"] == "increment_on_control_move"


def test_3_5_1_the_30_s_shown_on_move_60_itself_is_recognised_as_the_device_rule(
    world: World,
) -> None:
    reports = {r.game: r for r in import_pgn(world, CLOCKED)}
    # Nepomniachtchi - Ding, Astana, 21 April 2023: both clocks show the 30 s on move 60.
    [game] = [g for g, r in reports.items() if r.clock and r.clock.get("device_rule")]
    assert world.game(game).white == "nepomniachtchi"
    assert reports[game].clock is not None
    assert reports[game].clock["device_rule"] == "increment_on_control_move"
    assert any("follows that device's rule" in w for w in reports[game].warnings)
    # The regulation clock follows the device: every ply agrees, before and after move 60.
    rows = game_clock_report(world, game)
    assert {r["status"] for r in rows} == {"agrees"} and max(r["move"] for r in rows) > 60
    # Of the three games past move 60, only this one shows it.
    long_games = [g for g, r in reports.items() if world.game(g).ply > 120]
    assert len(long_games) == 3


def test_3_5_1_recorded_bonus_at_move_40_matches_the_regulation(world: World) -> None:
    import_pgn(world, CLOCKED)
    rows = game_clock_report(world, "1.1")  # Nepomniachtchi - Carlsen, Dubai 2021
    move_40 = next(r for r in rows if r["move"] == 40 and r["side"] == "white")
    assert move_40["recorded_ms"] == move_40["regulation_ms"] == (1 * 3600 + 14 * 60 + 54) * 1000


def test_pgn_export_writes_clk_after_every_move_and_reads_back(
    world: World, tmp_path: Path
) -> None:
    paired_tournament(world)
    ok(world, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    for i, move in enumerate(["e4", "e5", "Nf3", "Nc6"], start=1):
        ok(world, {"cmd": "play_move", "game": "1.1", "move": move, "at": at(i * 61.5)})
    text = game_pgn_text(world, "1.1")
    assert "1. e4 { [%clk 1:58:58.5] } 1... e5 { [%clk 1:58:58.5] }" in text
    assert '[Round "1"]' in text and '[Board "1"]' in text
    path = tmp_path / "one.pgn"
    path.write_text(text.replace('[Round "1"]', '[Round "3"]'))
    with Store(str(tmp_path / "other.sqlite")) as other:
        import_pgn(other, path)
        exported = game_object(world, "1.1")["clock"]
        imported = game_object(other.reads, "3.1")["clock"]
        assert (imported["white_ms"], imported["black_ms"]) == (
            exported["white_ms"],
            exported["black_ms"],
        )
        with open(path) as handle:
            game = chess.pgn.read_game(handle)
        assert [n.clock() for n in game.mainline()] == [7138.5, 7138.5, 7077.0, 7077.0]


def test_games_without_clock_comments_have_an_unknown_clock_and_never_flag(
    world: World,
) -> None:
    reports = import_pgn(world, CANDIDATES_2013)
    assert all(r.clock is None for r in reports)
    unfinished = next((g for g in world.game_ids() if world.game(g).status == "in_progress"), None)
    game = world.game("1.1")
    assert game.clock is None
    assert game_object(world, "1.1")["clock"]["known"] is False
    assert ok(world, {"cmd": "check_flags", "games": ["1.1"], "at": at(10**7)}) == []
    assert unfinished is None or world.game(unfinished).clock is None
