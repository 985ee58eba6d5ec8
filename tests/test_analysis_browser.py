"""The commentators' board in a real browser (headless Chromium): an evaluation bar and the
best line under each board, the opening's name, mistakes marked on the move list, and a
game's time chart with both players and the controls at moves 40 and 60; at 1280 and at
420 px wide. Screenshots under ``test-output/``.

Real parts: the 2013 round 1 games played into a store with a move every few minutes,
Stockfish within a small node budget (skipped without it), the gateway, Chromium.
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import chess.pgn
import pytest

from adapters.analysis.service import Analyser
from adapters.analysis.uci import Budget, find_engine
from adapters.store import Store
from engine.timefmt import format_instant
from tests.gateway_support import COMMENTATOR_TOKEN, RunningGateway
from tests.helpers import ok, paired_tournament
from tests.test_gateway_browser import CHROMIUM, OUTPUT, Browser

ENGINE = find_engine()
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make browser)"),
    pytest.mark.skipif(ENGINE is None, reason="Stockfish is not installed (make stockfish)"),
]
GAMES_2013 = Path("/work/shared/data/candidates-2013.pgn")
TINY = Budget(nodes=5_000, movetime_ms=None, nice=0, idle=False, duty=1.0)


def round_one(limit_plies: int = 60) -> dict[str, list[str]]:
    """The SAN moves of the 2013 round 1 games (board -> moves), at most ``limit_plies``."""
    text = GAMES_2013.read_text(encoding="utf-8") if GAMES_2013.exists() else ""
    found: dict[str, list[str]] = {}
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None:
        round_no, _, board = game.headers.get("Round", "").partition(".")
        if round_no == "1":
            found[board] = [n.san() for n in game.mainline()][:limit_plies]
    return found


@pytest.fixture(scope="module")
def commentated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """Round 1 in progress since four hours ago: a move every 30 s to 4.5 min (the time
    use differs move by move), every position evaluated. Made once for the module's
    tests, which only read it (each through a gateway of its own)."""
    games = round_one()
    if not games:
        pytest.skip(f"{GAMES_2013} is not here")
    with Store(str(tmp_path_factory.mktemp("commentated") / "store.sqlite")) as store:
        yield _commentate(store, games)


def _commentate(sqlite_store: Store, games: dict[str, list[str]]) -> Store:
    paired_tournament(sqlite_store)
    start_ms = (sqlite_store_now_ms() - 4 * 3600_000) // 1000 * 1000
    for board, moves in sorted(games.items()):
        gid = f"1.{board}"
        at = start_ms
        ok(sqlite_store, {"cmd": "start_game", "game": gid, "at": format_instant(at)})
        for ply, san in enumerate(moves[:-1], start=1):
            at += 30_000 + (ply * 37_000 + int(board) * 11_000) % 240_000
            ok(
                sqlite_store,
                {"cmd": "play_move", "game": gid, "move": san, "at": format_instant(at)},
            )
    Analyser(sqlite_store.url, TINY, ENGINE, until_idle=True).run(threading.Event())
    return sqlite_store


def sqlite_store_now_ms() -> int:
    return time.time_ns() // 1_000_000


BARS = "document.querySelectorAll('.card .evalbar:not(.empty)').length"


@pytest.mark.parametrize("phone", [False, True], ids=["1280px", "420px"])
def test_evaluation_bars_best_lines_and_openings_on_every_board(
    commentated: Store, phone: bool
) -> None:
    with RunningGateway(commentated.url, public_delay_s=900) as gw:
        browser = Browser(gw.http + f"/#token={COMMENTATOR_TOKEN}", phone=phone)
        try:
            assert browser.wait_for(f"{BARS} === 4 && {BARS}", timeout=20) == 4
            lines = browser.js(
                "[...document.querySelectorAll('.bestline')].map(e => e.textContent)"
            )
            assert len(lines) == 4 and all("depth" in line for line in lines)
            openings = browser.js(
                "[...document.querySelectorAll('.card .opening')].map(e => e.textContent)"
            )
            assert len(openings) == 4
            assert any(o.startswith("E11 Bogo-Indian Defense") for o in openings), openings
            share = browser.js(
                "document.querySelector('.card[data-game=\"1.1\"] .white-share').style.height"
            )
            assert share.endswith("%") and 0 < float(share[:-1]) < 100
            # 3.7: 56 games left are 3^56 combinations, written as people read them
            # the panel shows a placeholder until the needs frame comes: wait for its method
            method = browser.wait_for(
                "document.querySelector('#needs .needs-bars') && "
                "document.querySelector('#needs p').textContent",
                timeout=30,
            )
            assert "of the 5.2 × 10²⁶ combinations" in method and "e+" not in method, method
            if phone:  # nothing is clipped at phone width
                wide = browser.js("document.documentElement.scrollWidth")
                assert wide <= 420, f"the page is {wide} px wide on a 420 px phone"
            name = "analysis-boards-420.png" if phone else "analysis-boards-1280.png"
            browser.screenshot(OUTPUT / name)
            assert (OUTPUT / name).stat().st_size > 10_000
        finally:
            browser.close()


@pytest.mark.parametrize("phone", [False, True], ids=["1280px", "420px"])
def test_the_game_page_charts_time_use_with_the_controls_marked(
    commentated: Store, phone: bool
) -> None:
    with RunningGateway(commentated.url, public_delay_s=900) as gw:
        browser = Browser(gw.http + f"/game/1.2#token={COMMENTATOR_TOKEN}", phone=phone)
        try:
            browser.wait_for("document.querySelectorAll('.timechart polyline.left').length === 2")
            controls = browser.js(
                "[...document.querySelectorAll('.timechart .control-label')]"
                ".map(e => e.textContent)"
            )
            assert controls == ["move 40", "move 60"]
            bars = browser.js("document.querySelectorAll('.timechart rect.spent').length")
            assert bars == len(round_one()["2"]) - 1  # one bar per move played
            browser.wait_for("!!document.querySelector('.card .evalbar:not(.empty)')")
            if phone:
                wide = browser.js("document.documentElement.scrollWidth")
                assert wide <= 420, f"the page is {wide} px wide on a 420 px phone"
            name = "analysis-game-420.png" if phone else "analysis-game-1280.png"
            if phone:
                browser.js("document.querySelector('.timechart').scrollIntoView()")
            browser.screenshot(OUTPUT / name)
            assert (OUTPUT / name).stat().st_size > 10_000
        finally:
            browser.close()
