"""An evaluation says which position it is for, and is never shown as the current one.

- The PGN writes ``[%eval]`` only under the move whose position was evaluated: an
  evaluation of another position at that ply (the moves were corrected since) is left out.
- The page: when the board has moved on and the newest evaluation is of an older
  position, the best line says which position it is for and how many plies behind the
  board it is, and the evaluation bar is marked (real headless Chromium).
"""

from __future__ import annotations

import json
import threading

import chess
import pytest

from adapters.analysis.service import Analyser
from adapters.analysis.uci import Budget, find_engine
from adapters.cli import main
from adapters.store import Store
from projections.pgn import game_pgn, same_position
from tests.gateway_support import COMMENTATOR_TOKEN, RunningGateway, now_at
from tests.helpers import ok, paired_tournament
from tests.test_gateway_browser import CHROMIUM, Browser, card


def fen_after(*moves: str) -> str:
    board = chess.Board()
    for move in moves:
        board.push_san(move)
    return board.fen()


def test_the_pgn_writes_an_evaluation_only_under_the_position_it_is_for(
    sqlite_store: Store,
) -> None:
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": now_at(-60)})
    for n, move in enumerate(["e4", "e5", "Nf3"]):
        ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": move, "at": now_at(n - 50)})
    game = sqlite_store.reads.game("1.1")
    assert game is not None
    evals = {
        1: (30, None, fen_after("e4")),
        2: (25, None, fen_after("d4", "d5")),  # another position at ply 2: not this game's
        3: (40, None, fen_after("e4", "e5", "Nf3")),
    }
    text = game_pgn(game, sqlite_store.reads.tournament(), evals=evals)
    assert "1. e4 { [%eval 0.30] } 1... e5 2. Nf3 { [%eval 0.40] }" in text
    assert text.count("[%eval") == 2
    assert same_position(fen_after("e4"), fen_after("e4").replace(" 0 1", " 5 9"))


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make browser)")
def test_the_page_marks_an_older_positions_evaluation_with_the_move_it_is_for(
    sqlite_store: Store,
) -> None:
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": now_at(-60)})
    moves = ["e4", "e5", "Nf3", "Nc6"]
    for n, move in enumerate(moves):
        ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": move, "at": now_at(n - 50)})
    with RunningGateway(sqlite_store.url, public_delay_s=0) as gw:
        browser = Browser(gw.http + f"/#token={COMMENTATOR_TOKEN}")
        try:
            browser.wait_for(f"{card('1.1', '.last-move')}?.textContent === '2… Nc6'")
            frame = {
                "op": "analysis",
                "game": "1.1",
                "ply": 2,
                "fen": fen_after("e4", "e5"),
                "score": {"cp": 35, "mate": None},
                "wdl": [300, 600, 100],
                "pv": ["Nf3", "Nc6", "Bb5"],
                "depth": 18,
            }
            browser.js(f"window.Commentary.take({json.dumps(frame)}, null)")
            # the next move redraws the board: the evaluation is of the position 3 plies back
            ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": "Bb5", "at": now_at()})
            age = browser.wait_for(
                f"{card('1.1', '.bestline .age')}?.textContent.includes('3 plies') && "
                f"{card('1.1', '.bestline .age')}.textContent"
            )
            assert age.startswith("for the position after 1… e5, 3 plies behind the board")
            assert browser.js(f"{card('1.1', '.evalbar')}.classList.contains('stale')")
            assert browser.js(f"{card('1.1', '.bestline')}.dataset.ply") == "2"
            # the bar is readable at a glance: wide enough for its figure, written in it
            bar = browser.js(f"{card('1.1', '.evalbar')}.getBoundingClientRect().width")
            assert bar >= 20, bar
            assert browser.js(f"{card('1.1', '.evalbar .eval-label')}.textContent") == "+0.35"
            size = browser.js(
                f"parseFloat(getComputedStyle({card('1.1', '.evalbar .eval-label')}).fontSize)"
            )
            assert size >= 10, size
            # the best line in full: nothing of it cut
            line = card("1.1", ".bestline")
            assert browser.js(f"{line}.scrollWidth <= {line}.clientWidth + 1")
            assert "2. Nf3 Nc6 3. Bb5" in browser.js(f"{line}.textContent").replace("…", "...")
            # the evaluation of the current position replaces it, unmarked
            current = {**frame, "ply": 5, "fen": fen_after(*moves, "Bb5"), "pv": ["a6"]}
            browser.js(f"window.Commentary.take({json.dumps(current)}, null)")
            ok(
                sqlite_store,
                {"cmd": "adjust_clock", "game": "1.1", "side": "white", "delta_ms": 1000,
                 "reason": "redraw", "arbiter": "chief", "at": now_at()},
            )  # fmt: skip
            browser.wait_for(f"{card('1.1', '.bestline')}?.dataset.ply === '5'")
            assert browser.js(f"{card('1.1', '.bestline .age')}") is None
            assert not browser.js(f"{card('1.1', '.evalbar')}.classList.contains('stale')")
        finally:
            browser.close()


class RestsTaken(threading.Event):
    """A stop event that records each rest the analysis asks of it (never set here)."""

    def __init__(self) -> None:
        super().__init__()
        self.rests: list[float] = []

    def wait(self, timeout: float | None = None) -> bool:
        if timeout is not None:
            self.rests.append(timeout)
        return super().wait(0)


def test_the_engine_searches_a_quarter_of_the_time_by_default() -> None:
    budget = Budget()
    assert budget.duty == 0.25
    assert budget.rest_s(0.2) == pytest.approx(0.6)  # 200 ms of search, 600 ms of rest
    assert Budget(duty=1.0).rest_s(0.2) == 0
    assert "searching 25% of the time" in budget.describe()


@pytest.mark.skipif(find_engine() is None, reason="Stockfish is not installed (make stockfish)")
def test_the_analysis_rests_between_searches_for_its_duty(sqlite_store: Store) -> None:
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": now_at(-60)})
    for n, move in enumerate(["e4", "e5", "Nf3"]):
        ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": move, "at": now_at(n - 50)})
    budget = Budget(nodes=2_000, movetime_ms=None, nice=0, idle=False, duty=0.5)
    stop = RestsTaken()
    analyser = Analyser(sqlite_store.url, budget, find_engine(), until_idle=True)
    assert analyser.run(stop)
    assert analyser.counters.analysed >= 1
    # one rest after each search, as long as the search (duty 0.5): never none
    assert len(stop.rests) >= analyser.counters.analysed
    assert all(rest >= 0 for rest in stop.rests)


def test_the_command_line_refuses_a_duty_out_of_range(
    sqlite_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    for duty in ("0", "1.5", "-0.1"):
        assert main(["--store", sqlite_store.url, "analyse", "--duty", duty]) == 2
        err = capsys.readouterr().err
        assert err.splitlines() == [
            "candidates analyse: --duty must be over 0 and at most 1 (1: no rest)"
        ], err
