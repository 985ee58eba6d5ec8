"""The gateway's reading of the store: the live log, the public view, the kept state.

Everything blocking runs in a single-thread executor (``reader``), so the event loop
never waits for the database. The live channel follows the store (``Follower``);
the public channel follows its delayed copy (``PublicView``). The log is read when
it changed: when the store's listener announces a commit of any process
(``adapters.store.wakeup``: ``NOTIFY`` on PostgreSQL, the files watched on SQLite)
and at least every ``FALLBACK_S``; where there is no listener, every tick. The
public copy releases what is due every tick. What changed goes to the
channels as frames (``adapters.gateway.deltas``); what the live channel derives
from the whole log (open alerts, standings, games known) is kept in the store
with its position, off the path of the frames (``adapters.gateway.kept_state``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from adapters.gateway.alerts import OpenAlerts
from adapters.gateway.commands import CommandDesk
from adapters.gateway.deltas import incidents_frame, quiet_clock_frames, tournament_frames
from adapters.gateway.follower import Follower, Update
from adapters.gateway.hub import Channel
from adapters.gateway.kept_state import FORMAT, NAME, GatewayKept, GatewayState
from adapters.gateway.needs_feed import NeedsService
from adapters.gateway.public import PublicView
from adapters.host.clock import wall_clock_ms
from adapters.store import Store
from adapters.store.kept import KEEP_EVERY_S, KeptProjection, open_kept
from adapters.store.outage import RETRY_S, Outage
from adapters.store.wakeup import ChangeListener, listen_for_changes
from engine.events import AlertRaised, Event
from projections.game_view import GameObject

log = logging.getLogger(__name__)
T = TypeVar("T")

SETTLE_STEP_S = 0.001
"""The shortest wait before the store is read again for a change announced and not found."""
STOP_WAIT_S = 2.0
"""How long a stopping gateway lets the reading in progress finish (its state is then kept)."""


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


class LogReading:
    """Reads one store for the live and public channels of a gateway."""

    def __init__(
        self,
        store_url: str,
        live: Channel,
        public: Channel,
        alerts: OpenAlerts,
        stats: Stats,
        desk: CommandDesk,
        *,
        poll_interval_s: float,
        fallback_s: float,
        keep: bool,
    ) -> None:
        self.store_url = store_url
        self.live, self.public, self.alerts = live, public, alerts
        self.stats = stats
        self.desk = desk
        """This gateway's commands: the log is read after those in flight."""
        self.poll_interval_s = poll_interval_s
        self.fallback_s = fallback_s
        """With a listener: how often the store is read without an announced change."""
        self.keep = keep
        """Keep the open alerts and standings in the store (``adapters.gateway.kept_state``)."""
        self.reader = ThreadPoolExecutor(1, thread_name_prefix="gateway-reader")
        self._keeper = ThreadPoolExecutor(1, thread_name_prefix="gateway-keeper")
        """Saves the kept state: a save never holds up the next read of the store."""
        self.needs = NeedsService()
        """What each player needs, computed in its own thread (``needs_feed``)."""
        self.follower: Follower | None = None
        self.public_view: PublicView | None = None
        self.shown: dict[str, GameObject] = {}
        """The game objects last pushed live (clock readings are compared with them)."""
        self.public_shown: dict[str, GameObject] = {}
        self._poked = asyncio.Event()
        """Set when this gateway appended events itself, when the store's listener
        announced a change, or when it is stopping."""
        self._changed = True
        """Something may have been appended since the last read (always so without a
        listener)."""
        self._listener: ChangeListener | None = None
        self._announced: tuple[float, float] | None = None
        """When the listener first and last announced changes not known to be read yet."""
        self._unsure_read = 0
        """The listener's ``unsure`` count up to which those changes are known read (a
        SQLite commit announced by a write to its files, not by the writer's signal, is
        readable a moment after that write)."""
        self._unsure_looked = 0
        """The listener's ``unsure`` count at the last look that found every change
        announced readable (before a read: ``_readable_upto``)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kept: KeptProjection | None = None
        self._folded = GatewayState()
        """Position and counters of what the live channel folded (the rest is read from
        the follower and the open alerts when the state is saved)."""
        self._kept_submitted = 0
        self._kept_at = float("-inf")
        self.stopping = False
        self.outage = Outage("reading the store", log, RETRY_S)
        """A store that cannot be read: said once, read again every ``retry_s``."""

    @property
    def retry_s(self) -> float:
        """How long a failed read waits before it is made again (the outage says it)."""
        return self.outage.every_s or 0.0

    @retry_s.setter
    def retry_s(self, every_s: float) -> None:
        self.outage.every_s = every_s

    async def _in(self, executor: ThreadPoolExecutor, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the reader thread (the stores are read there only)."""
        return await self._in(self.reader, fn, *args)

    def stores(self) -> tuple[Store | None, Store | None]:
        """(live store, the public's copy): read in the reader thread only."""
        live = self.follower.store if self.follower is not None else None
        public = self.public_view.store if self.public_view is not None else None
        return live, public

    def notified(self) -> None:
        """Read the store now (a change was notified, or this gateway appended)."""
        self._changed = True
        self._poked.set()

    def announced(self) -> None:
        """The store's listener announced a change (in the event loop)."""
        if self._loop is not None:
            now = self._loop.time()
            self._announced = (self._announced or (now, now))[0], now
        self.notified()

    def _readable_upto(self, now: float) -> float | None:
        """Before a read: the instant up to which every change announced is readable (a
        commit announced then is in the read), None if some may not be yet (announced
        ``unsure`` while a process is writing to the store, or that cannot be told)."""
        listener = self._listener
        if self._announced is None or listener is None:
            return None
        unsure = listener.unsure  # counted before the announcement: looked at first
        if unsure == self._unsure_read or listener.writing() is False:
            self._unsure_looked = unsure  # readable, every one announced before this look
            return now
        return None

    # --- blocking parts (reader and keeper threads) ------------------------------

    def _start_reading(self) -> tuple[Update, Update | None, GatewayState | None]:
        """The live state (from the kept state, if any), the public state at
        ``now - delay``, the kept state it started from."""
        self.follower = Follower(Store(self.store_url))
        loop = self._loop
        if loop is not None:

            def wake() -> None:  # the listener's thread: hand the change to the event loop
                loop.call_soon_threadsafe(self.announced)

            self._listener = listen_for_changes(self.follower.store, wake)
        kept = self._load_kept(self.follower.store) if self.keep else None
        start = self.follower.start(kept.resumed() if kept is not None else None)
        if self.public is self.live:
            return start, None, kept
        self.public_view = PublicView(self.public.delay_ms)
        return start, self.public_view.start(self.follower, start.seq, wall_clock_ms()), kept

    def _load_kept(self, store: Store) -> GatewayState | None:
        """The kept state of this store, None without a usable one (said in a warning)."""
        self._kept = open_kept(store, NAME, FORMAT)
        if self._kept is None:
            return None
        return self._kept.load_as(GatewayKept, GatewayState.from_state)

    def kept_state(self) -> GatewayState | None:
        """The state to keep, in the event loop between two readings of the log (None if
        the follower is not where the live channel is: a reading was cut short)."""
        follower = self.follower
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

    def save_kept(self, state: GatewayState) -> None:
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
        state = self.kept_state()
        if state is None:
            return
        self._kept_at = now_s
        self._kept_submitted = state.position
        self._keeper.submit(self.save_kept, state)

    def _poll(self) -> tuple[Update | None, Update | None]:
        """What the live log gained, and what the public copy gained (events released).

        Once the follower has read events its position has moved past them: they must
        reach the live channel whatever happens next, so a failure of the public copy
        is logged and the live update still returned (dropping it would leave a gap
        that no later read and no resume up to the channel's position fills)."""
        assert self.follower is not None
        update = self.follower.poll()
        if self.public_view is None:
            return update, None
        try:
            return update, self.public_view.poll(update, wall_clock_ms())
        except Exception:
            log.exception("the public copy failed to take what the live log gained")
            return update, None

    def _public_viewed(self) -> None:
        """What the public copy held back at its last release (event loop, once what that
        release gave is folded in: a snapshot is never dated after its objects)."""
        if self.public_view is not None and self.public is not self.live:
            self.public.held_from_ms = self.public_view.next_release_ms

    def _release(self) -> Update | None:
        """What the public copy gained by the clock alone (events now due)."""
        assert self.public_view is not None
        return self.public_view.poll(None, wall_clock_ms())

    def events_between(self, after: int, upto: int) -> list[tuple[int, Event]]:
        assert self.follower is not None
        return self.follower.events_between(after, upto)

    def close_stores(self) -> None:
        if self._listener is not None:
            self._listener.close()
        if self.follower is not None:
            self.follower.store.close()
        if self.public_view is not None:
            self.public_view.close()

    def _discard_start(self) -> None:
        """After a first read that failed: what it opened is closed, to be opened again."""
        with contextlib.suppress(Exception):
            self.close_stores()
        self.follower = self.public_view = self._listener = self._kept = None

    # --- following the store (event loop) -------------------------------------------

    async def open(self) -> None:
        """The first read: every game object and the standings at the store's position,
        the public's at ``now - delay``, the alerts still open."""
        self._loop = asyncio.get_running_loop()
        start, public, kept = await self.read(self._start_reading)
        self.live.open(start.seq, start.games, start.standings, start.first, start.names)
        self.public.know(start.first, start.names)
        self.live.incidents = dict(start.incidents)
        self.needs.later(self.live, start.needs)
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
            self._public_viewed()
            self.public_shown = dict(public.games)
            self.needs.later(self.public, public.needs)

    async def open_retrying(self, stop: asyncio.Event) -> bool:
        """``open``, made again every ``retry_s`` while the store cannot be read (the
        database is down, or went away during the first read); False if ``stop`` was set
        first."""
        while not stop.is_set() and not self.stopping:
            try:
                await self.open()
            except Exception as exc:
                self.outage.failed(exc)
                await self.read(self._discard_start)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.retry_s)
            else:
                self.outage.succeeded()
                return True
        return False

    async def follow(self, stop: asyncio.Event) -> None:
        """Read the log when it changed (when the store's listener announces a commit, or
        every ``FALLBACK_S``; every tick without a listener); hand what changed to the live
        and public channels. On a tick with nothing to read, the public copy releases what
        is due."""
        loop = asyncio.get_running_loop()
        last_read = loop.time()
        while not stop.is_set() and not self.stopping:
            if self._listener is None or loop.time() - last_read >= self.fallback_s:
                self._changed = True
            update: Update | None = None
            public: Update | None = None
            await self.desk.settled()  # at most a moment: commands are decided one at a time
            try:
                if self._changed:
                    self._changed = False
                    last_read = loop.time()
                    readable_upto = self._readable_upto(last_read)
                    update, public = await self.read(self._poll)
                    announced = self._announced
                    if announced and readable_upto is not None and announced[1] <= readable_upto:
                        self._announced = None  # everything announced has been read
                        self._unsure_read = self._unsure_looked
                elif self.public_view is not None:
                    public = await self.read(self._release)
            except Exception as exc:
                self.outage.failed(exc)
                update = public = None
                self._changed = True
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.retry_s)
            else:
                self.outage.succeeded()
            if update is not None:
                await self.desk.settled()  # it may hold a command's events: its result first
                self._dispatch_or_log(self.live, self.shown, update)
            if public is not None:
                self._dispatch_or_log(self.public, self.public_shown, public)
            self._public_viewed()
            self._keep(loop.time())  # after the frames were handed out, off their path
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poked.wait(), self._wait_s(loop.time()))
            self._poked.clear()

    def _wait_s(self, now: float) -> float:
        """How long to wait for a poke before the next turn of ``follow``: a tick without a
        listener, or with a public copy to release; otherwise until the safety read.

        A change announced ``unsure`` (a write to a SQLite store's files with no signal of
        the commit after it: the commit is published after that write) and not known to be
        read is read again while a process is writing to the store
        (``ChangeListener.writing``), every quarter of the time since it was first
        announced (at least ``SETTLE_STEP_S``, at most ``fallback_s``), and at once when
        none is (that read, made after the writer was seen done, has it); where the
        writer cannot be seen, for ``settle_s``. Any other change was readable when
        announced: one announced during a read poked the loop, which reads again at once."""
        listener = self._listener
        if listener is None:
            return self.poll_interval_s
        if self._announced is not None and listener.unsure != self._unsure_read:
            since = now - self._announced[0]
            writing = listener.writing()
            if writing is not None or since < listener.settle_s:
                self._changed = True
                return (
                    0.0 if writing is False else min(max(SETTLE_STEP_S, since / 4), self.fallback_s)
                )
            self._announced = None
            self._unsure_read = listener.unsure
        return self.fallback_s if self.public is self.live else self.poll_interval_s

    def _dispatch_or_log(
        self, channel: Channel, shown: dict[str, GameObject], update: Update
    ) -> None:
        """``_dispatch``; a failure is logged, the channel still moves to the update's
        position (a resume reads those events from the store) and every client of it
        gets a fresh snapshot (never a gap it cannot see), and the loop goes on."""
        try:
            self._dispatch(channel, shown, update)
        except Exception:
            log.exception(
                "handing the events up to %s to the %s channel failed", update.seq, channel.name
            )
            channel.seq = max(channel.seq, update.seq)
            channel.games.update(update.games)
            for client in list(channel.clients):
                client.needs_snapshot = True
                client.wake.set()

    def _dispatch(self, channel: Channel, shown: dict[str, GameObject], update: Update) -> None:
        before = {gid: g for gid in update.games if (g := channel.games.get(gid)) is not None}
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
        self.needs.later(channel, update.needs)  # what each player needs, off this path
        if channel is self.live:
            for tid, book in update.incidents.items():
                self.live.incidents[tid] = book
                frames.append(incidents_frame(update.seq, book, tid))
        for frame in frames:
            body = frame.body
            if frame.game is not None and body["op"] == "delta" and "object" in body:
                shown[frame.game] = body["object"]
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

    async def stop(self, follower: asyncio.Task[None] | None) -> None:
        """Let the reading in progress end (and be dispatched), keep the final state, close
        the stores."""
        self.stopping = True
        self._poked.set()
        if follower is not None:
            await asyncio.wait({follower}, timeout=STOP_WAIT_S)
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await follower
        final = self.kept_state() if self._kept is not None else None
        if final is not None and final.position > self._kept_submitted:
            await self._in(self._keeper, self.save_kept, final)
        await self._in(self._keeper, lambda: None)  # a save in progress ends first
        await self.read(self.close_stores)
        self.reader.shutdown(wait=False)
        self._keeper.shutdown(wait=False)
        self.needs.close()
