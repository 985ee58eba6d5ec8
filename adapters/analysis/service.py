"""The analysis service: follows a store and evaluates each new position of every game
in progress (``candidates analyse``, its own process; ``serve --analysis``, a thread).

It reads the log as a gateway does and writes nothing to the store: its evaluations
and its own position go to the ``analyses`` table beside it, so a restart, even after
SIGKILL, goes on without repeating a finished position. Falling behind, each game
keeps only its newest position waiting and the games take turns; the skipped ones are
evaluated when nothing waits (``backfill``). The details are in docs/analysis.md."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypedDict

import chess
import chess.engine

from adapters.analysis.table import KEPT_NAME, AnalysisTable, analysis_table
from adapters.analysis.uci import Analyst, Budget, find_engine, lower_priority_of_this_thread
from adapters.host.clock import wall_clock_ms
from adapters.store import Store
from adapters.store.kept import KEEP_EVERY_S, KeptProjection, open_kept
from adapters.store.wakeup import first_line, listen_for_changes
from engine.events import Event, game_stream, split_stream
from engine.game import state as games
from engine.game.state import Game
from projections.evaluation import Evaluation

log = logging.getLogger(__name__)

KEPT_FORMAT = 1
RETRY_S = 1.0
"""How long the analysis waits after the store failed before it tries again."""
POLL_S = 0.1
"""How often the store's last position is looked at for new moves at the latest (a commit
of any process wakes the service at once: ``adapters.store.wakeup``)."""
NO_ENGINE = (
    "no UCI engine found (install Stockfish: `make stockfish`, or apt-get install stockfish; "
    "or give --engine PATH): the games are served without analysis"
)


class AnalysisKept(TypedDict):
    """The layout of the analysis' kept state: the games in progress (tournament, game)."""

    live: list[tuple[str, str]]


@dataclass(frozen=True, order=True)
class Position:
    """A position of a game to evaluate: after ``ply`` plies of its current line."""

    tournament: str
    game: str
    ply: int
    fen: str
    at_ms: int
    """The instant of the event that made it the game's position (public release)."""
    initial_fen: str | None = field(compare=False, default=None)
    moves: tuple[str, ...] = field(compare=False, default=())

    @property
    def key(self) -> tuple[str, str]:
        return self.tournament, self.game

    def board(self) -> chess.Board:
        board = chess.Board(self.initial_fen) if self.initial_fen else chess.Board()
        for uci in self.moves:
            board.push_uci(uci)
        return board


@dataclass
class Counters:
    analysed: int = 0
    skipped: int = 0
    """Positions a newer one of their game replaced while they waited."""
    backfilled: int = 0
    already: int = 0
    """Positions found in the table (evaluated before) and not evaluated again."""
    failures: int = 0
    """Times the store failed (read or write) and the analysis waited to try again."""


class GameLine:
    """One game's state and every position of its current line (plies 0..n), each dated by
    the event that made it the game's (a move, a correction; the start for ply 0), folded
    from its stream as it grows: each event once."""

    def __init__(self, tournament: str, game_id: str) -> None:
        self.tournament, self.game_id = tournament, game_id
        self.state: Game | None = None
        self.version = 0
        """The stream version folded up to."""
        self.positions: list[Position] = []
        self.board = chess.Board()
        """The position after the current line, with its moves (repetitions are seen)."""

    def fold(self, events: list[Event]) -> None:
        for event in events:
            before = self.state.moves if self.state is not None else ()
            self.state = games.evolve(self.state, event)
            self.version = max(self.version, event.originator_version)
            state = self.state
            if state is None:
                continue
            if not self.positions:
                self.board = chess.Board(state.initial_fen) if state.initial_fen else chess.Board()
                self._add(0, event.at_ms)
            moves = state.moves
            if moves == before:
                continue
            common = 0
            while common < min(len(moves), len(before)) and moves[common] == before[common]:
                common += 1
            if common < len(before):  # a correction: the line from the start again
                del self.positions[common + 1 :]
                start = state.initial_fen
                self.board = chess.Board(start) if start else chess.Board()
                for uci in moves[:common]:
                    self.board.push_uci(uci)
            for ply in range(common + 1, len(moves) + 1):
                self.board.push_uci(moves[ply - 1])
                self._add(ply, event.at_ms)

    def _add(self, ply: int, at_ms: int) -> None:
        state = self.state
        assert state is not None
        self.positions.append(
            Position(
                self.tournament,
                self.game_id,
                ply,
                self.board.fen(),
                at_ms,
                state.initial_fen,
                state.moves[:ply],
            )
        )

    def over(self) -> bool:
        """The line's last position has no legal move (mate, stalemate)."""
        return not any(self.board.legal_moves)


def line_positions(
    tournament: str, game_id: str, events: list[Event]
) -> tuple[Game | None, list[Position]]:
    """The game's state and every position of its current line (``GameLine``)."""
    line = GameLine(tournament, game_id)
    line.fold(events)
    return line.state, line.positions


class Analyser:
    """Follows one store and evaluates its games' positions until stopped."""

    def __init__(
        self,
        store_url: str,
        budget: Budget | None = None,
        engine_path: str | None = None,
        *,
        backfill: bool = True,
        every_game: bool = False,
        poll_s: float = POLL_S,
        on_analysed: Callable[[Position, Evaluation], None] | None = None,
        until_idle: bool = False,
    ) -> None:
        self.store_url = store_url
        self.budget = budget or Budget()
        self.engine_path = engine_path
        self.backfill_on = backfill
        self.every_game = every_game
        """Also the games already finished (a whole event analysed after the fact)."""
        self.poll_s = poll_s
        self.on_analysed = on_analysed
        self.until_idle = until_idle
        """Stop once nothing is left to evaluate (a whole store analysed, then done)."""
        self.counters = Counters()
        self.position = 0
        """The last event of the log read."""
        self.live: set[tuple[str, str]] = set()
        """The games in progress (tournament id, game id)."""
        self.waiting: OrderedDict[tuple[str, str], Position] = OrderedDict()
        """Per game, its newest position not evaluated yet, in the order they arrived."""
        self.backlog: dict[tuple[str, str, int, str], Position] = {}
        """Positions skipped (replaced while waiting, or older plies found at start)."""
        self.done: dict[tuple[str, str], set[tuple[int, str]]] = {}
        """Per game, the positions (ply, FEN) in the table."""
        self.lines: dict[tuple[str, str], GameLine] = {}
        """Per game, its line folded so far (each event of its stream read once)."""
        self._store: Store | None = None
        self._table: AnalysisTable | None = None
        self._kept: KeptProjection | None = None
        self._kept_at = float("-inf")
        self._kept_position = 0

    # --- running ---------------------------------------------------------------------

    def run(self, stop: threading.Event) -> bool:
        """Evaluate until ``stop`` is set; False (said once, as a warning) without an engine."""
        path = find_engine(self.engine_path)
        if path is None:
            log.warning(NO_ENGINE)
            return False
        lower_priority_of_this_thread(self.budget.nice)  # the write path and viewers first
        store = self._store = Store(self.store_url)
        woken = threading.Event()
        listener = listen_for_changes(store, woken.set)
        table = self._table = analysis_table(store)
        try:
            table.set_up()
            self._kept = open_kept(store, KEPT_NAME, KEPT_FORMAT, table.kept())
            self._start()
            while not stop.is_set():
                analyst = self._open_engine(path)
                if analyst is None:
                    return False
                with analyst:
                    if self._evaluate_until(analyst, stop, woken):
                        break
            self._keep(float("inf"))
        finally:
            if listener is not None:
                listener.close()
            table.close()
            store.close()
        return True

    def _open_engine(self, path: str) -> Analyst | None:
        """The engine started (said once); None, said in one line, when it cannot be (a
        binary that is not a UCI engine, or one that never answered)."""
        try:
            analyst = Analyst(path, self.budget)
        except (chess.engine.EngineError, TimeoutError, OSError) as exc:
            log.warning(
                "the engine %s could not be started (%s): no analysis",
                path,
                str(exc) or type(exc).__name__,
            )
            return None
        log.info("analysing with %s (%s)", analyst.name, self.budget.describe())
        return analyst

    def _evaluate_until(
        self, analyst: Analyst, stop: threading.Event, woken: threading.Event
    ) -> bool:
        """Evaluate until ``stop`` (True), or until there is nothing left with
        ``until_idle`` (True); False when the engine died or did not answer in time (on a
        machine too busy for the idle class): it is started again."""
        while not stop.is_set():
            try:
                self._read()
                position = self._next()
                if position is None:
                    self._keep(time.monotonic())
                    if self.until_idle:
                        return True
                    woken.wait(self.poll_s)  # a commit, or the time to look again
                    woken.clear()
                    continue
                searched_from = time.monotonic()
                self._evaluate(analyst, position)
                self._keep(time.monotonic())
                # the engine's share of the wall clock (Budget.duty): a rest after a search
                stop.wait(self.budget.rest_s(time.monotonic() - searched_from))
            except (chess.engine.EngineTerminatedError, TimeoutError) as exc:
                self.counters.failures += 1
                log.warning(
                    "the engine stopped answering (%s); started again in %g s",
                    str(exc) or type(exc).__name__,
                    RETRY_S,
                )
                stop.wait(RETRY_S)
                return False
            except Exception as exc:  # a store that failed a moment: try again
                self.counters.failures += 1
                log.warning("the analysis could not go on (%s); again in %g s", exc, RETRY_S)
                stop.wait(RETRY_S)
        return True

    # --- following the store ---------------------------------------------------------

    def _start(self) -> None:
        """The kept position and games in progress, if any; then every game in progress
        (or every game, ``every_game``) looked at once."""
        assert self._store is not None
        kept = self._kept.load(AnalysisKept) if self._kept is not None else None
        if kept is not None:
            position, state = kept
            self.position = self._kept_position = position
            self.live = {(t, g) for t, g in state["live"]}
            self._read(rescan=self._all_games() if self.every_game else set(self.live))
        else:
            self._read(rescan=self._all_games())

    def _all_games(self) -> set[tuple[str, str]]:
        assert self._store is not None
        found: set[tuple[str, str]] = set()
        for tid in self._store.registry.tournament_ids():
            for gid in self._store.view(tid).game_ids():
                found.add((tid, gid))
        return found

    def _read(self, rescan: set[tuple[str, str]] | None = None) -> None:
        """The games the events after ``position`` touched (and ``rescan``), looked at."""
        store = self._store
        assert store is not None
        touched: set[tuple[str, str]] = set(rescan or ())
        last = store.last_seq()
        if last > self.position:
            first = store.registry.first_tournament_id()
            for notification in store.cache.notifications(self.position + 1):
                if notification.id > last:
                    break
                namespace, name = split_stream(str(notification.originator_id))
                if name.startswith("game/"):
                    tid = namespace or first
                    if tid is not None:
                        touched.add((tid, name.removeprefix("game/")))
        for key in sorted(touched):
            self._look_at(*key)
        self.position = max(self.position, last)  # once every game touched was looked at

    def _look_at(self, tid: str, gid: str) -> None:
        """Queue the game's newest position (and its older ones not evaluated, to the
        backlog) while it is in progress."""
        assert self._store is not None and self._table is not None
        key = (tid, gid)
        line = self.lines.get(key)
        if line is None:
            line = self.lines[key] = GameLine(tid, gid)
        line.fold(self._store.view(tid).stream(game_stream(gid), line.version))
        state, positions = line.state, line.positions
        if state is None or not positions:
            return
        in_progress = state.status == games.IN_PROGRESS
        if in_progress:
            self.live.add(key)
        else:
            self.live.discard(key)
            if not self.every_game:
                self.waiting.pop(key, None)
                return
        done = self.done.get(key)
        if done is None:
            done = self.done[key] = self._table.positions(tid, gid)
        newest = positions[-1]
        for older in positions[:-1]:
            if (older.ply, older.fen) not in done:
                self.backlog.setdefault((tid, gid, older.ply, older.fen), older)
        if (newest.ply, newest.fen) in done or line.over():
            self.waiting.pop(key, None)
            return
        replaced = self.waiting.get(key)
        if replaced is not None and replaced != newest:
            self.counters.skipped += 1
            self.backlog[(tid, gid, replaced.ply, replaced.fen)] = replaced
        self.waiting[key] = newest  # a game keeps its place in the queue

    def _next(self) -> Position | None:
        """The next position: the game that has waited longest (its newest position), else
        the newest skipped position."""
        if self.waiting:
            _, position = self.waiting.popitem(last=False)
            return position
        while self.backfill_on and self.backlog:
            chosen = max(self.backlog.values(), key=lambda p: (p.at_ms, p.ply))
            del self.backlog[(chosen.tournament, chosen.game, chosen.ply, chosen.fen)]
            if (chosen.ply, chosen.fen) in self.done.get(chosen.key, set()) or _over(chosen):
                continue
            if chosen.key not in self.live and not self.every_game:
                continue
            self.counters.backfilled += 1
            return chosen
        return None

    def _put_back(self, position: Position) -> None:
        """A position taken but not evaluated: its game's turn again, or, when a newer
        position of the game already waits, the backfill's."""
        if position.key in self.waiting:
            self.backlog[(position.tournament, position.game, position.ply, position.fen)] = (
                position
            )
        else:
            self.waiting[position.key] = position

    def _evaluate(self, analyst: Analyst, position: Position) -> None:
        assert self._table is not None
        done = self.done.setdefault(position.key, set())
        if (position.ply, position.fen) in done:
            self.counters.already += 1
            return
        try:
            evaluation = analyst.evaluate(position.board(), position.ply, position.at_ms)
            self._table.insert(position.tournament, position.game, evaluation, wall_clock_ms())
        except Exception:  # not evaluated (the engine died) or not stored: it waits again
            self._put_back(position)
            raise
        done.add((position.ply, position.fen))
        self.counters.analysed += 1
        log.info(
            "analysed %s/%s ply %d: %s depth %d",
            position.tournament,
            position.game,
            position.ply,
            evaluation.cp if evaluation.mate is None else f"#{evaluation.mate}",
            evaluation.depth,
        )
        if self.on_analysed is not None:
            self.on_analysed(position, evaluation)

    def _keep(self, now_s: float) -> None:
        """Save the position read and the games in progress, at most every ``KEEP_EVERY_S``
        (the positions evaluated are in the table: nothing of them needs keeping)."""
        if self._kept is None or self.position <= self._kept_position:
            return
        if now_s - self._kept_at < KEEP_EVERY_S:
            return
        self._kept_at = now_s
        state: AnalysisKept = {"live": sorted(self.live)}
        if self._kept.save_or_warn(self.position, state) is not None:
            self._kept_position = self.position


def _over(position: Position) -> bool:
    """A position with nothing to search: no legal move (mate, stalemate). A repetition or
    the fifty moves end nothing under the 2009 Laws until a player claims (9.2, 9.3)."""
    return not any(position.board().legal_moves)


def run_in_thread(
    store_url: str, budget: Budget, stop: threading.Event, engine_path: str | None = None
) -> threading.Thread:
    """``serve --analysis``: the analyser in a daemon thread of this process (never the
    gateway's event loop); it stops when ``stop`` is set."""

    def target() -> None:
        try:
            Analyser(store_url, budget, engine_path).run(stop)
        except Exception as exc:  # the analysis never takes the gateway down
            log.error("the analysis stopped: %s", first_line(exc))

    thread = threading.Thread(target=target, name="analysis", daemon=True)
    thread.start()
    return thread
