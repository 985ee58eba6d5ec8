"""Boards feeding the store: the entry point for ``candidates dgt run`` and the gateway.

A source spec names a board (a serial port, ``tcp://``, ``file:``, ``livechess:``)
and, after ``=``, the game it plays and optionally the side of White's clock; without
``=GAME`` the board is mapped by its serial number. The links run in the event loop
and every store call in the store's thread (``adapters.dgt.writer``), so the loop,
which ``serve --dgt`` shares with the gateway, never waits for the database. The specs
are in docs/dgt.md, sections 7 and 11."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from adapters.dgt.clocksides import ClockSides
from adapters.dgt.feed import SessionCall, StoreSink, at_once
from adapters.dgt.link import (
    BoardLink,
    FileSource,
    SerialTransport,
    TcpTransport,
    Transport,
)
from adapters.dgt.livechess import run_livechess
from adapters.dgt.observations import Observation
from adapters.dgt.outbox import Outbox, outbox_name
from adapters.dgt.reconstruct import MoveReconstructor
from adapters.dgt.recording import Recorder
from adapters.dgt.session import BoardIdentified, BoardSession
from adapters.dgt.writer import BoardWriter, StoreThread, store_unreachable
from adapters.host import public_delay
from adapters.host.clock import wall_clock_ms
from adapters.store import Store
from adapters.store.outage import RETRY_S, Outage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SourceSpec:
    kind: str  # serial | tcp | file | livechess
    target: str
    game: str | None
    white_side: str | None = None
    boards: tuple[tuple[str, str], ...] = ()
    """LiveChess: (serial, game) pairs."""


def parse_spec(spec: str) -> SourceSpec:
    """Read one ``--dgt`` spec; ValueError with the expected forms when it is wrong."""
    target, sep, game_part = spec.rpartition("=")
    if not sep:
        target, game_part = spec, ""
    if not target:
        raise ValueError(f"empty source in {spec!r}")
    game: str | None = game_part or None
    white_side = None
    if game and "@" in game:
        game, _, white_side = game.partition("@")
        if white_side not in ("left", "right"):
            raise ValueError(f"{spec!r}: White's clock side is @left or @right, not @{white_side}")
    if target.startswith("livechess:"):
        url = target.removeprefix("livechess:")
        pairs = []
        for item in (game_part or "").split(","):
            if not item:
                continue
            serial, colon, game_id = item.partition(":")
            if not colon or not serial or not game_id:
                raise ValueError(
                    f"{spec!r}: LiveChess boards are given as SERIAL:GAME[,SERIAL:GAME...]"
                )
            pairs.append((serial, game_id))
        return SourceSpec("livechess", url, None, None, tuple(pairs))
    if target.startswith("tcp://"):
        parts = urlparse(target)
        if not parts.hostname or not parts.port:
            raise ValueError(f"{spec!r}: a TCP source is tcp://HOST:PORT")
        return SourceSpec("tcp", target, game, white_side)
    if target.startswith("file:"):
        return SourceSpec("file", target.removeprefix("file:"), game, white_side)
    return SourceSpec("serial", target, game, white_side)


@dataclass(frozen=True)
class CorrectionPolicy:
    """How the board's corrections of its own misreads reach the record: proposed to the
    arbiters (``arbiter`` None), or applied at once in ``arbiter``'s name when the public
    has not seen the plies yet (appended less than ``public_delay_ms`` ago)."""

    arbiter: str | None = None
    public_delay_ms: int = public_delay.DEFAULT_MS


@dataclass
class BoardFeed:
    """One board's session and its sink, with the game resolved late if by serial."""

    spec: SourceSpec
    session: BoardSession
    sink: StoreSink | None
    store: Store
    serial_games: dict[str, str]
    label: str
    pending: list[Observation]
    policy: CorrectionPolicy = field(default_factory=lambda: CorrectionPolicy())
    on_session: SessionCall = at_once
    """Runs what the feed does to the session where the session lives."""

    def deliver(self, observations: list[Observation]) -> None:
        if self.sink is None:
            for obs in observations:
                if isinstance(obs, BoardIdentified) and obs.serial in self.serial_games:
                    self.attach(self.serial_games[obs.serial])
            if self.sink is None:
                self.pending.extend(observations)
                del self.pending[:-2000]
                return
            observations, self.pending = [*self.pending, *observations], []
        self.sink.deliver(observations)

    @property
    def level(self) -> bool:
        """Whether the feed holds nothing of what it was given that the store lacks."""
        if self.sink is None:
            return not self.pending
        return self.sink.level

    def attach(self, game_id: str) -> None:
        game = self.store.reads.game(game_id)
        line: tuple[str, ...] | None = None
        if game is not None and game.moves and self.session.reconstructor.ply == 0:
            # Resume: the board continues a game the store already holds (a session that
            # read moves already keeps its own line: ``BoardSession.resume``).
            line, fen, session = tuple(game.moves), game.initial_fen, self.session
            self.on_session(lambda: session.resume(fen, line))
        self.sink = StoreSink(
            self.store,
            game_id,
            self.session,
            label=self.label,
            auto_correct_arbiter=self.policy.arbiter,
            public_delay_ms=self.policy.public_delay_ms,
            on_session=self.on_session,
            line=line,
        )

    def off_loop(self, writer: BoardWriter) -> None:
        """From now on the feed runs in the store's thread: its session calls go back to
        the loop through ``writer``."""
        self.on_session = writer.on_session
        if self.sink is not None:
            self.sink.on_session = writer.on_session


def _session_for(
    store: Store, game_id: str | None, white_side: str | None, debounce_ms: int
) -> BoardSession:
    reconstructor = MoveReconstructor()
    if game_id is not None:
        game = store.reads.game(game_id)
        if game is not None:
            reconstructor = MoveReconstructor(start_fen=game.initial_fen, moves=game.moves)
    return BoardSession(
        reconstructor=reconstructor,
        clock_sides=ClockSides.of(white_side),
        debounce_ms=debounce_ms,
    )


async def kept_running(
    start: Callable[[], Awaitable[None]], label: str, stop: asyncio.Event
) -> None:
    """Run a board's link until ``stop``; when it fails (the store out of reach for longer
    than its own retries, a fault of the feed), start it again from the store's record
    after a pause (1 s, doubled up to 30 s), as a restarted reader would: the other
    boards of the process are not touched and nothing needs a hand."""
    delay_s = 1.0
    while not stop.is_set():
        try:
            await start()
            return
        except Exception as exc:
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            log.error("board %s stopped (%s); starting it again from the store", label, reason)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), delay_s)
            delay_s = min(delay_s * 2, 30.0)


SETTLE_S = 30.0
"""At shutdown, how long the boards' queued observations may take to reach the store."""


async def run_sources(
    specs: list[str],
    store_url: str,
    stop: asyncio.Event,
    *,
    serial_games: dict[str, str] | None = None,
    record_dir: str | Path | None = None,
    debounce_ms: int = 300,
    file_speed: float = 1.0,
    policy: CorrectionPolicy | None = None,
    tournament: str | None = None,
    open_store: Callable[[], Store] | None = None,
) -> None:
    """Run every source until ``stop`` is set (or all of them ended: only recordings end).

    ``tournament``: the store's tournament the boards' games belong to (a store holding
    several; ``--tournament``).

    Each board's confirmed moves become ``play_move``, its clock readings
    ``clock_reading``, its alerts ``AlertRaised`` on ``board/<serial>``, written in the
    store's thread (``adapters.dgt.writer``), never on the event loop.
    ``record_dir``: keep a ``.dgt`` recording of every serial/TCP session there.
    ``policy``: how the boards' corrections of their own misreads reach the record.
    ``open_store``: how the store is opened (in its thread; default ``store_url``).
    """
    policy = policy or CorrectionPolicy()
    parsed = [parse_spec(s) for s in specs]
    serial_games = dict(serial_games or {})
    thread = StoreThread(open_store or (lambda: Store(store_url, tournament=tournament)))
    tasks: list[Awaitable[None]] = []
    writers: list[BoardWriter] = []
    recorders: list[Recorder] = []
    boards: dict[tuple[str, str], BoardWriter] = {}
    """The writer of each board with an outbox, by (label, game)."""

    async def fed(
        spec: SourceSpec, game_id: str | None, white_side: str | None, label: str, serial: str = ""
    ) -> tuple[BoardSession, BoardWriter]:
        """A board's session and feed, set up from the store's record in its thread (the
        link is not running yet), then fed off the loop. With a recordings directory the
        board has an outbox there: what an earlier reader read and did not store is
        sent first, and the board is followed from the line it had read."""
        outbox = None
        if record_dir is not None and game_id is not None and spec.kind != "file":
            earlier = boards.pop((label, game_id), None)
            if earlier is not None:  # the board started again: its outbox says what is left
                earlier.abandon()
            path = Path(record_dir) / outbox_name(label, game_id)
            outbox = Outbox(path, board=label, game=game_id)
        unsent = outbox.unsent if outbox is not None else []

        def setup() -> tuple[BoardSession, BoardFeed]:
            session = _session_for(thread.store, game_id, white_side, debounce_ms)
            if serial:
                session.serial = serial
            feed = BoardFeed(spec, session, None, thread.store, serial_games, label, [], policy)
            if game_id is not None:
                feed.attach(game_id)
            if unsent and feed.sink is not None:
                line = feed.sink.board_line(unsent)
                if line != tuple(session.reconstructor.confirmed_moves):
                    game = thread.store.reads.game(game_id) if game_id is not None else None
                    session.reconstructor.resume(game.initial_fen if game else None, line)
            return session, feed

        session, feed = await thread.call(setup)
        writer = BoardWriter(feed, thread, label, outbox=outbox, unsent=unsent)
        if outbox is not None and game_id is not None:
            boards[label, game_id] = writer
        feed.off_loop(writer)
        writers.append(writer)
        return session, writer

    async def livechess(spec: SourceSpec) -> None:
        sessions: dict[str, BoardSession] = {}
        by_serial: dict[str, BoardWriter] = {}
        for serial, game_id in (dict(spec.boards) or dict(serial_games)).items():
            sessions[serial], by_serial[serial] = await fed(spec, game_id, None, serial, serial)

        def deliver(serial: str, obs: list[Observation]) -> None:
            by_serial[serial].deliver(obs)

        await run_livechess(spec.target, sessions, deliver, stop)

    async def recording(spec: SourceSpec, label: str) -> None:
        session, writer = await fed(spec, spec.game, spec.white_side, label)
        await FileSource(Path(spec.target), session, writer.deliver, file_speed).run(stop)
        await writer.settled()  # a recording ends once all it said is in the store

    if not await opened(thread, stop):
        return
    try:
        for spec in parsed:
            if spec.kind == "livechess":
                tasks.append(livechess(spec))
                continue
            label = (
                Path(spec.target).name if spec.kind != "tcp" else spec.target.removeprefix("tcp://")
            )
            if spec.kind == "file":
                tasks.append(recording(spec, label))
                continue
            transport: Transport
            if spec.kind == "tcp":
                parts = urlparse(spec.target)
                transport = TcpTransport(parts.hostname or "127.0.0.1", parts.port or 0)
            else:
                transport = SerialTransport(spec.target)
            recorder = None
            if record_dir is not None:
                safe = label.replace("/", "_").replace(":", "_")
                recorder = Recorder(
                    Path(record_dir) / f"{safe}-{wall_clock_ms()}.dgt",
                    wall_clock_ms(),
                    source=spec.target,
                    game=spec.game,
                )
                recorders.append(recorder)

            async def board(
                spec: SourceSpec = spec,
                label: str = label,
                transport: Transport = transport,
                recorder: Recorder | None = recorder,
            ) -> None:
                # the board's session resumed from the store's record, as at a start
                session, writer = await fed(spec, spec.game, spec.white_side, label)
                await BoardLink(transport, session, writer.deliver, recorder=recorder).run(stop)

            tasks.append(kept_running(board, label, stop))
        running: list[asyncio.Future[object]] = [asyncio.ensure_future(t) for t in tasks]
        stopper: asyncio.Future[object] = asyncio.ensure_future(stop.wait())
        try:
            pending: set[asyncio.Future[object]] = set(running)
            while pending and not stop.is_set():
                done, pending = await asyncio.wait(
                    pending | {stopper}, return_when=asyncio.FIRST_COMPLETED
                )
                for task in done:
                    if task is not stopper and task.exception() is not None:
                        log.error("board source failed: %r", task.exception())
                pending.discard(stopper)
        finally:
            stopper.cancel()
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
            settling: list[asyncio.Future[None]] = [
                asyncio.ensure_future(w.settled()) for w in writers
            ]
            if settling:  # what the boards said before the stop reaches the store
                _, late = await asyncio.wait(settling, timeout=SETTLE_S)
                for unsettled in late:
                    unsettled.cancel()
                await asyncio.gather(*settling, return_exceptions=True)
    finally:
        for recorder in recorders:
            recorder.close()
        for writer in boards.values():
            if writer.outbox is not None:
                writer.outbox.close()
        await thread.close()


async def opened(thread: StoreThread, stop: asyncio.Event) -> bool:
    """Open the boards' store, trying again every second while it is out of reach (said
    once in the log); False if ``stop`` came first."""
    outage = Outage("opening the boards' store", log)
    while not stop.is_set():
        try:
            await thread.start()
        except Exception as exc:
            if not store_unreachable(exc):
                raise
            outage.failed(exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), outage.every_s or RETRY_S)
            continue
        outage.succeeded()
        return True
    return False
