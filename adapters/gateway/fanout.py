"""One message to many connections, framed once.

A server's websocket frames are not masked (RFC 6455 5.1), so the bytes of an
uncompressed frame carrying a message are the same on every connection: the
gateway frames a move's message once and writes those bytes to each caught-up
client's transport, where ``websockets.broadcast`` frames it again for every
connection (about 20 us a client, most of the gateway's cost at 1,000
clients). A connection that negotiated compression (``permessage-deflate``,
which browsers ask for) keeps a compression context of its own, so its frames
differ: those go through the library's ``broadcast``.

Like ``broadcast``, this skips a connection that is not open (closing, closed)
or is in the middle of sending a fragmented message, and never waits: a whole
frame is appended to a transport's buffer in one ``write``, so it cannot
interleave with another frame. Whether a client is caught up (its buffer
small enough) is for the caller (``Client.idle``).
"""

from __future__ import annotations

from collections.abc import Iterable

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.frames import Frame, Opcode
from websockets.protocol import State


def framed(message: str | bytes) -> bytes:
    """The unmasked, uncompressed websocket frame of one message (text for ``str``)."""
    if isinstance(message, str):
        return Frame(Opcode.TEXT, message.encode()).serialize(mask=False)
    return Frame(Opcode.BINARY, message).serialize(mask=False)


def fan_out(connections: Iterable[ServerConnection], message: str | bytes) -> int:
    """Send ``message`` to every open connection; the number written directly."""
    frame = framed(message)
    compressed: list[ServerConnection] = []
    written = 0
    for ws in connections:
        protocol = ws.protocol
        if protocol.state is not State.OPEN or ws.send_in_progress is not None:
            continue
        if protocol.extensions:
            compressed.append(ws)
            continue
        transport = ws.transport
        if transport is None or transport.is_closing():
            continue
        transport.write(frame)
        written += 1
    if compressed:
        broadcast(compressed, message)
    return written
