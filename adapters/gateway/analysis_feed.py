"""The engine's evaluations on the gateway: who gets them, and when (fair play).

Every gateway reads the evaluations written beside the store in a thread of its own,
off the path of the moves, and hands them out as ``analysis`` frames and PGN
``[%eval]``: to commentators at once, to the public with the delay of the moves, and to
the arbiters' desk (which can reach the playing hall) nothing unless told to. The
table of who sees what is in docs/analysis.md."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from adapters.analysis.table import AnalysisRow, AnalysisTable, analysis_table
from adapters.gateway.frames import Frame
from adapters.gateway.hub import COMMENTARY, Channel, Client
from adapters.gateway.tokens import ARBITER, COMMENTATOR, Identity
from adapters.host.clock import wall_clock_ms
from adapters.store import Store
from adapters.store.names import game_key
from adapters.store.outage import Outage
from projections.evaluation import AnalysisFrame, Evaluation, analysis_frame

log = logging.getLogger(__name__)

GameEvals = dict[str, Mapping[int, tuple[int | None, int | None, str]]]
"""Game id -> ply -> (centipawns, mate, the position's FEN): what ``[%eval]`` is written
from."""

READ_EVERY_S = 0.1
"""How often the table is read for new evaluations."""
LOOK_AGAIN_S = 5.0
"""How often a store without the table (no analysis yet) is looked at again."""
STALE_MS = 60_000
"""An evaluation held for the public whose position the public view has not shown this
long after its release instant (its line was corrected before the public saw it) is
dropped, never shown."""

LIVE, PUBLIC_EVALS, NONE = "live", "public", "none"
"""Which evaluations an HTTP reader gets in the PGN (``audience``)."""


@dataclass(order=True)
class Held:
    """An evaluation waiting for the public's delay."""

    release_ms: int
    order: int
    key: str = field(compare=False)
    tournament: str | None = field(compare=False)
    evaluation: Evaluation = field(compare=False)


class AnalysisFeed:
    """Reads the evaluations of one store and hands them to the channels' clients."""

    def __init__(
        self,
        store_url: str,
        live: Channel,
        public: Channel,
        delay_ms: int,
        *,
        to_arbiters: bool = False,
        read_every_s: float = READ_EVERY_S,
    ) -> None:
        self.store_url = store_url
        self.live, self.public = live, public
        self.delay_ms = delay_ms
        self.to_arbiters = to_arbiters
        self.read_every_s = read_every_s
        self.last_id = 0
        self.shown: dict[str, dict[str, dict[int, Evaluation]]] = {LIVE: {}, PUBLIC_EVALS: {}}
        """Per audience, per game key, the evaluations by ply (the newest of a ply wins).
        Each game's map is replaced, never changed, so a reader thread may hold one."""
        self.versions = {LIVE: 0, PUBLIC_EVALS: 0}
        self.held: list[Held] = []
        self._order = itertools.count()
        self.received = 0
        self.dropped = 0
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="gateway-analysis")
        self._store: Store | None = None
        self._table: AnalysisTable | None = None
        self._looked_at = float("-inf")
        self.outage = Outage("reading the analyses", log, None)
        """A store that cannot be read: said once, read again at the next turn."""
        self._evals: dict[tuple[str, str | None], tuple[int, GameEvals]] = {}
        """The last ``evals`` answer per (audience, tournament), while its version holds."""
        live.catch_up = self.catch_up
        if public is not live:
            public.catch_up = self.catch_up

    # --- who sees what -------------------------------------------------------------

    def may_see(self, identity: Identity, channel: Channel | None) -> bool:
        """Commentators; the public on its (delayed) channel, or on the live one when there
        is no delay; arbiters only when told to."""
        if identity.role == ARBITER:
            return self.to_arbiters
        if identity.role == COMMENTATOR:
            return True
        return channel is self.public

    def audience(self, identity: Identity | None) -> str:
        """Which evaluations an HTTP reader's PGN carries (None: a public reader)."""
        if identity is None:
            return PUBLIC_EVALS if self.public is not self.live else LIVE
        return LIVE if self.may_see(identity, self.live) else NONE

    def evals(self, audience: str, tournament: str | None) -> tuple[int, GameEvals]:
        """(version, game id -> ply -> (cp, mate, fen)) of one tournament's games, for
        ``[%eval]`` (each with the position it is for: never written under another)."""
        if audience == NONE:
            return 0, {}
        version = self.versions[audience]
        cached = self._evals.get((audience, tournament))
        if cached is not None and cached[0] == version:
            return cached
        first = self.live.first
        found: GameEvals = {}
        for key, by_ply in self.shown[audience].items():
            tid, _, gid = key.rpartition("/")
            if (tid or first) != tournament:
                continue
            found[gid] = {ply: (e.cp, e.mate, e.fen) for ply, e in by_ply.items()}
        self._evals[(audience, tournament)] = (version, found)
        return version, found

    def catch_up(self, client: Client) -> list[Frame]:
        """After a snapshot or a resume: of each game the client follows (if it may see
        them), the evaluations that mark a mistake or a blunder (the move list's marks) and
        the newest one (the evaluation bar), in ply order."""
        channel = client.channel
        if channel is None or not self.may_see(client.identity, channel):
            return []
        audience = PUBLIC_EVALS if channel is not self.live else LIVE
        frames = []
        for key, by_ply in self.shown[audience].items():
            if not by_ply:
                continue
            newest = max(by_ply)
            for ply in sorted(by_ply):
                frame, body = self._frame(channel, key, by_ply[ply], by_ply)
                if (ply == newest or body["swing"] is not None) and client.wants(frame):
                    frames.append(frame)
        return frames

    # --- following the table (analysis thread) -------------------------------------

    def _read(self) -> list[AnalysisRow]:
        if self._table is None:
            store = Store(self.store_url)
            try:
                self._table = analysis_table(store)
            except BaseException:
                store.close()
                raise
            self._store = store
        if self.last_id == 0 and not self._table.exists():
            return []
        return self._table.since(self.last_id)

    def _close(self) -> None:
        if self._table is not None:
            self._table.close()
        if self._store is not None:
            self._store.close()

    async def follow(self, stop: asyncio.Event) -> None:
        """Read new evaluations and release the held ones until ``stop`` is set."""
        loop = asyncio.get_running_loop()
        try:
            await self.live.opened.wait()
            while not stop.is_set():
                rows: list[AnalysisRow] = []
                if self.last_id or loop.time() - self._looked_at >= LOOK_AGAIN_S:
                    self._looked_at = loop.time()
                    try:
                        rows = await loop.run_in_executor(self._reader, self._read)
                    except Exception as error:
                        self.outage.failed(error)
                    else:
                        self.outage.succeeded()
                self.take(rows)
                self.release(wall_clock_ms())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.read_every_s)
        finally:
            with contextlib.suppress(Exception):
                await loop.run_in_executor(self._reader, self._close)
            self._reader.shutdown(wait=False)

    # --- handing out (event loop) --------------------------------------------------

    def take(self, rows: list[AnalysisRow]) -> None:
        """New evaluations: to the live channel's clients that may see them at once; held
        for the public until their release."""
        frames: list[Frame] = []
        for row in rows:
            self.last_id = max(self.last_id, row.id)
            self.received += 1
            tid = row.tournament or None
            key = game_key(tid, row.game, self.live.first)
            frames += self._show(LIVE, self.live, key, row.evaluation)
            if self.public is not self.live:
                release = (row.evaluation.at_ms or row.analysed_at_ms) + self.delay_ms
                heapq.heappush(
                    self.held, Held(release, next(self._order), key, tid, row.evaluation)
                )
        self._hand_out(self.live, frames)

    def release(self, now: int) -> None:
        """Hand the public the held evaluations whose release instant has passed and whose
        position the public view shows (its ply reached)."""
        waiting: list[Held] = []
        frames: list[Frame] = []
        while self.held and self.held[0].release_ms <= now:
            held = heapq.heappop(self.held)
            game = self.public.games.get(held.key)
            if game is not None and int(game.get("ply") or 0) >= held.evaluation.ply:
                frames += self._show(PUBLIC_EVALS, self.public, held.key, held.evaluation)
            elif now - held.release_ms > STALE_MS:
                self.dropped += 1
            else:
                waiting.append(held)
        for held in waiting:
            heapq.heappush(self.held, held)
        self._hand_out(self.public, frames)

    def _hand_out(self, channel: Channel, frames: list[Frame]) -> None:
        """One tick's evaluations to the channel's clients that follow their games, framed
        once and sent together (``Channel.apply``: the fan-out of the deltas); the frames'
        audience keeps them from arbiters unless told otherwise."""
        if frames:
            channel.apply(channel.seq, frames, {}, set(), {})

    def _show(
        self, audience: str, channel: Channel, key: str, evaluation: Evaluation
    ) -> list[Frame]:
        """Keep an evaluation for this audience; its frame (and the next ply's again, when
        this one makes its swing known)."""
        by_ply = dict(self.shown[audience].get(key, {}))
        by_ply[evaluation.ply] = evaluation
        self.shown[audience][key] = by_ply
        self.versions[audience] += 1
        frames = [self._frame(channel, key, evaluation, by_ply)[0]]
        if evaluation.ply + 1 in by_ply:  # the next move's swing is known now
            frames.append(self._frame(channel, key, by_ply[evaluation.ply + 1], by_ply)[0])
        return frames

    def _frame(
        self, channel: Channel, key: str, evaluation: Evaluation, by_ply: dict[int, Evaluation]
    ) -> tuple[Frame, AnalysisFrame]:
        previous = by_ply.get(evaluation.ply - 1)
        if previous is not None and not _follows(previous, evaluation):
            previous = None
        tid, _, gid = key.rpartition("/")
        body = analysis_frame(evaluation, gid, tid or None, previous)
        audience = "all" if self.to_arbiters else COMMENTARY
        frame = Frame(
            body, channel.seq, game=key, audience=audience, tournament=tid or self.live.first
        )
        return frame, body


def _follows(before: Evaluation, after: Evaluation) -> bool:
    """``after``'s position is one move from ``before``'s (not a corrected line's)."""
    return after.ply == before.ply + 1
