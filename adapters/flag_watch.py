"""The flag check on a timer: ``candidates serve`` looks at every clock each second.

Laws 2009 6.8: a flag is fallen when the arbiter observes it. So that the
arbiters' desk hears of a regulation clock at zero within a second of the fall,
``candidates serve`` sends ``check_flags`` for every game in progress once a
second (``--flag-check SECONDS``; 0 turns it off), dated by its own wall clock.
Under the supervised profiles the engine answers with a ``flag_fall`` alert,
raised once per side and moves completed, which the gateway pushes to the
arbiters; under ``candidates-2012-unsupervised`` it records the result (6.9).

The games in progress are found by following the store's log (only the events
appended since the last tick are read). A game whose last event is more than
``STALE_MS`` before the wall clock is not being played live (a store of an
event replayed from its logs, a game left open by mistake): the timer leaves it
alone rather than date alerts years after its moves.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from typing import Any

from adapters.store import Store, wall_clock_ms
from engine.events import split_stream, stream_game_id
from engine.game.state import IN_PROGRESS
from engine.timefmt import format_instant

DEFAULT_INTERVAL_S = 1.0
STALE_MS = 12 * 3600 * 1000
"""No game of the event goes 12 hours without an event (3.5.1 gives each player at most
3 h 15 min plus increments): older games are not live."""


class FlagWatch:
    """Which games are in progress, and one flag check over them."""

    def __init__(self, store: Store, wall_clock: Callable[[], int] = wall_clock_ms) -> None:
        self.store = store
        self.wall_clock = wall_clock
        self.seq = 0
        self.game_ids: set[tuple[str | None, str]] = set()
        """(tournament namespace, game id): None for the store's first tournament."""

    def live_games_by_tournament(self, now_ms: int) -> dict[str | None, list[str]]:
        """Games in progress whose last event is recent, in id order, by tournament
        (its id; None when the store holds one tournament)."""
        for seq, event in self.store.events_since(self.seq):
            self.seq = seq
            namespace, name = split_stream(event.originator_id)
            game_id = stream_game_id(name)
            if game_id is not None and name.startswith("game/"):
                self.game_ids.add((namespace, game_id))
        live: dict[str | None, list[str]] = {}
        several = any(namespace is not None for namespace, _ in self.game_ids)
        first = self.store.first_tournament_id() if several else None
        for namespace, game_id in sorted(self.game_ids, key=lambda k: (k[0] or "", k[1])):
            view = self.store.view(namespace or first)
            game = view.game(game_id)
            recent = game is not None and now_ms - game.last_at_ms <= STALE_MS
            if game is not None and recent and game.status == IN_PROGRESS:
                live.setdefault(namespace or first, []).append(game_id)
        return live

    def live_games(self, now_ms: int) -> list[str]:
        """Games in progress whose last event is recent (every tournament's), in id order."""
        return [g for games in self.live_games_by_tournament(now_ms).values() for g in games]

    def tick(self) -> dict[str, Any] | None:
        """One ``check_flags`` per tournament over its live games (None when there is none);
        the first refusal, else the last answer."""
        now_ms = self.wall_clock()
        answer: dict[str, Any] | None = None
        for tournament, games in self.live_games_by_tournament(now_ms).items():
            cmd = {
                "cmd": "check_flags",
                "games": games,
                "at": format_instant(now_ms),
                "by": "server",
            }
            if tournament is not None:
                cmd["tournament"] = tournament
            answer = self.store.handle(cmd)
            if not answer["ok"]:
                return answer
        return answer


async def watch_flags(
    url: str, stop: asyncio.Event, interval_s: float = DEFAULT_INTERVAL_S
) -> None:
    """Run the flag check every ``interval_s`` seconds until ``stop`` is set."""
    store = Store(url)
    watch = FlagWatch(store)
    loop = asyncio.get_running_loop()
    try:
        while not stop.is_set():
            answer = await loop.run_in_executor(None, watch.tick)
            if answer is not None and not answer["ok"]:
                error = answer["error"]
                print(f"candidates serve: flag check: {error['message']}", file=sys.stderr)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval_s)
    finally:
        store.close()
