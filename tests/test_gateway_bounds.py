"""A gateway no client can exhaust: bounded answers, bounded frames, odd text refused.

A client that sends frames and never reads their answers is closed (1008) before
its answers pass ``Limits.max_answer_bytes``; deep nesting, lone surrogates,
undecodable text and over-long ids get ``malformed_frame`` and the connection
stays open; ``/status`` tells a public client only the public position.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import socket
import struct
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from adapters.gateway.budget import InboundLimits
from adapters.gateway.hub import Limits
from adapters.store import Store
from tests.gateway_support import COMMENTATOR_TOKEN, Peer, RunningGateway, now_at
from tests.helpers import ok


def _frame(payload: bytes, opcode: int = 0x1) -> bytes:
    """A masked client websocket frame (RFC 6455 5.2)."""
    mask = os.urandom(4)
    head = bytes([0x80 | opcode])
    size = len(payload)
    if size < 126:
        head += bytes([0x80 | size])
    elif size < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack("!H", size)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", size)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _said_eventually(caplog: pytest.LogCaptureFixture, words: str, timeout_s: float) -> bool:
    """Whether the gateway logs ``words`` within ``timeout_s`` (its thread logs it)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if any(words in r.getMessage() for r in caplog.records):
            return True
        time.sleep(0.05)
    return False


def _raw_client(port: int) -> socket.socket:
    """A websocket client that never reads after the handshake (a tiny receive buffer)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: json\r\n\r\n"
        ).encode()
    )
    reply = b""
    while b"\r\n\r\n" not in reply:
        reply += sock.recv(1)
    assert reply.startswith(b"HTTP/1.1 101"), reply
    return sock


def test_a_client_that_sends_and_never_reads_is_closed_before_its_answers_pass_the_limit(
    started: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """The issue's flood: pings with the longest ids, nothing read. Closed with 1008 (with
    no inbound budget to speak of: tests/test_gateway_flood.py has the budget's)."""
    unlimited = InboundLimits(frames_per_s=1e9, frame_burst=10**9, bytes_per_s=1e12)
    limits = Limits(max_answer_bytes=256 * 1024, socket_send_buffer=64 * 1024, inbound=unlimited)
    caplog.set_level(logging.INFO, logger="adapters.gateway.hub")
    with RunningGateway(started.url, limits=limits) as gw:
        sock = _raw_client(gw.port)
        ping = _frame(json.dumps({"op": "ping", "id": "p" * 128}).encode())
        sent, closed = 0, False
        deadline = time.monotonic() + 30
        sock.settimeout(1)
        try:
            while time.monotonic() < deadline:
                sock.sendall(ping * 50)
                sent += 50 * len(ping)
        except TimeoutError:  # a send that no longer completes: closed, or a busy gateway
            # still reading what was sent; the socket stays open until it says which
            closed = _said_eventually(caplog, "disconnecting", 60)
        except OSError:  # reset, broken pipe
            closed = True
        finally:
            sock.close()
        assert closed, f"still open after sending {sent} bytes in 30 s"
        # a well-behaved client is still served
        peer = Peer(gw, json_text=True)
        peer.send({"op": "ping", "id": "after"})
        assert peer.next("pong")["id"] == "after"
    reasons = [r.getMessage() for r in caplog.records if "disconnecting" in r.getMessage()]
    assert any("not reading" in reason for reason in reasons), reasons


@pytest.mark.parametrize(
    ("message", "says"),
    [
        ("[" * 100_000, "nested"),
        ('{"op": "ping", "id": "\\ud800"}', "lone surrogate"),
        ('{"op": "subscribe", "games": ["\\udfff"]}', "lone surrogate"),
        ('{"op": "subscribe", "token": "\\ud800"}', "lone surrogate"),
        (b"\xc3(\x00garbage", "not UTF-8"),
        (b"\xff\xfe{\x00}\x00", "UTF-16"),
        (json.dumps({"op": "ping", "id": "x" * 129}), "'id'"),
        (json.dumps({"op": "command", "id": "y" * 10_000, "command": {}}), "'id'"),
        (json.dumps({"op": "subscribe", "games": ["1.1" * 100]}), "'games'"),
        (json.dumps({"op": "subscribe", "games": [str(i) for i in range(600)]}), "'games'"),
        (json.dumps({"op": "subscribe", "token": "t" * 600}), "'token'"),
        (json.dumps({"op": "ping", "id": [1] * 1000}), "'id'"),
        ('{"op": "command", "op": "ping", "id": "x"}', "'op' appears twice"),  # RFC 8259 4
        ("null", "NoneType"),
    ],
)
def test_odd_text_and_long_strings_get_malformed_frame_and_the_connection_stays(
    started: Store, message: str | bytes, says: str
) -> None:
    with RunningGateway(started.url) as gw:
        peer = Peer(gw, json_text=True)
        peer.send_raw(message)
        error = peer.next("error")
        assert error["code"] == "malformed_frame" and says in error["message"], error
        assert len(json.dumps(error)) < 600  # never echoes what it refused
        peer.send({"op": "ping", "id": "still"})
        assert peer.next("pong")["id"] == "still"


def test_a_msgpack_map_with_a_key_twice_gets_malformed_frame(started: Store) -> None:
    with RunningGateway(started.url) as gw:
        peer = Peer(gw)
        peer.send_raw(b"\x82\xa2op\xa4ping\xa2op\xa9subscribe")  # {"op": .., "op": ..}
        error = peer.next("error")
        assert error["code"] == "malformed_frame" and "'op' appears twice" in error["message"]


def test_deep_msgpack_gets_malformed_frame(started: Store) -> None:
    import msgpack

    deep: object = 1
    for _ in range(100):
        deep = {"op": deep}
    with RunningGateway(started.url) as gw:
        peer = Peer(gw)
        peer.send_raw(msgpack.packb(deep))
        assert peer.next("error")["code"] == "malformed_frame"
        peer.send_raw(b"\xdd\xff\xff\xff\xff")  # an array header claiming 4 G items
        assert peer.next("error")["code"] == "malformed_frame"


def test_status_shows_public_clients_only_the_public_position_and_no_delivery_counts(
    started: Store,
) -> None:
    with RunningGateway(started.url, public_delay_s=600) as gw:
        time.sleep(0.2)
        before = started.last_seq()
        # a reading now: held from the public for 600 s, live at once
        ok(
            started,
            {
                "cmd": "clock_reading",
                "game": "1.1",
                "at": now_at(),
                "white_ms": 1000,
                "black_ms": 1000,
                "running": "white",
            },
        )
        live = started.last_seq()
        assert live > before

        def status(suffix: str = "") -> dict[str, int]:
            with urllib.request.urlopen(f"{gw.http}/status{suffix}") as answer:
                return json.load(answer)  # type: ignore[no-any-return]

        deadline = time.monotonic() + 5
        while status(f"?token={COMMENTATOR_TOKEN}")["seq"] != live:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        public = status()
        assert public["seq"] == before and "public_seq" not in public
        # what moves with live delivery is not for the public either (it would date moves)
        assert "delivered_frames" not in public and "delivered_messages" not in public
        with pytest.raises(urllib.error.HTTPError) as unknown:  # 401, as /api/... answers
            status("?token=not-a-token")
        assert unknown.value.code == 401
        inside = status(f"?token={COMMENTATOR_TOKEN}")
        assert inside["seq"] == live and inside["public_seq"] == before


def test_rfc_6455_7_4_1_a_message_over_1_mib_closes_with_1009_as_protocol_md_says(
    started: Store,
) -> None:
    from websockets.exceptions import ConnectionClosed

    with RunningGateway(started.url) as gw:
        peer = Peer(gw, json_text=True, max_size=None)
        peer.send_raw(json.dumps({"op": "ping", "id": "x", "pad": "y" * (2**20)}))
        with pytest.raises(ConnectionClosed) as closed:
            peer.ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    text = (Path(__file__).resolve().parents[1] / "docs" / "protocol.md").read_text()
    assert "closed with code 1009" in text
