"""``candidates serve`` and ``candidates watch`` as a person runs them."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from adapters.host.clock import wall_clock_ms
from adapters.store import Store
from engine.timefmt import format_instant
from tests.gateway_support import RunningGateway
from tests.helpers import ok, paired_tournament, play
from tests.test_import_pgn import LONDON_2013

CLI = [sys.executable, "-c", "import sys; from adapters.cli import main; sys.exit(main())"]


def test_serve_listens_serves_the_page_and_stops_on_sigint(started: Store, tmp_path) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"desk-token-123": {"role": "arbiter", "name": "Desk"}}))
    proc = subprocess.Popen(
        [*CLI, "--store", started.url, "serve", "--port", "0", "--tokens", str(tokens)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"at (http://127\.0\.0\.1:\d+)/", line)
        assert match, line + (proc.stderr.read() if proc.poll() is not None else "")
        assert "1 token(s); public delay 900 s" in proc.stdout.readline()
        with urllib.request.urlopen(match.group(1) + "/status") as answer:
            status = json.load(answer)
        assert status["seq"] == started.last_seq() and status["public_delay_ms"] == 900_000
        proc.send_signal(signal.SIGINT)
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--public-delay-s", "-1"], "--public-delay-s: must be 0 or more"),
        (["--tokens", "/nonexistent/tokens.json"], "tokens.json: cannot read the file"),
        (["--dgt-file", "recording.dgt"], "--dgt-file needs FILE=GAME"),
    ],
)
def test_serve_refuses_bad_options_with_a_reason(started: Store, args, message) -> None:
    done = subprocess.run(
        [*CLI, "--store", started.url, "serve", "--port", "0", *args],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and message in done.stderr


def test_serve_feeds_a_dgt_board_into_the_store(sqlite_store: Store, tmp_path) -> None:
    """``serve --dgt-file REC=GAME``: the boards run in the gateway's loop and their moves
    are stored (3.5.2: the games are played on electronic boards)."""
    recording = tmp_path / "board.dgt"
    made = subprocess.run(
        [
            *CLI,
            "dgt",
            "simulate",
            "--pgn",
            str(LONDON_2013),
            "--round",
            "1.1",
            "--time-scale",
            "0.001",
            "--out",
            str(recording),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": format_instant(wall_clock_ms())})
    server = subprocess.Popen(
        [
            *CLI,
            "--store",
            sqlite_store.url,
            "serve",
            "--port",
            "0",
            "--dgt-file",
            f"{recording}=1.1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 90
        game = sqlite_store.reads.game("1.1")
        while time.monotonic() < deadline and (game is None or game.ply < 61):
            time.sleep(0.5)
            game = sqlite_store.reads.game("1.1")
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=30)
    assert game is not None and game.ply == 61, err
    assert game.sans[-1] == "Rc2"  # the last move of Aronian - Carlsen, round 1
    moves = [e for e in sqlite_store.cache.stream("game/1.1") if e.kind == "MovePlayed"]
    assert all(e.by.startswith("dgt:") for e in moves)


def test_watch_prints_live_moves_and_clocks(started: Store) -> None:
    play(started, "1.1", "d4 Nf6")
    with RunningGateway(started.url, public_delay_s=0) as gw:
        proc = subprocess.Popen(
            [*CLI, "watch", "--url", gw.url, "--game", "1.1", "--deltas", "2"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert proc.stdout is not None
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        assert lines[0].startswith("-- public feed; at seq")
        # names where a person reads: the players by their names, not their ids
        assert lines[1].startswith("1.1 Aronian-Carlsen") and "1... Nf6" in lines[1]
        time.sleep(0.2)
        play(started, "1.1", "c4", start_s=30)
        play(started, "1.1", "e6", start_s=40)
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, err
        shown = [line for line in out.splitlines() if line.startswith("1.1 ")]
        assert len(shown) == 2 and "2. c4" in shown[0] and "2... e6" in shown[1], shown
        assert re.search(r"W \S+ +B \S+", shown[-1])


def test_watch_says_when_no_gateway_listens() -> None:
    done = subprocess.run(
        [*CLI, "watch", "--url", "ws://127.0.0.1:9/ws"], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 1 and "cannot connect to ws://127.0.0.1:9/ws" in done.stderr
