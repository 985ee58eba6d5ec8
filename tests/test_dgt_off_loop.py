"""The boards write to the store off the event loop: while a store call of the DGT feed
is held up, the loop that ``candidates serve --dgt`` shares with the gateway still
answers a websocket ping; once it is released, every move reaches the store in order.
A sink keeps no log of what it sent unless asked (a hall's board sends ~25,000 readings
a game), and its refusals are bounded."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import websockets

from adapters.cli import main
from adapters.dgt.feed import REFUSALS_KEPT, StoreSink
from adapters.dgt.service import run_sources
from adapters.dgt.simulator import load_game
from adapters.gateway.server import serve_forever
from adapters.host.clock import wall_clock_ms
from adapters.store import Store
from engine.commands import Command
from engine.events import Event
from engine.timefmt import format_instant
from tests.dgt_hands import Hands
from tests.helpers import paired_tournament

PGN = Path(__file__).resolve().parents[1] / "replay_logs" / "sources" / "candidates-2013.pgn"
GATE_S = 120.0
"""Only a bound so that a feed on the loop fails the test instead of hanging it."""


class HeldStore(Store):
    """A store whose first command waits until the test opens ``gate``."""

    def __init__(self, url: str, gate: threading.Event, said: list[str]) -> None:
        super().__init__(url)
        self.gate, self.said = gate, said
        self.entered = threading.Event()

    def execute(self, raw: object) -> tuple[Command, list[Event]]:
        if not self.entered.is_set():
            self.said.append("store call entered")
            self.entered.set()
            opened = self.gate.wait(GATE_S)
            self.said.append("store call released" if opened else "store call gave up")
        return super().execute(raw)


def test_the_loop_answers_while_a_board_s_store_write_is_held(tmp_path: Path) -> None:
    rec = tmp_path / "g.dgt"
    started = format_instant(wall_clock_ms() - 1000)
    assert main(["dgt", "simulate", "--pgn", str(PGN), "--round", "11.2", "--out", str(rec)]) == 0
    url = str(tmp_path / "s.sqlite")
    with Store(url) as store:
        start = {"cmd": "start_game", "game": "11.2", "at": started}
        answer = store.handle({**start, "white": "ivanchuk", "black": "gelfand"})
        assert answer["ok"], answer
    gate, said = threading.Event(), []
    held: list[HeldStore] = []

    def open_held() -> HeldStore:
        held.append(HeldStore(url, gate, said))
        return held[0]

    async def scenario() -> None:
        stop = asyncio.Event()
        ports: list[int] = []
        gateway = asyncio.create_task(
            serve_forever(
                url,
                "127.0.0.1",
                0,
                None,
                0,
                stop,
                ready=lambda server: ports.append(server.sockets[0].getsockname()[1]),
            )
        )
        boards = asyncio.create_task(
            run_sources([f"file:{rec}=11.2"], url, stop, file_speed=0, open_store=open_held)
        )
        while not ports or not held:
            await asyncio.sleep(0.01)
        entered = await asyncio.to_thread(held[0].entered.wait, GATE_S)
        assert entered, "the board never reached the store"
        async with websockets.connect(f"ws://127.0.0.1:{ports[0]}/ws") as ws:
            await (await ws.ping())
            said.append("ping answered")
        gate.set()
        await boards  # the recording ends once everything it said is in the store
        stop.set()
        await gateway

    asyncio.run(scenario())
    assert said == ["store call entered", "ping answered", "store call released"]
    with Store(url) as store:
        game = store.reads.game("11.2")
        assert game is not None
        wanted = [m.uci() for m in load_game(PGN, round_="11.2").mainline_moves()]
        assert list(game.moves) == wanted
        assert store.reads.readings("11.2"), "the clock readings were stored too"


def test_a_sink_keeps_no_log_unless_asked_and_bounds_its_refusals(tmp_path: Path) -> None:
    with Store(str(tmp_path / "s.sqlite")) as store:
        paired_tournament(store)
        sink = StoreSink(store, "1.1", Hands().session)
        assert sink.keep_log is False
        assert sink.refusals.maxlen == REFUSALS_KEPT
        before = store.cache.count()
        for n in range(3):
            sink.alert("board_disconnected", f"cut {n}", {}, wall_clock_ms(), once=None)
        assert store.cache.count() == before + 3, "every alert is stored"
        assert sink.commands_sent == [] and sink.alerts == [] and sink.readings == []
