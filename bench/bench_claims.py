"""Cost of verifying a draw claim (Laws 9.2, 9.3) vs python-chess alone.

    .venv/bin/python bench/bench_claims.py [--games N] [--runs R]

For each of the first N games of the 2013 Candidates, at its final
position: the engine's verification of a threefold-repetition claim with an
intended move (replay of the game, every position's key, the plies of each
occurrence, now and after the move) and of a fifty-moves claim. The
baseline, measured in the same run, is python-chess alone replaying the
same game and answering ``is_repetition(3)`` now and after the move.
Then the whole command path: a ``claim_draw`` decided, appended to SQLite
(one transaction), and the ``game`` object projected, then its
``rule_claim``. Prints the figures and their ratios.
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
from engine.arbiter.claim_verification import verify  # noqa: E402
from engine.game.state import Game  # noqa: E402
from engine.timefmt import format_instant  # noqa: E402


def unfinished_games(limit: int) -> list[list[str]]:
    """The first ``limit`` games whose last position is not over (a claim can be made)."""
    games = []
    for moves in game_moves(10**6):
        board = chess.Board()
        for uci in moves:
            board.push_uci(uci)
        if moves and not board.is_game_over():
            games.append(moves)
        if len(games) == limit:
            break
    return games


def state(moves: list[str]) -> Game:
    return Game(
        version=1 + len(moves),
        game_id="b.1",
        round=0,
        board=0,
        white="w",
        black="b",
        time_control="-",
        rules="candidates-2012",
        initial_fen=None,
        started_at_ms=0,
        moves=tuple(moves),
    )


def intended_of(moves: list[str]) -> chess.Move:
    board = chess.Board()
    for uci in moves:
        board.push_uci(uci)
    return next(iter(board.legal_moves))


def baseline(games: list[list[str]]) -> float:
    start = time.perf_counter()
    for moves in games:
        board = chess.Board()
        for uci in moves:
            board.push_uci(uci)
        board.is_repetition(3)
        board.push(next(iter(board.legal_moves)))
        board.is_repetition(3)
    return time.perf_counter() - start


def verification(games: list[tuple[Game, chess.Move]]) -> float:
    start = time.perf_counter()
    for game, intended in games:
        verify(game, "threefold_repetition", intended)
    return time.perf_counter() - start


def command_path(games: list[list[str]], url: str) -> tuple[float, float]:
    """Seconds spent in claim_draw (+ view), and in rule_claim (+ view)."""
    claim_s = rule_s = 0.0
    with Store(url) as store:
        for index, moves in enumerate(games):
            gid = f"b.{index}"
            at0 = format_instant(T0_MS)
            store.execute({"cmd": "start_game", "game": gid, "white": "w", "black": "b", "at": at0})
            for ply, uci in enumerate(moves, start=1):
                at = format_instant(T0_MS + ply * 1000)
                store.execute({"cmd": "play_move", "game": gid, "move": uci, "at": at})
            side = "white" if len(moves) % 2 == 0 else "black"
            at = format_instant(T0_MS + 10**6)
            intended = intended_of(moves).uci()
            start = time.perf_counter()
            store.execute(
                {
                    "cmd": "claim_draw",
                    "game": gid,
                    "by": side,
                    "kind": "threefold_repetition",
                    "intended_move": intended,
                    "at": at,
                }
            )
            game_object(store.reads, gid)
            middle = time.perf_counter()
            store.execute(
                {
                    "cmd": "rule_claim",
                    "game": gid,
                    "claim": 1,
                    "decision": "rejected",
                    "arbiter": "chief",
                    "reason": "benchmark: rejected whatever the verification",
                    "at": at,
                }
            )
            game_object(store.reads, gid)
            claim_s += middle - start
            rule_s += time.perf_counter() - middle
    return claim_s, rule_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    games = unfinished_games(args.games)
    states = [(state(m), intended_of(m)) for m in games]
    plies = sum(map(len, games))
    base_s, verify_s, claim_s, rule_s = [], [], [], []
    for _ in range(args.runs):
        base_s.append(baseline(games))
        verify_s.append(verification(states))
        with tempfile.TemporaryDirectory() as tmp:
            c, r = command_path(games, str(Path(tmp) / "bench.sqlite"))
        claim_s.append(c)
        rule_s.append(r)
    n = len(games)
    b, v = statistics.median(base_s), statistics.median(verify_s)
    c, r = statistics.median(claim_s), statistics.median(rule_s)
    print(
        f"claims: {n} games of the 2013 Candidates ({plies / n:.0f} plies each), {args.runs} runs"
    )
    print(f"python-chess replay + is_repetition(3) x2 : {b / n * 1e3:8.2f} ms/claim")
    print(f"engine verification (threefold, intended) : {v / n * 1e3:8.2f} ms/claim")
    print(f"claim_draw decided+stored+projected       : {c / n * 1e3:8.2f} ms/claim")
    print(f"rule_claim (rejected, move played)+view   : {r / n * 1e3:8.2f} ms/ruling")
    print(f"ratio (verification / python-chess): {v / b:.1f}x")
    print(f"ratio (claim_draw command / python-chess): {c / b:.1f}x")


if __name__ == "__main__":
    main()
