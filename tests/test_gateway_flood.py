"""One client cannot slow the others: a budget per connection, and flooders closed (1008).

The budget itself (``adapters.gateway.budget``) is checked with instants given by
hand; the gateway's use of it through real sockets: a client that floods
websocket Pings or frames, without reading, is closed with code 1008 and a
``flooding`` reason, and a normal client connected at the same time gets every
delta in order and stays open. Budgets are made small here so that a flood is a
few hundred frames; no assertion depends on how fast anything runs.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time

import pytest

from adapters.gateway.budget import Inbound, InboundLimits
from adapters.gateway.hub import Limits
from adapters.store import Store
from tests.gateway_support import Peer, RunningGateway
from tests.helpers import at, ok
from tests.test_gateway_bounds import _frame, _raw_client

SMALL = InboundLimits(frames_per_s=5, frame_burst=20, bytes_per_s=4096, byte_burst=16384)
"""A budget a flood of a few hundred frames overdraws by far more than ``flood_close_s``."""


# --- the budget, with instants given by hand ----------------------------------------


def test_a_client_within_its_budget_is_read_at_once() -> None:
    inbound = Inbound(InboundLimits(frames_per_s=10, frame_burst=20), now=0.0)
    inbound.spend(20, 2000, now=0.0)  # the whole burst at once
    assert inbound.verdict(0.0) == (0.0, None)
    for second in range(1, 100):  # then 10 a second, for ever
        inbound.spend(10, 1000, now=float(second))
        assert inbound.verdict(float(second)) == (0.0, None)


def test_a_client_over_its_budget_waits_in_proportion_to_what_it_sent_beyond_it() -> None:
    limits = InboundLimits(frames_per_s=10, frame_burst=20, flood_close_s=100)
    small, large = Inbound(limits, now=0.0), Inbound(limits, now=0.0)
    small.spend(30, 300, now=0.0)
    large.spend(60, 600, now=0.0)
    assert small.verdict(0.0) == (1.0, None)  # 10 frames beyond the burst, 10 a second
    assert large.verdict(0.0) == (4.0, None)
    assert small.verdict(1.0) == (0.0, None)  # paid: read again, and no longer over


def test_bytes_count_as_well_as_frames() -> None:
    inbound = Inbound(InboundLimits(bytes_per_s=1000, byte_burst=4000), now=0.0)
    inbound.spend(1, 6000, now=0.0)  # one large message
    assert inbound.verdict(0.0) == (2.0, None)


def test_a_client_that_stays_over_its_budget_is_closed_for_flooding() -> None:
    limits = InboundLimits(frames_per_s=10, frame_burst=20, flood_close_s=5)
    inbound = Inbound(limits, now=0.0)
    inbound.spend(25, 0, now=0.0)
    assert inbound.verdict(0.0) == (0.5, None)
    closed_at = None
    for tick in range(1, 40):  # each time it is read again, it sends 10 frames too many
        now = tick * 0.5
        inbound.spend(15, 0, now)
        wait, why = inbound.verdict(now)
        assert wait > 0
        if why is not None:
            closed_at = now
            break
    assert closed_at is not None and closed_at <= 5.0
    assert "flooding" in str(why) and "10 frames" in str(why)


def test_a_debt_larger_than_the_grace_closes_at_once() -> None:
    inbound = Inbound(InboundLimits(frames_per_s=10, frame_burst=20, flood_close_s=5), 0.0)
    inbound.spend(1000, 0, now=0.0)
    wait, why = inbound.verdict(0.0)
    assert wait == 98.0 and why is not None and why.startswith("flooding")


# --- through the gateway's sockets ----------------------------------------------------


def _flood(port: int, frame: bytes, count: int) -> tuple[int | None, str]:
    """Send ``count`` copies of ``frame`` without reading (stopping when the gateway no
    longer takes them), then read what came back: the close frame's code and reason."""
    sock = _raw_client(port)
    sock.settimeout(5)
    try:
        for _ in range(count // 50):
            sock.sendall(frame * 50)
    except OSError:
        pass  # no longer read (paused, or closed): what was sent is enough
    return _read_close(sock)


def _read_close(sock: socket.socket) -> tuple[int | None, str]:
    """Read until the close frame (or the end): its code and reason. A flooder may be
    paused (not read) for as long as its debt takes to pay before it is closed."""
    sock.settimeout(60)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
            if _close_of(data)[0] is not None:
                break
    except OSError:
        pass
    finally:
        sock.close()
    return _close_of(data)


def _close_of(data: bytes) -> tuple[int | None, str]:
    i = 0
    while i + 2 <= len(data):
        opcode, size = data[i] & 0x0F, data[i + 1] & 0x7F
        i += 2
        if size == 126:
            size, i = int.from_bytes(data[i : i + 2], "big"), i + 2
        elif size == 127:
            size, i = int.from_bytes(data[i : i + 8], "big"), i + 8
        if opcode == 0x8:
            if len(data) < i + size:  # the rest of the frame is still to come
                return None, ""
            body = data[i : i + size]
            return int.from_bytes(body[:2], "big"), body[2:].decode()
        i += size
    return None, ""


FLOODS = {
    "websocket pings": _frame(b"p" * 100, opcode=0x9),
    "ping frames": _frame(json.dumps({"op": "ping", "id": "p" * 128}).encode()),
    "subscriptions": _frame(json.dumps({"op": "subscribe", "games": "*"}).encode()),
    "commands": _frame(
        json.dumps({"op": "command", "id": "x", "command": {"cmd": "resign"}}).encode()
    ),
}


@pytest.mark.parametrize("kind", list(FLOODS))
def test_a_client_flooding_without_reading_is_closed_with_1008_flooding(
    started: Store, kind: str
) -> None:
    limits = Limits(inbound=SMALL, close_grace_s=30)  # time to read the close frame
    with RunningGateway(started.url, limits=limits) as gw:
        code, reason = _flood(gw.port, FLOODS[kind], 400)
        assert code == 1008, (code, reason)
        assert reason.startswith("flooding: sent more than 5 frames or 4 KiB a second"), reason


def test_pongs_a_client_does_not_read_are_bounded_by_max_output_bytes(started: Store) -> None:
    """No budget to speak of: the Pongs pile up in the connection's buffer until
    ``max_output_bytes``, and the client is closed (1008, not reading)."""
    unlimited = InboundLimits(frames_per_s=1e9, frame_burst=10**9, bytes_per_s=1e12)
    limits = Limits(
        inbound=unlimited, max_output_bytes=32 * 1024, socket_send_buffer=8192, close_grace_s=30
    )
    with RunningGateway(started.url, limits=limits) as gw:
        code, reason = _flood(gw.port, _frame(b"p" * 125, opcode=0x9), 20_000)
        assert code == 1008, (code, reason)
        assert reason == "not reading: more than 32768 bytes wait to be sent to it"


def test_a_normal_client_beside_flooders_gets_every_delta_in_order_and_stays(
    started: Store,
) -> None:
    limits = Limits(inbound=SMALL, close_grace_s=30)
    moves = ["Nf3", "Nf6", "Ng1", "Ng8"] * 5
    with RunningGateway(started.url, limits=limits) as gw, Peer(gw) as watcher:
        watcher.subscribe()
        start = watcher.next("snapshot")["seq"]
        flooders = [_raw_client(gw.port) for _ in FLOODS]
        pending = [memoryview(frame * 20) for frame in FLOODS.values()]
        for sock in flooders:
            sock.setblocking(False)
        for ply, move in enumerate(moves, start=1):
            for i, (sock, frame) in enumerate(zip(flooders, FLOODS.values(), strict=True)):
                with contextlib.suppress(OSError):  # what the socket takes, never a read
                    pending[i] = pending[i][sock.send(pending[i]) :] or memoryview(frame * 20)
            ok(started, {"cmd": "play_move", "game": "1.1", "move": move, "at": at(ply)})
        deltas = [watcher.next("delta", timeout=30) for _ in moves]
        assert [d["event"]["ply"] for d in deltas] == list(range(1, len(moves) + 1))
        seqs = [d["seq"] for d in deltas]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs) and seqs[0] > start
        closes = [
            _drained_close(sock, frame, rest)
            for sock, frame, rest in zip(flooders, FLOODS.values(), pending, strict=True)
        ]
        watcher.send({"op": "ping", "id": "still"})
        assert watcher.next("pong")["id"] == "still"
    assert [code for code, _ in closes] == [1008] * len(FLOODS), closes
    assert all(reason.startswith("flooding") for _, reason in closes), closes


def _drained_close(
    sock: socket.socket, frame: bytes, pending: memoryview
) -> tuple[int | None, str]:
    """Keep a flooder sending (``pending``, then ``frame`` again and again) until it is no
    longer read, then read its close frame."""
    deadline = time.monotonic() + 60
    sock.setblocking(True)
    sock.settimeout(2)
    try:
        while time.monotonic() < deadline:
            pending = pending[sock.send(pending) :] or memoryview(frame * 20)
    except OSError:
        pass  # no longer read (paused, or closed)
    return _read_close(sock)
