"""The ``needs`` frame: what each player needs to finish first, live (docs/needs.md).

Each time a tournament's standings change, the follower reads what its ``needs``
object is computed from and the gateway computes it in a thread of its own, so the
moves' frames never wait for it; a result of a varied game only narrows the
scenarios already scored. The frame goes to the subscribers who asked for it,
commentators live and the public after the delay, like the standings it derives from."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING

from adapters.gateway.frames import Frame, NeedsFrame
from projections.needs import Needs, NeedsInputs, compute, for_frame
from projections.scenarios import ScenarioTable

if TYPE_CHECKING:
    from adapters.gateway.hub import Channel

log = logging.getLogger(__name__)

NEEDS = "needs"
"""The frame's audience: the clients that subscribed with ``"needs": true``."""


class NeedsFeed:
    """One channel's last scored scenarios of each tournament (used by one thread)."""

    def __init__(self) -> None:
        self.tables: dict[str, ScenarioTable] = {}
        self.inputs: dict[str, NeedsInputs] = {}
        """Per tournament: the inputs last computed from (an analysis recomputes them)."""
        self.wdl: dict[str, Mapping[str, Sequence[float]]] = {}
        """Per tournament: game -> win/draw/loss of a game in progress, from an analysis
        (``set_wdl``); games not named are weighed by the ratings."""

    def compute(self, tid: str, inputs: NeedsInputs | None) -> Needs | None:
        """The tournament's ``needs`` object (None while it has none: no pairings)."""
        if inputs is None:
            self.tables.pop(tid, None)
            self.inputs.pop(tid, None)
            return None
        self.inputs[tid] = inputs
        wdl = self.wdl.get(tid)
        if wdl:
            paired = set(inputs.tournament.pairings())
            inputs = replace(inputs, wdl={g: v for g, v in wdl.items() if g in paired})
        needs, table = compute(inputs, self.tables.get(tid))
        self.tables[tid] = table
        return needs

    def set_wdl(self, tid: str, wdl: Mapping[str, Sequence[float]]) -> None:
        """Win/draw/loss estimates of games in progress (read at the next computation;
        ``NeedsService.set_analysis`` computes again at once)."""
        self.wdl[tid] = dict(wdl)


def needs_frame(seq: int, tid: str, needs: Needs | None) -> Frame:
    """The ``needs`` frame of one tournament, for its subscribers that asked for it."""
    body: NeedsFrame = {
        "op": "needs",
        "seq": seq,
        "tournament": tid,
        "needs": for_frame(needs) if needs is not None else None,
    }
    return Frame(body, seq, None, audience=NEEDS, broad=True, tournament=tid)


class NeedsService:
    """Computes the channels' ``needs`` objects in a thread of its own and sends their
    frames when ready (the moves' frames never wait for it).

    The newest inputs win: while a tournament's object is being computed, the changes that
    come meanwhile (a round of results at a replay's speed, each one a change of the
    standings) leave only their last inputs waiting, computed next. A queue of every change
    fell further and further behind (an object of the sample takes a second or two): the
    page said "not available yet" well into round 1 and then showed old answers."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="gateway-needs")
        self.feeds: dict[str, NeedsFeed] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.waiting: dict[tuple[str, str], NeedsInputs | None] = {}
        """(channel, tournament) -> the newest inputs not computed yet."""
        self.computing: set[tuple[str, str]] = set()
        """(channel, tournament) whose object is being computed (or about to be)."""
        self.computed = 0
        """How many objects were computed (the changes they answered may be more)."""

    def later(self, channel: Channel, inputs: Mapping[str, NeedsInputs | None]) -> None:
        """Compute the needs of these tournaments for ``channel``, then send the frames
        (event loop); a tournament already being computed gets these inputs next."""
        feed = self.feeds.setdefault(channel.name, NeedsFeed())
        loop = asyncio.get_running_loop()
        for tid, given in inputs.items():
            key = (channel.name, tid)
            self.waiting[key] = given
            if key in self.computing:
                continue  # computed once the one under way is done: the newest only
            self.computing.add(key)

            async def run(key: tuple[str, str] = key, tid: str = tid) -> None:
                try:
                    while key in self.waiting:
                        newest = self.waiting.pop(key)
                        try:
                            needs = await loop.run_in_executor(self.pool, feed.compute, tid, newest)
                        except Exception:
                            log.exception("computing what each player needs failed")
                            continue
                        self.computed += 1
                        channel.needs[tid] = needs
                        frame = needs_frame(channel.seq, tid, needs)
                        channel.apply(channel.seq, [frame], {}, set(), {})
                finally:
                    self.computing.discard(key)

            task = loop.create_task(run())
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    def set_analysis(self, live: Channel, tid: str, wdl: Mapping[str, Sequence[float]]) -> None:
        """Win/draw/loss of games in progress from an analysis: the live needs computed
        again with them (the public's are not: a live evaluation waits for the delay)."""
        feed = self.feeds.setdefault(live.name, NeedsFeed())
        feed.set_wdl(tid, wdl)
        if tid in feed.inputs:
            self.later(live, {tid: feed.inputs[tid]})

    def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)
