"""The flag check on a timer: ``candidates serve`` looks at every clock each second.

A flag is fallen when the arbiter observes it (Laws 2009 6.8), so the arbiters' desk
must hear of a regulation clock at zero within a second: ``check_flags`` goes to every
game in progress once a second, dated by the wall clock, found by following the log
from a kept position (``flag-watch``) and leaving alone games not played live. A
store that went away never ends the check; it resumes when the store answers
(docs/clocks.md)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from collections.abc import Callable
from typing import TypedDict

from adapters.host.clock import wall_clock_ms
from adapters.store import Store
from adapters.store.answers import Answer
from adapters.store.kept import KEEP_EVERY_S, KeptProjection, open_kept
from adapters.store.outage import RETRY_S, Outage
from engine.arbiter.clock_rulings import CheckFlags
from engine.events import split_stream
from engine.game.state import IN_PROGRESS

log = logging.getLogger(__name__)

DEFAULT_INTERVAL_S = 1.0
STALE_MS = 12 * 3600 * 1000
"""No game of the event goes 12 hours without an event (3.5.1 gives each player at most
3 h 15 min plus increments): older games are not live."""
NAME = "flag-watch"
FORMAT = 1


class FlagWatchKept(TypedDict):
    """The layout of the flag watch's kept state: the games seen (tournament namespace,
    game id) and the events folded."""

    games: list[tuple[str | None, str]]
    events: int


"""The layout of the kept state (``games``: [namespace, game id] pairs; ``events``)."""


class FlagWatch:
    """Which games are in progress, and one flag check over them."""

    def __init__(
        self, store: Store, wall_clock: Callable[[], int] = wall_clock_ms, *, keep: bool = True
    ) -> None:
        self.store = store
        self.wall_clock = wall_clock
        self.seq = 0
        self.game_ids: set[tuple[str | None, str]] = set()
        """(tournament namespace, game id): None for the store's first tournament."""
        self.events = 0
        """Events folded into ``game_ids`` since the kept state was first built."""
        self.keep = keep
        """Keep ``game_ids`` and ``seq`` in the store (False: read the whole log each run)."""
        self.resumed_from = 0
        """The kept position this check started from (0: the start of the log)."""
        self.folded = 0
        """Events this check read from the log."""
        self._kept: KeptProjection | None = None
        self._loaded = False
        self._kept_seq = 0
        self._kept_at = float("-inf")

    def _load(self) -> None:
        """Start from the kept state, if the store holds a usable one."""
        self._loaded = True
        if not self.keep:
            return
        self._kept = open_kept(self.store, NAME, FORMAT)
        if self._kept is None:
            return
        loaded = self._kept.load_as(FlagWatchKept, _games_and_events)
        if loaded is None:
            return
        position, games, events = loaded
        self.seq = self.resumed_from = self._kept_seq = position
        self.game_ids, self.events = games, events

    def fold(self) -> None:
        """Read the events after ``seq`` (their stream names only) for the games."""
        if not self._loaded:
            self._load()
        for notification in self.store.cache.notifications(self.seq + 1):
            self.seq = notification.id
            self.events += 1
            self.folded += 1
            namespace, name = split_stream(str(notification.originator_id))
            if name.startswith("game/"):
                self.game_ids.add((namespace, name.removeprefix("game/")))

    def save(self, *, now_s: float | None = None, force: bool = False) -> bool:
        """Keep ``game_ids`` at ``seq`` if it moved and ``KEEP_EVERY_S`` has passed since
        the last save (``force``: whenever it moved); False when nothing was saved (not
        due, or the store already holds that position: another process saved it)."""
        if self._kept is None or self.seq <= self._kept_seq:
            return False
        now_s = time.monotonic() if now_s is None else now_s
        if not force and now_s - self._kept_at < KEEP_EVERY_S:
            return False
        self._kept_at = now_s
        state: FlagWatchKept = {
            "games": sorted(self.game_ids, key=_game_sort),
            "events": self.events,
        }
        saved = self._kept.save_or_warn(self.seq, state)
        if saved is None:
            return False
        self._kept_seq = self.seq
        return saved

    def live_games_by_tournament(self, now_ms: int) -> dict[str | None, list[str]]:
        """Games in progress whose last event is recent, in id order, by tournament
        (its id; None when the store holds one tournament)."""
        self.fold()
        live: dict[str | None, list[str]] = {}
        several = any(namespace is not None for namespace, _ in self.game_ids)
        first = self.store.registry.first_tournament_id() if several else None
        for namespace, game_id in sorted(self.game_ids, key=_game_sort):
            view = self.store.view(namespace or first)
            game = view.game(game_id)
            recent = game is not None and now_ms - game.last_at_ms <= STALE_MS
            if game is not None and recent and game.status == IN_PROGRESS:
                live.setdefault(namespace or first, []).append(game_id)
        return live

    def tick(self) -> Answer | None:
        """One ``check_flags`` per tournament over its live games (None when there is none);
        the first refusal, else the last answer."""
        now_ms = self.wall_clock()
        answer: Answer | None = None
        for tournament, games in self.live_games_by_tournament(now_ms).items():
            check = CheckFlags(tournament=tournament, games=games, at_ms=now_ms, by="server")
            answer = self.store.handle(check)
            if not answer["ok"]:
                break
        self.save()
        return answer


def _game_sort(key: tuple[str | None, str]) -> tuple[str, str]:
    return key[0] or "", key[1]


async def watch_flags(
    url: str,
    stop: asyncio.Event,
    interval_s: float = DEFAULT_INTERVAL_S,
    *,
    retry_s: float = RETRY_S,
) -> None:
    """Run the flag check every ``interval_s`` seconds until ``stop`` is set.

    A store that cannot be opened or read (the database went away, at any moment of a
    check) never ends it: the check is made again every ``retry_s`` and resumes from
    the store once it answers (said once in the log, ``adapters.store.outage``)."""
    loop = asyncio.get_running_loop()
    outage = Outage("the flag check", log, retry_s)
    watch: FlagWatch | None = None
    try:
        while not stop.is_set():
            wait_s = interval_s
            try:
                if watch is None:
                    watch = FlagWatch(await loop.run_in_executor(None, Store, url))
                answer = await loop.run_in_executor(None, watch.tick)
            except Exception as error:
                outage.failed(error)
                wait_s = retry_s
            else:
                outage.succeeded()
                if answer is not None and not answer["ok"]:
                    refusal = answer["error"]["message"]
                    print(f"candidates serve: flag check: {refusal}", file=sys.stderr)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), wait_s)
    finally:
        if watch is not None:
            kept = watch
            with contextlib.suppress(Exception):
                await loop.run_in_executor(None, lambda: kept.save(force=True))
            kept.store.close()


def _games_and_events(
    position: int, state: FlagWatchKept
) -> tuple[int, set[tuple[str | None, str]], int]:
    """The kept state's position, games (namespace, game id) and events folded."""
    games = {(None if ns is None else str(ns), str(g)) for ns, g in state["games"]}
    return position, games, int(state["events"])
