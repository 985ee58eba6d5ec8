"""DGT adapter: latency from a move's last byte to the stored event, and decoder throughput.

    .venv/bin/python bench/bench_dgt.py [--games N] [--store sqlite|postgresql://...]

Boards play real games of the 2013 Candidates through the simulator (lifting
order, slides, transients, knocks, clock messages), rendered as the bytes a
host receives.

1. Latency, wall time: the bytes of each move are fed to a ``BoardSession``
   and its observations to the ``StoreSink``, as the link loop does; the
   latency of a move is the time from handing over the chunk holding the
   move's last byte (the settling dump) to the return of the store append of
   its ``MovePlayed``. Baseline in the same run: a bare ``Store.handle`` of the
   same ``play_move`` command (decide + append, nothing else).
2. Settling delay, board time: from the last field update of a move to the
   instant the move is confirmed for the store, replaying a timed recording
   through the 300 ms debounce (a move waits for the evidence that it is
   complete: the lever press, the next move or quiet).
3. Decoder throughput: ``DgtParser`` over the whole byte stream, against a
   bare scan of the same bytes for id bytes (bit 7 set) in Python.

Prints medians, p99 and ratios.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.dgt.feed import StoreSink  # noqa: E402
from adapters.dgt.observations import MoveConfirmed  # noqa: E402
from adapters.dgt.protocol import DgtParser  # noqa: E402
from adapters.dgt.reconstruct import MoveReconstructor  # noqa: E402
from adapters.dgt.session import BoardSession  # noqa: E402
from adapters.dgt.simulator import BoardSimulator, Noise  # noqa: E402
from adapters.store import Store  # noqa: E402
from bench.common import T0_MS, read_games  # noqa: E402
from engine.timefmt import format_instant  # noqa: E402


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def start(store: Store, game_id: str) -> None:
    answer = store.handle(
        {
            "cmd": "start_game",
            "game": game_id,
            "at": format_instant(T0_MS),
            "white": "w",
            "black": "b",
        }
    )
    assert answer["ok"], answer


def adapter_latency(games: list[chess.pgn.Game], url: str) -> tuple[list[float], int]:
    """Per move: chunk with the move's last byte handed over -> MovePlayed appended."""
    latencies: list[float] = []
    moves = 0
    with Store(url) as store:
        for index, game in enumerate(games):
            game_id = f"a.{index}"
            start(store, game_id)
            sim = BoardSimulator.from_pgn(game, noise=Noise(knocks=0.05), seed=index)
            session = BoardSession(reconstructor=MoveReconstructor(alert_after_ms=0), timed=False)
            sink = StoreSink(store, game_id, session)
            for at, data in sim.raw_stream():
                before = store.reads.game(game_id)
                stored_before = len(before.moves) if before else 0
                t0 = time.perf_counter()
                session.receive_data(data, T0_MS + at)
                sink.deliver(session.observations())
                elapsed = time.perf_counter() - t0
                after = store.reads.game(game_id)
                if after is not None and len(after.moves) == stored_before + 1:
                    latencies.append(elapsed)
            session.finish(T0_MS + 10**8)
            sink.deliver(session.observations())
            stored = store.reads.game(game_id)
            assert stored is not None and list(stored.moves) == [
                m.uci() for m in game.mainline_moves()
            ], f"game {index} not reconstructed"
            moves += len(stored.moves)
    return latencies, moves


def bare_append(games: list[chess.pgn.Game], url: str) -> list[float]:
    latencies = []
    with Store(url) as store:
        for index, game in enumerate(games):
            game_id = f"b.{index}"
            start(store, game_id)
            for ply, move in enumerate(game.mainline_moves()):
                command = {
                    "cmd": "play_move",
                    "game": game_id,
                    "move": move.uci(),
                    "at": format_instant(T0_MS + ply * 1000),
                    "by": "dgt:31337",
                }
                t0 = time.perf_counter()
                answer = store.handle(command)
                latencies.append(time.perf_counter() - t0)
                assert answer["ok"], answer
    return latencies


def settling_delays(games: list[chess.pgn.Game]) -> list[int]:
    """Board time from a move's last field update to its confirmation (timed replay)."""
    delays: list[int] = []
    for index, game in enumerate(games):
        sim = BoardSimulator.from_pgn(game, noise=Noise(knocks=0.05), seed=index)
        script = sim.script()
        last_change = [s.at_ms for s in script if s.kind == "ply"]
        session = BoardSession(debounce_ms=300)
        for at, data in sim.raw_stream(dumps=False):
            while (deadline := session.next_deadline_ms()) is not None and deadline <= at:
                session.poll(deadline)
            session.receive_data(data, at)
            session.poll(at)
            for obs in session.observations():
                if isinstance(obs, MoveConfirmed) and obs.ply <= len(last_change):
                    delays.append(obs.at_ms - last_change[obs.ply - 1])
    return delays


def throughput(games: list[chess.pgn.Game]) -> tuple[bytes, float, float, int]:
    data = b"".join(
        BoardSimulator.from_pgn(g, noise=Noise(knocks=0.1), seed=i).raw_bytes()
        for i, g in enumerate(games)
    )
    data = data * max(1, 2_000_000 // len(data))
    t0 = time.perf_counter()
    parser = DgtParser()
    for i in range(0, len(data), 512):
        parser.receive_data(data[i : i + 512])
        parser.events_received()
    decode_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    ids = 0
    for byte in data:
        if byte & 0x80:
            ids += 1
    scan_s = time.perf_counter() - t0
    assert parser.errors == 0
    return data, decode_s, scan_s, parser.messages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--store", default=None, help="a postgresql:// URL; default a temp SQLite")
    args = ap.parse_args()
    logging.disable(logging.CRITICAL)  # the alerts of knocked pieces are not the point here
    games = read_games(args.games)
    with tempfile.TemporaryDirectory() as tmp:
        url_a = args.store or str(Path(tmp) / "a.sqlite")
        url_b = args.store or str(Path(tmp) / "b.sqlite")
        latencies, moves = adapter_latency(games, url_a)
        bare = bare_append(games, url_b)
    ms = 1000
    med, med_b = statistics.median(latencies) * ms, statistics.median(bare) * ms
    hi, hi_b = p99(latencies) * ms, p99(bare) * ms
    backend = "PostgreSQL" if args.store else "SQLite"
    print(f"DGT adapter, {len(games)} games, {moves} moves reconstructed and stored ({backend})")
    print("1. last byte of a move -> MovePlayed stored (wall time)")
    print(f"   adapter (decode, rebuild, sink, store): median {med:.2f} ms, p99 {hi:.2f} ms")
    print(f"   baseline bare store.handle(play_move): median {med_b:.2f} ms, p99 {hi_b:.2f} ms")
    print(f"   ratio adapter / baseline: median {med / med_b:.2f}x, p99 {hi / hi_b:.2f}x")
    delays = settling_delays(games)
    print("2. last field update of a move -> move confirmed (board time, 300 ms debounce)")
    d_med, d_hi = statistics.median(delays), p99([float(d) for d in delays])
    print(f"   median {d_med:.0f} ms, p99 {d_hi:.0f} ms over {len(delays)} moves")
    print("   (a move waits for the evidence it is complete: the lever press, mostly)")
    data, decode_s, scan_s, messages = throughput(games)
    mb = len(data) / 1e6
    print(f"3. decoder throughput over {mb:.1f} MB ({messages} messages)")
    rate = messages / decode_s
    print(f"   DgtParser:                      {mb / decode_s:6.2f} MB/s, {rate:,.0f} msg/s")
    print(f"   baseline bare bit-7 bytes scan: {mb / scan_s:6.2f} MB/s")
    print(f"   ratio parser / scan: {scan_s / decode_s:.2f}x the scan's speed")


if __name__ == "__main__":
    main()
