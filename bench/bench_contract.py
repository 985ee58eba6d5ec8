"""The game object as a TypedDict (a dict) or as a msgspec Struct: build, encode, diff.

    .venv/bin/python bench/bench_contract.py [--repeat N]

Why the contract's shapes are TypedDicts (docs/architecture.md, "The contract's
shapes"): the gateway builds a game object for every change of a game, encodes it once
per encoding, and compares it key by key with the one it last pushed (``predictable``,
to leave out clock readings that only confirm the countdown); the tests and the CLI
read the objects as mappings. This measures, on the longest game of the 2013 sample,
with the same values in both containers (the projection's work, the same either way,
is timed apart as the baseline):

- build: the top-level object from its values (a dict literal; a Struct's constructor);
- encode: to JSON and to msgpack (``json``/``msgpack`` as the gateway did until it
  encoded with msgspec; msgspec for the dict and for the Struct);
- diff: the delta's comparison of two objects key by key (``deltas.predictable``); a
  Struct must first be made a mapping (``msgspec.structs.asdict``, its nested objects
  already dicts).

Prints microseconds per call (the median of ``--repeat`` runs of 200 calls, the functions
interleaved) and ratios (the median of the ratios within a run).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402
import msgspec  # noqa: E402

from adapters.formats.replay_log import import_log, read_log  # noqa: E402
from adapters.gateway.deltas import predictable  # noqa: E402
from adapters.store import open_store  # noqa: E402
from adapters.store.queries import game_object  # noqa: E402
from engine.timefmt import format_instant, parse_instant  # noqa: E402
from projections.game_view import game_view  # noqa: E402
from tools.sample import SAMPLE_LOG  # noqa: E402

CALLS = 200
BASELINE = "projection: game_view (baseline, the same for both)"


def encode_json(obj: object) -> str:
    """How the gateway encoded a frame as JSON before msgspec."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def encode_msgpack(obj: object) -> bytes:
    """How the gateway encoded a frame as msgpack before msgspec."""
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


class GameStruct(msgspec.Struct):
    """The game object's top level as a Struct (its nested objects as they are)."""

    game: str
    round: int | None
    board: int | None
    white: str
    black: str
    time_control: str | None
    moves: list[str]
    uci: list[str]
    fen: str
    ply: int
    status: str
    result: str
    termination: str | None
    clock: dict[str, Any]
    claims: list[dict[str, Any]]
    incorrect_claims: dict[str, int]
    illegal_moves: dict[str, int]
    corrections: list[dict[str, Any]]
    flag_rulings: list[dict[str, Any]]
    open_flag_alerts: list[str]
    opening: dict[str, Any] | None


def measure(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, list[float]]:
    """Microseconds per call of each function, one run of ``CALLS`` calls each in turn,
    ``repeat`` times: the functions are interleaved, so a busy moment of the machine
    weighs on all of them alike."""
    runs: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(CALLS):
                fn()
            runs[name].append((time.perf_counter() - start) / CALLS * 1e6)
    return runs


def ratio(runs: dict[str, list[float]], a: str, b: str) -> float:
    """The median over the runs of ``a``'s time over ``b``'s in the same run."""
    return statistics.median(x / y for x, y in zip(runs[a], runs[b], strict=True))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "bench.sqlite"))
        import_log(store, read_log(SAMPLE_LOG))
        tournament = store.reads.tournament()
        assert tournament is not None
        ids = sorted(tournament.pairings())
        gid = max(ids, key=lambda g: len(game_object(store.reads, g)["moves"]))
        state = store.reads.game(gid)
        assert state is not None
        obj: dict[str, Any] = dict(game_object(store.reads, gid))
        store.close()
    values = {k: obj[k] for k in GameStruct.__struct_fields__}
    as_struct = GameStruct(**values)
    # the object after a clock reading that only confirms the countdown: its clock's
    # instant a second on, all else as it was (what ``predictable`` lets go quietly)
    clock = dict(obj["clock"])
    if clock.get("at"):
        clock["at"] = format_instant(parse_instant(clock["at"], "at") + 1000)
    other = {**obj, "clock": clock}
    assert predictable(obj, other)
    other_struct = GameStruct(**{k: other[k] for k in GameStruct.__struct_fields__})
    json_encoder, pack_encoder = msgspec.json.Encoder(), msgspec.msgpack.Encoder()
    assert json.loads(json_encoder.encode(as_struct)) == json.loads(encode_json(values))
    assert msgpack.unpackb(pack_encoder.encode(values)) == msgpack.unpackb(encode_msgpack(values))
    fns: dict[str, Callable[[], object]] = {
        BASELINE: lambda: game_view(state),
        "build: dict literal": lambda: dict(**values),
        "build: Struct constructor": lambda: GameStruct(**values),
        "encode JSON: json.dumps (before)": lambda: encode_json(values),
        "encode JSON: msgspec, dict": lambda: json_encoder.encode(values),
        "encode JSON: msgspec, Struct": lambda: json_encoder.encode(as_struct),
        "encode msgpack: msgpack (before)": lambda: encode_msgpack(values),
        "encode msgpack: msgspec, dict": lambda: pack_encoder.encode(values),
        "encode msgpack: msgspec, Struct": lambda: pack_encoder.encode(as_struct),
        "diff: predictable(dict, dict)": lambda: predictable(obj, other),
        "diff: predictable(asdict(Struct), asdict(Struct))": lambda: predictable(
            msgspec.structs.asdict(as_struct), msgspec.structs.asdict(other_struct)
        ),
    }
    runs = measure(fns, args.repeat)
    print(
        f"game {gid}: {len(obj['moves'])} plies; median of {args.repeat} interleaved runs "
        f"of {CALLS} calls"
    )
    width = max(len(name) for name in runs)
    for name, times in runs.items():
        print(f"  {name:<{width}}  {statistics.median(times):9.2f} us")
    print("ratios (median over the runs of the ratio within a run)")
    build = ratio(runs, "build: Struct constructor", "build: dict literal")
    share = ratio(runs, "build: dict literal", BASELINE)
    print(f"  build Struct/dict {build:.2f}x; the dict's build / the projection {share:.1%}")
    for kind, before in (("JSON", "json.dumps"), ("msgpack", "msgpack")):
        struct = ratio(runs, f"encode {kind}: msgspec, Struct", f"encode {kind}: msgspec, dict")
        now = ratio(runs, f"encode {kind}: msgspec, dict", f"encode {kind}: {before} (before)")
        print(
            f"  encode {kind}: Struct/dict (msgspec) {struct:.2f}x;"
            f" msgspec dict / {before} before {now:.2f}x"
        )
    diff = ratio(
        runs,
        "diff: predictable(asdict(Struct), asdict(Struct))",
        "diff: predictable(dict, dict)",
    )
    print(f"  diff Struct (made mappings)/dict {diff:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
