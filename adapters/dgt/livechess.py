"""DGT LiveChess 2 as a source: its websocket JSON API, ``ws://host:1982/api/v1.0``.

LiveChess owns the serial ports and relays each board's ``eboardevent`` feed. Its own
move list is not used: every placement goes through this project's debounce and
reconstruction like a field update, so both kinds of source follow the same rules
and raise the same alerts; its clocks come already in colours. ``LiveChessFeed`` is
the sans-I/O part, ``run_livechess`` owns the websocket, with back-off and alerts on
loss (docs/dgt.md, section 7)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from adapters.dgt.clocksides import ColouredReading
from adapters.dgt.observations import BoardAlert, Observation
from adapters.dgt.session import BoardSession
from adapters.host.clock import wall_clock_ms

log = logging.getLogger(__name__)


class BoardParam(TypedDict):
    serialnr: str


class Subscription(TypedDict):
    """A ``subscribe`` call's ``param``: the feed, its id and the board."""

    feed: str
    id: int
    param: BoardParam


class Call(TypedDict):
    """A call to LiveChess: ``{"id": n, "call": ..., "param"?: ...}``."""

    id: int
    call: str
    param: NotRequired[Subscription]


@dataclass(frozen=True)
class BoardUpdate:
    serial: str
    placement: str | None
    clock: ColouredReading | None
    flipped: bool | None


@dataclass
class LiveChessFeed:
    """Sans-I/O: feed decoded JSON messages, collect calls to send and board updates."""

    serials: list[str] | None = None
    """Boards to follow; None: every board LiveChess lists."""
    _next_id: int = 1
    _eboards_call: int | None = None
    feeds: dict[int, str] = field(default_factory=dict)
    errors: int = 0

    def _call(self, call: str, param: Subscription | None = None) -> Call:
        message = Call(id=self._next_id, call=call)
        if param is not None:
            message["param"] = param
        self._next_id += 1
        return message

    def hello(self) -> list[Call]:
        """After (re)connecting: ask for the boards."""
        self.feeds.clear()
        message = self._call("eboards")
        self._eboards_call = message["id"]
        return [message]

    def receive(self, message: Any, now_ms: int) -> tuple[list[Call], list[BoardUpdate]]:
        """One decoded message -> (calls to send, board updates). Never raises."""
        calls: list[Call] = []
        updates: list[BoardUpdate] = []
        if not isinstance(message, dict):
            self.errors += 1
            return calls, updates
        kind = message.get("response")
        param = message.get("param")
        if kind == "error":
            self.errors += 1
            log.warning("LiveChess error: %s", param)
        elif kind == "call" and message.get("id") == self._eboards_call and isinstance(param, list):
            for board in param:
                if not isinstance(board, dict) or not isinstance(board.get("serialnr"), str):
                    continue
                serial = board["serialnr"]
                if self.serials is not None and serial not in self.serials:
                    continue
                if serial in self.feeds.values():
                    continue
                feed_id = self._next_id + 1000
                self.feeds[feed_id] = serial
                calls.append(
                    self._call(
                        "subscribe",
                        Subscription(
                            feed="eboardevent", id=feed_id, param=BoardParam(serialnr=serial)
                        ),
                    )
                )
        elif kind == "feed" and isinstance(param, dict):
            serial = param.get("serialnr") or self.feeds.get(message.get("id", -1))
            if isinstance(serial, str):
                placement = param.get("board")
                clock = _clock(param.get("clock"), now_ms)
                flipped = param.get("flipped")
                updates.append(
                    BoardUpdate(
                        serial,
                        placement if isinstance(placement, str) else None,
                        clock,
                        flipped if isinstance(flipped, bool) else None,
                    )
                )
            else:
                self.errors += 1
        return calls, updates


def _clock(raw: Any, now_ms: int) -> ColouredReading | None:
    if not isinstance(raw, dict):
        return None
    white, black, run = raw.get("white"), raw.get("black"), raw.get("run")
    if not isinstance(white, int | float) or not isinstance(black, int | float):
        return None
    running = "white" if run is True else "black" if run is False else None
    return ColouredReading(now_ms, round(white * 1000), round(black * 1000), running)


Deliver = Callable[[str, list[Observation]], None]


async def run_livechess(
    url: str,
    sessions: dict[str, BoardSession],
    deliver: Deliver,
    stop: asyncio.Event,
    *,
    follow_all: bool = False,
    backoff_s: float = 0.5,
    max_backoff_s: float = 10.0,
    now: Callable[[], int] = wall_clock_ms,
) -> None:
    """Follow the boards of ``sessions`` (serial -> session) on a LiveChess server."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException

    feed = LiveChessFeed(None if follow_all else list(sessions))
    delay = backoff_s
    down_since: int | None = None
    connected_once = False

    def alert_all(kind: str, message: str, at_ms: int, **details: object) -> None:
        for serial in sessions:
            deliver(serial, [BoardAlert(at_ms, kind, message, dict(details))])

    while not stop.is_set():
        try:
            ws = await asyncio.wait_for(connect(url, open_timeout=5), timeout=6)
        except (OSError, TimeoutError, WebSocketException) as exc:
            if down_since is None:
                down_since = now()
                alert_all("board_unreachable", f"LiveChess at {url}: {exc}", down_since, source=url)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=delay)
            delay = min(delay * 2, max_backoff_s)
            continue
        delay = backoff_s
        at = now()
        if down_since is not None and connected_once:
            alert_all(
                "board_reconnected",
                f"LiveChess at {url} is back after {at - down_since} ms; reconciling",
                at,
                source=url,
            )
        down_since = None
        connected_once = True
        for session in sessions.values():
            session.reconnected()  # presses made while the link was down are unknown
        try:
            async with ws:
                for call in feed.hello():
                    await ws.send(json.dumps(call))
                while not stop.is_set():
                    deadlines = [
                        d for s in sessions.values() if (d := s.next_deadline_ms()) is not None
                    ]
                    timeout = 0.25
                    if deadlines:
                        timeout = max(0.0, min(timeout, (min(deadlines) - now()) / 1000))
                    text: str | bytes | None = None
                    with contextlib.suppress(TimeoutError):
                        text = await asyncio.wait_for(ws.recv(), timeout=timeout)
                    at = now()
                    if text is not None:
                        try:
                            message = json.loads(text)
                        except (ValueError, UnicodeDecodeError):
                            feed.errors += 1
                            message = None
                        calls, updates = feed.receive(message, at)
                        for call in calls:
                            await ws.send(json.dumps(call))
                        for update in updates:
                            board = sessions.get(update.serial)
                            if board is None:
                                continue
                            if board.serial is None:
                                board.serial = update.serial
                            if update.placement is not None:
                                board.placement_seen(update.placement, at)
                            if update.clock is not None:
                                board.coloured_clock(update.clock)
                    for serial, session in sessions.items():
                        session.poll(at)
                        deliver(serial, session.observations())
        except (OSError, WebSocketException) as exc:
            down_since = now()
            alert_all("board_disconnected", f"LiveChess at {url}: {exc}", down_since, source=url)
        if not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=delay)
