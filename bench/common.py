"""What the bench scripts share: the 2013 games they replay, timing, percentiles, the bare
``websockets`` broadcast server the gateway's figures are compared with."""

from __future__ import annotations

import base64
import os
import socket
import statistics
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "replay_logs" / "sources" / "candidates-2013.pgn"
T0_MS = 1_363_356_000_000  # 2013-03-15T14:00:00Z, the first round


def timed(
    fn: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Median seconds of one call over ``repeat`` calls (``clock``: wall time by default;
    ``time.process_time`` counts this process's CPU only, steadier on a shared machine)."""
    runs = []
    for _ in range(repeat):
        start = clock()
        fn()
        runs.append(clock() - start)
    return statistics.median(runs)


def read_games(limit: int) -> list[chess.pgn.Game]:
    """The first ``limit`` games of the 2013 Candidates."""
    games = []
    with open(SOURCE, encoding="utf-8") as handle:
        while len(games) < limit and (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games


def game_moves(limit: int) -> list[list[str]]:
    """The UCI moves of the first ``limit`` games of the 2013 Candidates."""
    return [[m.uci() for m in game.mainline_moves()] for game in read_games(limit)]


def handle(store: Any, cmd: dict[str, object]) -> None:
    """Send a command to the store; a refusal ends the bench, naming it."""
    answer = store.handle(cmd)
    if not answer["ok"]:
        raise SystemExit(f"bench: {cmd['cmd']} refused: {answer['error']}")


def lots_drawn(store: Any) -> list[dict[str, Any]]:
    """The 2013 field as the tournament ``bench``, its lots drawn; its players."""
    from tools.sample import ARBITERS, PLAYERS_BY_ID

    tournament = {"cmd": "create_tournament", "tournament": "bench", "name": "bench"}
    handle(
        store,
        {**tournament, "start_date": "2013-03-13", "players": PLAYERS_BY_ID, "arbiters": ARBITERS},
    )
    numbers = {p["id"]: n for n, p in enumerate(PLAYERS_BY_ID, start=1)}
    handle(store, {"cmd": "draw_lots", "tournament": "bench", "numbers": numbers})
    return list(PLAYERS_BY_ID)


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank; NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


BARE_BROADCAST_SERVER = textwrap.dedent(
    """
    import asyncio
    from websockets.asyncio.server import broadcast, serve

    clients = set()

    async def handler(ws):
        if ws.request.path == "/trigger":
            async for message in ws:
                broadcast(clients, message)
            return
        clients.add(ws)
        try:
            await ws.wait_closed()
        finally:
            clients.discard(ws)

    async def main():
        async with serve(handler, "127.0.0.1", 0, compression=None) as server:
            print(server.sockets[0].getsockname()[1], flush=True)
            await asyncio.get_running_loop().create_future()

    asyncio.run(main())
    """
)
"""A bare ``websockets`` server (run with ``python -c``): prints its port, then
``broadcast()``s every message sent to ``/trigger`` to every other client."""


def raw_websocket(port: int) -> socket.socket:
    """A websocket opened by hand on ``127.0.0.1:port`` (``/ws``, the json subprotocol) with
    a small receive buffer: a client that can send what it likes and read nothing."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Protocol: json\r\n\r\n".encode()
    )
    reply = b""
    while b"\r\n\r\n" not in reply:
        reply += sock.recv(1)
    return sock
