"""DGT reconstruction with hands that hold pieces, at slow clock rates; and recovery
after a misread.

    .venv/bin/python bench/bench_dgt_recovery.py [--games 56] [--held 0.5] [--knocks 0.05]
    .venv/bin/python bench/bench_dgt_recovery.py --misread [--hold-ms 8000]

All 56 games of the 2013 Candidates (``replay_logs/sources/candidates-2013.pgn``,
as published by FIDE, the same file as ``/work/shared/data/candidates-2013.pgn``)
are played through the board simulator (``adapters.dgt.simulator``: pieces
lifted, slides over the squares on the way, captured pieces taken first or last,
castling king first or rook first, pawns paused on the middle square) with
hands that hold pieces (``Noise.held``, per ply: a piece hovering over the board,
put down a moment on a wrong square, a captured man held while the capturing
piece is thought over, a promotion's piece fetched) and knocked pieces (a few
left lying long enough to be a genuinely impossible position). Each game is
read back through a ``BoardSession`` as a capture whose only time source is a
clock speaking every 1, 2 or 5 s: every byte carries the instant of the last
clock message before it, presses are seen at the next message, and the clock
sides are unknown (inferred, as for another driver's capture).

Per clock interval:

- ``wrong``: confirmations of a move that was not the game's move at that ply
  (each one reached the store and had to be corrected);
- ``recov``: lines recovered (rule 7: a move confirmed wrongly, rewritten);
- ``exact``: plies of the final line equal to the game's (common prefix);
- ``alerts/game``: ``impossible_position`` alerts per game, split into those on
  a genuinely impossible position (a knocked piece lying on the board, no hand
  on it) and the others (held pieces: a desk's noise), with the knocked pieces
  that stood the alert time (2 s) and the most alerts any one of them raised;
- ``latency``: from a move's completion (its last field change, at the instant
  the capture gives it) to its confirmation, p50 / p99, ms.

Before: ``main`` at 7f25d3b (the reconstructor whose moves were final by their kind
and whose alerts fired on pieces in a hand) with this script and simulator (commit
9524533), 56 games, ``--held 0.5 --knocks 0.05``; ``genuine`` = on a knocked piece
lying, ``held`` = on pieces in a hand::

    interval wrong recov  exact      alerts/game (genuine+held) knocked>=2s max p50/p99 ms
    1 s        122   104  4807/4827  6.27 (1.25+5.02)           80          1   300 / 5300
    2 s         72    71  4827/4827  4.57 (0.70+3.88)           80          1   300 / 6000
    5 s        193   125  4757/4827  0.27 (0.00+0.27)           80          0     0 / 5300

After (this branch: a move complete only on evidence, a placement reported only
once it surely stood, pieces in a hand never), same script and simulator::

    1 s          0     0  4827/4827  1.25 (1.25+0.00)           80          1  2300 / 7300
    2 s          0     0  4827/4827  0.70 (0.70+0.00)           80          1  2300 / 6300
    5 s          0     0  4827/4827  0.00 (0.00+0.00)           80          0   300 / 10000

``--misread``: the older table, the games clean and with an injected misread
(from ply 20, the first pawn double push or slide whose intermediate square is a
legal move is held there ``--hold-ms``), untimed and at clock rates 0.3-5 s:
share of plies exact, alerts, misreads confirmed and plies to recovery.
"""

from __future__ import annotations

import argparse
import bisect
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.dgt.observations import (  # noqa: E402
    BoardAlert,
    LineRecovered,
    MoveConfirmed,
    Observation,
)
from adapters.dgt.reconstruct import MoveReconstructor  # noqa: E402
from adapters.dgt.session import BoardSession  # noqa: E402
from adapters.dgt.simulator import BoardSimulator, Noise  # noqa: E402
from bench.common import pct, read_games  # noqa: E402

HELD_RATES_MS = (1000, 2000, 5000)
MISREAD_RATES_MS = (300, 1000, 2000, 5000)


def replay(session: BoardSession, chunks: list[tuple[int, bytes]]) -> list[Observation]:
    """Chunks through a session as ``FileSource`` replays a capture: timers at their
    own instants, then the chunk."""
    seen: list[Observation] = []
    for at_ms, data in chunks:
        session.run_timers_until(at_ms)
        session.receive_data(data, at_ms)
        session.poll(at_ms)
        seen += session.observations()
    session.finish(chunks[-1][0] if chunks else 0)
    return seen + session.observations()


def exact_plies(line: list[str], truth: list[str]) -> int:
    exact = 0
    for got, want in zip(line, truth, strict=False):
        if got != want:
            break
        exact += 1
    return exact


# --- held pieces at slow clock rates --------------------------------------------------


@dataclass
class HeldOutcome:
    plies: int = 0
    exact: int = 0
    wrong: int = 0
    recoveries: int = 0
    alerts: int = 0
    on_knocks: int = 0
    knocks_standing: int = 0
    most_on_one: int = 0
    latencies_ms: list[int] = field(default_factory=list)


def held_run(sim: BoardSimulator) -> HeldOutcome:
    truth = [m.uci() for m in sim.moves]
    script = sim.script()
    chunks = sim.clock_timed_stream()
    instants = [at for at, _ in chunks]

    def label(at_ms: int) -> int:
        """The instant the capture gives to something that happened at ``at_ms``."""
        return instants[max(0, bisect.bisect_right(instants, at_ms) - 1)]

    completed = {s.ply: label(s.at_ms) for s in script if s.kind == "ply"}
    knocks = [
        (label(s.at_ms), label(s.until_ms), s.until_ms - s.at_ms)
        for s in script
        if s.kind == "knocked"
    ]
    reconstructor = MoveReconstructor()
    session = BoardSession(reconstructor=reconstructor, timed=True)
    seen = replay(session, chunks)
    out = HeldOutcome(plies=len(truth), exact=exact_plies(reconstructor.uci_moves, truth))
    confirmed: set[int] = set()
    per_knock = [0] * len(knocks)
    for o in seen:
        if isinstance(o, MoveConfirmed):
            right = o.ply <= len(truth) and truth[o.ply - 1] == o.uci
            if not right:
                out.wrong += 1
            elif o.ply not in confirmed:
                confirmed.add(o.ply)
                out.latencies_ms.append(o.at_ms - completed[o.ply])
        elif isinstance(o, LineRecovered):
            out.recoveries += 1
        elif isinstance(o, BoardAlert) and o.kind == "impossible_position":
            out.alerts += 1
            for i, (start, end, _) in enumerate(knocks):
                if start <= o.at_ms <= end:
                    per_knock[i] += 1
                    out.on_knocks += 1
                    break
    out.knocks_standing = sum(1 for *_, stood in knocks if stood >= reconstructor.alert_after_ms)
    out.most_on_one = max(per_knock, default=0)
    return out


def held_table(games: list, held: float, knocks: float) -> None:  # type: ignore[type-arg]
    print(
        f"DGT hands holding pieces (held {held:g}, knocks {knocks:g} per ply), "
        f"{len(games)} games of the 2013 Candidates, captures timed by their clock"
    )
    print(
        f"{'interval':<9} {'wrong':>5} {'recov':>5} {'exact':>14} "
        f"{'alerts/game (genuine+held)':>27} {'knocked>=2s':>11} {'max':>3} "
        f"{'latency p50/p99 ms':>19} {'s':>5}"
    )
    for rate in HELD_RATES_MS:
        t0 = time.perf_counter()
        outcomes = [
            held_run(
                BoardSimulator.from_pgn(
                    game, noise=Noise(held=held, knocks=knocks), seed=index, clock_every_ms=rate
                )
            )
            for index, game in enumerate(games)
        ]
        elapsed = time.perf_counter() - t0
        n = len(outcomes)
        plies = sum(o.plies for o in outcomes)
        exact = sum(o.exact for o in outcomes)
        alerts = sum(o.alerts for o in outcomes)
        genuine = sum(o.on_knocks for o in outcomes)
        latencies = [float(v) for o in outcomes for v in o.latencies_ms]
        per_game = f"{alerts / n:.2f} ({genuine / n:.2f}+{(alerts - genuine) / n:.2f})"
        print(
            f"{rate / 1000:g} s{'':<6} {sum(o.wrong for o in outcomes):>5} "
            f"{sum(o.recoveries for o in outcomes):>5} {f'{exact}/{plies}':>14} "
            f"{per_game:>27} {sum(o.knocks_standing for o in outcomes):>11} "
            f"{max(o.most_on_one for o in outcomes):>3} "
            f"{f'{pct(latencies, 0.5):.0f} / {pct(latencies, 0.99):.0f}':>19} {elapsed:5.1f}"
        )


# --- misreads, untimed and at clock rates ---------------------------------------------


@dataclass
class MisreadOutcome:
    plies: int
    exact: int
    alerts: int
    misread: bool = False
    """A wrong move was confirmed at the misread ply."""
    recovered_after: int | None = None
    """Plies from the misread ply to the confirmed line matching the game again."""


def misread_run(sim: BoardSimulator, rate_ms: int | None) -> MisreadOutcome:
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
            check()  # each timer's outcome: a misread confirmed by quiet is seen
        session.receive_data(data, at_ms)
        session.poll(at_ms)
        check()
    session.finish(chunks[-1][0] if chunks else 0)
    check()
    line = session.reconstructor.uci_moves
    return MisreadOutcome(len(truth), exact_plies(line, truth), alerts, misread, recovered_after)


def misread_table(games: list, hold_ms: int) -> None:  # type: ignore[type-arg]
    settings: list[tuple[str, int | None]] = [("untimed", None)] + [
        (f"clock {rate / 1000:g} s", rate) for rate in MISREAD_RATES_MS
    ]
    print(f"DGT misreads, {len(games)} games of the 2013 Candidates through the simulator")
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
                    misread_at_ply=20 if run == "misread" else None, misread_hold_ms=hold_ms
                )
                sim = BoardSimulator.from_pgn(game, noise=noise, seed=index, clock_every_ms=rate)
                outcomes.append(misread_run(sim, rate))
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=56)
    ap.add_argument("--held", type=float, default=0.5, help="per ply, a hand holding a piece")
    ap.add_argument("--knocks", type=float, default=0.05, help="per ply, a knocked piece")
    ap.add_argument("--misread", action="store_true", help="the misread table instead")
    ap.add_argument("--hold-ms", type=int, default=8000, help="the misread's hold")
    args = ap.parse_args()
    games = read_games(args.games)
    if args.misread:
        misread_table(games, args.hold_ms)
    else:
        held_table(games, args.held, args.knocks)


if __name__ == "__main__":
    main()
