"""Fair play for the engine's analysis (docs/analysis.md), on a real gateway over loopback
websockets and HTTP, with the real analysis service (Stockfish within a small node budget):

- a commentator gets each evaluation at once;
- the public gets it with the delay of the moves (the public view's instant), never before;
- the arbiters' desk gets none unless the gateway is told to;
- ``/pgn/...`` writes ``[%eval]`` after each move, delayed like the rest, that python-chess
  reads back (``GameNode.eval``).

Checked as the public feed is: by the events' own instants and the order of arrival, never
by how fast the machine is.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chess.pgn
import pytest

from adapters.analysis.service import Analyser
from adapters.store import Store
from engine.events import MovePlayed, game_stream
from engine.game.state import position_fen
from engine.timefmt import format_instant, parse_instant
from tests.gateway_support import (
    ARBITER_TOKEN,
    COMMENTATOR_TOKEN,
    TOKENS,
    Peer,
    RunningGateway,
    now_at,
)
from tests.helpers import ok, paired_tournament
from tests.test_analysis import ENGINE, SMALL, needs_engine
from tests.test_gateway_http import get

pytestmark = needs_engine
DELAY_S = 30.0
ROOT = Path(__file__).resolve().parents[1]


def move(store: Store, san: str, offset_s: float, game: str = "1.1") -> None:
    ok(store, {"cmd": "play_move", "game": game, "move": san, "at": now_at(offset_s)})


def analysis(frame: dict, ply: int | None = None) -> bool:
    return frame.get("op") == "analysis" and (ply is None or frame["ply"] == ply)


@pytest.fixture
def live(sqlite_store: Store) -> Store:
    """Game 1.1 started two minutes ago: 1. e4 (100 s ago) e5 (90 s ago), older than the
    delay; then 2. Nf3 a second ago, within it."""
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": now_at(-120)})
    move(sqlite_store, "e4", -100)
    move(sqlite_store, "e5", -90)
    move(sqlite_store, "Nf3", -1)
    return sqlite_store


@contextlib.contextmanager
def analysing(live: Store) -> Iterator[Analyser]:
    """The analysis service in a thread of its own, as ``serve --analysis`` runs it."""
    stop = threading.Event()
    analyser = Analyser(live.url, SMALL, ENGINE, poll_s=0.02)
    thread = threading.Thread(target=analyser.run, args=(stop,), daemon=True)
    thread.start()
    yield analyser
    stop.set()
    thread.join(30)


class TestWhoGetsTheAnalysisWhen:
    def test_commentators_at_once_the_public_after_the_delay_the_desk_never(
        self, live: Store
    ) -> None:
        with (
            RunningGateway(live.url, public_delay_s=DELAY_S) as gw,
            Peer(gw) as studio,
            Peer(gw) as public,
            Peer(gw) as desk,
            contextlib.ExitStack() as stack,
        ):
            studio.subscribe(token=COMMENTATOR_TOKEN)
            public.subscribe()
            desk.subscribe(token=ARBITER_TOKEN)
            for peer in (studio, public, desk):
                peer.next("snapshot")
            stack.enter_context(analysing(live))
            # the commentator: the newest position (after 2. Nf3) and the older ones
            newest = studio.next(lambda f: analysis(f, 3), timeout=20)
            assert newest["game"] == "1.1" and newest["fen"] == live_fen(live)
            assert newest["pv"] and newest["depth"] > 0 and sum(newest["wdl"]) == 1000
            wait_for_plies(studio, {0, 1, 2, 3}, 20)
            # the public: the positions whose moves are older than the delay, and no other
            wait_for_plies(public, {0, 1, 2}, 5)
            later = public.quiet(1.0)
            assert [f for f in later if analysis(f, 3)] == []
            # the desk: none
            assert [f for f in desk.quiet(0.5) if analysis(f)] == []
            assert [f for f in desk.frames if analysis(f)] == []

    def test_the_public_gets_an_evaluation_no_earlier_than_its_move_plus_the_delay(
        self, live: Store
    ) -> None:
        delay_s = 2.0
        with (
            RunningGateway(live.url, public_delay_s=delay_s) as gw,
            Peer(gw) as studio,
            Peer(gw) as public,
            analysing(live),
        ):
            studio.subscribe(token=COMMENTATOR_TOKEN)
            public.subscribe()
            studio.next(lambda f: analysis(f, 3), timeout=20)
            move(live, "Nc6", 0)
            played_ms = parse_instant(live_move_at(live, 4))
            studio.next(lambda f: analysis(f, 4), timeout=20)
            public.next(lambda f: analysis(f, 4), timeout=20)
            arrived_ms = time.time_ns() // 1_000_000
            assert arrived_ms >= played_ms + delay_s * 1000
            # and after the move itself: the public sees the position first
            frames = public.frames
            moved = next(
                i
                for i, f in enumerate(frames)
                if f.get("op") == "delta" and (f.get("object") or {}).get("ply") == 4
            )
            evaluated = next(i for i, f in enumerate(frames) if analysis(f, 4))
            assert moved < evaluated

    def test_arbiters_get_it_only_when_the_gateway_is_told_to(self, live: Store) -> None:
        with (
            RunningGateway(live.url, public_delay_s=DELAY_S, analysis_to_arbiters=True) as gw,
            Peer(gw) as desk,
            analysing(live),
        ):
            desk.subscribe(token=ARBITER_TOKEN)
            assert desk.next(lambda f: analysis(f, 3), timeout=20)["game"] == "1.1"

    def test_a_commentator_who_connects_later_gets_the_newest_evaluation_after_the_snapshot(
        self, live: Store
    ) -> None:
        with RunningGateway(live.url, public_delay_s=DELAY_S) as gw, analysing(live):
            with Peer(gw) as first:
                first.subscribe(token=COMMENTATOR_TOKEN)
                first.next(lambda f: analysis(f, 3), timeout=20)
            with Peer(gw) as late:
                late.subscribe(token=COMMENTATOR_TOKEN)
                late.next("snapshot")
                assert late.next(analysis, timeout=2)["ply"] == 3


class TestEvalInTheDelayedPgn:
    def test_eval_after_each_move_parses_with_python_chess_and_is_delayed(
        self, live: Store
    ) -> None:
        with (
            RunningGateway(live.url, public_delay_s=DELAY_S) as gw,
            Peer(gw) as studio,
            contextlib.ExitStack() as stack,
        ):
            studio.subscribe(token=COMMENTATOR_TOKEN)
            studio.next("snapshot")
            stack.enter_context(analysing(live))
            wait_for_plies(studio, {0, 1, 2, 3}, 20)
            deadline = time.monotonic() + 10
            while True:  # the public's release runs on the gateway's tick
                public = pgn_game(gw, "/pgn/games/1.1.pgn")
                evals = [node.eval() for node in public.mainline()]
                if all(e is not None for e in evals) or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            # the public PGN: the two moves older than the delay, each with its [%eval]
            assert [n.san() for n in public.mainline()] == ["e4", "e5"]
            assert all(e is not None for e in evals)
            assert "[%eval " in str(public)
            # a commentator's token: the live game, every move evaluated
            studio_pgn = pgn_game(gw, f"/pgn/games/1.1.pgn?token={COMMENTATOR_TOKEN}")
            nodes = list(studio_pgn.mainline())
            assert [n.san() for n in nodes] == ["e4", "e5", "Nf3"]
            assert all(n.eval() is not None for n in nodes)
            third = next(f for f in studio.frames if analysis(f, 3))
            shown = nodes[-1].eval()
            assert shown is not None and shown.white().score() == third["score"]["cp"]
            # the desk's token: the live game, no evaluation
            desk_pgn = pgn_game(gw, f"/pgn/games/1.1.pgn?token={ARBITER_TOKEN}")
            assert all(n.eval() is None for n in desk_pgn.mainline())
            # ECO and Opening tags from the openings table
            assert studio_pgn.headers["ECO"] == "C40"
            assert studio_pgn.headers["Opening"].startswith("King's Knight Opening")


def wait_for_plies(peer: Peer, plies: set[int], timeout: float) -> None:
    """Until the peer has received an evaluation of each of these plies (in any order)."""
    seen: set[int] = set()

    def more(frame: dict) -> bool:
        if analysis(frame):
            seen.add(frame["ply"])
        return plies <= seen

    seen.update(f["ply"] for f in peer.frames if analysis(f))
    if not plies <= seen:
        peer.next(more, timeout=timeout)


def pgn_game(gw: RunningGateway, path: str) -> chess.pgn.Game:
    status, _, body = get(gw, path)
    assert status == 200, body
    game = chess.pgn.read_game(io.StringIO(body.decode()))
    assert game is not None
    return game


def live_fen(store: Store) -> str:
    game = store.reads.game("1.1")
    assert game is not None
    return position_fen(game)


def live_move_at(store: Store, ply: int) -> str:
    for event in store.cache.stream(game_stream("1.1")):
        if isinstance(event, MovePlayed) and event.ply == ply:
            return format_instant(event.at_ms)
    raise AssertionError(f"no move at ply {ply}")


class TestServeWithAnalysis:
    def test_serve_analysis_runs_the_engine_in_the_gateways_process(
        self, live: Store, tmp_path: Path
    ) -> None:
        tokens = tmp_path / "tokens.json"
        tokens.write_text(json.dumps(TOKENS))
        command = [
            sys.executable, "-m", "adapters.cli", "--store", live.url, "serve", "--port", "0",
            "--tokens", str(tokens), "--flag-check", "0", "--analysis",
            "--nodes", "20000", "--movetime", "0", "--nice", "0", "--no-idle",
        ]  # fmt: skip
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None
            port = re.search(r"at http://[^:]+:(\d+)/", proc.stdout.readline())
            assert port is not None
            with Peer(Address(f"ws://127.0.0.1:{port.group(1)}/ws")) as studio:  # type: ignore[arg-type]
                studio.subscribe(token=COMMENTATOR_TOKEN)
                assert studio.next(lambda f: analysis(f, 3), timeout=30)["game"] == "1.1"
        finally:
            proc.terminate()
            proc.wait(15)
        assert proc.returncode == 0


@dataclass
class Address:
    url: str
