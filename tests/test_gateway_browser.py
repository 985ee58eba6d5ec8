"""The live page in a real browser: headless Chromium (Debian's ``chromium``).

The test starts the real gateway on a free loopback port, opens the page,
makes a move through the engine and watches it appear on the board, and the
clock of the side to move count down. Chromium is driven with the Chrome
DevTools Protocol over a websocket (the ``websockets`` library). A
screenshot is saved under ``test-output/``. ``make browser`` installs
Chromium; without it the tests are skipped and say so, except on CI (``CI`` set to
``true``), where a missing Chromium fails them: a browser that could not be installed
must not pass as a skip.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from adapters.store import Store
from adapters.store.queries import game_object
from tests.gateway_support import ARBITER_TOKEN, CHIEF_TOKEN, RunningGateway, now_at
from tests.helpers import ARBITERS, ok, paired_tournament

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
OUTPUT = Path(__file__).resolve().parents[1] / "test-output"
PHONE_WIDTH = 420

ON_CI = os.environ.get("CI", "").lower() == "true"


@pytest.fixture(autouse=True)
def chromium() -> str:
    """The browser: a skip without it on a developer's machine, a failure on CI."""
    if CHROMIUM is None:
        why = "chromium is not installed (make browser installs Debian's chromium)"
        if ON_CI:
            pytest.fail(f"{why}; on CI the browser tests must run")
        pytest.skip(why)
    return CHROMIUM


class Browser:
    """Headless Chromium with one page, driven over the DevTools protocol."""

    def __init__(self, url: str, phone: bool = False) -> None:
        self.profile = tempfile.mkdtemp(prefix="candidates-chromium-")
        self.proc = subprocess.Popen(
            [
                str(CHROMIUM),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                f"--user-data-dir={self.profile}",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--window-size=1280,1000",
                url,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.port = self._devtools_port()
        page = self._page_target()
        self.ws = connect(
            page["webSocketDebuggerUrl"], max_size=2**26, ping_interval=None
        ).__enter__()
        self.ids = itertools.count(1)
        if phone:  # a phone held upright: 420 CSS pixels wide, a touch screen
            self.call(
                "Emulation.setDeviceMetricsOverride",
                width=PHONE_WIDTH,
                height=900,
                deviceScaleFactor=1,
                mobile=True,
            )
            self.call("Page.reload")

    def _devtools_port(self) -> int:
        assert self.proc.stderr is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if match := re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line):
                # keep reading its log, so that a full pipe never stalls the browser
                threading.Thread(target=self.proc.stderr.read, daemon=True).start()
                return int(match.group(1))
            if not line and self.proc.poll() is not None:
                break
        raise RuntimeError("chromium did not open its DevTools port")

    def _page_target(self) -> dict[str, Any]:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list") as answer:
                pages = [t for t in json.load(answer) if t.get("type") == "page"]
            if pages:
                return pages[0]
            time.sleep(0.1)
        raise RuntimeError("chromium opened no page")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        call_id = next(self.ids)
        self.ws.send(json.dumps({"id": call_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=30))
            if message.get("id") == call_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def js(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 15.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"the page never showed {expression}")

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)


def card(game: str, inner: str) -> str:
    return f"document.querySelector('.card[data-game=\"{game}\"] {inner}')"


def piece_on(game: str, square: str) -> str:
    return f"({card(game, f'[data-square={square}] img')} || {{}}).dataset?.piece || ''"


@pytest.fixture
def live_game(sqlite_store: Store) -> Store:
    """Round 1 of the 2013 field, game 1.1 started now (its clocks run in real time)."""
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": now_at()})
    return sqlite_store


def test_a_move_made_through_the_engine_appears_on_the_page_and_the_clock_runs(
    live_game: Store,
) -> None:
    with RunningGateway(live_game.url, public_delay_s=0) as gw:
        browser = Browser(gw.http + "/")
        try:
            browser.wait_for(f"{piece_on('1.1', 'e2')} === 'P'")
            assert browser.js(piece_on("1.1", "e4")) == ""
            assert "public" in browser.wait_for("document.getElementById('status').textContent")

            ok(live_game, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": now_at()})

            browser.wait_for(f"{piece_on('1.1', 'e4')} === 'P'")
            assert browser.js(piece_on("1.1", "e2")) == ""
            assert browser.js(f"{card('1.1', '.last-move')}.textContent") == "1. e4"
            assert browser.js(f"{card('1.1', '[data-square=e4]')}.classList.contains('last')")

            clock = game_object(live_game.reads, "1.1")["clock"]
            assert clock["white_ms"] is not None and clock["running"] == "black", clock
            black = card("1.1", ".clock[data-side=black]")
            browser.wait_for(f"{black}.classList.contains('running')")
            first = browser.js(f"{black}.textContent")
            # the page counts down on its own: wait for the display to change (no timing)
            browser.wait_for(f"{black}.textContent !== {json.dumps(first)}")
            white = browser.js(f"{card('1.1', '.clock[data-side=white]')}.textContent")
            assert re.fullmatch(r"\d+:\d\d:\d\d", white), white
            browser.screenshot(OUTPUT / "gateway-live-page.png")
            assert (OUTPUT / "gateway-live-page.png").stat().st_size > 10_000
        finally:
            browser.close()


def test_the_game_page_lists_the_moves(live_game: Store) -> None:
    for n, move in enumerate(["d4", "Nf6", "c4", "e6"]):
        ok(live_game, {"cmd": "play_move", "game": "1.1", "move": move, "at": now_at(n * 0.01)})
    with RunningGateway(live_game.url, public_delay_s=0) as gw:
        browser = Browser(gw.http + "/game/1.1")
        try:
            text = browser.wait_for(
                "document.querySelectorAll('#moves li').length === 2 && "
                "document.getElementById('moves').innerText"
            )
            assert text.split() == ["d4", "Nf6", "c4", "e6"]
            browser.screenshot(OUTPUT / "gateway-game-page.png")
        finally:
            browser.close()


def test_the_arbiters_desk_shows_alerts_and_sends_commands(live_game: Store) -> None:
    with RunningGateway(live_game.url, public_delay_s=900) as gw:
        browser = Browser(gw.http + f"/arbiter#token={ARBITER_TOKEN}")
        try:
            browser.wait_for("document.getElementById('status').textContent.includes('arbiter')")
            move = json.dumps({"cmd": "play_move", "game": "1.1", "move": "Nf3", "at": now_at()})
            browser.js(f"document.getElementById('command-text').value = {json.dumps(move)}")
            browser.js("document.querySelector('#command button').click()")
            line = browser.wait_for("document.querySelector('#results li')?.textContent")
            assert "ok (MovePlayed)" in line
            # the arbiters see the move at once, whatever the public delay
            browser.wait_for(f"{piece_on('1.1', 'f3')} === 'N'")
            browser.screenshot(OUTPUT / "gateway-arbiter-page.png")
        finally:
            browser.close()


def test_3_9_2_b_the_chief_arbiter_rules_on_a_claim_from_the_desk(live_game: Store) -> None:
    claim = {
        "cmd": "claim_draw",
        "game": "1.1",
        "by": "white",
        "kind": "threefold_repetition",
        "at": now_at(),
    }
    ok(live_game, claim)
    with RunningGateway(live_game.url, public_delay_s=900) as gw:
        browser = Browser(gw.http + f"/arbiter#token={CHIEF_TOKEN}")
        try:
            row = "document.querySelector('#claims tr[data-claim]')"
            assert "threefold repetition" in browser.wait_for(f"{row}?.textContent")
            assert "claim_pending" in browser.wait_for(
                "document.querySelector('#alerts li')?.textContent"
            )
            browser.screenshot(OUTPUT / "gateway-arbiter-claim.png")
            reject = (
                "[...document.querySelectorAll('#claims button')]"
                ".find(b => b.textContent === 'Reject')"
            )
            browser.js(f"{reject}.click()")
            browser.wait_for("!document.querySelector('#claims tr[data-claim]')")
            line = browser.wait_for("document.querySelector('#results li')?.textContent")
            assert "ok (ClaimRuled" in line, line
            claims = game_object(live_game.reads, "1.1")["claims"]
            assert [c["status"] for c in claims] == ["rejected"]
            assert claims[0]["ruling"]["arbiter"] == "chief"
        finally:
            browser.close()


def test_two_tournaments_all_boards_and_the_tournament_switcher(sqlite_store: Store) -> None:
    """An Open and a Women's event in one store: the page shows both under their names
    ("All boards"), and the switcher narrows it to one tournament's boards and standings."""
    paired_tournament(sqlite_store)
    womens = [{"id": f"w{i}", "name": f"Player W{i}", "rating": 2500 - i} for i in range(1, 9)]
    ok(
        sqlite_store,
        {
            "cmd": "create_tournament",
            "tournament": "womens",
            "name": "Women's Candidates",
            "start_date": "2013-03-13",
            "players": womens,
        },
    )
    numbers = {p["id"]: i for i, p in enumerate(womens, start=1)}
    ok(sqlite_store, {"cmd": "draw_lots", "tournament": "womens", "numbers": numbers})
    for tid in ("london-2013", "womens"):
        ok(sqlite_store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": now_at()})
    with RunningGateway(sqlite_store.url, public_delay_s=0) as gw:
        browser = Browser(gw.http + "/")
        try:
            groups = (
                "[...document.querySelectorAll('.tournament-boards h3')].map(h => h.textContent)"
            )
            assert browser.wait_for(f"{groups}.length === 2 && {groups}") == [
                "FIDE Candidates Tournament 2013",
                "Women's Candidates",
            ]
            ok(
                sqlite_store,
                {
                    "cmd": "play_move",
                    "tournament": "womens",
                    "game": "1.1",
                    "move": "d4",
                    "at": now_at(),
                },
            )
            browser.wait_for(f"{piece_on('womens/1.1', 'd4')} === 'P'")
            assert browser.js(piece_on("1.1", "d4")) == ""  # the Open's 1.1 is another game
            standings = "document.querySelectorAll('.tournament-standings table').length"
            assert browser.wait_for(f"{standings} === 2")
            browser.screenshot(OUTPUT / "gateway-all-boards.png")
            browser.js(
                "const s = document.getElementById('tournament'); s.value = 'womens';"
                "s.dispatchEvent(new Event('change'))"
            )
            browser.wait_for(
                "document.querySelectorAll('.card').length > 0 && [...document.querySelectorAll"
                "('.card')].every(c => c.dataset.tournament === 'womens')"
            )
            assert "tournament=womens" in browser.js("location.search")
            names = browser.wait_for(
                "[...document.querySelectorAll('#standings td')]"
                ".map(td => td.textContent).join(' ')"
            )
            assert "Player W1" in names and "Carlsen" not in names
        finally:
            browser.close()


def choose(browser: Browser, tournament: str) -> None:
    """Choose a tournament in the page's switcher, as a person does."""
    browser.js(
        f"{{ const s = document.getElementById('tournament'); s.value = '{tournament}';"
        " s.dispatchEvent(new Event('change')); }"
    )


def womens_event(store: Store) -> None:
    """A Women's event next to the 2013 field (the store's first), the same arbiters."""
    womens = [{"id": f"w{i}", "name": f"Player W{i}", "rating": 2500 - i} for i in range(1, 9)]
    ok(
        store,
        {
            "cmd": "create_tournament",
            "tournament": "womens",
            "name": "Women's Candidates",
            "start_date": "2013-03-13",
            "players": womens,
            "arbiters": ARBITERS,
        },
    )
    numbers = {p["id"]: i for i, p in enumerate(womens, start=1)}
    ok(store, {"cmd": "draw_lots", "tournament": "womens", "numbers": numbers})


def test_two_tournaments_each_boards_pgn_links_and_game_page_are_its_own(
    sqlite_store: Store,
) -> None:
    paired_tournament(sqlite_store)
    womens_event(sqlite_store)
    for tid, move in (("london-2013", "d4"), ("womens", "e4")):
        game = {"tournament": tid, "game": "1.1"}
        ok(sqlite_store, {"cmd": "start_game", **game, "at": now_at()})
        ok(sqlite_store, {"cmd": "play_move", **game, "move": move, "at": now_at()})
    with RunningGateway(sqlite_store.url, public_delay_s=0) as gw:
        browser = Browser(gw.http + "/?tournament=womens")
        try:
            browser.wait_for(f"{piece_on('womens/1.1', 'e4')} === 'P'")
            assert browser.wait_for(
                "document.getElementById('title').textContent === \"Women's Candidates\""
            )
            links = browser.js(
                "[document.getElementById('round-pgn').href, document.getElementById('all-pgn')"
                f".href, {card('womens/1.1', 'a.pgn')}.href, {card('womens/1.1', 'a.head')}.href]"
            )
            assert [urllib.parse.urlsplit(u).path for u in links] == [
                "/pgn/round/1.pgn",
                "/pgn/all.pgn",
                "/pgn/games/1.1.pgn",
                "/game/1.1",
            ]
            assert all(urllib.parse.urlsplit(u).query == "tournament=womens" for u in links)
            for url in links[:3]:  # the page's PGN links download the Women's games
                with urllib.request.urlopen(url, timeout=5) as answer:
                    pgn = answer.read().decode()
                assert '[Event "Women\'s Candidates"]' in pgn and "1. e4" in pgn, url
        finally:
            browser.close()
        game_page = Browser(links[3])
        try:
            text = game_page.wait_for("document.getElementById('moves').innerText")
            assert text.split() == ["e4"]
            assert "Player W1" in game_page.js("document.getElementById('title').textContent")
        finally:
            game_page.close()


def test_two_tournaments_the_desk_shows_the_book_and_alerts_of_the_one_chosen(
    sqlite_store: Store,
) -> None:
    """One team of arbiters for both events: the desk shows every tournament's incident
    book and open alerts, or those of the tournament chosen in its switcher, and its
    buttons act in the tournament of what they are about."""
    paired_tournament(sqlite_store)
    womens_event(sqlite_store)
    for tid, player in (("london-2013", "aronian"), ("womens", "w1")):
        game = {"tournament": tid, "game": "1.1"}
        ok(sqlite_store, {"cmd": "start_game", **game, "at": now_at()})
        leave = {"cmd": "permit_leave", "tournament": tid, "player": player}
        ok(sqlite_store, {**leave, "arbiter": "chief", "accompanied_by": "deputy", "at": now_at()})
        claim = {"cmd": "claim_draw", **game, "by": "white", "kind": "threefold_repetition"}
        ok(sqlite_store, {**claim, "at": now_at()})
    with RunningGateway(sqlite_store.url, public_delay_s=900) as gw:
        browser = Browser(gw.http + f"/arbiter#token={CHIEF_TOKEN}")
        out_rows = "[...document.querySelectorAll('#out tr[data-out]')].map(r => r.dataset.out)"
        alerts = "[...document.querySelectorAll('#alerts li[data-key]')].map(li => li.dataset.key)"
        try:
            assert browser.wait_for(f"{out_rows}.length === 2 && {out_rows}") == ["aronian", "w1"]
            assert sorted(browser.wait_for(f"{alerts}.length === 2 && {alerts}")) == [
                "1.1/claim:1",
                "womens/1.1/claim:1",
            ]
            choose(browser, "womens")
            assert browser.wait_for(f"{out_rows}.join() === 'w1' && {out_rows}") == ["w1"]
            assert browser.wait_for(f"{alerts}.join() === 'womens/1.1/claim:1' && {alerts}")
            entries = browser.wait_for(
                "[...document.querySelectorAll('#incidents li')].map(li => li.dataset.tournament)"
            )
            assert entries and set(entries) == {"womens"}
            assert "tournament=womens" in browser.js("location.search")
            browser.screenshot(OUTPUT / "gateway-arbiter-two-tournaments.png")
            # Returned: the command names the Women's event (the store holds two)
            browser.js("document.querySelector('#out tr[data-out=w1] button').click()")
            browser.wait_for("!document.querySelector('#out tr[data-out=w1]')")
            line = browser.wait_for("document.querySelector('#results li')?.textContent")
            assert "ok (PlayerReturned)" in line, line
            assert sqlite_store.view("womens").incident_book().out == ()  # type: ignore[union-attr]
            assert len(sqlite_store.view("london-2013").incident_book().out) == 1  # type: ignore[union-attr]
            # the first tournament's claim, ruled from its claims table, names it too
            choose(browser, "london-2013")
            assert browser.wait_for(f"{alerts}.join() === '1.1/claim:1' && {alerts}")
            reject = (
                "[...document.querySelectorAll('#claims button')]"
                ".find(b => b.textContent === 'Reject')"
            )
            browser.wait_for(f"!!{reject}")
            browser.js(f"{reject}.click()")
            line = browser.wait_for(
                "[...document.querySelectorAll('#results li')].map(li => li.textContent)"
                ".find(t => t.includes('ClaimRuled'))"
            )
            assert "ok (ClaimRuled" in line, line
            claims = game_object(sqlite_store.view("london-2013"), "1.1")["claims"]
            assert [c["status"] for c in claims] == ["rejected"]
            womens_claims = game_object(sqlite_store.view("womens"), "1.1")["claims"]
            assert [c["status"] for c in womens_claims] == ["pending"]
        finally:
            browser.close()


REPETITION = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"]
"""The starting position a third time, White to move: a threefold repetition (Laws 9.2)."""

OVERFLOWING = """[...document.querySelectorAll('body *')]
  .filter(e => !e.closest('.scroll') && e.getBoundingClientRect().width > 0)
  .filter(e => e.getBoundingClientRect().right > innerWidth + 0.5
            || e.getBoundingClientRect().left < -0.5)
  .map(e => e.tagName + '.' + e.className + ' ' + (e.textContent || '').slice(0, 30))"""


def test_the_page_on_a_phone_shows_names_moves_results_in_words_and_clips_nothing(
    live_game: Store,
) -> None:
    for n, move in enumerate(["e4", "c5", "Nf3"]):
        ok(live_game, {"cmd": "play_move", "game": "1.1", "move": move, "at": now_at(n * 0.01)})
    ok(live_game, {"cmd": "start_game", "game": "1.2", "at": now_at()})
    for n, move in enumerate(REPETITION):
        ok(live_game, {"cmd": "play_move", "game": "1.2", "move": move, "at": now_at(n * 0.01)})
    claim = {"cmd": "claim_draw", "game": "1.2", "by": "white", "kind": "threefold_repetition"}
    ok(live_game, {**claim, "at": now_at(0.1)})
    ok(
        live_game,
        {
            "cmd": "rule_claim",
            "game": "1.2",
            "claim": "1",
            "decision": "accepted",
            "arbiter": "chief",
            "at": now_at(0.2),
        },
    )
    with RunningGateway(live_game.url, public_delay_s=0) as gw:
        browser = Browser(gw.http + "/", phone=True)
        try:
            browser.wait_for(f"innerWidth === {PHONE_WIDTH} && document.readyState === 'complete'")
            browser.wait_for(f"{card('1.1', '.name')}?.textContent === 'Carlsen, Magnus'")
            assert browser.js(f"{card('1.1', '.player.white .name')}.textContent") == (
                "Aronian, Levon"
            )
            moves = browser.js(f"{card('1.1', '.movelist')}.innerText").split()
            assert moves == ["e4", "c5", "Nf3"]
            result = browser.wait_for(f"{card('1.2', '.result')}?.textContent")
            assert result == "1/2-1/2 · draw by threefold repetition, claimed"
            assert browser.js(f"{card('1.2', 'a.pgn')}.getAttribute('href')") == (
                "/pgn/games/1.2.pgn"
            )
            browser.wait_for("!!document.querySelector('#standings table')")
            assert browser.js("document.documentElement.scrollWidth") <= PHONE_WIDTH
            assert browser.js(OVERFLOWING) == []
            # the move list sits under the board, within the card
            board = browser.js(f"{card('1.1', '.board')}.getBoundingClientRect().toJSON()")
            listed = browser.js(f"{card('1.1', '.movelist')}.getBoundingClientRect().toJSON()")
            assert listed["top"] >= board["bottom"] and listed["right"] <= PHONE_WIDTH
            browser.js("window.scrollTo(0, 0)")
            browser.screenshot(OUTPUT / "gateway-phone.png")
            browser.js("document.getElementById('standings').scrollIntoView()")
            browser.screenshot(OUTPUT / "gateway-phone-standings.png")
        finally:
            browser.close()


def test_an_illegal_move_a_clock_and_a_correction_are_ruled_from_the_desks_buttons(
    live_game: Store,
) -> None:
    ok(live_game, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": now_at()})
    with RunningGateway(live_game.url, public_delay_s=900) as gw:
        browser = Browser(gw.http + f"/arbiter#token={CHIEF_TOKEN}")
        try:
            browser.wait_for("document.getElementById('ruling-game').value === '1.1'")
            browser.js("document.getElementById('ruling-side').value = 'black'")
            browser.js("document.querySelector('[data-ruling=illegal_move]').click()")
            built = json.loads(browser.js("document.getElementById('command-text').value"))
            assert {k: built[k] for k in ("cmd", "game", "by", "arbiter")} == {
                "cmd": "record_illegal_move",
                "game": "1.1",
                "by": "black",
                "arbiter": "chief",
            }
            assert "check it, then Send" in browser.js(
                "document.getElementById('command-note').textContent"
            )
            browser.js("document.querySelector('#command button').click()")
            line = browser.wait_for("document.querySelector('#results li')?.textContent")
            assert "ok (IllegalMoveRecorded" in line, line
            view = game_object(live_game.reads, "1.1")
            assert view["illegal_moves"] == {"white": 0, "black": 1}
            # Laws 7.4 (2009): two minutes for the opponent, on White's clock
            browser.js("document.getElementById('ruling-seconds').value = '-30'")
            browser.js("document.getElementById('ruling-reason').value = 'clock set wrongly'")
            browser.js("document.querySelector('[data-ruling=adjust_clock]').click()")
            browser.js("document.querySelector('#command button').click()")
            browser.wait_for(
                "[...document.querySelectorAll('#results li')]"
                ".some(li => li.textContent.includes('ok (ClockAdjusted)'))"
            )
            # Laws 7.4 a: the record said 1. e4; the board shows 1. d4
            browser.js("document.getElementById('ruling-ply').value = '0'")
            browser.js("document.getElementById('ruling-moves').value = 'd4'")
            browser.js("document.getElementById('ruling-reason').value = 'e4 was misrecorded'")
            browser.js("document.querySelector('[data-ruling=correct_moves]').click()")
            built = json.loads(browser.js("document.getElementById('command-text').value"))
            assert (built["cmd"], built["from_ply"], built["moves"]) == ("correct_moves", 0, ["d4"])
            browser.js("document.querySelector('#command button').click()")
            browser.wait_for(
                "[...document.querySelectorAll('#results li')]"
                ".some(li => li.textContent.includes('ok (MovesCorrected'))"
            )
            assert game_object(live_game.reads, "1.1")["moves"] == ["d4"]
            browser.wait_for(
                f"{card('1.1', '.corrected')}?.textContent === 'corrected by the arbiter'"
            )
            browser.screenshot(OUTPUT / "gateway-arbiter-rulings.png")
        finally:
            browser.close()


def test_3_9_2_c_the_desk_shows_who_is_out_with_whom_and_records_the_return(
    live_game: Store,
) -> None:
    leave = {
        "cmd": "permit_leave",
        "player": "aronian",
        "arbiter": "chief",
        "accompanied_by": "deputy",
        "at": now_at(),
    }
    ok(live_game, leave)
    with RunningGateway(live_game.url, public_delay_s=900) as gw:
        browser = Browser(gw.http + f"/arbiter#token={CHIEF_TOKEN}")
        try:
            row = "document.querySelector('#out tr[data-out=aronian]')"
            text = browser.wait_for(
                f"{row}?.textContent.includes('Deputy Arbiter') && {row}.textContent"
            )
            assert "1.1" in text and "Deputy Arbiter" in text
            assert "3.9.2 c" in browser.wait_for(
                "document.querySelector('#incidents li')?.textContent"
            )
            # a player seen out without a permit: the desk proposes the incident
            browser.js("document.querySelector('#propose button[data-propose=carlsen]').click()")
            proposed = json.loads(browser.js("document.getElementById('command-text').value"))
            assert (proposed["cmd"], proposed["kind"], proposed["player"]) == (
                "record_incident",
                "left_playing_area",
                "carlsen",
            )
            browser.screenshot(OUTPUT / "gateway-arbiter-incidents.png")
            browser.js(f"{row}.querySelector('button').click()")
            browser.wait_for(f"!{row}")
            book = live_game.reads.incident_book()
            assert book is not None and book.out == ()
        finally:
            browser.close()


EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "create-tournament.jsonl"


def test_names_where_a_person_reads_the_desk_names_players_and_arbiters(
    sqlite_store: Store,
) -> None:
    """The desk in words: the claimant, the player out of the playing area, the arbiter who
    went with him and the buttons are names ("Aronian, Levon", "Chief Arbiter Geurt
    Gijssen"), never ids; the alert and the incident book say so too. The tournament is the
    shipped example (docs/examples/create-tournament.jsonl)."""
    ok(sqlite_store, json.loads(EXAMPLE.read_text(encoding="utf-8").splitlines()[0]))
    ok(sqlite_store, {"cmd": "draw_lots", "tournament": "london-2013", "seed": "athens-2012"})
    tournament = sqlite_store.reads.tournament()
    assert tournament is not None
    game, (white, black) = sorted(tournament.round_robin_pairings().items())[0]
    ok(sqlite_store, {"cmd": "start_game", "game": game, "at": now_at()})
    ok(
        sqlite_store,
        {
            "cmd": "claim_draw",
            "game": game,
            "by": "white",
            "kind": "threefold_repetition",
            "at": now_at(0.01),
        },
    )
    ok(
        sqlite_store,
        {
            "cmd": "permit_leave",
            "player": black,
            "arbiter": "chief",
            "accompanied_by": "chief",
            "at": now_at(0.02),
        },
    )
    names = {p.id: p.name for p in tournament.players}
    surname = names[white].split(",")[0]
    with RunningGateway(sqlite_store.url, public_delay_s=900) as gw:
        browser = Browser(gw.http + f"/arbiter#token={CHIEF_TOKEN}")
        try:
            claim = "document.querySelector('#claims tr[data-claim] td[data-by]')"
            assert browser.wait_for(
                f"{claim}?.textContent === {json.dumps(names[white])} && {claim}.textContent"
            )
            alert = browser.wait_for(
                "[...document.querySelectorAll('#alerts li')].map(l => l.textContent).join(' | ')"
                ".includes('claims') && document.getElementById('alerts').textContent"
            )
            assert f"{surname} (White) claims a draw (threefold repetition)" in alert
            row = f"document.querySelector('#out tr[data-out={black}]')"
            out = browser.wait_for(
                f"{row}?.textContent.includes('Geurt Gijssen') && {row}.textContent"
            )
            assert names[black] in out and "Chief Arbiter Geurt Gijssen" in out
            assert black not in out.replace(names[black], "")
            buttons = browser.js(
                "[...document.querySelectorAll('#propose button')].map(b => b.textContent)"
            )
            assert f"{names[white]} ({game})" in buttons
            book = browser.wait_for(
                "document.getElementById('incidents').textContent.includes("
                "'with the permission of Chief Arbiter Geurt Gijssen') && "
                "document.getElementById('incidents').textContent"
            )
            assert names[black].split(",")[0] in book
            browser.screenshot(OUTPUT / "gateway-arbiter-names.png")
            assert (OUTPUT / "gateway-arbiter-names.png").stat().st_size > 10_000
        finally:
            browser.close()


def test_6_6_a_the_desk_starts_a_game_with_its_button_at_the_desks_clock(
    sqlite_store: Store,
) -> None:
    """The runbook's round begins at the desk: the arbiters start each game (Laws 2009
    6.6 a) with *Start game*, its instant the desk's clock, nothing typed in."""
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.2", "at": now_at()})
    with RunningGateway(sqlite_store.url, public_delay_s=900) as gw:
        browser = Browser(gw.http + f"/arbiter#token={CHIEF_TOKEN}")
        try:
            browser.wait_for(
                "[...document.getElementById('ruling-game').options].some(o => o.value === '1.1')"
            )
            browser.js("document.getElementById('ruling-game').value = '1.1'")
            browser.js("document.querySelector('[data-ruling=start_game]').click()")
            built = json.loads(browser.js("document.getElementById('command-text').value"))
            assert (built["cmd"], built["game"], built["by"]) == ("start_game", "1.1", "chief")
            assert built["at"].endswith("Z")
            browser.js("document.querySelector('#command button').click()")
            line = browser.wait_for("document.querySelector('#results li')?.textContent")
            assert "ok (GameStarted" in line, line
            assert game_object(sqlite_store.reads, "1.1")["status"] == "in_progress"
        finally:
            browser.close()
