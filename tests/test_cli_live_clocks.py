"""Clocks in the terminal count down: ``candidates watch`` between moves, ``candidates game ID``
for a game in progress (3.5.1: the clock of the side to move runs)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest

from adapters.store import Store
from engine.timefmt import format_instant
from tests.gateway_support import RunningGateway
from tests.helpers import ok, paired_tournament

CLI = [sys.executable, "-c", "import sys; from adapters.cli import main; sys.exit(main())"]
TWO_HOURS_MS = 7_200_000


START_S = 0.0
"""When ``running`` started game 1.1 (epoch seconds): the bounds below are taken from it
and from instants read around each process, never from how fast the machine is."""


@pytest.fixture
def running(sqlite_store: Store) -> Store:
    """Game 1.1 started a minute ago: White's clock has run for 60 s."""
    global START_S
    paired_tournament(sqlite_store)
    START_S = time.time() - 60
    at = format_instant(int(START_S * 1000))
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at})
    return sqlite_store


def white_left_s(between: tuple[float, float]) -> tuple[float, float]:
    """The least and most White can have left (s) when read between two instants."""
    return 7200 - (between[1] - START_S), 7200 - (between[0] - START_S)


def seconds(text: str) -> int:
    parts = [int(p) for p in text.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    return parts[0] * 3600 + parts[1] * 60 + parts[2]


def test_3_5_1_watch_counts_the_running_clock_down_between_moves(running: Store) -> None:
    with RunningGateway(running.url, public_delay_s=0) as gw:
        launched = time.time()
        proc = subprocess.Popen(
            [*CLI, "watch", "--url", gw.url, "--game", "1.1", "--clock-every", "0.7"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert proc.stdout is not None
        ticks: list[str] = []
        try:
            while len(ticks) < 4:
                line = proc.stdout.readline()
                assert line, proc.stderr.read() if proc.stderr else ""
                if line.startswith("~~ "):
                    ticks.append(line)
            read = time.time()
        finally:
            proc.terminate()
            proc.wait(10)
    shown = [re.search(r"W (\S+)\* B (\S+) ", t) for t in ticks]
    assert all(shown), ticks
    white = [seconds(m[1]) for m in shown if m]
    black = {m[2] for m in shown if m}
    # ticks are at least 0.7 s apart (slept, never early): four span 2.1 s or more
    assert white == sorted(white, reverse=True) and white[-1] < white[0], ticks
    least, most = white_left_s((launched, read))
    assert least - 1 <= white[0] <= most + 1  # a minute and the watch's start gone
    assert black == {"2:00:00"}  # Black's clock does not run


def test_3_5_1_game_shows_the_clock_now_for_a_game_in_progress(running: Store) -> None:
    def shown(*extra: str) -> dict:
        done = subprocess.run(
            [*CLI, "--store", running.url, "game", "1.1", "--format", "json", *extra],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["clock"]

    asked = time.time()
    now = shown()
    least, most = white_left_s((asked, time.time()))
    assert least * 1000 - 1 <= now["white_ms"] <= most * 1000 + 1
    assert now["black_ms"] == TWO_HOURS_MS and now["running"] == "white"
    assert shown("--at", "last")["white_ms"] == TWO_HOURS_MS  # at the start, as recorded


def test_game_table_says_the_clock_is_now(running: Store) -> None:
    done = subprocess.run(
        [*CLI, "--store", running.url, "game", "1.1"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    now = r"Clock at \S+: white 1:5[89]:\d\d(\.\d+)?, black 2:00:00, running white"
    assert re.search(now, done.stdout)
