"""The position cache (engine/game/state.py) is shared by threads: the gateway reads
positions while commands are decided. No board in it may be changed once cached."""

from __future__ import annotations

import sys
import threading

import chess

from engine.game.state import Game, position, position_fen
from tests.helpers import at, ok, paired_tournament
from tests.test_scenario_full_event import LONDON_2013_R10_GRISCHUK_KRAMNIK as MOVES
from tests.world import World


def expected_fens() -> list[str]:
    board, fens = chess.Board(), [chess.Board().fen()]
    for san in MOVES:
        board.push_san(san)
        fens.append(board.fen())
    return fens


def test_a_reader_thread_never_sees_a_position_a_decision_is_building() -> None:
    fens = expected_fens()
    seen: list[Game] = []
    wrong: list[str] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            for game in seen[-3:]:
                for fen in (position_fen(game), position(game).fen()):
                    if fen != fens[game.ply]:
                        wrong.append(f"ply {game.ply}: {fen} instead of {fens[game.ply]}")
                if position(game).ply() != game.ply:
                    wrong.append(f"ply {game.ply}: a board with another move stack")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    reader = threading.Thread(target=read)
    reader.start()
    try:
        for round_no in range(1, 8):
            world = World()
            paired_tournament(world)
            game_id = f"{round_no}.1"
            ok(world, {"cmd": "start_game", "game": game_id, "at": at(0)})
            for ply, san in enumerate(MOVES, start=1):
                before = world.game(game_id)
                assert before is not None
                seen.append(before)
                ok(world, {"cmd": "play_move", "game": game_id, "move": san, "at": at(ply)})
    finally:
        done.set()
        reader.join()
        sys.setswitchinterval(interval)
    assert wrong == []
