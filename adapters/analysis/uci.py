"""The UCI engine (Stockfish) behind the analysis, through python-chess's ``chess.engine``.

``find_engine`` finds the binary; ``Analyst`` opens it once and evaluates one position
at a time within the budget. The engine runs at the lowest priority the machine
offers (nice, the idle scheduling class, and a session of its own so that its
autogroup is lowered too), so that the moves and the viewers always come first
(docs/analysis.md)."""

from __future__ import annotations

import os
import shutil
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import chess
import chess.engine

from projections.evaluation import Evaluation

DEBIAN_PATH = "/usr/games/stockfish"
START_S = 30.0
"""How long the engine may take to start and answer its first commands (a loaded machine)."""
ANSWER_S = 60.0
"""How long past its budget a search may take before the engine is taken for stuck: in the
idle class a busy machine may give it no time at all for a while."""
ENGINE_ENV = "CANDIDATES_ENGINE"
PROCESS_NICE = 19
"""``candidates analyse``'s own priority (and its engine's group's) with the idle class: the
lowest."""


@dataclass(frozen=True)
class Budget:
    """What the engine may spend on each position (docs/analysis.md, "The budget")."""

    threads: int = 1
    """Engine threads (one core of a small machine)."""
    hash_mb: int = 64
    """Transposition table, MiB."""
    nodes: int | None = 300_000
    """Nodes per position (None: no bound); the search stops at the first bound reached."""
    movetime_ms: int | None = 1000
    """Time per position, ms (None: no bound)."""
    pv_moves: int = 6
    """Moves of the best line kept."""
    nice: int = 10
    """The engine's CPU priority below the other processes (0: the same; 19: the least)."""
    idle: bool = True
    """On Linux, run the engine in the idle scheduling class (``SCHED_IDLE``): a core it
    shares with the write path, the gateway or the viewers goes to them first, whatever
    their load (``nice`` alone still gives the engine a share of a busy core)."""
    duty: float = 0.25
    """The share of the wall clock the engine may search (0-1]: after a search of t ms the
    analysis rests ``t * (1 - duty) / duty`` ms before the next. Even in the idle class a
    searching engine costs the moves something on a small machine (the cores' caches and
    memory bandwidth are shared, a virtual machine's cores may be one physical core's two
    threads): a quarter keeps the single move within 10 % of no analysis
    (``bench/bench_analysis.py``), at a quarter of the positions a second."""

    def rest_s(self, searched_s: float) -> float:
        """How long to rest after a search of ``searched_s`` seconds."""
        return max(0.0, searched_s) * (1 - self.duty) / self.duty

    def limit(self) -> chess.engine.Limit:
        return chess.engine.Limit(
            nodes=self.nodes,
            time=self.movetime_ms / 1000 if self.movetime_ms is not None else None,
        )

    def describe(self) -> str:
        bounds = [
            f"{self.nodes} nodes" if self.nodes is not None else "",
            f"{self.movetime_ms} ms" if self.movetime_ms is not None else "",
        ]
        per = " or ".join(b for b in bounds if b) or "no bound"
        duty = f", searching {self.duty:.0%} of the time" if self.duty < 1 else ""
        return (
            f"{self.threads} thread(s), {self.hash_mb} MiB hash, {per} per position, "
            f"nice {self.nice}{', idle class' if self.idle else ''}{duty}"
        )


def lower_priority_of_this_thread(nice: int) -> None:
    """Run the calling thread (and what it starts: threads, processes) at ``nice`` (Linux
    gives each thread its own; elsewhere the process's), never higher than it was."""
    if nice <= 0:
        return
    try:
        target = threading.get_native_id() if sys.platform == "linux" else 0
        current = os.getpriority(os.PRIO_PROCESS, target)
        os.setpriority(os.PRIO_PROCESS, target, max(current, min(19, nice)))
    except (AttributeError, OSError):  # no priorities here: run as it is
        return


def lower_this_process(budget: Budget) -> None:
    """``candidates analyse``, a process of its own that holds no lock of the store (its
    evaluations and position are beside it): the calling thread, and every thread and
    process it starts from now on, at the lowest priority (19) with ``idle``, else at the
    budget's ``nice``; its scheduling group too when the process leads its own session
    (a service of its own), where no other program shares the group. Not the idle class:
    a process in it gets no time at all on a machine kept busy, not even to stop when
    told to. Call it first."""
    nice = PROCESS_NICE if budget.idle else budget.nice
    lower_priority_of_this_thread(nice)
    try:
        leads_its_session = os.getsid(0) == os.getpid()
    except (AttributeError, OSError):  # no sessions here
        return
    if leads_its_session:
        lower_group_priority(os.getpid(), nice)


def idle_scheduling(pid: int) -> None:
    """Put process ``pid`` (the engine; 0: the calling thread) in Linux's idle scheduling
    class; elsewhere, or where it is refused, leave it as it is."""
    try:
        os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        return


def lower_group_priority(pid: int, nice: int) -> None:
    """Lower the priority of process ``pid``'s scheduling group (Linux's autogroup: its
    session) to ``nice``, never raising it; nothing where there are no autogroups."""
    path = Path(f"/proc/{pid}/autogroup")
    try:
        current = int(path.read_text().split("nice")[1])
        if nice > current:
            path.write_text(f"{min(19, nice)}\n")
    except (OSError, IndexError, ValueError):  # not Linux, autogroups off, or refused
        return


def find_engine(path: str | None = None) -> str | None:
    """The engine binary: ``path`` if given (None if it is not an executable), else
    ``$CANDIDATES_ENGINE``, ``stockfish`` on ``PATH``, ``/usr/games/stockfish``."""
    if path:
        return path if _executable(path) else None
    chosen = os.environ.get(ENGINE_ENV)
    if chosen:
        return chosen if _executable(chosen) else None
    found = shutil.which("stockfish")
    if found:
        return found
    return DEBIAN_PATH if _executable(DEBIAN_PATH) else None


def _executable(path: str) -> bool:
    target = Path(path)
    return target.is_file() and os.access(target, os.X_OK)


class Analyst:
    """One engine process: ``evaluate(board)`` within the budget."""

    def __init__(self, path: str, budget: Budget) -> None:
        self.budget = budget
        nice = budget.nice

        def lower_priority() -> None:
            lower_priority_of_this_thread(nice)

        self.engine = chess.engine.SimpleEngine.popen_uci(
            path, preexec_fn=lower_priority, timeout=START_S, start_new_session=True
        )
        options: dict[str, chess.engine.ConfigValue] = {}
        if "Threads" in self.engine.options:
            options["Threads"] = budget.threads
        if "Hash" in self.engine.options:
            options["Hash"] = budget.hash_mb
        if "UCI_ShowWDL" in self.engine.options:
            options["UCI_ShowWDL"] = True
        self.engine.configure(options)
        self.name = str(self.engine.id.get("name", path))
        # started and configured at the normal class (a start starved by a busy machine
        # would be taken for a broken engine); from now on, only on a core nothing wants
        transport = self.engine.protocol.transport
        if transport is not None:
            pid = transport.get_pid()
            lower_group_priority(pid, PROCESS_NICE if budget.idle else nice)
            if budget.idle:
                idle_scheduling(pid)
        self.engine.timeout = ANSWER_S

    def evaluate(self, board: chess.Board, ply: int, at_ms: int = 0) -> Evaluation:
        """The evaluation (White's view) of the position after ``ply`` plies of a game,
        its best line and the search's depth."""
        info = self.engine.analyse(board, self.budget.limit())
        score = info.get("score")
        white = score.white() if score is not None else chess.engine.Cp(0)
        mate = white.mate()
        cp = None if mate is not None else white.score()
        given = info.get("wdl")
        wdl = given.white() if given is not None else white.wdl(model="sf", ply=board.ply())
        pv = list(info.get("pv", []))[: self.budget.pv_moves]
        line = board.copy()
        sans: list[str] = []
        for move in pv:
            if not line.is_legal(move):
                break
            sans.append(line.san(move))
            line.push(move)
        return Evaluation(
            ply=ply,
            fen=board.fen(),
            cp=cp,
            mate=mate,
            wdl=(int(wdl.wins), int(wdl.draws), int(wdl.losses)),
            pv=tuple(m.uci() for m in pv[: len(sans)]),
            pv_san=tuple(sans),
            depth=int(info.get("depth", 0)),
            nodes=int(info.get("nodes", 0)),
            at_ms=at_ms,
        )

    def close(self) -> None:
        try:
            self.engine.quit()
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError):
            self.engine.close()

    def __enter__(self) -> Analyst:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
