"""``candidates analyse``: the engine's analysis of the games, a process of its own.

It follows the store (``--store``, as every command) and evaluates each new
position of every game in progress with a UCI engine (Stockfish) within a
budget (``--threads``, ``--hash``, ``--nodes``, ``--movetime``), writing the
evaluations beside the store, never into its log (docs/analysis.md). In a real
hall it runs on a machine of its own against the PostgreSQL store; ``candidates
serve --analysis`` runs the same service in the gateway's process for one
laptop. Every gateway of the store serves what it writes (the ``analysis``
frames, ``[%eval]`` in the PGN). Without an engine it says so once and exits 0:
everything else works without analysis.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from typing import Any

from adapters.analysis.service import Analyser
from adapters.analysis.table import analysis_table
from adapters.analysis.uci import Budget, lower_this_process
from adapters.cli.common import add_store_option, print_json, store_of
from adapters.store import store_url

DEFAULTS = Budget()


def add_budget_options(parser: argparse.ArgumentParser) -> None:
    """The engine and its budget (shared with ``serve --analysis``)."""
    parser.add_argument(
        "--engine",
        metavar="PATH",
        help="the UCI engine (default: $CANDIDATES_ENGINE, stockfish on PATH, "
        "/usr/games/stockfish)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=DEFAULTS.threads,
        help=f"engine threads (default {DEFAULTS.threads})",
    )
    parser.add_argument(
        "--hash",
        type=int,
        default=DEFAULTS.hash_mb,
        metavar="MB",
        help=f"engine hash (default {DEFAULTS.hash_mb})",
    )
    parser.add_argument(
        "--nodes",
        type=int,
        default=DEFAULTS.nodes,
        help=f"nodes per position (default {DEFAULTS.nodes}; 0: no bound)",
    )
    parser.add_argument(
        "--movetime",
        type=int,
        default=DEFAULTS.movetime_ms,
        metavar="MS",
        help=f"time per position, ms (default {DEFAULTS.movetime_ms}; 0: no bound)",
    )
    parser.add_argument(
        "--pv-moves",
        type=int,
        default=DEFAULTS.pv_moves,
        help=f"moves of the best line kept (default {DEFAULTS.pv_moves})",
    )
    parser.add_argument(
        "--nice",
        type=int,
        default=DEFAULTS.nice,
        help="the engine's CPU priority below the rest (with --no-idle, candidates "
        f"analyse's too), 0-19 (default {DEFAULTS.nice})",
    )
    parser.add_argument(
        "--idle",
        action=argparse.BooleanOptionalAction,
        default=DEFAULTS.idle,
        help="on Linux, run the engine only on a core nothing else wants (SCHED_IDLE, in "
        "a session of its own at the lowest priority; candidates analyse at nice 19; "
        f"default {'on' if DEFAULTS.idle else 'off'})",
    )
    add_duty_option(parser)


def add_duty_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--duty",
        type=float,
        default=DEFAULTS.duty,
        metavar="SHARE",
        help="the share of the time the engine may search, over 0 up to 1: it rests "
        f"between searches for the rest (default {DEFAULTS.duty})",
    )


def budget_of(args: argparse.Namespace) -> Budget:
    """The budget the flags give; ValueError naming a flag out of range."""
    if args.threads < 1:
        raise ValueError("--threads must be 1 or more")
    if args.hash < 1:
        raise ValueError("--hash must be 1 MiB or more")
    if args.nodes < 0 or args.movetime < 0:
        raise ValueError("--nodes and --movetime must be 0 (no bound) or more")
    if not args.nodes and not args.movetime:
        raise ValueError("give --nodes or --movetime (a search needs one bound)")
    if args.pv_moves < 1:
        raise ValueError("--pv-moves must be 1 or more")
    if not 0 <= args.nice <= 19:
        raise ValueError("--nice must be between 0 and 19")
    if not 0 < args.duty <= 1:
        raise ValueError("--duty must be over 0 and at most 1 (1: no rest)")
    return Budget(
        threads=args.threads,
        hash_mb=args.hash,
        nodes=args.nodes or None,
        movetime_ms=args.movetime or None,
        pv_moves=args.pv_moves,
        nice=args.nice,
        idle=args.idle,
        duty=args.duty,
    )


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "analyse",
        help="evaluate the games in progress with a UCI engine (Stockfish), beside the store",
        description="Follow the store and evaluate each new position of every game in "
        "progress within a budget; the evaluations are kept beside the store, never as "
        "events, and served by every gateway of it (docs/analysis.md). Stops on Ctrl-C.",
    )
    add_budget_options(parser)
    parser.add_argument(
        "--every-game",
        action="store_true",
        help="also the games already finished (every position of every game)",
    )
    parser.add_argument(
        "--no-backfill",
        action="store_true",
        help="never come back to the positions skipped while falling behind",
    )
    parser.add_argument(
        "--until-idle",
        action="store_true",
        help="stop once nothing is left to evaluate (instead of following the store)",
    )
    parser.add_argument(
        "--drop",
        action="store_true",
        help="drop every evaluation and the analysis' position, then stop "
        "(the next run evaluates again)",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="a line for every position evaluated"
    )
    add_store_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        budget = budget_of(args)
    except ValueError as error:
        print(f"candidates analyse: {error}", file=sys.stderr)
        return 2
    if args.drop:
        with store_of(args) as store:
            table = analysis_table(store)
            try:
                dropped = table.drop()
            finally:
                table.close()
        print_json({"dropped": dropped})
        return 0
    with store_of(args):
        pass  # a mistyped --store is refused here, before the engine starts
    lower_this_process(budget)  # it holds no lock of the store: the moves first, always
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="candidates analyse: %(message)s",
        stream=sys.stderr,
    )
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    analyser = Analyser(
        store_url(getattr(args, "store", None)),
        budget,
        args.engine,
        backfill=not args.no_backfill,
        every_game=args.every_game,
        until_idle=args.until_idle,
    )
    ran = analyser.run(stop)
    counters = analyser.counters
    print_json(
        {
            "engine": ran,
            "analysed": counters.analysed,
            "skipped": counters.skipped,
            "failures": counters.failures,
            "backfilled": counters.backfilled,
            "budget": budget.describe(),
        }
    )
    return 0
