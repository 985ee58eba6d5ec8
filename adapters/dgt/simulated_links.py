"""A simulated DGT board served live: its firmware answering a host, on a link.

``PtyLink`` (a pseudo-terminal the host opens as a serial port) and ``TcpLink`` (a
TCP port, as a serial-to-network bridge) carry the bytes; ``link.play(sim)`` runs
the board's firmware (``_LiveBoard``) over a ``BoardSimulator``'s script: idle
until the host sets a mode, answering its queries, reporting changes as they
happen (``adapters.dgt.simulator``). ``serve_livechess`` stands in for DGT LiveChess's
websocket API over simulated boards.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from abc import ABC, abstractmethod
from pathlib import Path

from adapters.dgt import protocol as p
from adapters.dgt.board_codes import placement_of
from adapters.dgt.simulator import BoardSimulator


class SimulatedLink(ABC):
    """Where the simulated board writes and reads; ``reopen`` models a reconnection."""

    plies: int = 0
    """The plies the board played so far (whoever drives a scenario waits on them)."""
    host_bytes: int = 0
    """The bytes the host sent so far (a host that connected asks for the board)."""
    paused: bool = False
    """While set, the players wait (the board still answers the host); their script
    goes on from where it stood once it is cleared."""

    @abstractmethod
    async def open(self) -> None: ...

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    def write(self, data: bytes) -> None: ...

    @abstractmethod
    async def read(self) -> bytes:
        """Host bytes; b"" when the link is closed."""

    async def play(self, sim: BoardSimulator, stay_on_s: float = 0.3) -> None:
        """Play the simulator's script on this link, answering host commands as a board
        does; after the last move the board stays on, answering, for ``stay_on_s`` (a
        board in a hall stays on until it is unplugged: a host that reconnects then reads
        the final position)."""
        await _LiveBoard(sim, self, stay_on_s).run()


class _LiveBoard:
    """The board's firmware: IDLE until told a mode, answers queries, reports changes."""

    def __init__(self, sim: BoardSimulator, link: SimulatedLink, stay_on_s: float = 0.3) -> None:
        self.sim = sim
        self.link = link
        self.stay_on_s = stay_on_s
        self.codes = sim.initial_codes()
        self.mode = "idle"
        self.clock: bytes = p.encode_clock(7200_000, 7200_000, None)
        self.up = False
        self.done = asyncio.Event()

    def send(self, data: bytes) -> None:
        if self.up:
            self.link.write(data)

    def answer(self, command: int) -> None:
        if command == p.SEND_BRD:
            self.send(p.encode_board_dump(self.codes))
        elif command == p.RETURN_SERIALNR:
            self.send(p.encode_serial(self.sim.serial))
        elif command == p.SEND_VERSION:
            self.send(p.encode_version(*self.sim.version))
        elif command == p.SEND_CLK:
            self.send(self.clock)
        elif command in (p.SEND_UPDATE, p.SEND_UPDATE_NICE, p.SEND_UPDATE_BRD):
            self.mode = {p.SEND_UPDATE: "update", p.SEND_UPDATE_NICE: "nice"}.get(command, "board")
        elif command == p.SEND_RESET:
            self.mode = "idle"

    async def serve_commands(self) -> None:
        pending = b""
        while True:
            data = await self.link.read()
            if not data:
                await asyncio.sleep(0.01)
                continue
            self.link.host_bytes += len(data)
            pending += data
            while pending:
                if pending[0] == p.CLOCK_MESSAGE:
                    if len(pending) < 2 or len(pending) < 2 + pending[1]:
                        break
                    size = pending[1]
                    pending = pending[2 + size :]
                    self.send(p.encode_clock_ack(0x10, 0x00))
                    continue
                self.answer(pending[0])
                pending = pending[1:]

    async def run(self) -> None:
        await self.link.open()
        self.up = True
        commands = asyncio.create_task(self.serve_commands())
        loop = asyncio.get_running_loop()
        # Wait for the host to put the board in an update mode.
        while self.mode == "idle":
            await asyncio.sleep(0.005)
        start = loop.time()
        try:
            for step in self.sim.script():
                if self.link.paused:
                    paused_at = loop.time()
                    while self.link.paused:
                        await asyncio.sleep(0.01)
                    start += loop.time() - paused_at
                delay = start + step.at_ms / 1000 - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                if step.kind == "field":
                    self.codes[step.field] = step.code
                    if self.mode != "idle":
                        self.send(p.encode_field_update(step.field, step.code))
                elif step.kind == "clock":
                    self.clock = p.encode_clock(step.left_ms, step.right_ms, step.running)
                    if self.mode in ("update", "nice"):
                        self.send(self.clock)
                elif step.kind == "drop":
                    self.up = False
                    await self.link.close()
                elif step.kind == "ply":
                    self.link.plies = step.ply
                elif step.kind == "restore":
                    self.mode = "idle"  # a power-cycled / replugged board starts idle
                    await self.link.open()
                    self.up = True
            # Keep answering a while (a real board stays on).
            await asyncio.sleep(self.stay_on_s)
        finally:
            commands.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await commands
            self.done.set()


class PtyLink(SimulatedLink):
    """The board end of a pseudo-terminal pair; the host opens ``path`` (a symlink
    to the slave device) with pyserial. A reconnection makes a new pair and moves
    the symlink, as udev does for a replugged USB board."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.master: int | None = None
        self._queue: asyncio.Queue[bytes] = asyncio.Queue()

    async def open(self) -> None:
        master, slave = os.openpty()
        slave_name = os.ttyname(slave)
        import tty

        tty.setraw(master)
        os.set_blocking(master, False)
        self.master = master
        self._slave = slave  # keep it open so the master never sees a hang-up
        tmp = self.path.with_suffix(".tmp")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        tmp.symlink_to(slave_name)
        tmp.replace(self.path)
        asyncio.get_running_loop().add_reader(master, self._readable)

    def _readable(self) -> None:
        if self.master is None:
            return
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if data:
            self._queue.put_nowait(data)

    async def close(self) -> None:
        if self.master is not None:
            asyncio.get_running_loop().remove_reader(self.master)
            os.close(self.master)
            os.close(self._slave)
            self.master = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def write(self, data: bytes) -> None:
        if self.master is None:
            return
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.master, view)
            except BlockingIOError:
                continue
            view = view[n:]

    async def read(self) -> bytes:
        return await self._queue.get()


class TcpLink(SimulatedLink):
    """A serial-over-TCP bridge: one host connection at a time on ``port``."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host, self.port = host, port
        self.server: asyncio.Server | None = None
        self.writer: asyncio.StreamWriter | None = None
        self._queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.bound = asyncio.Event()

    async def open(self) -> None:
        """Listen (on the same port again after a drop); bytes written before the
        host connects are lost, as on a real bridge."""

        async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if self.writer is not None:
                writer.close()
                return
            self.writer = writer
            while True:
                data = await reader.read(4096)
                if not data:
                    break
                self._queue.put_nowait(data)

        self.server = await asyncio.start_server(client, self.host, self.port)
        self.port = self.server.sockets[0].getsockname()[1]
        self.bound.set()

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
        if self.server is not None:
            self.server.close()
            self.server = None

    def write(self, data: bytes) -> None:
        if self.writer is not None:
            self.writer.write(data)

    async def read(self) -> bytes:
        return await self._queue.get()


async def serve_livechess(
    boards: dict[str, BoardSimulator],
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    ready: asyncio.Future[int] | None = None,
    drop_after_ms: int | None = None,
) -> None:
    """A stand-in for DGT LiveChess's websocket API, relaying simulated boards.

    Answers ``eboards`` and ``subscribe`` as LiveChess does and then sends one
    ``eboardevent`` per physical change (the whole placement, lifted pieces
    included) and per clock reading (colours, seconds). ``drop_after_ms``
    closes every connection once, that long after the first subscription, to
    exercise a client's reconnection. Runs until cancelled.
    """
    from websockets.asyncio.server import serve

    state = {serial: sim.initial_codes() for serial, sim in boards.items()}
    clocks: dict[str, dict[str, object]] = {}
    progress: dict[str, int] = {}  # index of the next step per board
    dropped = asyncio.Event()
    loop = asyncio.get_running_loop()

    def feed(serial: str, feed_id: int, board: bool, clock: bool) -> str:
        param: dict[str, object] = {"serialnr": serial, "flipped": boards[serial].rotated}
        if board:
            param["board"] = placement_of(state[serial])
        if clock and serial in clocks:
            param["clock"] = clocks[serial]
        return json.dumps({"response": "feed", "id": feed_id, "param": param, "time": 0})

    async def play(ws, serial: str, feed_id: int, started: float) -> None:  # type: ignore[no-untyped-def]
        sim = boards[serial]
        steps = sim.script()
        white_left = sim.white_side == "left"
        i = progress.get(serial, 0)
        origin = started - (steps[i].at_ms / 1000 if i < len(steps) else 0)
        while i < len(steps):
            step = steps[i]
            delay = origin + step.at_ms / 1000 - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            if step.kind == "field":
                state[serial][step.field] = step.code
                await ws.send(feed(serial, feed_id, True, False))
            elif step.kind == "clock":
                white = step.left_ms if white_left else step.right_ms
                black = step.right_ms if white_left else step.left_ms
                run = None
                if step.running is not None:
                    run = (step.running == "left") == white_left
                clocks[serial] = {
                    "white": white / 1000,
                    "black": black / 1000,
                    "run": run,
                    "time": 0,
                }
                await ws.send(feed(serial, feed_id, False, True))
            i += 1
            progress[serial] = i

    async def handler(ws) -> None:  # type: ignore[no-untyped-def]
        tasks: list[asyncio.Task[None]] = []
        try:
            async for text in ws:
                message = json.loads(text)
                call, call_id = message.get("call"), message.get("id")
                if call == "eboards":
                    listing = [
                        {
                            "serialnr": serial,
                            "source": f"sim-{serial}",
                            "state": "ACTIVE",
                            "battery": None,
                            "comment": None,
                            "board": placement_of(state[serial]),
                            "flipped": boards[serial].rotated,
                            "clock": clocks.get(serial),
                        }
                        for serial in boards
                    ]
                    await ws.send(json.dumps({"response": "call", "id": call_id, "param": listing}))
                elif call == "subscribe":
                    param = message["param"]
                    serial = param["param"]["serialnr"]
                    await ws.send(json.dumps({"response": "call", "id": call_id, "param": None}))
                    await ws.send(feed(serial, param["id"], True, True))
                    tasks.append(asyncio.create_task(play(ws, serial, param["id"], loop.time())))
                    if drop_after_ms is not None and not dropped.is_set():
                        dropped.set()

                        async def drop() -> None:
                            await asyncio.sleep(drop_after_ms / 1000)
                            await ws.close()

                        tasks.append(asyncio.create_task(drop()))
                else:
                    await ws.send(
                        json.dumps(
                            {
                                "response": "error",
                                "id": call_id,
                                "param": {"message": "unknown call"},
                            }
                        )
                    )
        finally:
            for task in tasks:
                task.cancel()

    async with serve(handler, host, port) as server:
        bound = next(iter(server.sockets)).getsockname()[1]
        if ready is not None:
            ready.set_result(bound)
        await asyncio.Future()
