"""What each player needs: the scenarios through the full tie-break chain, and an update.

    .venv/bin/python bench/bench_needs.py [--repeat N]

Imports the 2013 Candidates (56 games) into a temporary SQLite store, then times,
each the median of ``--repeat`` runs:

- the 6,561 scenarios of rounds 13-14 (after round 12) scored through the full
  chain (points, 3.7 a-c over the whole tied group, withdrawals, playoff:
  ``projections.scenarios.scenarios``), against the baseline measured in the same
  run: the bare points-only count of the same scenarios (the players at the top on
  points, 3.6.1, for each combination, nothing else). The goal: under 1 s.
- the same scenarios through ``rank`` for every scenario (the standings' ranking
  of every player, no shortcut for a clear leader): what the chain costs without
  the scorer's precomputation.
- the whole ``needs`` object (scenarios, words, chances) after round 12, and
  after round 11 (a seeded sample: more than two rounds left).
- an update after a result: the table of round 12 narrowed by one round-13 result
  (2,187 scenarios left), then the object (words, chances) built: what the gateway
  computes when a result arrives. The goal: under 100 ms. Beside it, the same
  object computed from nothing (no previous table).

- live, through the gateway: a store holding rounds 1-12 and the gateway serving
  it (its needs computed at start); each of round 13's four results is stored by
  this process, and a websocket client times the result's own delta and the
  ``needs`` frame that follows it (the delta is the baseline: it needs no
  computation). The goal: the needs frame within 100 ms of the result's delta.

Prints each figure in wall time and in this process's CPU time (steadier on a shared
machine), and the CPU ratio to the baseline.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from itertools import product
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import connect  # noqa: E402
from websockets.typing import Subprotocol  # noqa: E402

from adapters.formats.pgn_import import import_pgn  # noqa: E402
from adapters.gateway.server import serve_forever  # noqa: E402
from adapters.store import Store  # noqa: E402
from adapters.store.queries import _all_games  # noqa: E402
from bench.common import T0_MS, handle, lots_drawn, timed  # noqa: E402
from engine.standings.tiebreaks import ScoredGame, rank  # noqa: E402
from engine.timefmt import format_instant  # noqa: E402
from projections.needs import needs_object, needs_table  # noqa: E402
from projections.scenarios import RESULTS, Scorer, scenario_space, scenarios  # noqa: E402

SOURCE = ROOT / "replay_logs" / "sources" / "candidates-2013.pgn"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Store(str(Path(tmp) / "bench.sqlite")) as store:
        import_pgn(store, SOURCE)
        tournament = store.reads.tournament()
        assert tournament is not None
        games = _all_games(store.reads)
    space = scenario_space(tournament, games, 12)
    combos = list(product(range(3), repeat=len(space.remaining)))

    def points_only() -> None:
        scorer = Scorer(space)
        for c in combos:
            scorer.points_only(c)

    def every_rank() -> None:
        for c in combos:
            played = [
                ScoredGame(p.game, p.round, p.white, p.black, RESULTS[r])
                for p, r in zip(space.remaining, c, strict=True)
            ]
            rank(space.players, (), space.chain, counted=space.counted.with_games(played))

    table12 = scenarios(space)
    ties = sum(o.winner is None or o.decided_by != "points" for o in table12.outcomes)
    round13 = sorted((g for g in games if g.round == 13), key=lambda g: g.game_id)
    after_one = [g for g in games if g.round <= 12 or g.game_id == round13[0].game_id]

    def update() -> None:
        narrowed = needs_table(tournament, after_one, None, previous=table12)
        assert len(narrowed.outcomes) == 3**7
        needs_object(tournament, after_one, narrowed)

    def from_nothing() -> None:
        needs_object(tournament, after_one, needs_table(tournament, after_one, None))

    def whole(after: int) -> Callable[[], object]:
        return lambda: needs_object(tournament, games, needs_table(tournament, games, after))

    update()  # the playoff odds of each tied group are simulated once, then kept
    rows = [
        ("baseline: points only (3.6.1), 6,561 scenarios", points_only, args.repeat, None),
        ("full chain (3.7 a-c, 3.1, playoff), 6,561", lambda: scenarios(space), args.repeat, 1),
        ("rank() of every scenario, no shortcut", every_rank, max(1, args.repeat // 2), None),
        ("needs object after round 12 (6,561)", whole(12), 3, None),
        ("needs object after round 11 (sampled)", whole(11), 3, None),
        ("update after a round-13 result (2,187)", update, args.repeat, 0.1),
        ("  the same object from nothing", from_nothing, 3, None),
    ]
    print(f"scenarios after round 12: {len(combos)} ({ties} level on points for first)")
    print(f"{'':46} {'wall ms':>9} {'cpu ms':>9} {'x baseline':>10}  goal")
    base_cpu = 0.0
    for label, fn, repeat, goal_s in rows:
        wall = timed(fn, repeat)
        cpu = timed(fn, repeat, time.process_time)
        base_cpu = base_cpu or cpu
        goal = f"under {goal_s * 1000:.0f} ms" if goal_s else ""
        print(f"{label:46} {wall * 1000:9.1f} {cpu * 1000:9.1f} {cpu / base_cpu:10.1f}  {goal}")
    live_figures(tournament_results(games))
    return 0


JSON = Subprotocol("json")


def tournament_results(games: list[Any]) -> dict[tuple[frozenset[str], int], tuple[str, str]]:
    """(pair, meeting 1 or 2) -> (white, result) of the 2013 games, in round order."""
    out: dict[tuple[frozenset[str], int], tuple[str, str]] = {}
    for g in sorted(games, key=lambda g: (g.round, g.game_id)):
        pair = frozenset((g.white, g.black))
        meeting = 2 if (pair, 1) in out else 1
        out[(pair, meeting)] = (g.white, g.result)
    return out


def live_figures(results: dict[tuple[frozenset[str], int], tuple[str, str]]) -> None:
    """Round 13's results through a running gateway: the delta, then the needs frame."""
    with tempfile.TemporaryDirectory() as tmp:
        url = str(Path(tmp) / "live.sqlite")
        with Store(url) as store:
            lots_drawn(store)
            pairings = store.reads.tournament().round_robin_pairings()  # type: ignore[union-attr]
            seen: dict[frozenset[str], int] = {}
            round13 = []
            for gid in sorted(pairings, key=lambda g: tuple(map(int, g.split(".")))):
                white, black = pairings[gid]
                pair = frozenset((white, black))
                seen[pair] = seen.get(pair, 0) + 1
                first_white, result = results[(pair, seen[pair])]
                if first_white != white:  # the same meeting with colours as the table's
                    result = {"1-0": "0-1", "0-1": "1-0"}.get(result, result)
                round_no = int(gid.split(".")[0])
                if round_no <= 12:
                    finish(store, gid, result, round_no)
                elif round_no == 13:
                    round13.append((gid, result))
        delta_ms, needs_ms = asyncio.run(_through_gateway(url, round13))
    print(
        f"live, round 13's results through the gateway (median of {len(delta_ms)}): the "
        f"result's delta {statistics.median(delta_ms):.1f} ms after it was stored, the needs "
        f"frame {statistics.median(needs_ms):.1f} ms (max {max(needs_ms):.1f}); the needs "
        f"frame {statistics.median(n - d for n, d in zip(needs_ms, delta_ms, strict=True)):.1f}"
        " ms after the delta (goal: under 100 ms)"
    )


def finish(store: Store, game: str, result: str, round_no: int) -> None:
    at = T0_MS + round_no * 86_400_000
    handle(store, {"cmd": "start_game", "game": game, "at": format_instant(at)})
    handle(
        store,
        {
            "cmd": "declare_result",
            "game": game,
            "result": result,
            "reason": "from the 2013 score sheets",
            "arbiter": "chief",
            "at": format_instant(at + 3_600_000),
        },
    )


async def _through_gateway(
    url: str, games: list[tuple[str, str]]
) -> tuple[list[float], list[float]]:
    ready = threading.Event()
    port: list[int] = []
    stop_box: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    def serve() -> None:
        async def main() -> None:
            stop = asyncio.Event()
            stop_box.append((asyncio.get_running_loop(), stop))

            def up(server: Any) -> None:
                port.append(server.sockets[0].getsockname()[1])
                ready.set()

            await serve_forever(url, "127.0.0.1", 0, None, 0, stop, ready=up)

        asyncio.run(main())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    ready.wait(30)
    delta_ms: list[float] = []
    needs_ms: list[float] = []
    async with connect(f"ws://127.0.0.1:{port[0]}/ws", subprotocols=[JSON]) as ws:
        await ws.send(json.dumps({"op": "subscribe", "games": "*", "needs": True}))
        await _frame(ws, lambda f: f.get("op") == "needs" and f["needs"] is not None)
        with Store(url) as writer:
            for gid, result in games:
                at = T0_MS + 13 * 86_400_000
                handle(writer, {"cmd": "start_game", "game": gid, "at": format_instant(at)})
                await _frame(ws, lambda f, g=gid: f.get("kind") == "GameStarted" and f["game"] == g)
                stored = time.perf_counter()
                handle(
                    writer,
                    {
                        "cmd": "declare_result",
                        "game": gid,
                        "result": result,
                        "reason": "from the 2013 score sheets",
                        "arbiter": "chief",
                        "at": format_instant(at + 3_600_000),
                    },
                )
                await _frame(
                    ws, lambda f, g=gid: f.get("kind") == "ResultRecorded" and f["game"] == g
                )
                delta_ms.append((time.perf_counter() - stored) * 1000)
                await _frame(ws, lambda f: f.get("op") == "needs")
                needs_ms.append((time.perf_counter() - stored) * 1000)
    loop, stop = stop_box[0]
    loop.call_soon_threadsafe(stop.set)
    thread.join(10)
    return delta_ms, needs_ms


async def _frame(ws: Any, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The next frame that matches (frames come one at a time or in an array)."""
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 30))
        for frame in message if isinstance(message, list) else [message]:
            if wanted(frame):
                return frame


if __name__ == "__main__":
    sys.exit(main())
