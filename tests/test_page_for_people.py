"""The live page as people read it, in real headless Chromium at 1280 and 420 px.

A board card follows its game (the move list scrolled to the last move), names are never
cut ("Vidit, Santosh Gujrathi", "Nepomniachtchi, Ian", "Gukesh D"), a board is at least
240 px wide at 1280, the game page lists the moves once, and the standings say what they
are: "Round 1 in progress", "Final", "Playoff". Screenshots go to ``test-output/`` and,
when ``CANDIDATES_SHOTS`` names a folder, there too.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import chess.pgn
import pytest

from adapters.formats.pgn_import import import_pgn
from adapters.store import Store
from tests.gateway_support import COMMENTATOR_TOKEN, RunningGateway, now_at
from tests.helpers import ARBITERS, ok
from tests.test_gateway_browser import CHROMIUM, OUTPUT, PHONE_WIDTH, Browser, card
from tests.tournament_helpers import all_draws, event, play_rounds

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make browser)")

PGN_2013 = Path(__file__).resolve().parents[1] / "replay_logs" / "sources" / "candidates-2013.pgn"
FIELD = [
    ("vidit", "Vidit, Santosh Gujrathi"),
    ("nepo", "Nepomniachtchi, Ian"),
    ("gukesh", "Gukesh D"),
    ("pragg", "Praggnanandhaa R"),
    ("caruana", "Caruana, Fabiano"),
    ("nakamura", "Nakamura, Hikaru"),
    ("abasov", "Abasov, Nijat"),
    ("firouzja", "Firouzja, Alireza"),
]


def shot(browser: Browser, name: str) -> Path:
    path = OUTPUT / name
    browser.screenshot(path)
    assert path.stat().st_size > 10_000
    extra = os.environ.get("CANDIDATES_SHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / name)
    return path


def long_game() -> list[str]:
    """The moves of the 2013 event's longest game: a card must follow it to its end."""
    with PGN_2013.open(encoding="utf-8") as handle:
        games = []
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    longest = max(games, key=lambda g: len(list(g.mainline_moves())))
    board = longest.board()
    out = []
    for move in longest.mainline_moves():
        out.append(board.san(move))
        board.push(move)
    return out


@pytest.fixture
def broadcast(sqlite_store: Store) -> tuple[Store, list[str]]:
    """A field written as broadcasts write it; game 1.1 at its 60th-odd move, 1.2 started."""
    ok(
        sqlite_store,
        {
            "cmd": "create_tournament",
            "tournament": "t",
            "name": "Candidates as broadcast",
            "start_date": "2013-03-13",
            "cycles": 2,
            "players": [
                {"id": pid, "name": name, "federation": "FID", "rating": 2760 - 5 * i}
                for i, (pid, name) in enumerate(FIELD)
            ],
            "arbiters": ARBITERS,
        },
    )
    numbers = {pid: i for i, (pid, _) in enumerate(FIELD, start=1)}
    ok(sqlite_store, {"cmd": "draw_lots", "tournament": "t", "numbers": numbers})
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": now_at()})
    moves = long_game()[:121]
    for n, move in enumerate(moves):
        ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": move, "at": now_at(n * 0.001)})
    for game in ("1.2", "1.3", "1.4"):
        ok(sqlite_store, {"cmd": "start_game", "game": game, "at": now_at()})
    return sqlite_store, moves


UNCUT = """[...document.querySelectorAll('.card .name, #standings td, #needs .name')]
  .filter(e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1
            || getComputedStyle(e).textOverflow === 'ellipsis')
  .map(e => e.textContent)"""


def last_move_shown(game: str) -> str:
    """The card's last listed move, when the list is scrolled so that it shows."""
    listed = card(game, ".movelist")
    return f"""(() => {{
      const list = {listed};
      const last = list && list.querySelector('span.last');
      if (!last) return '';
      const a = list.getBoundingClientRect(), b = last.getBoundingClientRect();
      const middle = (b.top + b.bottom) / 2;  // the move's line shows in the list's box
      return middle > a.top && middle < a.bottom ? last.textContent : '';
    }})()"""


@pytest.mark.parametrize("width", [1280, PHONE_WIDTH])
def test_the_card_follows_the_game_names_are_whole_and_the_label_says_in_progress(
    broadcast: tuple[Store, list[str]], width: int
) -> None:
    store, moves = broadcast
    with RunningGateway(store.url, public_delay_s=0) as gw:
        browser = Browser(gw.http + "/", phone=width == PHONE_WIDTH)
        try:
            browser.wait_for(f"innerWidth === {width} && document.readyState === 'complete'")
            # the card's list is scrolled to the last move, which is marked
            assert browser.wait_for(last_move_shown("1.1")) == moves[-1]
            assert browser.js(f"{card('1.1', '.last-move')}.textContent") == f"61. {moves[-1]}"
            # a move made now: the list follows it
            board = chess.Board()
            for move in moves:
                board.push_san(move)
            reply = board.san(next(iter(board.legal_moves)))
            ok(store, {"cmd": "play_move", "game": "1.1", "move": reply, "at": now_at()})
            assert browser.wait_for(f"{last_move_shown('1.1')} === {json.dumps(reply)}")
            # names whole, as the source writes them
            names = browser.wait_for(
                "[...document.querySelectorAll('.card .name')].map(e => e.textContent)"
                ".join('|').includes('Vidit') && "
                "[...document.querySelectorAll('.card .name')].map(e => e.textContent)"
            )
            assert {"Vidit, Santosh Gujrathi", "Nepomniachtchi, Ian", "Gukesh D"} <= set(names)
            browser.wait_for("!!document.querySelector('#standings table')")
            assert browser.js(UNCUT) == []
            label = browser.wait_for("document.querySelector('#standings .state')?.textContent")
            assert label == "Round 1 in progress; no game has finished yet"
            # a game of the round ends: the table counts it, and says so
            ok(store, {"cmd": "resign", "game": "1.2", "by": "white", "at": now_at()})
            label = browser.wait_for(
                "document.querySelector('#standings .state')?.textContent.includes('include') "
                "&& document.querySelector('#standings .state').textContent"
            )
            assert label == (
                "Round 1 in progress; the points include the games of round 1 already finished"
            )
            if width == 1280:
                size = browser.js(f"{card('1.1', '.board')}.getBoundingClientRect().width")
                assert size >= 240, size
                four = browser.js(
                    "[...document.querySelectorAll('.card')].map(c => "
                    "Math.round(c.getBoundingClientRect().top))"
                )
                assert len(set(four)) == 1  # the round's four boards side by side
            assert browser.js("document.documentElement.scrollWidth") <= width
            browser.js("window.scrollTo(0, 0)")
            shot(browser, f"page-boards-{width}.png")
        finally:
            browser.close()


def test_the_game_page_lists_the_moves_once_and_follows_the_last(
    broadcast: tuple[Store, list[str]],
) -> None:
    store, moves = broadcast
    with RunningGateway(store.url, public_delay_s=0) as gw:
        browser = Browser(gw.http + "/game/1.1")
        try:
            count = browser.wait_for("document.querySelectorAll('#moves li').length")
            assert count == (len(moves) + 1) // 2
            assert browser.js("document.querySelectorAll('.movelist, ol').length") == 1
            assert browser.js("document.querySelector('#moves span.last').textContent") == moves[-1]
            visible = """(() => { const l = document.getElementById('moves');
              const a = l.getBoundingClientRect(), b = l.querySelector('span.last')
                .getBoundingClientRect(); const m = (b.top + b.bottom) / 2;
              return m > a.top && m < a.bottom; })()"""
            assert browser.wait_for(visible)
            shot(browser, "page-game-1280.png")
        finally:
            browser.close()


def test_the_standings_say_final_after_the_last_round(tmp_path: Path) -> None:
    with Store(str(tmp_path / "london.sqlite")) as store:
        import_pgn(store, PGN_2013)
        url = store.url
    with RunningGateway(url, public_delay_s=0) as gw:
        browser = Browser(gw.http + "/")
        try:
            label = browser.wait_for("document.querySelector('#standings .state')?.textContent")
            assert label == "Final, after round 14 of 14"
            text = browser.js("document.getElementById('standings').textContent")
            assert "No playoff needed so far" not in text
            assert browser.js(UNCUT) == []
            browser.js("document.getElementById('standings').scrollIntoView()")
            shot(browser, "page-standings-final-1280.png")
        finally:
            browser.close()


def test_the_standings_say_playoff_when_first_place_goes_to_tie_break_games(
    sqlite_store: Store,
) -> None:
    event(sqlite_store, ["alpha", "beta", "gamma", "delta"])
    play_rounds(sqlite_store, all_draws)
    with RunningGateway(sqlite_store.url, public_delay_s=0) as gw:
        browser = Browser(gw.http + "/", phone=True)
        try:
            label = browser.wait_for("document.querySelector('#standings .state')?.textContent")
            assert label.startswith("Playoff"), label
            assert browser.js("document.querySelector('#standings .state').dataset.state") == (
                "playoff"
            )
            browser.js("document.getElementById('standings').scrollIntoView()")
            shot(browser, f"page-standings-playoff-{PHONE_WIDTH}.png")
        finally:
            browser.close()


CONTROLS = "document.querySelectorAll('a, button, select, input, textarea, nav').length"


def sized(browser: Browser, width: int, height: int) -> None:
    """A screen of ``width`` x ``height`` CSS pixels (a venue screen, a stream's source)."""
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        width=width,
        height=height,
        deviceScaleFactor=1,
        mobile=False,
    )
    browser.call("Page.reload")
    browser.wait_for(f"innerWidth === {width} && innerHeight === {height}")


@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (1280, 720)])
def test_the_hall_display_shows_one_board_large_the_four_the_standings_and_the_ticker(
    broadcast: tuple[Store, list[str]], width: int, height: int
) -> None:
    store, moves = broadcast
    with RunningGateway(store.url, public_delay_s=0) as gw:
        browser = Browser(gw.http + "/display?board=1")
        try:
            sized(browser, width, height)
            last = browser.wait_for(
                "document.querySelector('#featured .lastmoves .san.last')?.textContent"
            )
            assert last == moves[-1]
            shown = browser.js("document.querySelectorAll('#featured .lastmoves .san').length")
            assert shown == 10  # the last ten moves
            assert browser.js(CONTROLS) == 0  # no controls on a hall screen
            assert browser.js("document.querySelectorAll('#four .mini').length") == 4
            big = browser.js("document.querySelector('#featured .board').getBoundingClientRect()"
                             ".width")  # fmt: skip
            assert big >= 0.5 * height
            assert browser.js("document.querySelector('#featured .evalbar') !== null")
            clocks = browser.js(
                "[...document.querySelectorAll('#featured .clock')].map(c => c.textContent)"
            )
            assert len(clocks) == 2 and all(":" in c for c in clocks)
            rows = browser.wait_for(
                "document.querySelectorAll('#display-standings tbody tr').length"
            )
            assert rows == 8
            ticker = browser.wait_for("document.getElementById('ticker').textContent")
            assert "to finish first" in ticker or "finishes first" in ticker
            shot(browser, f"display-{width}x{height}.png")
            # the whole screen, nothing to scroll, no name cut
            assert browser.js("document.documentElement.scrollHeight") <= height
            assert browser.js("document.documentElement.scrollWidth") <= width
            assert (
                browser.js(
                    "[...document.querySelectorAll('.dplayer .name')]"
                    ".filter(e => e.scrollWidth > e.clientWidth + 1).length"
                )
                == 0
            )
            # the URL chooses the board shown large
            browser.call("Page.navigate", url=gw.http + "/display?board=2")
            browser.wait_for("document.querySelector('#featured .head')?.textContent === 'Board 2'")
            assert browser.js("document.getElementById('featured').dataset.game") == "1.2"
        finally:
            browser.close()


def test_the_hall_display_is_the_publics_even_with_a_token_in_its_url(
    broadcast: tuple[Store, list[str]],
) -> None:
    """A venue screen never shows more than the delay allows: /display takes no token."""
    store, moves = broadcast
    with RunningGateway(store.url, public_delay_s=900) as gw:
        studio = Browser(gw.http + f"/#token={COMMENTATOR_TOKEN}")
        hall = Browser(gw.http + f"/display#token={COMMENTATOR_TOKEN}")
        try:
            assert browser_text(studio, "#status").startswith("commentator")
            assert studio.wait_for(f"{card('1.1', '.last-move')}?.textContent") == (
                f"61. {moves[-1]}"
            )
            assert browser_text(hall, "#status").startswith("public view")
            assert hall.js("document.querySelectorAll('.lastmoves .san').length") == 0
            assert "61." not in hall.js("document.body.innerText")
        finally:
            studio.close()
            hall.close()


def browser_text(browser: Browser, selector: str) -> str:
    found = browser.wait_for(
        f"document.querySelector({json.dumps(selector)})?.textContent.includes(': live') && "
        f"document.querySelector({json.dumps(selector)}).textContent"
    )
    return str(found)


def test_the_demos_printed_urls_open_the_desk_the_commentators_page_and_the_display(
    tmp_path: Path,
) -> None:
    """``candidates demo`` as ``make demo`` runs it: each printed URL opens its side."""
    from tests.test_demo import _demo, _read_until, _urls

    proc = _demo(tmp_path, "--round-seconds", "60")
    try:
        urls = _urls(_read_until(proc, "they are shown only here"))
        desk = Browser(urls["Arbiters' desk"])
        try:
            status = desk.wait_for(
                "document.getElementById('status').textContent.includes('arbiter') && "
                "document.getElementById('status').textContent"
            )
            assert "Demo Chief Arbiter" in status
            desk.wait_for("document.querySelectorAll('#boards .card').length > 0")
            shot(desk, "demo-arbiters-desk-1280.png")
        finally:
            desk.close()
        studio = Browser(urls["Commentators"])
        try:
            assert "commentator" in studio.wait_for(
                "document.getElementById('status').textContent.includes(': live') && "
                "document.getElementById('status').textContent"
            )
            studio.wait_for("document.querySelectorAll('#boards .card .movelist li').length > 4")
            shot(studio, "demo-commentator-1280.png")
        finally:
            studio.close()
        hall = Browser(urls["Hall display"])
        try:
            sized(hall, 1920, 1080)
            hall.wait_for("document.querySelectorAll('#featured .lastmoves .san').length > 4")
            # what each player needs crawls along the bottom once the gateway has it
            assert "finish" in hall.wait_for(
                "document.getElementById('ticker').textContent", timeout=120
            )
            assert hall.js(CONTROLS) == 0
            shot(hall, "demo-display-1920x1080.png")
        finally:
            hall.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
