"""The fuzz pass of the fourth hardening: hundreds of hostile lines and frames, each
refused, none appended, no traceback, no connection closed (tests/hostile_corpus.py).

The corpus puts, into each field of commands that a started game accepts, values no
field takes; and adds lines and messages that are no command at all. Run through
``candidates apply`` (one line each) and through an arbiter's websocket (one frame
each, on one connection): every one gets its refusal, the store does not move, the
command line writes no traceback and the gateway never closes the socket.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.gateway.budget import InboundLimits
from adapters.gateway.hub import Limits
from adapters.store import Store
from tests.gateway_support import ARBITER_TOKEN, Peer, RunningGateway
from tests.helpers import at, ok, paired_tournament
from tests.hostile_corpus import BASE, commands, frames


@pytest.fixture
def started(started: Store) -> Store:
    """Game 1.1 started (tests/conftest.py), with 1. d4 played."""
    ok(started, {"cmd": "play_move", "game": "1.1", "move": "d4", "at": at(5)})
    return started


def test_the_corpus_is_hundreds_of_items_made_from_commands_that_are_accepted(
    tmp_path: Path,
) -> None:
    """Each base command is accepted as it is: what the corpus changes is what is refused."""
    assert len(commands()) >= 500 and len(commands()) + len(frames()) >= 600
    for number, command in enumerate(BASE):
        with Store(str(tmp_path / f"{number}.sqlite")) as store:
            paired_tournament(store)
            ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
            ok(store, {"cmd": "play_move", "game": "1.1", "move": "d4", "at": at(5)})
            ok(store, command)


def test_apply_refuses_every_hostile_line_with_no_traceback_and_no_append(
    started: Store, tmp_path: Path
) -> None:
    corpus = commands()
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(b"".join(line + b"\n" for _, line in corpus))
    before = started.last_seq()
    run = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "--store", started.url, "apply", str(path)],
        capture_output=True,
        timeout=600,
    )
    assert b"Traceback" not in run.stderr and run.stderr == b"", run.stderr[-2000:]
    assert run.returncode == 1
    results = [json.loads(line) for line in run.stdout.decode().splitlines()]
    assert len(results) == len(corpus)
    accepted = [what for (what, _), r in zip(corpus, results, strict=True) if r["ok"]]
    assert accepted == []
    for result in results:
        assert len(result["error"]["message"]) < 1000  # never echoes what it refused
    with Store(started.url) as store:
        assert store.last_seq() == before


def test_the_gateway_answers_every_hostile_frame_and_keeps_the_connection(
    started: Store, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    unlimited = InboundLimits(frames_per_s=1e9, frame_burst=10**9, bytes_per_s=1e12)
    before = started.last_seq()
    lines = commands()
    with RunningGateway(started.url, limits=Limits(inbound=unlimited)) as gw:
        peer = Peer(gw, json_text=True, max_size=None)
        peer.subscribe(token=ARBITER_TOKEN)
        peer.next("subscribed")
        sent = 0
        for number, (_, line) in enumerate(lines):
            if len(line) > 2**20 - 200:
                continue  # a message over 1 MiB is closed with 1009 (protocol.md): below
            text = line.decode("utf-8", "replace")
            message = f'{{"op": "command", "id": "c{number}", "command": {text}}}'
            peer.send_raw(message)
            sent += 1
            answer = peer.next(lambda f: f.get("op") in ("result", "error"), timeout=30)
            assert answer.get("ok") is not True, (lines[number][0], answer)
        for what, message in frames():
            peer.send_raw(message)
            sent += 1
            answer = peer.next("error", timeout=30)
            assert answer["code"] in ("malformed_frame", "unknown_op", "not_subscribed"), (
                what,
                answer,
            )
        assert sent >= 600
        peer.send({"op": "ping", "id": "still here"})
        assert peer.next("pong")["id"] == "still here"
        assert started.last_seq() == before
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert tracebacks == [], [r.getMessage() for r in tracebacks]
