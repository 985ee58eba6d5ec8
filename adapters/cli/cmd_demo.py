"""``candidates demo``: the whole 2013 Candidates replayed live, on the web page and here.

Loads the bundled sample (``replay_logs/candidates-2013.msgpack``, shipped with
the project; ``python replay_logs/build_sample.py`` rebuilds it from the real
game scores with the builder in ``tools/sample.py``) into a fresh SQLite store and replays it
through the gateway at a speed that shows a round in about a minute, with a
progress bar over the rounds (one line, which messages print above); when the
replay reaches the end of the log it prints the final standings and the
tie-break that decided first place (and goes on serving the page unless
``--once``). Once the page can be opened it prints the URL of every side: the public
page, the commentators' (a token made for this run), the arbiters' desk (the Chief
Arbiter's token, made for this run) and the hall display (``adapters.cli.demo_access``).
A store another demo or another process is serving is refused, never replaced.
Ctrl-C stops it cleanly and prints the standings so far.
``--once`` runs to the end by itself and exits (``--speed max`` for no waiting).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from adapters.analysis.service import run_in_thread
from adapters.analysis.table import FILE_SUFFIX as ANALYSES_SUFFIX
from adapters.analysis.uci import Budget, find_engine
from adapters.cli.cmd_replay import gateway_entry, serve_replay
from adapters.cli.demo_access import access_lines, demo_tokens, hold_store
from adapters.formats.replay import Pace, parse_speed, replay, round_of
from adapters.formats.replay_log import Log, LogError, Record, read_log
from adapters.store import Store, open_store, queries
from adapters.store.sqlite_files import beside, remove_database
from engine.errors import CommandRefused
from engine.events import ResultRecorded
from engine.game.state import FINISHED

ROUND_SECONDS = 60.0
SAMPLE_LOG = Path(__file__).resolve().parents[2] / "replay_logs" / "candidates-2013.msgpack"
"""The bundled sample: the 2013 Candidates as a replay log (built by ``tools/sample.py``)."""


def register(sub: Any) -> None:
    demo = sub.add_parser(
        "demo",
        help="replay the whole 2013 Candidates live (web page and terminal)",
        description="Replay the bundled 2013 Candidates sample into a fresh store, served on "
        "the web page, a round in about a minute; Ctrl-C stops.",
    )
    demo.add_argument("--once", action="store_true", help="run to the end, then exit")
    demo.add_argument("--speed", default=None, help="times real time, or 'max'")
    demo.add_argument(
        "--round-seconds",
        type=float,
        default=ROUND_SECONDS,
        help="wall seconds a round should take when --speed is not given (default 60)",
    )
    demo.add_argument("--log", default=str(SAMPLE_LOG), help="the replay log to show")
    demo.add_argument("--demo-store", default="./var/demo.sqlite", help="the store to (re)create")
    demo.add_argument("--host", default="127.0.0.1")
    demo.add_argument("--port", type=int, default=None, help="default 8765 (any free with --once)")
    demo.add_argument("--no-serve", action="store_true", help="terminal only, no web page")
    demo.set_defaults(func=run)


def load_sample(path: Path) -> Log:
    """The replay log to show; a missing one is refused in one line (the bundled sample
    is rebuilt by ``python replay_logs/build_sample.py``, not by the demo)."""
    if not path.exists():
        hint = " (rebuild it: python replay_logs/build_sample.py)" if path == SAMPLE_LOG else ""
        raise LogError(f"no replay log at {str(path)!r}{hint}")
    return read_log(path)


def demo_speed(log: Log, round_seconds: float) -> float:
    """The speed that makes the median round last ``round_seconds``."""
    spans: dict[int, list[int]] = {}
    for record in log.records:
        round_no = round_of(record)
        if round_no is not None:
            spans.setdefault(round_no, []).append(record.at_ms)
    if not spans:
        return 60.0
    median_ms = statistics.median(max(v) - min(v) for v in spans.values())
    return max(1.0, median_ms / 1000 / max(round_seconds, 0.1))


class RoundProgress:
    """A progress bar over the rounds, from the results as they are appended."""

    def __init__(self, log: Log, out: Any = None) -> None:
        self.out = out or sys.stdout
        self.tty = bool(getattr(self.out, "isatty", lambda: False)())
        self.games_in_round: dict[int, set[str]] = {}
        for record in log.records:
            round_no = round_of(record)
            if round_no is not None and record.stream.startswith("game/"):
                self.games_in_round.setdefault(round_no, set()).add(record.stream)
        self.rounds = max(self.games_in_round, default=0)
        self.total = len(log.records)
        self.done = 0
        self.finished: set[str] = set()
        self.shown = -1
        self.drawn_at = 0.0
        self.bar = ""

    def completed_rounds(self) -> int:
        count = 0
        for round_no in sorted(self.games_in_round):
            if self.games_in_round[round_no] <= self.finished:
                count = round_no
            else:
                break
        return count

    def __call__(self, store: Store, batch: list[Record]) -> None:
        self.done += len(batch)
        for record in batch:
            if record.type == ResultRecorded.__name__:
                self.finished.add(record.stream)
        completed = self.completed_rounds()
        now = time.monotonic()
        if self.tty and (now - self.drawn_at >= 0.1 or self.done == self.total):
            self.drawn_at = now
            width = 28
            filled = round(width * completed / max(1, self.rounds))
            bar = "#" * filled + "." * (width - filled)
            self.bar = (
                f"Rounds [{bar}] {completed:>2}/{self.rounds}  games {len(self.finished):>2}/"
                f"{sum(len(g) for g in self.games_in_round.values())}  "
                f"events {self.done}/{self.total}"
            )
            self.out.write(f"\r{CLEAR_LINE}{self.bar}")
            self.out.flush()
        elif not self.tty and completed > self.shown:
            self.start()
            for round_no in range(self.shown + 1, completed + 1):  # every round, in order
                self.out.write(f"Round {round_no}/{self.rounds} complete ({self.done} events)\n")
            self.shown = completed
            self.out.flush()

    def start(self) -> None:
        """Off a terminal, the first line (once): ``Round 0/N`` before any event is replayed,
        so a log shows the replay began and how many rounds it has."""
        if not self.tty and self.shown < 0:
            self.shown = 0
            self.out.write(f"Round 0/{self.rounds} (the replay starts: {self.total} events)\n")
            self.out.flush()

    def message(self, text: str) -> None:
        """Print a line above the bar: the bar is cleared, the line printed, the bar redrawn."""
        if self.tty and self.bar:
            self.out.write(f"\r{CLEAR_LINE}{text}\n{self.bar}")
        else:
            self.out.write(f"{text}\n")
        self.out.flush()

    def close(self) -> None:
        """Leave the bar's line (once): what follows starts on a line of its own."""
        if self.tty and self.bar:
            self.out.write("\n")
            self.out.flush()
        self.bar = ""


CLEAR_LINE = "\x1b[K"
"""ANSI: erase to the end of the line (the bar is redrawn in place)."""


def run(args: argparse.Namespace) -> int:
    log = load_sample(Path(args.log))
    with hold_store(Path(args.demo_store)):  # never replace a store another process serves
        return _run(args, log)


def _run(args: argparse.Namespace, log: Log) -> int:
    speed = parse_speed(args.speed) if args.speed else demo_speed(log, args.round_seconds)
    path = Path(args.demo_store)
    remove_database(path)
    remove_database(beside(path, ANALYSES_SUFFIX))  # an earlier demo's evaluations go with it
    name = log.header.get("name") or log.tournament or "the log"
    print(f"{name}: {len(log.records)} events, replayed into {path}")
    if speed is not None:
        print(f"Speed x{speed:.0f}: a round in about {args.round_seconds:.0f} s")
    progress = RoundProgress(log)
    progress.start()
    serve = not args.no_serve
    if serve:
        try:
            gateway_entry()
        except CommandRefused as refused:
            print(f"(no web page: {refused.message})")
            serve = False
    analysis_stop = threading.Event()
    with open_store(str(path)) as store:
        if serve:  # the store is there: the analysis follows it as it fills
            start_analysis(str(path), analysis_stop)
        reported: list[bool] = []

        def at_the_end() -> None:
            progress.close()
            print(final_report(store), flush=True)
            reported.append(True)

        tokens, commentator, arbiter = demo_tokens()

        def every_side(base: str) -> None:
            for line in access_lines(base, commentator, arbiter):
                progress.message(line)

        try:
            if serve:
                port = args.port if args.port is not None else (0 if args.once else 8765)
                serve_replay(
                    store,
                    log.records,
                    Pace(speed),
                    args.host,
                    port,
                    keep_serving=not args.once,
                    progress=progress,
                    announce=progress.message,
                    on_end=at_the_end,
                    tokens=tokens,
                    on_serving=every_side,
                )
            else:
                replay(store, log.records, Pace(speed), progress)
                at_the_end()
        except KeyboardInterrupt:
            progress.close()
            print("Stopped.")
            if not reported:  # the standings so far
                print(final_report(store), flush=True)
        finally:
            progress.close()
            analysis_stop.set()
    return 0


DEMO_BUDGET = Budget(nodes=150_000, movetime_ms=300, duty=1.0)
"""The demo replays a round a minute: a light budget, searching all the time (no rest), so
most positions get their turn; the page marks an evaluation of an older position."""


def start_analysis(store: str, stop: threading.Event) -> None:
    """The engine's analysis beside the replay (evaluation bars on the page), when Stockfish
    is installed; else a line saying how to get it."""
    path = find_engine()
    if path is None:
        print("(no engine analysis: Stockfish is not installed; `make stockfish` installs it)")
        return
    print(f"Engine analysis: {path} ({DEMO_BUDGET.describe()})")
    run_in_thread(store, DEMO_BUDGET, stop, path)


def final_report(store: Store) -> str:
    """The standings (final, or so far) and the tie-break that decides first place."""
    table = queries.standings_object(store.reads) if store.reads.tournament() else None
    if table is not None and table["rows"]:
        label = "Final standings" if table["final"] else "Standings so far"
        lines = [f"{label} after round {table['after_round']}:"]
        for row in table["rows"]:
            lines.append(
                f"  {row['rank']!s:>2}. {_name(store, row['player']):<22} "
                f"{_points(row['points']):>5}  wins {row['wins']}  "
                f"h2h {_points(row['h2h'])}  SB {_points(row['sb'])}"
            )
        winner = table["winner"] or table["leader"]
        if winner is not None:
            label = "First place" if table["winner"] else "Leader"
            by = winner["decided_by"]
            lines.append(
                f"{label}: {_name(store, winner['player'])}, decided by "
                f"{DECIDED_BY.get(str(by), by)}"
            )
        return "\n".join(lines)
    return points_only(store)


DECIDED_BY = {
    "points": "points (3.6.1)",
    "h2h": "the games between the tied players (3.7 a)",
    "wins": "the number of wins (3.7 b)",
    "sb": "Sonneborn-Berger (3.7 c)",
    "playoff": "the playoff (3.7.1-3.7.3)",
}


def points_only(store: Store) -> str:
    """Points from the results, for a log whose games belong to no tournament."""
    points: dict[str, Fraction] = {}
    tournament = store.reads.tournament()
    for entrant in tournament.players if tournament else ():
        points[entrant.id] = Fraction(0)
    value = {"1-0": (Fraction(1), Fraction(0)), "0-1": (Fraction(0), Fraction(1))}
    for game_id in store.reads.game_ids():
        game = store.reads.game(game_id)
        if game is None or game.status != FINISHED:
            continue
        white, black = value.get(game.result, (Fraction(1, 2), Fraction(1, 2)))
        points[game.white] = points.get(game.white, Fraction(0)) + white
        points[game.black] = points.get(game.black, Fraction(0)) + black
    lines = ["Final points (3.6.1; no tournament in this log, so no tie-breaks):"]
    for rank, (player, score) in enumerate(sorted(points.items(), key=lambda kv: -kv[1]), 1):
        lines.append(f"  {rank:>2}. {_name(store, player):<22} {_points(score):>5}")
    return "\n".join(lines)


def _name(store: Store, player_id: Any) -> str:
    tournament = store.reads.tournament()
    player = tournament.player(str(player_id)) if tournament else None
    return player.name if player else str(player_id)


def _points(value: Any) -> str:
    if value is None:
        return "-"
    try:
        number = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        return str(value)
    whole, half = divmod(number * 2, 2)
    text = f"{int(whole)}" if half == 0 else f"{int(whole)}½" if whole else "½"
    return text if number.denominator in (1, 2) else f"{float(number):.2f}"
