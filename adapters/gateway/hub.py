"""Channels and clients: who gets which frame, when, and what happens to the slow.

A ``Channel`` is one view of the tournament at one sequence number: ``live`` as the
store is read, ``public`` the same view ``--public-delay-s`` later; each holds the
objects at its ``seq``, so a snapshot is exactly the state at the number it names. A
``Client`` has bounded queues that the hub only appends to, and its writer sends what
accumulated once a tick, so a slow client cannot slow the others: it gets a fresh
snapshot, or is closed with a reason (docs/protocol.md, "Slow clients")."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from adapters.gateway.alerts import OpenAlerts
from adapters.gateway.budget import InboundLimits
from adapters.gateway.deltas import incidents_frame
from adapters.gateway.fanout import FanOut
from adapters.gateway.frames import Frame, ServerFrame, SnapshotFrame, batch, batches
from adapters.gateway.needs_feed import NEEDS, needs_frame
from adapters.gateway.tokens import Identity
from adapters.host.clock import wall_clock_ms
from adapters.store.queries import IncidentBook
from engine.timefmt import format_instant
from projections.game_view import GameObject
from projections.needs import Needs
from projections.standings import Standings

log = logging.getLogger(__name__)

TOO_SLOW = 1013
"""Close code for a client that cannot keep up (RFC 6455 7.4.1 "Try Again Later")."""
POLICY_VIOLATION = 1008
"""Close code for a client that sends frames and does not read their answers, or sends
more than its budget (``adapters.gateway.connection``)."""


DEFAULT_CONNECTIONS_PER_ADDRESS = 1024
"""A hall's spectators behind one router share its address: a thousand of them is a
crowd; many more from one machine is one client holding the gateway's sockets."""


@dataclass
class Limits:
    max_pending: int = 2000
    """Frames queued for one client (beyond one tick's burst) before it gets a fresh
    snapshot instead of them."""
    max_pending_bytes: int = 4 * 2**20
    """The same bound in bytes (encoded frames) of what waits for one client."""
    max_answer_bytes: int = 2**20
    """Bytes of answers to a client's own frames waiting to be sent: a client that
    keeps sending without reading is closed (1008) before its answers pass this."""
    max_resets: int = 3
    """Fresh snapshots a client may need before it is disconnected."""
    send_timeout_s: float = 10.0
    """How long one message may take to be accepted by a client's socket."""
    broadcast_buffer: int = 64 * 1024
    """A client whose socket holds less than this (bytes) not yet sent gets frames at
    once (``FanOut``); above it, through its queue (and the limits above)."""
    socket_send_buffer: int | None = 256 * 1024
    """Kernel send buffer of each connection (bytes): fixed, so the kernel does not
    grow it to megabytes for a client that does not read. None keeps the default."""
    inbound: InboundLimits = field(default_factory=InboundLimits)
    """What a client may send: frames and bytes per second (``adapters.gateway.budget``);
    over it, it is not read until it is back within (1008 if it stays over)."""
    max_output_bytes: int = 16 * 2**20
    """Bytes waiting in a connection's buffer (beyond the kernel's) at which a client
    that keeps sending is closed (1008): the protocol writes its Pongs whatever the
    buffer holds, so a client that pings and does not read is cut here."""
    write_limit: int = 64 * 1024
    """High-water mark of a connection's buffer: a message waits (the client's writer,
    never the fan-out) until the buffer is below it."""
    max_queue: int = 16
    """Messages received and not yet handled before a connection stops reading."""
    ping_interval_s: float = 20.0
    """A websocket Ping to each client this often (the library's keepalive) ..."""
    ping_timeout_s: float = 20.0
    """... and a client that does not answer one within this is closed (1011)."""
    close_grace_s: float = 2.0
    """How long a client being closed has to take the close frame and answer it before
    its connection is dropped (one that does not read cannot take it)."""
    max_connections_per_address: int = DEFAULT_CONNECTIONS_PER_ADDRESS
    """Connections open at once from one IP address (websocket or plain HTTP, idle or
    not): one more is answered ``503`` and closed before it is read (``candidates serve
    --max-connections-per-address``, ``gateway.max_connections_per_address``)."""


COMMENTARY = "commentary"
"""The audience of the engine's analysis: every client but the arbiters (the desk is in the
playing hall; ``adapters.gateway.analysis_feed``)."""

Subscription = tuple[bool, frozenset[str] | None, frozenset[str] | None, bool]
"""(arbiter, games, tournaments, needs) of a client: the frames it wants follow from them."""


class Channel:
    """One view of the tournament: game objects and standings at ``seq``."""

    def __init__(self, name: str, delay_ms: int) -> None:
        self.name = name
        self.delay_ms = delay_ms
        self.seq = 0
        self.games: dict[str, GameObject] = {}
        self.standings: dict[str, Standings | None] = {}
        """Each tournament's standings (by tournament id)."""
        self.first: str | None = None
        """The store's first tournament (its games are keyed by their plain ids)."""
        self.names: dict[str, str] = {}
        """Tournament id -> name, every tournament of the store, in the store's order."""
        self.incidents: dict[str, IncidentBook] = {}
        """Each tournament's incident book object, by tournament id, for arbiters (sent
        after their snapshot or resume)."""
        self.needs: dict[str, Needs | None] = {}
        """Each tournament's ``needs`` object (``adapters.gateway.needs_feed``)."""
        self.opened = asyncio.Event()
        self.clients: set[Client] = set()
        self.alerts: OpenAlerts | None = None
        """The open alerts (live channel): sent to an arbiter after a snapshot or a resume."""
        self.held_from_ms: int | None = None
        """A delayed channel: when the first event it does not hold yet is due (set once
        what came before is folded in); None: nothing held back."""
        self.catch_up: Callable[[Client], list[Frame]] | None = None
        """What else a client gets after its snapshot (the newest engine evaluations,
        ``adapters.gateway.analysis_feed``)."""
        self._snapshots: dict[
            tuple[int, tuple[str, ...] | None, tuple[str, ...] | None], tuple[int, Frame]
        ] = {}

    # --- state ------------------------------------------------------------------

    def view_ms(self, now_ms: int) -> int:
        """The instant this channel's objects show: ``now - delay``, or just before the
        first event held back whose time has come (a release running late on a busy
        machine never dates a view after an event it does not show yet)."""
        view = now_ms - self.delay_ms
        if self.held_from_ms is not None:
            view = min(view, self.held_from_ms - self.delay_ms - 1)
        return view

    def open(
        self,
        seq: int,
        games: Mapping[str, GameObject],
        standings: Mapping[str, Standings | None],
        first: str | None = None,
        names: dict[str, str] | None = None,
    ) -> None:
        self.seq, self.games, self.standings = seq, dict(games), dict(standings)
        self.first = first
        self.names = dict(names or {})
        self.opened.set()

    def know(self, first: str | None, names: dict[str, str]) -> None:
        """The store's tournaments as last read (a new one may have been created)."""
        self.first = first
        self.names.update(names)

    def apply(
        self,
        seq: int,
        frames: list[Frame],
        games: Mapping[str, GameObject],
        standings_changed: set[str],
        standings: Mapping[str, Standings | None],
    ) -> None:
        """Move to ``seq`` and hand the frames to every client (never waits)."""
        self.games.update(games)
        for tid in standings_changed:
            self.standings[tid] = standings.get(tid)
        self.seq = max(self.seq, seq)
        self._snapshots.clear()
        # Clients that are caught up get the same bytes at once, in this pass (framed
        # once per encoding and subscription, no task switch); the others through their
        # own queue and writer. The frames a client wants follow from its subscription.
        chosen_for: dict[Subscription, list[Frame]] = {}
        outs: dict[tuple[str, Subscription], FanOut] = {}
        for client in list(self.clients):
            subscription = client.subscription
            chosen = chosen_for.get(subscription)
            if chosen is None:
                chosen = chosen_for[subscription] = [f for f in frames if client.wants(f)]
            if not chosen:
                continue
            if not client.idle():
                client.offer(chosen)
                continue
            key = (client.encoding, subscription)
            out = outs.get(key)
            if out is None:
                out = outs[key] = FanOut(batch(chosen, client.encoding))
            out.send(client.ws)
            client.delivered += len(chosen)
            if client.stats is not None:
                client.stats.delivered_frames += len(chosen)
                client.stats.delivered_messages += 1
        for out in outs.values():
            out.finish()

    # --- snapshots --------------------------------------------------------------

    def snapshot(
        self, games: frozenset[str] | None, tournaments: frozenset[str] | None = None
    ) -> Frame:
        """The snapshot frame at ``seq`` for a subscription (all games, or some; every
        tournament, or some).

        ``standings`` are those of the subscribed tournament (of the store's first when
        the subscription spans several); ``tournaments`` lists each subscribed one with
        its name and standings. Clients connecting together share one encoded snapshot
        (for up to a second: ``now`` is the instant its clocks are read against)."""
        key = (
            self.seq,
            tuple(sorted(games)) if games is not None else None,
            tuple(sorted(tournaments)) if tournaments is not None else None,
        )
        now = wall_clock_ms()
        cached = self._snapshots.get(key)
        if cached is not None and now - cached[0] < 1000:
            return cached[1]
        chosen = [t for t in self.names if tournaments is None or t in tournaments]
        main = chosen[0] if len(chosen) == 1 else self.first
        body: SnapshotFrame = {
            "op": "snapshot",
            "seq": self.seq,
            "games": [
                g
                for gid, g in self.games.items()
                if (games is None or gid in games)
                and (tournaments is None or g.get("tournament", self.first) in tournaments)
            ],
            "standings": self.standings.get(main) if main is not None else None,
            "tournaments": [
                {"id": t, "name": self.names[t], "standings": self.standings.get(t)} for t in chosen
            ],
            "now": format_instant(self.view_ms(now)),
            "delay_ms": self.delay_ms,
        }
        frame = Frame(body, self.seq, broad=True)
        self._snapshots[key] = (now, frame)
        return frame


class Client:
    """One websocket connection: its identity, subscription and bounded queue."""

    def __init__(
        self,
        ws: ServerConnection,
        encoding: str,
        limits: Limits,
        identity: Identity,
        stats: Any = None,
    ) -> None:
        self.ws = ws
        self.stats = stats
        self.encoding = encoding
        self.limits = limits
        self.identity = identity
        self.channel: Channel | None = None
        self.games: frozenset[str] | None = None
        self.tournaments: frozenset[str] | None = None
        """The tournaments subscribed to (None: every one)."""
        self.wants_needs = False
        """It asked for the ``needs`` frames (``"needs": true`` in its subscription)."""
        self.subscription: Subscription = (identity.is_arbiter, None, None, False)
        """What decides the frames this client wants (``wants``): clients with the same
        subscription want the same frames (set by ``subscribe_to``)."""
        self.queue: deque[Frame] = deque()
        self.direct: deque[Frame] = deque()
        """Answers to this client (results, errors): never dropped for a snapshot."""
        self.queued_bytes = 0
        """Encoded size of the frames in ``queue``."""
        self.answer_bytes = 0
        """Encoded size of the frames in ``direct``."""
        self.wake = asyncio.Event()
        self.ready = False
        self.needs_snapshot = False
        self.resets = 0
        self.closing: str | None = None
        self.delivered = 0
        self.sending = False

    # --- what this client receives ---------------------------------------------

    def subscribe_to(
        self,
        channel: Channel,
        identity: Identity,
        games: frozenset[str] | None,
        tournaments: frozenset[str] | None,
    ) -> None:
        """Who this client is and what it follows (``subscription`` follows from them)."""
        self.channel, self.identity, self.games, self.tournaments = (
            channel,
            identity,
            games,
            tournaments,
        )
        self.subscription = (identity.is_arbiter, games, tournaments, self.wants_needs)

    def wants(self, frame: Frame) -> bool:
        if (
            self.tournaments is not None
            and frame.tournament is not None
            and frame.tournament not in self.tournaments
        ):
            return False
        if frame.audience == "arbiter":
            return self.identity.is_arbiter
        if frame.audience == COMMENTARY and self.identity.is_arbiter:
            return False
        if frame.audience == NEEDS:
            return self.wants_needs
        if frame.broad or frame.game is None or self.games is None:
            return True
        return frame.game in self.games

    def idle(self) -> bool:
        """Caught up: nothing queued or being sent, and the socket takes what it is given."""
        if self.closing or not self.ready or self.sending or self.needs_snapshot:
            return False
        if self.queue or self.direct:
            return False
        transport = self.ws.transport
        return transport is not None and (
            transport.get_write_buffer_size() < self.limits.broadcast_buffer
        )

    def offer(self, frames: Iterable[Frame]) -> None:
        """Queue the frames this client wants (called by the hub; never waits)."""
        if self.closing:
            return
        backlog = len(self.queue)
        added = False
        for frame in frames:
            if self.wants(frame):
                self.queue.append(frame)
                self.queued_bytes += len(frame.encoded(self.encoding))
                added = True
        # A burst in one tick is fine; frames still waiting from earlier ticks are not.
        if backlog and (
            len(self.queue) > self.limits.max_pending
            or self.queued_bytes > self.limits.max_pending_bytes
        ):
            self.queue.clear()
            self.queued_bytes = 0
            self.needs_snapshot = True
            self.resets += 1
            if self.resets > self.limits.max_resets:
                self.disconnect(
                    f"too slow: fell more than {self.limits.max_pending} frames behind "
                    f"{self.resets} times"
                )
                return
        if added or self.needs_snapshot:
            self.wake.set()

    def answer(self, body: ServerFrame) -> None:
        """Queue an answer to this client's own frame; close a client that does not read
        them (1008) rather than let them grow past ``max_answer_bytes``."""
        if self.closing:
            return
        frame = Frame(body)
        size = len(frame.encoded(self.encoding))
        if self.answer_bytes + size > self.limits.max_answer_bytes:
            self.disconnect(
                f"not reading: more than {self.limits.max_answer_bytes} bytes of answers "
                "to its own frames wait to be sent",
                POLICY_VIOLATION,
            )
            return
        self.direct.append(frame)
        self.answer_bytes += size
        self.wake.set()

    def disconnect(self, reason: str, code: int = TOO_SLOW) -> None:
        if self.closing:
            return
        self.closing = reason
        self.queue.clear()
        self.direct.clear()
        self.queued_bytes = self.answer_bytes = 0
        self.wake.set()
        log.info("disconnecting %s: %s", self.ws.remote_address, reason)
        asyncio.get_running_loop().create_task(self._close(reason, code))

    async def _close(self, reason: str, code: int) -> None:
        """Close with a code and reason; a client that does not read cannot take the
        close frame either, so after ``close_grace_s`` the connection is dropped."""
        with contextlib.suppress(Exception):
            async with asyncio.timeout(self.limits.close_grace_s):
                await self.ws.close(code, reason[:120])
        transport = self.ws.transport
        if transport is not None and not transport.is_closing():
            transport.abort()

    # --- the writer ---------------------------------------------------------------

    def _take(self) -> list[Frame]:
        frames = list(self.direct)
        self.direct.clear()
        self.answer_bytes = 0
        if not self.ready or self.channel is None:
            return frames
        if self.needs_snapshot:
            self.needs_snapshot = False
            self.queue.clear()
            self.queued_bytes = 0
            frames.append(self.channel.snapshot(self.games, self.tournaments))
            frames.extend(self.open_alerts())
            frames.extend(self.incident_book())
            frames.extend(self.needs_now())
            if self.channel.catch_up is not None:
                frames.extend(self.channel.catch_up(self))
            return frames
        frames.extend(self.queue)
        self.queue.clear()
        self.queued_bytes = 0
        return frames

    def incident_book(self) -> list[Frame]:
        """Arbiters: the incident book (who is out, with whom; every incident) of each
        subscribed tournament, after a snapshot or a resume."""
        channel = self.channel
        if not self.identity.is_arbiter or channel is None:
            return []
        return [
            incidents_frame(channel.seq, book, tid)
            for tid, book in channel.incidents.items()
            if book is not None and (self.tournaments is None or tid in self.tournaments)
        ]

    def needs_now(self) -> list[Frame]:
        """A client that asked for them: the ``needs`` object of each subscribed tournament,
        after a snapshot or a resume (what changed meanwhile is not in the log)."""
        channel = self.channel
        if not self.wants_needs or channel is None:
            return []
        return [
            needs_frame(channel.seq, tid, needs)
            for tid, needs in channel.needs.items()
            if needs is not None and (self.tournaments is None or tid in self.tournaments)
        ]

    def open_alerts(self) -> list[Frame]:
        """Arbiters: every alert still open (after a snapshot or a resume)."""
        if not self.identity.is_arbiter or self.channel is None or self.channel.alerts is None:
            return []
        return [a for a in self.channel.alerts.now() if self.wants(a)]

    async def writer(self) -> None:
        """Send what accumulated, one message per wake-up, until the connection ends."""
        try:
            while not self.closing:
                await self.wake.wait()
                self.wake.clear()
                if self.closing:
                    return
                frames = self._take()
                if not frames:
                    continue
                self.sending = True
                try:
                    for message in batches(frames, self.encoding):
                        async with asyncio.timeout(self.limits.send_timeout_s):
                            await self.ws.send(message)
                except TimeoutError:
                    self.disconnect(
                        f"too slow: a message waited more than {self.limits.send_timeout_s:g} s"
                    )
                    return
                finally:
                    self.sending = False
                self.delivered += len(frames)
                if self.stats is not None:
                    self.stats.delivered_frames += len(frames)
                    self.stats.delivered_messages += 1
        except ConnectionClosed:
            return
