"""Hostile numbers, keys, tokens and paths at the gateway: an answer, never a closed socket.

The fourth hardening pass found a 5,000-digit ``id`` or ``since`` closing the connection
with 1011 (docs/protocol.md: a malformed frame never closes it), a msgpack map keyed by
a number answered, a refused re-subscribe keeping its earlier arbiter role, ``/status``
serving a wrong token as if it were public, ``GET /pgn/round/<5,000 nines>.pgn``
answering 500, ``HEAD`` sending the body, and 1,500 idle connections from one address
all kept.
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request

import msgpack
import pytest

from adapters.gateway.frames import MESSAGE_BYTES, Frame, batches, decode
from adapters.gateway.hub import Limits
from adapters.store import Store
from tests.gateway_support import ARBITER_TOKEN, Peer, RunningGateway
from tests.helpers import at, ok

NINES = "9" * 5000


@pytest.fixture
def started(started: Store) -> Store:
    """Game 1.1 started (tests/conftest.py), with 1. d4 played."""
    ok(started, {"cmd": "play_move", "game": "1.1", "move": "d4", "at": at(5)})
    return started


@pytest.mark.parametrize(
    "message",
    [
        '{"op": "ping", "id": ' + NINES + "}",
        '{"op": "subscribe", "games": "*", "since": ' + NINES + "}",
        '{"op": "subscribe", "games": "*", "since": -' + NINES + "}",
        '{"op": "subscribe", "games": "*", "since": 1e' + NINES + "}",
        '{"op": "command", "id": "c", "command": {"cmd": "resign", "at": ' + NINES + "}}",
    ],
)
def test_a_5000_digit_number_gets_malformed_frame_and_the_connection_stays(
    started: Store, message: str
) -> None:
    with RunningGateway(started.url) as gw:
        peer = Peer(gw, json_text=True)
        peer.send_raw(message)
        error = peer.next("error")
        assert error["code"] == "malformed_frame" and "a number of 500" in error["message"], error
        assert len(json.dumps(error)) < 600
        peer.send({"op": "ping", "id": "still"})
        assert peer.next("pong")["id"] == "still"


@pytest.mark.parametrize(
    "frame",
    [
        {"op": "subscribe", "games": "*", "since": 2**63 - 1},
        {"op": "subscribe", "games": "*", "since": -(2**63)},
        {"op": "subscribe", "games": "*", "since": 2**64 - 1},
    ],
)
def test_a_msgpack_since_beyond_2_53_gets_malformed_frame(
    started: Store, frame: dict[str, object]
) -> None:
    with RunningGateway(started.url) as gw:
        peer = Peer(gw)
        peer.send_raw(msgpack.packb(frame))
        error = peer.next("error")
        assert error["code"] == "malformed_frame" and "'since'" in error["message"]
        peer.send({"op": "ping", "id": "still"})
        assert peer.next("pong")["id"] == "still"


@pytest.mark.parametrize(
    "packed",
    [
        msgpack.packb({"op": "ping", 1: "x"}),
        msgpack.packb({"op": "ping", None: "x"}),
        msgpack.packb({"op": "subscribe", "games": "*", "extra": {2.5: 1}}),
        b"\x82\xa2op\xa4ping\x91\x01\xa1x",  # a key that is an array [1]
    ],
)
def test_a_msgpack_map_keyed_by_anything_but_a_string_gets_malformed_frame(
    started: Store, packed: bytes
) -> None:
    with RunningGateway(started.url) as gw:
        peer = Peer(gw)
        peer.send_raw(packed)
        error = peer.next("error")
        assert error["code"] == "malformed_frame", error
        assert "keys are strings" in error["message"] or "not msgpack" in error["message"]
        peer.send({"op": "ping", "id": "still"})
        assert peer.next("pong")["id"] == "still"


def test_decode_names_the_key_that_is_not_a_string() -> None:
    from adapters.gateway.frames import FrameError

    with pytest.raises(FrameError, match=r"keys are strings.*int 1"):
        decode(msgpack.packb({"op": "ping", 1: "x"}), "msgpack")


def test_a_refused_resubscribe_drops_the_arbiter_role(started: Store) -> None:
    """protocol.md: a subscription that is refused replaces the earlier one; the next
    command is ``not_subscribed`` and nothing is appended."""
    with RunningGateway(started.url) as gw:
        peer = Peer(gw, json_text=True)
        peer.subscribe(token=ARBITER_TOKEN)
        assert peer.next("subscribed")["role"] == "arbiter"
        peer.subscribe(token="not-a-token-at-all")
        assert peer.next("error")["code"] == "invalid_token"
        before = started.last_seq()
        resign = {"cmd": "resign", "game": "1.1", "by": "black", "at": at(30)}
        peer.send({"op": "command", "id": "c1", "command": resign})
        error = peer.next(lambda f: f.get("id") == "c1")
        assert error["op"] == "error" and error["code"] == "not_subscribed", error
        assert started.last_seq() == before
        # subscribing again with the token gives the role back
        peer.subscribe(token=ARBITER_TOKEN)
        assert peer.next("subscribed")["role"] == "arbiter"
        peer.send({"op": "command", "id": "c2", "command": resign})
        assert peer.next(lambda f: f.get("id") == "c2")["ok"] is True


def _get(url: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_status_with_an_unknown_token_is_401_as_the_api_answers(started: Store) -> None:
    with RunningGateway(started.url) as gw:
        status, headers, body = _get(f"{gw.http}/status?token=not-a-token")
        assert status == 401 and json.loads(body)["error"]["code"] == "invalid_token"
        assert headers.get("WWW-Authenticate", "").startswith("Bearer")
        assert _get(f"{gw.http}/api/standings?token=not-a-token")[0] == 401
        assert _get(f"{gw.http}/status")[0] == 200
        assert _get(f"{gw.http}/status?token={ARBITER_TOKEN}")[0] == 200


@pytest.mark.parametrize(
    "path",
    [
        f"/pgn/round/{NINES}.pgn",
        "/pgn/round/0.pgn",
        "/pgn/round/99.pgn",
        "/pgn/round/1234567890.pgn",
        f"/pgn/games/{NINES}.pgn",
        f"/api/games/{NINES}",
        f"/static/{NINES}.js",
    ],
)
def test_a_number_in_a_path_is_404_or_400_never_500(started: Store, path: str) -> None:
    with RunningGateway(started.url) as gw:
        status, _, _ = _get(gw.http + path)
        assert status in (400, 404, 414), (path[:40], status)
        assert _get(f"{gw.http}/pgn/round/1.pgn")[0] == 200


def _raw_http(port: int, request: bytes) -> bytes:
    """Everything the gateway sends back before it closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


@pytest.mark.parametrize("path", ["/pgn/all.pgn", "/api/standings", "/", "/status", "/nowhere"])
def test_rfc_9110_9_3_2_head_sends_the_headers_of_get_and_no_body(
    started: Store, path: str
) -> None:
    with RunningGateway(started.url) as gw:
        get = _raw_http(gw.port, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        head = _raw_http(gw.port, f"HEAD {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    get_head, _, get_body = get.partition(b"\r\n\r\n")
    head_head, _, head_body = head.partition(b"\r\n\r\n")
    assert get_body and head_body == b"", head[:300]
    assert head_head.split(b"\r\n")[0] == get_head.split(b"\r\n")[0]
    length = [h for h in head_head.split(b"\r\n") if h.lower().startswith(b"content-length")]
    assert length == [f"Content-Length: {len(get_body)}".encode()]


def test_connections_beyond_the_per_address_cap_are_answered_503(started: Store) -> None:
    limits = Limits(max_connections_per_address=5)
    with RunningGateway(started.url, limits=limits) as gw:
        idle = [socket.create_connection(("127.0.0.1", gw.port), timeout=10) for _ in range(5)]
        try:
            extra = _raw_http(gw.port, b"GET /status HTTP/1.1\r\nHost: x\r\n\r\n")
            assert extra.startswith(b"HTTP/1.1 503"), extra[:200]
            assert b"more than 5 connections" in extra
        finally:
            for sock in idle:
                sock.close()
        # once the idle ones are closed, the address is served again
        for _ in range(100):
            status = _get(f"{gw.http}/status")[0]
            if status == 200:
                break
        assert status == 200


def test_the_cap_is_an_option_of_serve_and_a_key_of_the_hall_file() -> None:
    from adapters.cli.hall_config import GATEWAY_KEYS

    assert "max_connections_per_address" in GATEWAY_KEYS
    from pathlib import Path

    docs = Path(__file__).resolve().parents[1] / "docs"
    assert "--max-connections-per-address" in (docs / "protocol.md").read_text()
    assert "max_connections_per_address" in (docs / "operations.md").read_text()


def test_what_waits_for_a_client_is_sent_as_messages_under_its_1_mib_limit() -> None:
    """Open alerts of 60 K each (their ``details`` within the commands' limit): forty of
    them go out as several messages, none over ``MESSAGE_BYTES``, in order."""
    alerts = [
        Frame({"op": "alert", "key": f"board/{i}", "details": {"seen": "x" * 60_000}})
        for i in range(40)
    ]
    for encoding in ("json", "msgpack"):
        messages = batches(alerts, encoding)
        assert len(messages) > 1 and all(len(m) <= MESSAGE_BYTES for m in messages)
        keys = [
            f["key"]
            for m in messages
            for f in (lambda o: o if isinstance(o, list) else [o])(decode(m, encoding))
        ]
        assert keys == [f"board/{i}" for i in range(40)]
