"""A websocket connection to the gateway: its subscription, its commands, its frames out.

Each connection is a ``Client`` of the hub (``adapters.gateway.hub``: its queue and
writer); what it sends is read by ``adapters.gateway.requests`` (pure) and acted on
here: a subscription joins the live channel (a token) or the public one (none) with
a snapshot or, for a client that saw events up to ``since``, what it missed; a
command goes to the gateway's ``CommandDesk``. Frames are handled in order, one at a
time per connection, so a command sent right after a subscription acts with its token.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Mapping
from typing import cast

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from adapters.gateway.commands import CommandDesk
from adapters.gateway.connection import GuardedConnection
from adapters.gateway.deltas import tournament_frames
from adapters.gateway.follower import touched_by
from adapters.gateway.frames import (
    JSON,
    MSGPACK,
    Frame,
    FrameError,
    NotResumed,
    Role,
    SubscribedFrame,
    Unchecked,
    decode,
)
from adapters.gateway.hub import Channel, Client, Limits
from adapters.gateway.reading import LogReading, Stats
from adapters.gateway.requests import (
    SubscribeRequest,
    frame_id,
    frame_op,
    parse_command,
    parse_subscribe,
)
from adapters.gateway.tokens import ANONYMOUS, PUBLIC, Tokens
from adapters.store.database_errors import database_error, said
from adapters.store.names import game_key
from engine.events import Event
from projections.game_view import GameObject
from projections.standings import Standings

log = logging.getLogger(__name__)

CATCH_UP_S = 2.0
"""How long a subscription with a ``since`` ahead of this gateway waits for it to catch up
(a client failing over from another gateway of the same store)."""
RESUME_LIMIT = 10_000
"""A client further behind than this many events gets a fresh snapshot instead."""


class Sessions:
    """The websocket connections of one gateway."""

    def __init__(
        self,
        tokens: Tokens,
        reading: LogReading,
        desk: CommandDesk,
        stats: Stats,
        limits: Limits,
        resume_limit: int = RESUME_LIMIT,
    ) -> None:
        self.tokens = tokens
        self.reading = reading
        self.live, self.public = reading.live, reading.public
        self.desk = desk
        self.stats = stats
        self.limits = limits
        self.resume_limit = resume_limit
        self.clients: set[Client] = set()

    async def handler(self, ws: ServerConnection) -> None:
        encoding = JSON if ws.subprotocol == JSON else MSGPACK
        sock = ws.transport.get_extra_info("socket") if ws.transport else None
        if sock is not None and self.limits.socket_send_buffer:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.limits.socket_send_buffer)
        client = Client(ws, encoding, self.limits, ANONYMOUS, self.stats)
        self.clients.add(client)
        self.stats.connections += 1
        writer = asyncio.create_task(client.writer())
        try:
            async for message in ws:
                if client.closing or (isinstance(ws, GuardedConnection) and ws.cut):
                    break  # closed by the gateway (too slow, flooding): read no more
                try:
                    await self._frame(client, decode(message, encoding))
                except FrameError as error:
                    client.answer(error.as_frame())
        except ConnectionClosed:
            pass
        finally:
            self.clients.discard(client)
            if client.channel is not None:
                client.channel.clients.discard(client)
            client.closing = client.closing or "closed"
            client.wake.set()
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer

    async def _frame(self, client: Client, decoded: object) -> None:
        op = frame_op(decoded)
        frame = cast(Unchecked, decoded)  # a map: ``frame_op`` refuses anything else
        if op == "subscribe":
            try:
                asked = parse_subscribe(frame, self.tokens, self.live.names, self.live.first)
            except FrameError:
                # a refused subscription replaces the earlier one too: the connection is
                # no longer subscribed, and keeps no role (its next command is refused)
                self.unsubscribe(client)
                raise
            # Handled before the next frame of this connection is read, so a command
            # sent right after its subscription acts with its token.
            await self.subscribe(client, asked)
        elif op == "command":
            await self._command(client, frame)
        else:
            client.answer({"op": "pong", "id": frame_id(frame, required=False)})

    def unsubscribe(self, client: Client) -> None:
        """The connection follows nothing and is nobody (anonymous, no channel): what a
        subscription refused leaves it as, whatever it was before."""
        if client.channel is not None:
            client.channel.clients.discard(client)
        client.channel = None
        client.identity = ANONYMOUS
        client.ready = False
        client.queue.clear()
        client.queued_bytes = 0
        client.needs_snapshot = False
        client.subscription = (False, None, None, False)

    async def subscribe(self, client: Client, asked: SubscribeRequest) -> None:
        identity, games, since = asked.identity, asked.games, asked.since
        channel = self.public if identity.role == PUBLIC else self.live
        if client.channel is not None:
            client.channel.clients.discard(client)
        client.ready = False
        client.queue.clear()
        client.queued_bytes = 0
        client.wants_needs = asked.needs
        client.subscribe_to(channel, identity, games, asked.tournaments)
        await channel.opened.wait()
        if since is not None and since > channel.seq:
            await self._catch_up(channel, since)
        # From here on the channel queues every frame after ``seq`` for this client.
        channel.clients.add(client)
        seq, objects, standings = channel.seq, dict(channel.games), channel.standings
        not_resumed = self._not_resumed(channel, since, seq)
        resumable = since is not None and not_resumed is None
        subscribed: SubscribedFrame = {
            "op": "subscribed",
            "seq": seq,
            "role": cast(Role, identity.role),
            "name": identity.name,
            "games": "*" if games is None else sorted(games),
            "tournament": "*" if asked.tournaments is None else next(iter(asked.tournaments)),
            "tournaments": [{"id": t, "name": n} for t, n in channel.names.items()],
            "delay_ms": channel.delay_ms,
            "since": since,
            "resumed": resumable,
        }
        if since is not None and not resumable and not_resumed is not None:
            subscribed["not_resumed"] = not_resumed
        client.answer(subscribed)
        if not resumable:
            client.needs_snapshot = True
        else:
            assert since is not None
            # the alerts open at ``seq`` (no await since it was read): those opened or
            # closed while the missed events are read reach the queue as frames of their own
            open_alerts = client.open_alerts()
            try:
                events = await self.reading.read(self.reading.events_between, since, seq)
            except Exception as exc:  # the store could not be read: a snapshot instead
                if database_error(exc) is not None:
                    log.warning("reading the events after %s failed (%s)", since, said(exc))
                else:
                    log.exception("reading the events after %s failed", since)
                client.needs_snapshot = True
            else:
                missed = self._resume_frames(events, objects, standings, open_alerts, client)
                missed += client.needs_now()  # not in the log: as it stands now
                client.queue.extendleft(reversed(missed))
                client.queued_bytes += sum(len(f.encoded(client.encoding)) for f in missed)
        client.ready = True
        client.wake.set()

    def _not_resumed(self, channel: Channel, since: int | None, seq: int) -> NotResumed | None:
        """Why a subscription with ``since`` gets a snapshot instead of what it missed (None:
        it resumes). ``position_unknown``: this copy of the log holds no event at ``since``
        (a copy restored from an older backup, or a gateway still behind after the wait):
        the client holds events this store does not, and is told so, never moved silently
        to another position."""
        if since is None:
            return None
        if channel is not self.live:
            return "public"
        if since < 0 or since > seq:
            return "position_unknown"
        if seq - since > self.resume_limit:
            return "too_old"
        return None

    async def _catch_up(self, channel: Channel, since: int) -> None:
        """A client resuming from another gateway (failover) may have seen events this one
        has not read yet: read the store now and wait (up to ``CATCH_UP_S``) until the
        channel reaches ``since``, so the client resumes instead of starting over."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CATCH_UP_S
        while channel.seq < since and loop.time() < deadline:
            self.reading.notified()
            await asyncio.sleep(0.02)

    def _resume_frames(
        self,
        events: list[tuple[int, Event]],
        objects: dict[str, GameObject],
        standings: Mapping[str, Standings | None],
        open_alerts: list[Frame],
        client: Client,
    ) -> list[Frame]:
        """What a client missed between ``since`` and the channel's ``seq``, from the store:
        its objects as they stood at ``seq`` and the alerts then open (``open_alerts``; the
        log's alert frames in between are left out, as they may be closed since)."""
        first = self.live.first
        touched, all_games, relevant = touched_by(events, first)
        keys = {game_key(t, g, first) for t, g in touched}
        chosen = {
            k: o for k, o in objects.items() if k in keys or o.get("tournament", first) in all_games
        }
        resumed = tournament_frames(events, chosen, standings, relevant, None, first)
        frames = [f for f in resumed if client.wants(f)]
        alerts = [f for f in frames if f.body["op"] == "alert"]
        kept = [f for f in frames if f not in alerts]
        evaluations = self.live.catch_up(client) if self.live.catch_up is not None else []
        return kept + open_alerts + client.incident_book() + evaluations

    async def _command(self, client: Client, frame: Unchecked) -> None:
        asked = parse_command(frame, client.identity, client.channel is not None)
        answer = await self.desk.decide(asked.command)
        client.answer({"op": "result", "id": asked.frame_id, **answer})
        if answer["ok"]:
            self.reading.notified()  # read what this command appended now, not at the next tick
