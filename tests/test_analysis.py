"""The engine's analysis (docs/analysis.md): Stockfish within a small node budget, the
evaluations kept beside the store (never events), a restart that repeats nothing.

Real parts: Stockfish through python-chess ``chess.engine`` (skipped, with the reason,
where it is not installed: ``make stockfish``), the store on SQLite and PostgreSQL,
``candidates analyse`` as a process of its own killed with SIGKILL.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
import chess.pgn
import pytest

from adapters.analysis.service import Analyser, line_positions
from adapters.analysis.table import analysis_table
from adapters.analysis.uci import Analyst, Budget, find_engine
from adapters.store import Store
from engine.events import game_stream
from engine.game.state import position_fen
from projections.evaluation import Evaluation, eval_text, swing
from projections.pgn import game_pgn
from tests.helpers import ok, paired_tournament

ENGINE = find_engine()
needs_engine = pytest.mark.skipif(
    ENGINE is None, reason="Stockfish is not installed (make stockfish)"
)
SMALL = Budget(nodes=20_000, movetime_ms=None, nice=0, idle=False, duty=1.0)
"""A small node budget: the same answer on a slow or a fast machine. Not in the idle class:
on a machine kept busy (the rest of the suite) an idle engine would get no time at all."""
ROOT = Path(__file__).resolve().parents[1]
AUTOGROUP = Path("/proc/self/autogroup")
"""Linux's scheduling groups by session (absent where autogroups are off)."""


def play(store: Store, game: str, sans: list[str], start_s: int = 0) -> None:
    ok(store, {"cmd": "start_game", "game": game, "at": _at(start_s)})
    for i, san in enumerate(sans, start=1):
        ok(store, {"cmd": "play_move", "game": game, "move": san, "at": _at(start_s + i * 30)})


def _at(seconds: int) -> str:
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"2013-03-15T{14 + hours:02d}:{minutes:02d}:{secs:02d}.000Z"


@needs_engine
class TestTheEngineWithinABudget:
    def test_a_mate_in_one_is_a_mate_score(self) -> None:
        assert ENGINE is not None
        board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")  # Ra8#
        with Analyst(ENGINE, SMALL) as analyst:
            found = analyst.evaluate(board, 0)
        assert (found.mate, found.cp) == (1, None)
        assert found.pv_san[0] == "Ra8#"
        assert found.wdl == (1000, 0, 0)
        assert eval_text(found.cp, found.mate) == "#1"

    def test_black_mating_is_a_negative_mate_from_whites_view(self) -> None:
        assert ENGINE is not None
        board = chess.Board()
        for san in ("f3", "e5", "g4"):
            board.push_san(san)
        with Analyst(ENGINE, SMALL) as analyst:
            found = analyst.evaluate(board, 3)
        assert found.mate == -1 and found.pv_san == ("Qh4#",)
        assert eval_text(found.cp, found.mate) == "#-1"
        assert found.ply == 3 and found.fen == board.fen()

    @pytest.mark.skipif(
        not hasattr(os, "SCHED_IDLE"), reason="the idle scheduling class is Linux's"
    )
    def test_the_engine_runs_only_on_a_core_nothing_else_wants(self) -> None:
        """docs/analysis.md, the budget: the engine is in the idle class by default (a
        busy core goes to the write path and the viewers first), in the normal one when
        told (``--no-idle``); always in a session of its own, whose scheduling group
        (Linux's autogroup) is at the lowest priority with the idle class, at the
        budget's ``nice`` without it."""
        assert ENGINE is not None
        for idle, policy, group_nice in ((True, os.SCHED_IDLE, 19), (False, os.SCHED_OTHER, 3)):
            budget = Budget(nodes=1_000, movetime_ms=None, nice=3, idle=idle, duty=1.0)
            with Analyst(ENGINE, budget) as analyst:
                analyst.evaluate(chess.Board(), 0)
                transport = analyst.engine.protocol.transport
                assert transport is not None
                pid = transport.get_pid()
                assert os.sched_getscheduler(pid) == policy
                assert os.getsid(pid) == pid
                if AUTOGROUP.exists():
                    said = Path(f"/proc/{pid}/autogroup").read_text()
                    assert said.split()[-1] == str(group_nice)

    @pytest.mark.skipif(
        not hasattr(os, "SCHED_IDLE"), reason="the idle scheduling class is Linux's"
    )
    def test_the_analysis_process_runs_below_the_moves(self) -> None:
        """``candidates analyse`` holds no lock of the store: the whole process runs at
        the lowest priority (not the idle class, where it could not even stop on a busy
        machine), and its group too when it leads its own session."""
        probe = (
            "import os; from adapters.analysis.uci import Budget, lower_this_process; "
            "lower_this_process(Budget()); "
            "print(os.sched_getscheduler(0) == os.SCHED_OTHER, os.getpriority(os.PRIO_PROCESS, 0));"
            "print(open('/proc/self/autogroup').read() if os.path.exists('/proc/self/autogroup')"
            " else 'nice 19')"
        )
        said = subprocess.run(
            [sys.executable, "-c", probe],
            cwd=ROOT,
            capture_output=True,
            text=True,
            start_new_session=True,
            check=True,
        ).stdout.split()
        assert said == ["True", "19", *said[2:-1], "19"]

    def test_the_budget_bounds_the_search(self) -> None:
        assert ENGINE is not None
        with Analyst(ENGINE, SMALL) as analyst:
            found = analyst.evaluate(chess.Board(), 0)
        assert found.mate is None and found.cp is not None
        assert 0 < found.nodes <= SMALL.nodes * 1.1  # the engine stops near its node bound
        assert sum(found.wdl) == 1000 and 0 < len(found.pv) <= SMALL.pv_moves


class TestWhatAnEvaluationMeans:
    def test_eval_text_is_the_form_broadcasts_read(self) -> None:
        assert eval_text(35, None) == "0.35"
        assert eval_text(-120, None) == "-1.20"
        assert eval_text(None, -3) == "#-3"

    def test_a_drop_of_ten_points_of_expected_score_is_a_mistake_twenty_a_blunder(self) -> None:
        fen_w = chess.Board().fen()
        board = chess.Board()
        board.push_san("e4")

        def ev(ply: int, fen: str, wdl: tuple[int, int, int]) -> Evaluation:
            return Evaluation(ply, fen, 0, None, wdl, (), (), 10, 1000)

        before = ev(0, fen_w, (300, 600, 100))  # White expects 0.60
        assert swing(before, ev(1, board.fen(), (250, 600, 150))) is None  # 0.55
        assert swing(before, ev(1, board.fen(), (200, 600, 200)))["kind"] == "mistake"  # 0.50
        found = swing(before, ev(1, board.fen(), (100, 500, 400)))  # 0.35
        assert found == {"kind": "blunder", "side": "white", "drop": 0.25}


class TestPositionsOfALine:
    def test_each_position_is_dated_by_the_move_that_made_it(self, sqlite_store: Store) -> None:
        paired_tournament(sqlite_store)
        play(sqlite_store, "1.1", ["e4", "e5", "Nf3"])
        state, positions = line_positions(
            "london-2013", "1.1", sqlite_store.cache.stream(game_stream("1.1"))
        )
        assert state is not None and [p.ply for p in positions] == [0, 1, 2, 3]
        game = sqlite_store.reads.game("1.1")
        assert game is not None and positions[-1].fen == position_fen(game)
        instants = [p.at_ms for p in positions]
        assert instants == sorted(instants) and len(set(instants)) == 4
        assert positions[3].board().fen() == positions[3].fen


def analyse_cli(
    store: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``candidates --store STORE analyse ARGS``, to its end."""
    return subprocess.run(
        [sys.executable, "-m", "adapters.cli", "--store", store, "analyse", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _rows(url: str) -> list:
    with Store(url) as store:
        table = analysis_table(store)
        try:
            return table.since(0)
        finally:
            table.close()


@needs_engine
class TestKeptBesideTheStore:
    def test_every_position_of_a_game_in_progress_is_evaluated_and_no_event_appended(
        self, store_url: str
    ) -> None:
        with Store(store_url) as store:
            paired_tournament(store)
            play(store, "1.1", ["e4", "e5", "Nf3", "Nc6"])
            events_before = store.cache.count()
        analyser = Analyser(store_url, SMALL, ENGINE, until_idle=True)
        assert analyser.run(threading.Event())
        rows = _rows(store_url)
        assert sorted(r.evaluation.ply for r in rows) == [0, 1, 2, 3, 4]
        assert {r.game for r in rows} == {"1.1"} and {r.tournament for r in rows} == {"london-2013"}
        with Store(store_url) as store:
            assert store.cache.count() == events_before  # derived data: never an event
        again = Analyser(store_url, SMALL, ENGINE, until_idle=True)
        again.run(threading.Event())
        assert again.counters.analysed == 0  # nothing is evaluated twice
        assert len(_rows(store_url)) == 5

    def test_falling_behind_the_newest_position_of_each_game_goes_first(
        self, sqlite_store: Store
    ) -> None:
        paired_tournament(sqlite_store)
        play(sqlite_store, "1.1", ["d4", "d5", "c4"])
        play(sqlite_store, "1.2", ["e4", "c5"])
        order: list[tuple[str, int]] = []
        analyser = Analyser(
            sqlite_store.url,
            SMALL,
            ENGINE,
            until_idle=True,
            on_analysed=lambda p, _: order.append((p.game, p.ply)),
        )
        analyser.run(threading.Event())
        # each game's newest position first, then the skipped ones, the newest first
        assert set(order[:2]) == {("1.1", 3), ("1.2", 2)}
        assert len(order) == 4 + 3
        assert order[2:] == sorted(order[2:], key=lambda gp: -_when(sqlite_store, *gp))

    def test_a_finished_game_is_left_alone_unless_every_game_is_asked_for(
        self, sqlite_store: Store
    ) -> None:
        paired_tournament(sqlite_store)
        play(sqlite_store, "1.1", ["f3", "e5", "g4", "Qh4#"])  # mate: the game is over
        analyser = Analyser(sqlite_store.url, SMALL, ENGINE, until_idle=True)
        analyser.run(threading.Event())
        assert analyser.counters.analysed == 0
        every = Analyser(sqlite_store.url, SMALL, ENGINE, until_idle=True, every_game=True)
        every.run(threading.Event())
        # every position but the mate itself (nothing to search)
        assert sorted(r.evaluation.ply for r in _rows(sqlite_store.url)) == [0, 1, 2, 3]


def _when(store: Store, game: str, ply: int) -> int:
    _, positions = line_positions("london-2013", game, store.cache.stream(game_stream(game)))
    return positions[ply].at_ms


@needs_engine
class TestKilledAndRestarted:
    def test_sigkill_then_a_restart_repeats_no_finished_position(self, tmp_path: Path) -> None:
        url = str(tmp_path / "store.sqlite")
        with Store(url) as store:
            paired_tournament(store)
            moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"] * 1
            for board in (1, 2, 3):
                play(store, f"1.{board}", moves)
        # a budget of a quarter second a position: the first run is killed part way
        command = [
            sys.executable,
            "-m",
            "adapters.cli",
            "--store",
            url,
            "analyse",
            "--nodes",
            "0",
            "--movetime",
            "250",
            "--nice",
            "0",
            "--no-idle",
            "-v",
        ]
        first = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 60
        while len(_rows(url)) < 6 and time.monotonic() < deadline:
            time.sleep(0.1)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        killed_with = {(r.game, r.evaluation.ply) for r in _rows(url)}
        assert 6 <= len(killed_with) < 33, "killed part way"
        second = subprocess.run(
            [*command, "--until-idle"], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert second.returncode == 0, second.stderr
        summary = json.loads(second.stdout.strip().splitlines()[-1])
        redone = [
            line
            for line in second.stderr.splitlines()
            if any(f"/{g} ply {p}:" in line for g, p in killed_with)
        ]
        assert redone == []  # no finished position evaluated again
        rows = _rows(url)
        assert {(r.game, r.evaluation.ply) for r in rows} == {
            (f"1.{b}", p) for b in (1, 2, 3) for p in range(11)
        }
        assert len(rows) == 33  # each position once
        assert summary["analysed"] == 33 - len(killed_with)


class TestWithoutAnEngine:
    def test_it_says_so_once_and_exits_cleanly(self, sqlite_store: Store) -> None:
        paired_tournament(sqlite_store)
        env = {**os.environ, "CANDIDATES_ENGINE": "/nonexistent/stockfish"}
        done = analyse_cli(sqlite_store.url, env=env)
        assert done.returncode == 0
        assert done.stderr.count("no UCI engine found") == 1
        assert "Traceback" not in done.stderr
        assert json.loads(done.stdout)["engine"] is False

    def test_a_binary_that_is_not_an_engine_is_said_in_one_line(
        self, sqlite_store: Store, tmp_path: Path
    ) -> None:
        """docs/analysis.md: without a working engine everything else works; the engine
        that would not start is named once, never with a traceback."""
        paired_tournament(sqlite_store)
        fake = tmp_path / "not-an-engine"
        fake.write_text("#!/bin/sh\necho hello\n")
        fake.chmod(0o755)
        done = analyse_cli(sqlite_store.url, env={**os.environ, "CANDIDATES_ENGINE": str(fake)})
        assert done.returncode == 0, done.stderr
        assert done.stderr.count("could not be started") == 1, done.stderr
        assert "Traceback" not in done.stderr
        assert json.loads(done.stdout)["engine"] is False


@needs_engine
class TestAnEngineThatDies:
    def test_it_is_started_again_and_the_analysis_goes_on(self, store_url: str) -> None:
        """An engine killed mid-game (or starved past its answer time) is started again;
        every position is still evaluated once."""
        with Store(store_url) as store:
            paired_tournament(store)
            play(store, "1.1", ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"])
        analyser = Analyser(
            store_url, Budget(nodes=400_000, movetime_ms=None, nice=0, idle=False, duty=1.0)
        )
        stop = threading.Event()
        thread = threading.Thread(target=analyser.run, args=(stop,), daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + 120
            while not _rows(store_url) and time.monotonic() < deadline:
                time.sleep(0.05)  # the engine up and at work: it is killed between positions
            engines = _engine_children(timeout_s=10)
            assert engines and len(_rows(store_url)) < 7
            os.kill(engines[0], signal.SIGKILL)
            deadline = time.monotonic() + 120
            while len(_rows(store_url)) < 7 and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            stop.set()
            thread.join(60)
        rows = _rows(store_url)
        assert sorted(r.evaluation.ply for r in rows) == list(range(7))
        assert analyser.counters.failures >= 1


def _engine_children(timeout_s: float) -> list[int]:
    """The engine processes this process started (their command names say so)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            name = stat[stat.index("(") + 1 : stat.rindex(")")]
            parent = int(stat[stat.rindex(")") + 2 :].split()[1])
            if parent == os.getpid() and "stockfish" in name:
                found.append(int(entry.name))
        if found:
            return found
        time.sleep(0.05)
    return []


class TestEvalInThePgnWriter:
    def test_eval_after_each_move_in_the_form_broadcasts_read(self, sqlite_store: Store) -> None:
        paired_tournament(sqlite_store)
        play(sqlite_store, "1.1", ["f3", "e5", "g4"])
        game = sqlite_store.reads.game("1.1")
        assert game is not None
        text = game_pgn(
            game, sqlite_store.reads.tournament(), evals={1: (-35, None), 3: (None, -1)}
        )
        assert "[%eval -0.35]" in text and "[%eval #-1]" in text
        parsed = chess.pgn.read_game(io.StringIO(text))
        assert parsed is not None
        scores = [node.eval() for node in parsed.mainline()]
        assert scores[0] is not None and scores[0].white().score() == -35
        assert scores[1] is None
        assert scores[2] is not None and scores[2].white().mate() == -1


class TestTheCommandLine:
    def test_a_budget_out_of_range_is_refused_clearly(self, sqlite_store: Store) -> None:
        for flags, words in (
            (["--threads", "0"], "--threads must be 1 or more"),
            (["--nodes", "0", "--movetime", "0"], "give --nodes or --movetime"),
            (["--nice", "25"], "--nice must be between 0 and 19"),
        ):
            done = analyse_cli(sqlite_store.url, *flags)
            assert done.returncode == 2 and words in done.stderr, done.stderr
            assert "Traceback" not in done.stderr

    def test_a_store_that_is_not_there_is_refused_and_nothing_is_created(
        self, tmp_path: Path
    ) -> None:
        missing = tmp_path / "nowhere.sqlite"
        done = analyse_cli(str(missing))
        assert done.returncode != 0 and "no store at" in done.stderr
        assert "Traceback" not in done.stderr and not missing.exists()

    @needs_engine
    def test_drop_removes_every_evaluation_to_be_rebuilt(self, sqlite_store: Store) -> None:
        paired_tournament(sqlite_store)
        play(sqlite_store, "1.1", ["e4"])
        Analyser(sqlite_store.url, SMALL, ENGINE, until_idle=True).run(threading.Event())
        assert len(_rows(sqlite_store.url)) == 2
        done = analyse_cli(sqlite_store.url, "--drop")
        assert done.returncode == 0 and json.loads(done.stdout) == {"dropped": 2}
        assert _rows(sqlite_store.url) == []
        again = Analyser(sqlite_store.url, SMALL, ENGINE, until_idle=True)
        again.run(threading.Event())
        assert again.counters.analysed == 2  # rebuilt


class TestTheQueue:
    def test_a_game_keeps_its_place_when_its_waiting_position_is_replaced(
        self, sqlite_store: Store
    ) -> None:
        paired_tournament(sqlite_store)
        play(sqlite_store, "1.1", ["e4"])
        play(sqlite_store, "1.2", ["d4"])
        analyser = Analyser(sqlite_store.url, SMALL, ENGINE)
        with Store(sqlite_store.url) as store:
            analyser._store, analyser._table = store, analysis_table(store)
            analyser._read(rescan=analyser._all_games())
            first, second = ("london-2013", "1.1"), ("london-2013", "1.2")
            assert list(analyser.waiting) == [first, second]
            ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": "e5", "at": _at(120)})
            analyser._read()
            # 1.1's newest position replaced its waiting one, in the same place in the queue
            assert list(analyser.waiting) == [first, second]
            assert analyser.waiting[first].ply == 2 and analyser.counters.skipped == 1
            assert ("london-2013", "1.1", 1) in {k[:3] for k in analyser.backlog}

    def test_7_4_a_a_corrected_line_has_positions_of_its_own(self, sqlite_store: Store) -> None:
        paired_tournament(sqlite_store)
        play(sqlite_store, "1.1", ["e4", "e5", "Nf3"])
        _, before = line_positions(
            "london-2013", "1.1", sqlite_store.cache.stream(game_stream("1.1"))
        )
        correction = {
            "cmd": "correct_moves",
            "game": "1.1",
            "arbiter": "chief",
            "reason": "the score sheets show 2. Nc3",
            "at": _at(200),
            "from_ply": 2,
            "moves": ["Nc3"],
        }
        ok(sqlite_store, correction)
        _, after = line_positions(
            "london-2013", "1.1", sqlite_store.cache.stream(game_stream("1.1"))
        )
        assert [p.fen for p in after[:3]] == [p.fen for p in before[:3]]
        assert after[3].fen != before[3].fen and after[3].moves[-1] == "b1c3"
        assert after[3].at_ms > before[3].at_ms  # dated by the correction
