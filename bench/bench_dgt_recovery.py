"""DGT reconstruction at any clock rate and without timing, and recovery after a misread.

    .venv/bin/python bench/bench_dgt_recovery.py [--games N] [--hold-ms MS]

The games of the 2013 Candidates (``replay_logs/sources/candidates-2013.pgn``,
as published by FIDE) are played through the board simulator (pieces lifted,
slides over the squares on the way, captured pieces taken first or last,
castling king first or rook first, pawns paused on the middle square) and
read back through a ``BoardSession``:

- ``untimed``: the raw bytes of each game, no dumps, no arrival times (a plain
  byte capture);
- ``clock X s``: the same bytes as a capture whose only time source is a
  clock speaking every X seconds (every byte carries the instant of the last
  clock message before it; presses are seen at the next message).

For each, two runs: the game as played, and the game with an injected misread
(from ply 20, the first pawn double push or slide whose intermediate square is
a legal move is held there ``--hold-ms``, long enough to be confirmed where
timing allows it, before the piece goes on).

Figures per setting: the share of plies reconstructed exactly (the final line
against the game's, as a common prefix), the number of board alerts, and for
the misread run the misreads confirmed and the plies from the misread to the
point where the confirmed line is the game's again ("never" when it is not).
The baseline is the clean run of the same setting, in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.dgt.observations import BoardAlert  # noqa: E402
from adapters.dgt.reconstruct import MoveReconstructor  # noqa: E402
from adapters.dgt.session import BoardSession  # noqa: E402
from adapters.dgt.simulator import BoardSimulator, Noise  # noqa: E402
from bench.common import read_games  # noqa: E402

RATES_MS = (300, 1000, 2000, 5000)


@dataclass
class Outcome:
    plies: int
    exact: int
    alerts: int
    misread: bool = False
    """A wrong move was confirmed at the misread ply."""
    recovered_after: int | None = None
    """Plies from the misread ply to the confirmed line matching the game again."""


def replay(sim: BoardSimulator, rate_ms: int | None) -> Outcome:
    truth = [m.uci() for m in sim.moves]
    misread_ply = sim.misread_ply()
    session = BoardSession(reconstructor=MoveReconstructor(), timed=rate_ms is not None)
    chunks = [(0, sim.raw_bytes(dumps=False))] if rate_ms is None else sim.clock_timed_stream()
    alerts = 0
    wrong_since: int | None = None
    misread = False
    recovered_after: int | None = None

    def check() -> None:
        nonlocal alerts, wrong_since, misread, recovered_after
        alerts += sum(
            1 for o in session.observations() if isinstance(o, BoardAlert) and o.kind != "new_game"
        )
        rec = session.reconstructor
        confirmed = rec.confirmed_moves
        if confirmed != truth[: len(confirmed)]:
            if wrong_since is None:
                wrong_since = len(confirmed)
                if misread_ply is not None and len(confirmed) >= misread_ply:
                    misread = misread or confirmed[misread_ply - 1] != truth[misread_ply - 1]
        elif wrong_since is not None and recovered_after is None:
            recovered_after = max(0, rec.ply - (misread_ply or wrong_since))
            wrong_since = None

    for at_ms, data in chunks:
        while (deadline := session.next_deadline_ms()) is not None and deadline <= at_ms:
            session.poll(deadline)
            check()
        session.receive_data(data, at_ms)
        session.poll(at_ms)
        check()
    end = chunks[-1][0] if chunks else 0
    session.finish(end)
    check()
    line = session.reconstructor.uci_moves
    exact = 0
    for got, want in zip(line, truth, strict=False):
        if got != want:
            break
        exact += 1
    return Outcome(len(truth), exact, alerts, misread, recovered_after)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=56)
    ap.add_argument("--hold-ms", type=int, default=8000, help="the misread's hold")
    args = ap.parse_args()
    games = read_games(args.games)
    settings: list[tuple[str, int | None]] = [("untimed", None)] + [
        (f"clock {rate / 1000:g} s", rate) for rate in RATES_MS
    ]
    print(f"DGT reconstruction, {len(games)} games of the 2013 Candidates through the simulator")
    print(
        f"{'setting':<12} {'run':<8} {'plies exact':>18} {'alerts':>7} "
        f"{'misreads':>9} {'plies to recovery':>18} {'s':>6}"
    )
    for name, rate in settings:
        for run in ("clean", "misread"):
            t0 = time.perf_counter()
            outcomes = []
            for index, game in enumerate(games):
                noise = Noise(
                    misread_at_ply=20 if run == "misread" else None,
                    misread_hold_ms=args.hold_ms,
                )
                sim = BoardSimulator.from_pgn(game, noise=noise, seed=index, clock_every_ms=rate)
                outcomes.append(replay(sim, rate))
            elapsed = time.perf_counter() - t0
            plies = sum(o.plies for o in outcomes)
            exact = sum(o.exact for o in outcomes)
            alerts = sum(o.alerts for o in outcomes)
            misreads = [o for o in outcomes if o.misread]
            recoveries = [o.recovered_after for o in misreads if o.recovered_after is not None]
            if not misreads:
                to_recovery = "-"
            elif len(recoveries) < len(misreads):
                to_recovery = f"never in {len(misreads) - len(recoveries)}"
            else:
                to_recovery = f"median {statistics.median(recoveries):g}, max {max(recoveries)}"
            share = f"{exact}/{plies} {100 * exact / plies:5.1f}%"
            print(
                f"{name:<12} {run:<8} {share:>18} {alerts:>7} {len(misreads):>9} "
                f"{to_recovery:>18} {elapsed:6.1f}"
            )


if __name__ == "__main__":
    main()
