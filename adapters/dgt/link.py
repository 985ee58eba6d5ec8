"""Transports and the loop that keeps one board connected.

A serial port (9600 8N1, read on the event loop), a serial-over-TCP bridge, or a
``.dgt`` recording replayed with its timing (``FileSource``). ``BoardLink.run(stop)``
opens, starts up, reads, settles and sends; a watchdog notices a silent or
power-cycled board, and a lost link is retried with back-off, the arbiters alerted
on loss and return, the moves played meanwhile found from the full dump. The details
are in docs/dgt.md, section 7."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from adapters.dgt import protocol as p
from adapters.dgt.observations import BoardAlert, Observation
from adapters.dgt.recording import Recorder, read_input
from adapters.dgt.session import BoardSession
from adapters.host.clock import wall_clock_ms

log = logging.getLogger(__name__)


class LinkLost(Exception):
    """The transport is gone (unplugged, closed, silent)."""


class Transport(ABC):
    name: str = "?"

    @abstractmethod
    async def open(self) -> None: ...

    @abstractmethod
    async def read(self) -> bytes:
        """Some bytes (waits); raises LinkLost when the link is gone."""

    @abstractmethod
    def write(self, data: bytes) -> None: ...

    @abstractmethod
    async def close(self) -> None: ...


class SerialTransport(Transport):
    """A serial port at 9600 8N1 through pyserial."""

    def __init__(self, port: str, baudrate: int = 9600) -> None:
        self.name = port
        self.port = port
        self.baudrate = baudrate
        self._serial: object | None = None
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()

    async def open(self) -> None:
        import serial

        try:
            ser = serial.Serial(
                self.port,
                baudrate=self.baudrate,
                bytesize=serial.EIGHTBITS,
                parity=serial.PARITY_NONE,
                stopbits=serial.STOPBITS_ONE,
                xonxoff=False,
                rtscts=False,
                timeout=0,
                write_timeout=1,
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            raise LinkLost(f"cannot open {self.port}: {exc}") from None
        self._serial = ser
        self._queue = asyncio.Queue()
        asyncio.get_running_loop().add_reader(ser.fileno(), self._readable)

    def _readable(self) -> None:
        import serial

        ser = self._serial
        if ser is None:
            return
        try:
            waiting = ser.in_waiting  # type: ignore[attr-defined]
            data = ser.read(waiting or 1)  # type: ignore[attr-defined]
        except (serial.SerialException, OSError, TypeError):
            data = b""
        if not data:
            # Readable but no data: the device is gone.
            asyncio.get_running_loop().remove_reader(ser.fileno())  # type: ignore[attr-defined]
            self._queue.put_nowait(None)
            return
        self._queue.put_nowait(bytes(data))

    async def read(self) -> bytes:
        data = await self._queue.get()
        if data is None:
            raise LinkLost(f"{self.port}: the device stopped answering (unplugged?)")
        return data

    def write(self, data: bytes) -> None:
        import serial

        if self._serial is None:
            raise LinkLost(f"{self.port} is closed")
        try:
            self._serial.write(data)  # type: ignore[attr-defined]
        except (serial.SerialException, OSError) as exc:
            raise LinkLost(f"{self.port}: write failed: {exc}") from None

    async def close(self) -> None:
        ser, self._serial = self._serial, None
        if ser is not None:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(ser.fileno())  # type: ignore[attr-defined]
            with contextlib.suppress(Exception):
                ser.close()  # type: ignore[attr-defined]


class TcpTransport(Transport):
    """A serial-over-TCP bridge."""

    def __init__(self, host: str, port: int) -> None:
        self.name = f"tcp://{host}:{port}"
        self.host, self.port = host, port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        try:
            self._reader, self._writer = await asyncio.wait_for(
                asyncio.open_connection(self.host, self.port), timeout=5
            )
        except (OSError, TimeoutError) as exc:
            raise LinkLost(f"cannot connect to {self.name}: {exc}") from None

    async def read(self) -> bytes:
        if self._reader is None:
            raise LinkLost(f"{self.name} is closed")
        try:
            data = await self._reader.read(4096)
        except OSError as exc:
            raise LinkLost(f"{self.name}: {exc}") from None
        if not data:
            raise LinkLost(f"{self.name} closed the connection")
        return data

    def write(self, data: bytes) -> None:
        if self._writer is None or self._writer.is_closing():
            raise LinkLost(f"{self.name} is closed")
        self._writer.write(data)

    async def close(self) -> None:
        writer, self._writer, self._reader = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


Deliver = Callable[[list[Observation]], None]


@dataclass
class BoardLink:
    """One board kept connected; observations go to ``deliver``."""

    transport: Transport
    session: BoardSession
    deliver: Deliver
    recorder: Recorder | None = None
    backoff_s: float = 0.5
    max_backoff_s: float = 10.0
    watchdog_s: float = 1.0
    silence_ms: int = 4000
    now: Callable[[], int] = wall_clock_ms
    connects: int = 0
    disconnects: int = 0
    _down_since: int | None = field(default=None)

    def _alert(self, kind: str, message: str, at_ms: int, **details: object) -> None:
        self.deliver([BoardAlert(at_ms, kind, message, dict(details))])

    def _flush(self) -> None:
        data = self.session.data_to_send()
        if data:
            if self.recorder is not None:
                self.recorder.host_bytes(self.now(), data)
            self.transport.write(data)
        self.deliver(self.session.observations())

    async def run(self, stop: asyncio.Event) -> None:
        delay = self.backoff_s
        while not stop.is_set():
            try:
                await self.transport.open()
            except LinkLost as exc:
                if self._down_since is None:
                    self._down_since = self.now()
                    self._alert(
                        "board_unreachable", str(exc), self._down_since, source=self.transport.name
                    )
                await _sleep_or_stop(stop, delay)
                delay = min(delay * 2, self.max_backoff_s)
                continue
            delay = self.backoff_s
            self.connects += 1
            now = self.now()
            if self.recorder is not None:
                self.recorder.link_event(now, "connected")
            if self._down_since is not None and self.connects > 1:
                self._alert(
                    "board_reconnected",
                    f"{self.transport.name} is back after {now - self._down_since} ms; "
                    "reconciling with a full dump",
                    now,
                    source=self.transport.name,
                    down_ms=now - self._down_since,
                )
            self._down_since = None
            try:
                await self._converse(stop)
            except LinkLost as exc:
                now = self.now()
                self.disconnects += 1
                self._down_since = now
                if self.recorder is not None:
                    self.recorder.link_event(now, f"disconnected: {exc}")
                self._alert("board_disconnected", str(exc), now, source=self.transport.name)
            finally:
                await self.transport.close()
            if not stop.is_set():
                await _sleep_or_stop(stop, delay)

    async def _converse(self, stop: asyncio.Event) -> None:
        session = self.session
        session.connected(self.now())
        self._flush()
        last_byte = self.now()
        next_watchdog = last_byte + int(self.watchdog_s * 1000)
        reader: asyncio.Task[bytes] | None = None
        stopper = asyncio.ensure_future(stop.wait())
        try:
            while not stop.is_set():
                now = self.now()
                deadlines = [next_watchdog]
                deadline = session.next_deadline_ms()
                if deadline is not None:
                    deadlines.append(deadline)
                timeout = max(0.0, (min(deadlines) - now) / 1000)
                if reader is None:
                    reader = asyncio.ensure_future(self.transport.read())
                done, _ = await asyncio.wait(
                    {reader, stopper}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
                )
                now = self.now()
                if reader in done:
                    data = reader.result()  # raises LinkLost
                    reader = None
                    last_byte = now
                    if self.recorder is not None:
                        self.recorder.board_bytes(now, data)
                    session.receive_data(data, now)
                session.poll(now)
                if now >= next_watchdog:
                    if now - last_byte > self.silence_ms:
                        raise LinkLost(f"{self.transport.name}: no answer for {now - last_byte} ms")
                    # Re-assert the update mode (a board that power-cycled is IDLE
                    # again) and ask for the serial number (a dead link shows).
                    session.request(p.SEND_UPDATE_NICE, p.RETURN_SERIALNR)
                    next_watchdog = now + int(self.watchdog_s * 1000)
                self._flush()
        finally:
            stopper.cancel()
            if reader is not None:
                reader.cancel()
                with contextlib.suppress(BaseException):
                    await reader


async def _sleep_or_stop(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


@dataclass
class FileSource:
    """A recorded session replayed through a session, in the recording's own time."""

    path: Path | None
    session: BoardSession
    deliver: Deliver
    speed: float = 1.0
    """1 = real time, 10 = ten times faster, 0 = as fast as possible."""
    data: bytes | None = None
    """The input itself, instead of ``path``."""

    async def run(self, stop: asyncio.Event) -> None:
        raw = self.data if self.data is not None else (self.path or Path("-")).read_bytes()
        chunks, timed, _ = read_input(raw)
        session = self.session
        session.use_timing(timed)
        loop = asyncio.get_running_loop()
        started = loop.time()
        first = chunks[0][0] if chunks else 0
        for at_ms, data in chunks:
            if stop.is_set():
                return
            # Timers due before this chunk fire at their own instant.
            session.run_timers_until(at_ms)
            self.deliver(session.observations())
            if timed and self.speed > 0:
                delay = started + (at_ms - first) / 1000 / self.speed - loop.time()
                if delay > 0:
                    await _sleep_or_stop(stop, delay)
            session.receive_data(data, at_ms)
            session.poll(at_ms)
            session.data_to_send()  # nobody listens to a file
            self.deliver(session.observations())
        end = chunks[-1][0] if chunks else 0
        for _ in range(8):  # the timers still running at the end of the recording
            deadline = session.next_deadline_ms()
            if deadline is None:
                break
            end = max(deadline, end)
            session.poll(end)
            self.deliver(session.observations())
        session.finish(end)
        self.deliver(session.observations())
