"""One message to many connections, framed once.

A server's websocket frames are not masked (RFC 6455 5.1), so an uncompressed frame's
bytes are the same on every connection: the gateway frames a message once and writes
those bytes to each caught-up client's transport, where ``websockets.broadcast`` would
frame it again for each (most of the gateway's cost at 1,000 clients). Connections
that negotiated compression go through the library's ``broadcast``. Like it, this
never waits and skips connections that are not open (docs/scale.md)."""

from __future__ import annotations

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.frames import Frame, Opcode
from websockets.protocol import State


def framed(message: str | bytes) -> bytes:
    """The unmasked, uncompressed websocket frame of one message (text for ``str``)."""
    if isinstance(message, str):
        return Frame(Opcode.TEXT, message.encode()).serialize(mask=False)
    return Frame(Opcode.BINARY, message).serialize(mask=False)


class FanOut:
    """One message on its way to many connections: ``send`` each, then ``finish``."""

    def __init__(self, message: str | bytes) -> None:
        self.message = message
        self.frame = framed(message)
        self.compressed: list[ServerConnection] = []
        self.written = 0
        """Connections the frame was written to directly."""

    def send(self, ws: ServerConnection) -> None:
        """Write the frame to an open connection at once (or keep a compressed one for
        ``finish``); a connection closing, closed or sending fragments is skipped."""
        protocol = ws.protocol
        if protocol.state is not State.OPEN or ws.send_in_progress is not None:
            return
        if protocol.extensions:
            self.compressed.append(ws)
            return
        transport = ws.transport
        if transport is None or transport.is_closing():
            return
        transport.write(self.frame)
        self.written += 1

    def finish(self) -> None:
        """The connections with compression, through the library (framed per connection)."""
        if self.compressed:
            broadcast(self.compressed, self.message)
            self.compressed = []
