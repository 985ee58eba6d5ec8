"""The gateway: a ``websockets`` server that follows the store and serves the page.

``serve_forever(store_url, host, port, tokens, public_delay_s, stop)`` runs it
until ``stop`` is set (``candidates serve``, ``candidates replay --serve``).
One server answers both:

- websocket connections (any path; the page uses ``/ws``): the frames of
  ``docs/protocol.md``, msgpack binary by default, JSON text with the
  ``json`` subprotocol;
- plain HTTP GET (``process_request``): the live page ``/``, one page per game
  ``/game/<id>``, the arbiters' view ``/arbiter``, their scripts and styles,
  piece images drawn by python-chess, ``/status``, and the read-only outputs
  ``/api/...`` (JSON) and ``/pgn/...`` (live PGN) of ``adapters.gateway.outputs``.

Everything blocking (store reads and commands) runs in two single-thread
executors, one reading the notification log, one deciding commands, so the
event loop never waits for the database. Per-message compression is off:
frames are encoded once and the same bytes go to every client, which a
per-connection compressor would undo.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import socket
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import chess
import chess.svg
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.typing import Subprotocol

from adapters.gateway.alerts import OpenAlerts
from adapters.gateway.analysis_feed import AnalysisFeed
from adapters.gateway.deltas import (
    game_key,
    incidents_frame,
    quiet_clock_frames,
    tournament_frames,
)
from adapters.gateway.follower import Follower, Update, now_ms, touched_by
from adapters.gateway.frames import JSON, MSGPACK, Frame, FrameError, decode
from adapters.gateway.hub import Channel, Client, Limits
from adapters.gateway.kept_state import FORMAT, NAME, GatewayState
from adapters.gateway.outputs import DEFAULT_MAX_AGE_S, Outputs
from adapters.gateway.public import DelayedLog
from adapters.gateway.tokens import ANONYMOUS, PUBLIC, Identity, Tokens, load_tokens
from adapters.kept import KEEP_EVERY_S, KeptProjection, open_kept
from adapters.store import Store
from adapters.wakeup import FALLBACK_S, ChangeListener, listen_for_changes
from engine.commands import REGISTRY
from engine.events import AlertRaised, Event

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
DEFAULT_PUBLIC_DELAY_S = 15 * 60
"""Fair play: the public sees the games 15 minutes late unless told otherwise."""
COMMAND_WAIT_S = 0.2
"""How long the reading of the log waits for this gateway's commands in flight."""
CATCH_UP_S = 2.0
"""How long a subscription with a ``since`` ahead of this gateway waits for it to catch up
(a client failing over from another gateway of the same store)."""
RESUME_LIMIT = 10_000
"""A client further behind than this many events gets a fresh snapshot instead."""
POLL_INTERVAL_S = 0.05
"""How often the store's ``last_seq`` is checked on SQLite: also the tick of batched deltas
and of the public channel's releases. On PostgreSQL the gateway is woken by the store's
``NOTIFY`` (``adapters.wakeup``) and reads the store only then (or every ``FALLBACK_S``)."""
MAX_FRAME_ID = 128
"""Longest frame ``id`` (characters): it is echoed in every answer."""
MAX_TOKEN = 512
MAX_GAMES = 512
"""Most game ids one subscription may name."""
MAX_GAME_ID = 64
STOP_WAIT_S = 2.0
"""How long a stopping gateway lets the reading in progress finish (its state is then kept)."""

PAGES = {"/": "index.html", "/arbiter": "arbiter.html"}
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}
PIECE = re.compile(r"^/pieces/([wb])([KQRBNP])\.svg$")
GAME_PAGE = re.compile(r"^/game/([^/]+)$")


@dataclass
class Stats:
    """Counters for ``/status`` and the benchmark."""

    delivered_frames: int = 0
    delivered_messages: int = 0
    connections: int = 0
    kept_seq: int = 0
    """The position of the kept state this gateway last loaded or saved."""
    resumed_from: int = 0
    """The kept position this gateway started from (0: it read the whole log)."""
    folded_at_start: int = 0
    """Events read from the log at start (those after ``resumed_from``)."""
    kept_saves: int = 0
    kept_refused: int = 0
    """Saves refused: the store already held that position (another gateway saved it)."""


class Gateway:
    """Follows one store and serves its tournament to websocket clients and browsers."""

    def __init__(
        self,
        store_url: str,
        tokens: Tokens | None = None,
        public_delay_s: float = DEFAULT_PUBLIC_DELAY_S,
        *,
        poll_interval_s: float = POLL_INTERVAL_S,
        limits: Limits | None = None,
        resume_limit: int = RESUME_LIMIT,
        fallback_s: float = FALLBACK_S,
        http_max_age_s: int = DEFAULT_MAX_AGE_S,
        keep: bool = True,
        analysis_to_arbiters: bool = False,
    ) -> None:
        self.store_url = store_url
        self.tokens = tokens or Tokens()
        self.delay_ms = max(0, round(public_delay_s * 1000))
        self.poll_interval_s = poll_interval_s
        self.fallback_s = fallback_s
        """PostgreSQL: how often the store is read without a notification."""
        self.limits = limits or Limits()
        self.resume_limit = resume_limit
        self.stats = Stats()
        self.live = Channel("live", 0)
        self.public = Channel("public", self.delay_ms) if self.delay_ms else self.live
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="gateway-reader")
        self._deciding = ThreadPoolExecutor(1, thread_name_prefix="gateway-commands")
        self._keeper = ThreadPoolExecutor(1, thread_name_prefix="gateway-keeper")
        """Saves the kept state: a save never holds up the next read of the store."""
        self._follower: Follower | None = None
        self._delayed: DelayedLog | None = None
        self._public_follower: Follower | None = None
        self.alerts = OpenAlerts()
        self.live.alerts = self.alerts
        """The arbiters' open alerts (sent after each arbiter snapshot and resume)."""
        self.public_shown: dict[str, dict[str, Any]] = {}
        self._command_store: Store | None = None
        self.clients: set[Client] = set()
        self.shown: dict[str, dict[str, Any]] = {}
        """The game objects last pushed live (clock readings are compared with them)."""
        self.outputs = Outputs(
            self.tokens,
            self.live,
            self.public,
            self._stores,
            lambda fn, *args: self._in(self._reader, fn, *args),
            http_max_age_s,
        )
        """The read-only HTTP routes (``/api/...``, ``/pgn/...``)."""
        self.analysis = AnalysisFeed(
            store_url, self.live, self.public, self.delay_ms, to_arbiters=analysis_to_arbiters
        )
        """The engine's evaluations: commentators at once, the public after the delay."""
        self.outputs.analysis = self.analysis
        self._poked = asyncio.Event()
        """Set when this gateway appended events itself, when the store notified a change
        (PostgreSQL), or when it is stopping."""
        self._changed = True
        """Something may have been appended since the last read (always so on SQLite)."""
        self._listener: ChangeListener | None = None
        self._in_flight = 0
        """Commands of this gateway's arbiters being decided: the log is read after them,
        so an arbiter gets the result of a command before the deltas of its events."""
        self._no_commands = asyncio.Event()
        self._no_commands.set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.keep = keep
        """Keep the open alerts and standings in the store (``adapters.gateway.kept_state``)."""
        self._kept: KeptProjection | None = None
        self._folded = GatewayState()
        """Position and counters of what the live channel folded (the rest is read from
        the follower and the open alerts when the state is saved)."""
        self._kept_submitted = 0
        self._kept_at = float("-inf")
        self._stopping = False

    # --- blocking parts (executor threads) ---------------------------------------

    def _start_reading(self) -> tuple[Update, Update | None, GatewayState | None]:
        """The live state (from the kept state, if any), the public state at
        ``now - delay``, the kept state it started from."""
        self._follower = Follower(Store(self.store_url))
        loop = self._loop
        if loop is not None:
            self._listener = listen_for_changes(
                self._follower.store, lambda: loop.call_soon_threadsafe(self._notified)
            )
        kept = self._load_kept(self._follower.store) if self.keep else None
        start = self._follower.start(kept.resumed() if kept is not None else None)
        if not self.delay_ms:
            return start, None, kept
        self._delayed = DelayedLog(self.delay_ms)
        self._delayed.take(self._follower.events_between(0, start.seq), None)
        self._delayed.release(now_ms())
        self._public_follower = Follower(self._delayed.copy)
        public = self._public_follower.start()
        self._delayed.prune(public.seq)
        return start, public, kept

    def _load_kept(self, store: Store) -> GatewayState | None:
        """The kept state of this store, None without a usable one (said in a warning)."""
        self._kept = open_kept(store, NAME, FORMAT)
        return self._kept.load_as(GatewayState.from_state) if self._kept is not None else None

    def _kept_state(self) -> GatewayState | None:
        """The state to keep, in the event loop between two readings of the log (None if
        the follower is not where the live channel is: a reading was cut short)."""
        follower = self._follower
        if follower is None or follower.seq != self._folded.position:
            return None
        return GatewayState(
            self._folded.position,
            dict(follower.game_ids),
            dict(follower.standings),
            self.alerts.now(),
            self._folded.events,
            self._folded.alerts_raised,
        )

    def _save_kept(self, state: GatewayState) -> None:
        """Save the kept state (keeper thread); a failure is logged, the next save covers it."""
        if self._kept is None:
            return
        saved = self._kept.save_or_warn(state.position, state.to_state())
        if saved is None:
            return
        if saved:
            self.stats.kept_saves += 1
            self.stats.kept_seq = state.position
        else:
            self.stats.kept_refused += 1

    def _keep(self, now_s: float) -> None:
        """Hand the kept state to the keeper thread, at most every ``KEEP_EVERY_S``."""
        if self._kept is None or self._folded.position <= self._kept_submitted:
            return
        if now_s - self._kept_at < KEEP_EVERY_S:
            return
        state = self._kept_state()
        if state is None:
            return
        self._kept_at = now_s
        self._kept_submitted = state.position
        self._keeper.submit(self._save_kept, state)

    def _poll(self) -> tuple[Update | None, Update | None]:
        """What the live log gained, and what the public copy gained (events released)."""
        assert self._follower is not None
        update = self._follower.poll()
        if self._delayed is None or self._public_follower is None:
            return update, None
        if update is not None:
            self._delayed.take(update.events, update.seen_ms)
        public = self._public_follower.poll() if self._delayed.release(now_ms()) else None
        self._delayed.prune(self._public_follower.seq)
        return update, public

    def _events_between(self, after: int, upto: int) -> list[tuple[int, Event]]:
        assert self._follower is not None
        return self._follower.events_between(after, upto)

    def _handle(self, command: dict[str, Any]) -> dict[str, Any]:
        if self._command_store is None:
            self._command_store = Store(self.store_url)
        try:
            return self._command_store.handle(command)
        except Exception as exc:  # the store itself failed: say so, keep serving
            log.exception("command failed in the store")
            return {
                "ok": False,
                "error": {"code": "store_unavailable", "message": f"the store failed: {exc}"},
            }

    def _notified(self) -> None:
        self._changed = True
        self._poked.set()

    def _close_stores(self) -> None:
        if self._listener is not None:
            self._listener.close()
        if self._follower is not None:
            self._follower.store.close()
        if self._delayed is not None:
            self._delayed.close()

    def _close_command_store(self) -> None:
        if self._command_store is not None:
            self._command_store.seal_appended()  # a seal on shutdown (docs/audit.md)
            self._command_store.close()

    async def _in(self, executor: ThreadPoolExecutor, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)

    # --- following the store --------------------------------------------------

    async def open(self) -> None:
        """The first read: every game object and the standings at the store's position,
        the public's at ``now - delay``, the alerts still open."""
        start, public, kept = await self._in(self._reader, self._start_reading)
        self.live.open(start.seq, start.games, start.standings, start.first, start.names)
        self.public.know(start.first, start.names)
        self.live.incidents = dict(start.incidents)
        self.shown = dict(start.games)
        base = kept or GatewayState()
        if kept is not None:
            self.alerts.restore(kept.alerts)
            self._kept_submitted = self.stats.kept_seq = self.stats.resumed_from = kept.position
        # the alerts raised after the kept position, each naming its tournament (as the
        # deltas' do)
        stored = tournament_frames(start.raised, {}, {}, (), None, start.first)
        self.alerts.start(stored, start.games, start.seq, start.first)
        self._folded = GatewayState(
            start.seq,
            events=base.events + start.folded,
            alerts_raised=base.alerts_raised + len(start.raised),
        )
        self.stats.folded_at_start = start.folded
        if public is not None:
            self.public.open(public.seq, public.games, public.standings, start.first, start.names)
            self.public_shown = dict(public.games)

    async def follow(self, stop: asyncio.Event) -> None:
        """Read the log when it changed (every tick on SQLite; on PostgreSQL when notified,
        or every ``FALLBACK_S``); hand what changed to the live and public channels."""
        loop = asyncio.get_running_loop()
        last_read = loop.time()
        while not stop.is_set() and not self._stopping:
            if self._listener is not None and loop.time() - last_read >= self.fallback_s:
                self._changed = True
            if self._listener is None:
                self._changed = True
            update: Update | None = None
            if self._in_flight:  # at most a moment: commands are decided one at a time
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._no_commands.wait(), COMMAND_WAIT_S)
            try:
                if self._changed:
                    self._changed = False
                    last_read = loop.time()
                    update, public = await self._in(self._reader, self._poll)
            except Exception:
                log.exception("reading the store failed; retrying in 1 s")
                update = public = None
                self._changed = True
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 1.0)
            if update is not None:
                if self._in_flight:  # it may hold a command's events: its result goes first
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._no_commands.wait(), COMMAND_WAIT_S)
                self._dispatch(self.live, self.shown, update)
            if public is not None:
                self._dispatch(self.public, self.public_shown, public)
            self._keep(loop.time())  # after the frames were handed out, off their path
            wait_s = self.poll_interval_s
            if self._listener is not None and self.public is self.live:
                wait_s = self.fallback_s  # nothing to release on a timer: sleep until notified
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poked.wait(), wait_s)
            self._poked.clear()

    def _dispatch(self, channel: Channel, shown: dict[str, dict[str, Any]], update: Update) -> None:
        before = {gid: channel.games.get(gid) or {} for gid in update.games}
        channel.know(update.first, update.names)
        frames = tournament_frames(
            update.events,
            update.games,
            update.standings,
            update.standings_changed,
            before,
            update.first,
        )
        frames = quiet_clock_frames(frames, shown, update.games)
        if channel is self.live:
            for tid, book in update.incidents.items():
                self.live.incidents[tid] = book
                frames.append(incidents_frame(update.seq, book, tid))
        for frame in frames:
            if frame.game is not None and "object" in frame.body:
                shown[frame.game] = frame.body["object"]
        if channel is self.live:
            frames += self.alerts.update(frames, update.games, update.seq)
        else:
            frames = [f for f in frames if f.audience == "all"]
        channel.apply(update.seq, frames, update.games, update.standings_changed, update.standings)
        if channel is self.live:
            folded = self._folded
            folded.position = update.seq
            folded.events += len(update.events)
            folded.alerts_raised += sum(isinstance(e, AlertRaised) for _, e in update.events)

    # --- websocket connections -----------------------------------------------

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
                if client.closing:
                    break  # closed by the gateway (too slow, not reading): read no more
                try:
                    frame = decode(message, encoding)
                    if not isinstance(frame, dict):
                        raise FrameError(
                            "malformed_frame",
                            f"a frame is a map with an 'op', got {type(frame).__name__}",
                        )
                    op = frame.get("op")
                    if op == "subscribe":
                        identity, games, since, tournaments = self._parse_subscribe(frame)
                        # Handled before the next frame of this connection is read, so a
                        # command sent right after its subscription acts with its token.
                        await self._subscribe(client, identity, games, since, tournaments)
                    elif op == "command":
                        await self._command(client, frame)
                    elif op == "ping":
                        client.answer({"op": "pong", "id": _frame_id(frame, required=False)})
                    else:
                        raise FrameError(
                            "unknown_op",
                            f"unknown op {_shown(op)}; a client sends 'subscribe' or 'command'",
                            _frame_id(frame, required=False),
                        )
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

    def _parse_subscribe(
        self, frame: dict[str, Any]
    ) -> tuple[Identity, frozenset[str] | None, int | None, frozenset[str] | None]:
        tournament = frame.get("tournament", "*")
        tournaments: frozenset[str] | None
        if tournament == "*" or tournament is None:
            tournaments = None
        elif isinstance(tournament, str) and tournament:
            if tournament not in self.live.names:
                known = ", ".join(map(repr, self.live.names)) or "none yet"
                raise FrameError(
                    "unknown_tournament",
                    f"no tournament {tournament!r} in this store (it holds {known}); "
                    "not subscribed",
                )
            tournaments = frozenset([tournament])
        else:
            raise FrameError(
                "malformed_frame",
                f"'tournament' must be \"*\" or a tournament id, got {tournament!r}",
            )
        games = frame.get("games", "*")
        chosen: frozenset[str] | None
        if games == "*":
            chosen = None
        elif (
            isinstance(games, list)
            and len(games) <= MAX_GAMES
            and all(isinstance(g, str) and 0 < len(g) <= MAX_GAME_ID for g in games)
        ):
            # game ids of the subscribed tournament (or keys ``<tournament>/<id>``)
            only = next(iter(tournaments)) if tournaments else None
            chosen = frozenset(game_key(only, g, self.live.first) for g in games)
        else:
            raise FrameError(
                "malformed_frame",
                f"'games' must be \"*\" or a list of at most {MAX_GAMES} game ids of at most "
                f"{MAX_GAME_ID} characters, got {_shown(games)}",
            )
        since = frame.get("since")
        if since is not None and (isinstance(since, bool) or not isinstance(since, int)):
            raise FrameError(
                "malformed_frame", f"'since' must be a sequence number, got {_shown(since)}"
            )
        token = frame.get("token")
        identity = ANONYMOUS
        if token is not None:
            if not isinstance(token, str) or len(token) > MAX_TOKEN:
                raise FrameError(
                    "malformed_frame", f"'token' must be a string of at most {MAX_TOKEN} characters"
                )
            found = self.tokens.identify(token)
            if found is None:
                raise FrameError(
                    "invalid_token", "unknown token: not subscribed (check the token file)"
                )
            identity = found
        return identity, chosen, since, tournaments

    async def _subscribe(
        self,
        client: Client,
        identity: Identity,
        games: frozenset[str] | None,
        since: int | None,
        tournaments: frozenset[str] | None = None,
    ) -> None:
        channel = self.public if identity.role == PUBLIC else self.live
        if client.channel is not None:
            client.channel.clients.discard(client)
        client.ready = False
        client.queue.clear()
        client.queued_bytes = 0
        client.subscribe_to(channel, identity, games, tournaments)
        await channel.opened.wait()
        if since is not None and since > channel.seq:
            await self._catch_up(channel, since)
        # From here on the channel queues every frame after ``seq`` for this client.
        channel.clients.add(client)
        seq, objects, standings = channel.seq, dict(channel.games), channel.standings
        resumable = (
            since is not None
            and channel is self.live
            and 0 <= since <= seq
            and seq - since <= self.resume_limit
        )
        client.answer(
            {
                "op": "subscribed",
                "seq": seq,
                "role": identity.role,
                "name": identity.name,
                "games": "*" if games is None else sorted(games),
                "tournament": "*" if tournaments is None else next(iter(tournaments)),
                "tournaments": [{"id": t, "name": n} for t, n in channel.names.items()],
                "delay_ms": channel.delay_ms,
                "since": since,
                "resumed": resumable,
            }
        )
        if not resumable:
            client.needs_snapshot = True
        else:
            assert since is not None
            try:
                events = await self._in(self._reader, self._events_between, since, seq)
            except Exception:  # the store could not be read: a snapshot instead
                log.exception("reading the events after %s failed", since)
                client.needs_snapshot = True
            else:
                missed = self._resume_frames(events, objects, standings, client)
                client.queue.extendleft(reversed(missed))
                client.queued_bytes += sum(len(f.encoded(client.encoding)) for f in missed)
        client.ready = True
        client.wake.set()

    async def _catch_up(self, channel: Channel, since: int) -> None:
        """A client resuming from another gateway (failover) may have seen events this one
        has not read yet: read the store now and wait (up to ``CATCH_UP_S``) until the
        channel reaches ``since``, so the client resumes instead of starting over."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CATCH_UP_S
        while channel.seq < since and loop.time() < deadline:
            self._notified()
            await asyncio.sleep(0.02)

    def _resume_frames(
        self,
        events: list[tuple[int, Event]],
        objects: dict[str, dict[str, Any]],
        standings: Any,
        client: Client,
    ) -> list[Frame]:
        """What a client missed between ``since`` and the channel's ``seq``, from the store."""
        first = self.live.first
        touched, all_games, relevant = touched_by(events, first)
        keys = {game_key(t, g, first) for t, g in touched}
        chosen = {
            k: o for k, o in objects.items() if k in keys or o.get("tournament", first) in all_games
        }
        resumed = tournament_frames(events, chosen, standings, relevant, None, first)
        frames = [f for f in resumed if client.wants(f)]
        alerts = [f for f in frames if f.body.get("op") == "alert"]
        kept = [f for f in frames if f not in alerts]
        return kept + client.open_alerts() + client.incident_book() + self.analysis.catch_up(client)

    async def _command(self, client: Client, frame: dict[str, Any]) -> None:
        fid = _frame_id(frame, required=True)
        assert fid is not None
        if client.channel is None:
            raise FrameError(
                "not_subscribed",
                "subscribe first (with an arbiter token), then send commands; nothing was appended",
                fid,
            )
        if not client.identity.is_arbiter:
            raise FrameError(
                "forbidden",
                f"only an arbiter may send commands; this connection is {client.identity.role} "
                "(subscribe with an arbiter token first); nothing was appended",
                fid,
            )
        command = frame.get("command")
        if not isinstance(command, dict):
            raise FrameError("malformed_frame", "'command' must be a map of the contract", fid)
        command = self._as_arbiter(client.identity, command, fid)
        self._in_flight += 1
        self._no_commands.clear()
        try:
            answer = await self._in(self._deciding, self._handle, command)
            client.answer({"op": "result", "id": fid, **answer})
        finally:
            self._in_flight -= 1
            if not self._in_flight:
                self._no_commands.set()
        if answer.get("ok"):
            self._notified()  # read what this command appended now, not at the next tick

    @staticmethod
    def _as_arbiter(identity: Identity, command: dict[str, Any], fid: str) -> dict[str, Any]:
        """A token bound to an arbiter id acts as that arbiter, and only as that one."""
        arbiter = identity.arbiter_id
        if arbiter is None:
            return command
        given = command.get("arbiter")
        if given is not None and given != arbiter:
            raise FrameError(
                "forbidden",
                f"this token acts as arbiter {arbiter!r}, not {given!r}; nothing was appended",
                fid,
            )
        spec = REGISTRY.get(str(command.get("cmd")))
        if given is None and spec is not None and spec.field("arbiter") is not None:
            return {**command, "arbiter": arbiter}
        return command

    # --- HTTP -----------------------------------------------------------------

    def _stores(self) -> tuple[Store | None, Store | None]:
        live = self._follower.store if self._follower is not None else None
        public = self._public_follower.store if self._public_follower is not None else None
        return live, public

    async def process_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | None:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return None
        path = request.path.split("?", 1)[0]
        if self.outputs.handles(path):
            return await self.outputs.answer(request)
        if path in PAGES:
            return _file(STATIC / PAGES[path])
        if GAME_PAGE.match(path):
            return _file(STATIC / "game.html")
        if path.startswith("/static/"):
            name = path.removeprefix("/static/")
            if "/" in name or name.startswith("."):
                return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
            return _file(STATIC / name)
        if match := PIECE.match(path):
            color, symbol = match.groups()
            piece = chess.Piece.from_symbol(symbol if color == "w" else symbol.lower())
            return _response(HTTPStatus.OK, chess.svg.piece(piece).encode(), TYPES[".svg"], 86400)
        if path == "/status":
            body = self._status(request)
            return _response(HTTPStatus.OK, json.dumps(body).encode(), TYPES[".json"])
        return _response(HTTPStatus.NOT_FOUND, f"no page at {path}\n".encode(), "text/plain")

    def _status(self, request: Request) -> dict[str, Any]:
        """``/status``: what anyone may see (the public position, counters); the live
        position only with a commentator's or arbiter's token (``?token=`` or
        ``Authorization: Bearer``), since during the public delay it tells how far
        the games have gone."""
        token = parse_qs(urlsplit(request.path).query).get("token", [""])[0]
        bearer = request.headers.get("Authorization", "")
        if not token and bearer.lower().startswith("bearer "):
            token = bearer[7:].strip()
        identity = self.tokens.identify(token) if token and len(token) <= MAX_TOKEN else None
        body: dict[str, Any] = {
            "seq": self.public.seq,
            "public_delay_ms": self.delay_ms,
            "clients": len(self.clients),
            "delivered_frames": self.stats.delivered_frames,
            "delivered_messages": self.stats.delivered_messages,
        }
        if identity is not None and not identity.is_public:
            body.update(seq=self.live.seq, public_seq=self.public.seq)
            body["kept"] = {
                "seq": self.stats.kept_seq,
                "resumed_from": self.stats.resumed_from,
                "folded_at_start": self.stats.folded_at_start,
                "saves": self.stats.kept_saves,
                "refused": self.stats.kept_refused,
            }
        return body

    # --- running ----------------------------------------------------------------

    async def run(
        self,
        host: str,
        port: int,
        stop: asyncio.Event,
        ready: Callable[[Server], Awaitable[None] | None] | None = None,
    ) -> None:
        """Serve until ``stop`` is set (the store is read once before listening)."""
        follower: asyncio.Task[None] | None = None
        evaluations: asyncio.Task[None] | None = None
        self._loop = asyncio.get_running_loop()
        stop_waiter = asyncio.create_task(stop.wait())
        stop_waiter.add_done_callback(lambda _: self._poked.set())
        try:
            await self.open()
            follower = asyncio.create_task(self.follow(stop))
            evaluations = asyncio.create_task(self.analysis.follow(stop))
            async with serve(
                self.handler,
                host,
                port,
                subprotocols=[Subprotocol(JSON), Subprotocol(MSGPACK)],
                select_subprotocol=_select_subprotocol,
                process_request=self.process_request,
                compression=None,
                close_timeout=2,
                max_size=2**20,
            ) as server:
                if ready is not None:
                    waited = ready(server)
                    if waited is not None:
                        await waited
                await asyncio.wait({stop_waiter, follower}, return_when=asyncio.FIRST_COMPLETED)
                if follower.done() and not stop.is_set():
                    follower.result()  # reading the store failed for good: raise it
        finally:
            stop_waiter.cancel()
            self._stopping = True
            self._poked.set()
            if follower is not None:
                # the reading in progress ends (and is dispatched) before the state is kept
                await asyncio.wait({follower}, timeout=STOP_WAIT_S)
                follower.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await follower
            final = self._kept_state() if self._kept is not None else None
            if final is not None and final.position > self._kept_submitted:
                await self._in(self._keeper, self._save_kept, final)
            if evaluations is not None:
                evaluations.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await evaluations
            await self._in(self._keeper, lambda: None)  # a save in progress ends first
            await self._in(self._reader, self._close_stores)
            await self._in(self._deciding, self._close_command_store)
            self._reader.shutdown(wait=False)
            self._deciding.shutdown(wait=False)
            self._keeper.shutdown(wait=False)


def _select_subprotocol(connection: ServerConnection, offered: Any) -> Subprotocol | None:
    """JSON when asked for; msgpack when asked for or when nothing is asked for."""
    if JSON in offered:
        return Subprotocol(JSON)
    if MSGPACK in offered:
        return Subprotocol(MSGPACK)
    return None


def _frame_id(frame: dict[str, Any], *, required: bool) -> str | None:
    """The frame's ``id``: a string of 1 to ``MAX_FRAME_ID`` characters (echoed back in
    the answer), else FrameError; None when absent and not required."""
    fid = frame.get("id")
    if fid is None and not required:
        return None
    if not isinstance(fid, str) or not 0 < len(fid) <= MAX_FRAME_ID:
        raise FrameError(
            "malformed_frame",
            f"a frame's 'id' must be a string of 1 to {MAX_FRAME_ID} characters"
            + ("" if required else " (or absent)"),
        )
    return fid


def _shown(value: object) -> str:
    """A client's value in a message: its repr, cut short (never echo megabytes)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _response(status: HTTPStatus, body: bytes, content_type: str, max_age: int = 0) -> Response:
    headers = Headers()
    headers["Content-Type"] = content_type
    headers["Content-Length"] = str(len(body))
    headers["Cache-Control"] = f"max-age={max_age}" if max_age else "no-cache"
    return Response(status.value, status.phrase, headers, body)


def _file(path: Path) -> Response:
    try:
        body = path.read_bytes()
    except OSError:
        return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
    return _response(HTTPStatus.OK, body, TYPES.get(path.suffix, "application/octet-stream"))


async def serve_forever(
    store_url: str,
    host: str = "127.0.0.1",
    port: int = 8765,
    tokens: Tokens | str | Path | None = None,
    public_delay_s: float = DEFAULT_PUBLIC_DELAY_S,
    stop: asyncio.Event | None = None,
    *,
    ready: Callable[[Server], Awaitable[None] | None] | None = None,
    **options: Any,
) -> None:
    """Run the gateway on ``store_url`` until ``stop`` is set (forever without one).

    ``tokens`` is a ``Tokens`` object or the path of a token file; ``ready`` is
    called with the listening server (its ``sockets`` tell the port when
    ``port`` is 0). Other options go to ``Gateway`` (``poll_interval_s``,
    ``limits``, ``resume_limit``).
    """
    if not isinstance(tokens, Tokens):
        tokens = load_tokens(tokens)
    gateway = Gateway(store_url, tokens, public_delay_s, **options)
    await gateway.run(host, port, stop or asyncio.Event(), ready)
