"""A websocket connection that costs the gateway no more than its budget.

``websockets`` parses every frame and answers every Ping before the session sees
anything, so a client that floods and never reads would take the event loop from the
others. ``guarded_connection`` charges what arrives to the connection's budget and
stops reading the socket until it is paid (the client's TCP window then holds it
back), and closes with 1008 a client that stays over it or keeps sending without
reading (docs/protocol.md, "Flooding clients")."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from typing import Any, ClassVar

from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame
from websockets.protocol import State
from websockets.server import ServerProtocol

from adapters.gateway.budget import Inbound
from adapters.gateway.hub import POLICY_VIOLATION, Limits
from adapters.gateway.opening import answer_http_errors

log = logging.getLogger(__name__)


def guarded_connection(limits: Limits) -> type[ServerConnection]:
    """The connection class of one gateway, with its limits and its count of the
    connections open from each address."""

    class Guarded(GuardedConnection):
        pass

    Guarded.limits = limits
    Guarded.open_from = Counter()
    return Guarded


def too_many(limit: int) -> bytes:
    """The answer to a connection over the per-address limit (RFC 9110 15.6.4)."""
    body = (
        f"service unavailable: more than {limit} connections from this address are open; "
        "close some and try again\n"
    ).encode()
    return (
        b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
        b"Connection: close\r\nRetry-After: 5\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )


class GuardedConnection(ServerConnection):
    """A ``ServerConnection`` with an inbound budget and a bound on what waits to be sent."""

    limits = Limits()
    open_from: ClassVar[Counter[str]] = Counter()
    """Connections open from each address (this gateway's: ``guarded_connection``)."""

    def __init__(self, protocol: ServerProtocol, *args: Any, **kwargs: Any) -> None:
        super().__init__(protocol, *args, **kwargs)
        answer_http_errors(protocol)
        self.inbound = Inbound(self.limits.inbound, self.loop.time())
        self.frames_in = 0
        """Frames received in the read being handled (counted by ``process_event``)."""
        self.queue_full = False
        """The library's flow control wants the socket paused (``max_queue``)."""
        self.throttled: asyncio.TimerHandle | None = None
        """Reading is paused until this fires (the client is over its budget)."""
        self.cut: str | None = None
        """Why the gateway closed this connection (it is read no more)."""
        self.address: str | None = None
        """The address this connection is counted under (``open_from``); None: not counted."""

    # --- reading, paused by the budget or by the library ------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        messages = self.recv_messages
        messages.pause = lambda: self._queue(True)
        messages.resume = lambda: self._queue(False)
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else None
        if address is None:
            return
        limit = self.limits.max_connections_per_address
        if self.open_from[address] >= limit:
            self.cut = f"over {limit} connections from {address}"
            log.info("refusing a connection from %s: %s open", address, limit)
            # answered, then closed once the client has had the grace to read it (what it
            # sends meanwhile is not read: ``data_received``)
            assert isinstance(transport, asyncio.WriteTransport)
            transport.write(too_many(limit))
            if transport.can_write_eof():
                transport.write_eof()
            self.loop.call_later(self.limits.close_grace_s, self._drop)
            return
        self.address = address
        self.open_from[address] += 1

    def _queue(self, full: bool) -> None:
        self.queue_full = full
        self._reading()

    def _reading(self) -> None:
        transport = self.transport
        if transport.is_closing():
            return
        if self.queue_full or self.throttled is not None or self.cut is not None:
            transport.pause_reading()
        else:
            transport.resume_reading()

    def _unthrottle(self) -> None:
        self.throttled = None
        self._reading()

    def process_event(self, event: Any) -> None:
        if isinstance(event, Frame):
            self.frames_in += 1
        super().process_event(event)

    def data_received(self, data: bytes) -> None:
        if self.cut is not None:
            return  # closed by the gateway: what it still sends costs nothing
        self.frames_in = 0
        super().data_received(data)
        if self.protocol.state is not State.OPEN:
            return  # the opening handshake, or closing: not a client's frames
        now = self.loop.time()
        self.inbound.spend(self.frames_in, len(data), now)
        limit = self.limits.max_output_bytes
        if self.transport.get_write_buffer_size() > limit:
            self.close_for(f"not reading: more than {limit} bytes wait to be sent to it")
            return
        wait, why = self.inbound.verdict(now)
        if why is not None:
            self.close_for(why)
        elif wait > 0 and self.throttled is None:
            self.throttled = self.loop.call_later(wait, self._unthrottle)
            self._reading()

    def send_data(self) -> None:
        """What the protocol has to send, in one write: a read of many Pings is answered
        with one write, not one per Pong, and a connection that was reset meanwhile is
        not written to again (``ServerConnection.send_data`` writes each frame)."""
        pending = bytearray()
        for data in self.protocol.data_to_send():
            if data:
                pending += data
                continue
            self._write(pending)  # the end of the stream: after what came before it
            pending.clear()
            if self.transport.can_write_eof():
                with contextlib.suppress(Exception):
                    self.transport.write_eof()
            else:
                self.transport.close()
        self._write(pending)

    def _write(self, data: bytearray) -> None:
        if data and not self.transport.is_closing():
            self.transport.write(bytes(data))

    def close_for(self, reason: str, code: int = POLICY_VIOLATION) -> None:
        """Stop reading this client and close it with ``code`` and ``reason`` now: the
        close frame is written at once (the session reads none of the frames still
        queued), and the connection is dropped if it is not closed ``close_grace_s``
        later."""
        if self.cut is not None:
            return
        self.cut = reason
        self._reading()
        log.info("closing %s: %s", self.remote_address, reason)
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(code, reason[:120])
            self.send_data()
        self.loop.call_later(self.limits.close_grace_s, self._drop)

    def _drop(self) -> None:
        if not self.transport.is_closing():
            self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.address is not None:
            self.open_from[self.address] -= 1
            if self.open_from[self.address] <= 0:
                del self.open_from[self.address]
            self.address = None
        if self.throttled is not None:
            self.throttled.cancel()
            self.throttled = None
        super().connection_lost(exc)
