"""Moves through the whole path (command -> stored -> projected) vs python-chess alone.

    .venv/bin/python bench/bench_moves.py [--games N] [--store sqlite|postgresql://...]

Replays the real moves of the 2013 Candidates: each move is a ``play_move``
command decided by the engine, appended to the event store (one transaction
per move, as live play does), then the ``game`` query object is projected
(FEN, SAN list, clock...). The baseline, measured in the same run, is
python-chess alone pushing the same moves (``push_uci``). Prints both rates
and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import chess
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.store import Store  # noqa: E402
from adapters.store.queries import game_object  # noqa: E402
from bench.common import T0_MS, game_moves  # noqa: E402
from engine.timefmt import format_instant  # noqa: E402


def baseline(games: list[list[str]]) -> float:
    """Seconds for python-chess to push every move (parse + legality + push)."""
    start = time.perf_counter()
    for moves in games:
        board = chess.Board()
        for uci in moves:
            board.push_uci(uci)
    return time.perf_counter() - start


def whole_path(games: list[list[str]], url: str) -> float:
    with Store(url) as store:
        start = time.perf_counter()
        for index, moves in enumerate(games):
            gid = f"b.{index}"
            store.execute(
                {
                    "cmd": "start_game",
                    "game": gid,
                    "white": "w",
                    "black": "b",
                    "at": format_instant(T0_MS),
                }
            )
            for ply, uci in enumerate(moves, start=1):
                at = format_instant(T0_MS + ply * 1000)
                store.execute({"cmd": "play_move", "game": gid, "move": uci, "at": at})
                game_object(store.reads, gid)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--store", default="sqlite")
    args = parser.parse_args()
    games = game_moves(args.games)
    moves = sum(map(len, games))
    base_s, path_s = [], []
    for run in range(args.runs):
        base_s.append(baseline(games))
        with tempfile.TemporaryDirectory() as tmp:
            url = str(Path(tmp) / "bench.sqlite") if args.store == "sqlite" else args.store
            if url != str(Path(tmp) / "bench.sqlite") and run:
                break
            path_s.append(whole_path(games, url))
    b, p = statistics.median(base_s), statistics.median(path_s)
    print(f"moves: {moves} from {len(games)} games of the 2013 Candidates, {args.runs} runs")
    print(
        f"python-chess push_uci alone : {moves / b:10.0f} moves/s  ({b / moves * 1e6:7.1f} us/move)"
    )
    print(
        f"command->stored->projected  : {moves / p:10.0f} moves/s  ({p / moves * 1e6:7.1f} us/move)"
    )
    print(f"ratio (whole path / python-chess time per move): {p / b:.1f}x")


if __name__ == "__main__":
    main()
