"""One message to many connections, framed once (``adapters.gateway.fanout.FanOut``), over a
real ``websockets`` server: compressed and uncompressed clients, text and binary, and
connections that are closing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode

from adapters.gateway.fanout import FanOut, framed


def test_a_framed_message_is_what_the_library_would_send_unmasked() -> None:
    """RFC 6455 5.1: a server frame is not masked, so its bytes are the same for every
    uncompressed connection."""
    for message, opcode in ((b"\x93\x01\x02\x03", Opcode.BINARY), ("é" * 200, Opcode.TEXT)):
        data = message.encode() if isinstance(message, str) else message
        assert framed(message) == Frame(opcode, data).serialize(mask=False)
    assert framed(b"x" * 70_000)[:2] == b"\x82\x7f"  # 64-bit length


async def _fan_out_to(
    clients: list[dict[str, Any]], messages: list[str | bytes], close_first: bool = False
) -> tuple[list[list[str | bytes]], list[int]]:
    connected: list[ServerConnection] = []
    ready = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        connected.append(ws)
        if len(connected) == len(clients):
            ready.set()
        await ws.wait_closed()

    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        sockets = [await connect(f"ws://127.0.0.1:{port}/", **kw) for kw in clients]
        await asyncio.wait_for(ready.wait(), 10)
        if close_first:
            await connected[0].close()
        written = []
        for message in messages:
            out = FanOut(message)
            for ws in connected:
                out.send(ws)
            out.finish()
            written.append(out.written)
        received: list[list[str | bytes]] = []
        for i, ws in enumerate(sockets):
            got: list[str | bytes] = []
            if not (close_first and i == 0):
                for _ in messages:
                    got.append(await asyncio.wait_for(ws.recv(), 10))
            received.append(got)
            await ws.close()
        return received, written


def test_compressed_and_uncompressed_clients_get_every_message_intact() -> None:
    messages: list[str | bytes] = [b"\x81\xa2op\xa4move", "[1,2,3]", b"y" * 100_000]
    clients = [{"compression": None}, {}, {"compression": None}]  # {}: permessage-deflate
    received, written = asyncio.run(_fan_out_to(clients, messages))
    assert received == [messages, messages, messages]
    assert written == [2, 2, 2]  # the compressed one went through the library's broadcast


def test_a_connection_that_is_closing_is_skipped() -> None:
    messages: list[str | bytes] = [b"after the close"]
    clients = [{"compression": None}, {"compression": None}]
    received, written = asyncio.run(_fan_out_to(clients, messages, close_first=True))
    assert received[1] == messages
    assert written == [1]


@pytest.mark.parametrize("message", [b"", ""])
def test_an_empty_message_is_a_frame_too(message: str | bytes) -> None:
    received, _ = asyncio.run(_fan_out_to([{"compression": None}], [message]))
    assert received == [[message]]
