"""Running the real gateway in a thread of its own, and real websockets clients for tests."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from websockets.sync.client import ClientConnection, connect

from adapters.gateway.frames import JSON, MSGPACK, encode, messages
from adapters.gateway.server import serve_forever
from adapters.gateway.tokens import Tokens, parse_tokens
from engine.timefmt import format_instant
from tools import reference

MS = 0.001
TIMEOUT = 5.0

ARBITER_TOKEN = "arbiter-token-0123456789"
CHIEF_TOKEN = "chief-token-0123456789"
COMMENTATOR_TOKEN = "commentator-token-0123456789"
TOKENS = {
    ARBITER_TOKEN: {"role": "arbiter", "name": "Arbiters' desk"},
    CHIEF_TOKEN: {"role": "arbiter", "name": "Chief Arbiter", "arbiter": "chief"},
    COMMENTATOR_TOKEN: {"role": "commentator", "name": "Studio"},
}


def _frame_validators() -> tuple[Draft202012Validator, Draft202012Validator]:
    registry = Registry().with_resources(
        (reference.SCHEMA_ID + name, Resource.from_contents(schema))
        for name, schema in reference.schemas().items()
    )
    frames = reference.SCHEMA_ID + "frames.schema.json#/$defs/"
    return (
        Draft202012Validator({"$ref": frames + "client"}, registry=registry),
        Draft202012Validator({"$ref": frames + "server"}, registry=registry),
    )


CLIENT_FRAME, SERVER_FRAME = _frame_validators()
"""Every frame of the gateway tests is checked against docs/schema/frames.schema.json."""


def check_server_frame(frame: Any) -> None:
    errors = [f"{e.json_path}: {e.message}" for e in SERVER_FRAME.iter_errors(frame)]
    assert not errors, f"server frame outside the schema: {errors[:3]}: {str(frame)[:400]}"


def tokens() -> Tokens:
    return parse_tokens(TOKENS)


def now_at(offset_s: float = 0.0) -> str:
    """The contract's form of the wall-clock instant (live play)."""
    return format_instant(time.time_ns() // 1_000_000 + round(offset_s * 1000))


class RunningGateway:
    """``serve_forever`` on a free loopback port, in a thread with its own event loop."""

    def __init__(self, store_url: str, public_delay_s: float = 0.0, **options: Any) -> None:
        self.port = 0
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        options.setdefault("poll_interval_s", 0.02)
        self._thread = threading.Thread(
            target=self._run, args=(store_url, public_delay_s, options), daemon=True
        )
        self._thread.start()
        if not self._ready.wait(20):
            raise RuntimeError("the gateway did not start")
        if self._error is not None:
            raise self._error

    def _run(self, store_url: str, delay: float, options: dict[str, Any]) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()

            def ready(server: Any) -> None:
                self.port = server.sockets[0].getsockname()[1]
                self._ready.set()

            await serve_forever(
                store_url, "127.0.0.1", 0, tokens(), delay, self._stop, ready=ready, **options
            )

        try:
            asyncio.run(main())
        except BaseException as exc:  # reported to the test thread
            self._error = exc
            self._ready.set()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def __enter__(self) -> RunningGateway:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Peer:
    """A websockets client that keeps every frame it received, in order."""

    def __init__(self, gateway: RunningGateway, *, json_text: bool = False, **kw: Any) -> None:
        self.encoding = JSON if json_text else MSGPACK
        # no keepalive: a peer a test leaves open would ping a stopped gateway 20 s later
        # and print the broken pipe's traceback in the suite's output
        kw.setdefault("ping_interval", None)
        self.ws: ClientConnection = connect(
            gateway.url, subprotocols=[JSON] if json_text else None, **kw
        ).__enter__()
        self.frames: list[dict[str, Any]] = []
        self.raw: list[str | bytes] = []
        self._read = 0

    def send(self, frame: Any, *, valid: bool = True) -> None:
        """Send a frame; it must be valid by the frames schema (``valid=False``: must not)."""
        errors = [e.message for e in CLIENT_FRAME.iter_errors(frame)]
        assert valid == (not errors), f"client frame {frame!r}: schema says {errors or 'valid'}"
        self.ws.send(encode(frame, self.encoding))

    def send_raw(self, data: str | bytes) -> None:
        self.ws.send(data)

    def subscribe(self, **fields: Any) -> None:
        self.send({"op": "subscribe", "games": "*", **fields})

    def _pull(self, timeout: float) -> bool:
        try:
            message = self.ws.recv(timeout=timeout)
        except TimeoutError:
            return False
        self.raw.append(message)
        received = messages(message, self.encoding)
        for frame in received:
            check_server_frame(frame)
        self.frames.extend(received)
        return True

    def next(self, match: Callable[[dict[str, Any]], bool] | str, timeout: float = TIMEOUT):
        """The next unread frame that matches (an ``op`` name or a predicate)."""
        pred = (lambda f: f.get("op") == match) if isinstance(match, str) else match
        deadline = time.monotonic() + timeout
        while True:
            while self._read < len(self.frames):
                frame = self.frames[self._read]
                self._read += 1
                if pred(frame):
                    return frame
            left = deadline - time.monotonic()
            if left <= 0 or not self._pull(left):
                raise AssertionError(f"no frame matching {match!r}; got {self.frames!r}"[:4000])

    def quiet(self, seconds: float) -> list[dict[str, Any]]:
        """Every frame that arrives within ``seconds`` (for 'nothing early' checks)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self._pull(left)
        new = self.frames[self._read :]
        self._read = len(self.frames)
        return new

    def close(self) -> None:
        self.ws.close()

    def __enter__(self) -> Peer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def dump(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, default=list)


class StalledReader:
    """A websocket client that subscribes and then never reads: the slowest client there is.

    Raw socket with a tiny receive buffer set before connecting (so the TCP window
    stays small); the handshake and one masked frame are written by hand.
    """

    def __init__(self, gateway: RunningGateway, frame: dict[str, Any]) -> None:
        import base64
        import os
        import socket

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        self.sock.connect(("127.0.0.1", gateway.port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{gateway.port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        assert head.startswith(b"HTTP/1.1 101"), head
        payload = encode(frame, MSGPACK)
        assert isinstance(payload, bytes) and len(payload) < 126
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes([0x82, 0x80 | len(payload)]) + mask + masked)

    def drain(self, timeout: float = 10.0) -> tuple[list[dict[str, Any]], int | None, str]:
        """Read everything until the server closes or goes quiet: (frames, close code, reason)."""
        self.sock.settimeout(timeout)
        data = b""
        try:
            while chunk := self.sock.recv(65536):
                data += chunk
        except (TimeoutError, ConnectionResetError):
            pass
        frames: list[dict[str, Any]] = []
        code, reason, i = None, "", 0
        while i + 2 <= len(data):
            op, n = data[i] & 0x0F, data[i + 1] & 0x7F
            i += 2
            if n == 126:
                n, i = int.from_bytes(data[i : i + 2], "big"), i + 2
            elif n == 127:
                n, i = int.from_bytes(data[i : i + 8], "big"), i + 8
            body = data[i : i + n]
            i += n
            if op == 0x2:
                frames.extend(messages(body, MSGPACK))
                for frame in frames:
                    check_server_frame(frame)
            if op == 0x8 and len(body) >= 2:
                code, reason = int.from_bytes(body[:2], "big"), body[2:].decode()
        return frames, code, reason

    def close(self) -> None:
        self.sock.close()
