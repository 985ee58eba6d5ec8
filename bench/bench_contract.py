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

Prints microseconds per call (median of ``--repeat`` runs of 200 calls) and ratios.
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


def per_call_us(fn: Callable[[], object], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(CALLS):
            fn()
        runs.append((time.perf_counter() - start) / CALLS)
    return statistics.median(runs) * 1e6


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "bench.sqlite"))
        import_log(store, read_log(SAMPLE_LOG))
        tournament = store.tournament()
        assert tournament is not None
        ids = sorted(tournament.pairings())
        gid = max(ids, key=lambda g: len(game_object(store, g)["moves"]))
        state = store.game(gid)
        assert state is not None
        obj: dict[str, Any] = dict(game_object(store, gid))
        store.close()
    values = {k: obj[k] for k in GameStruct.__struct_fields__}
    as_struct = GameStruct(**values)
    other = dict(obj)
    other_struct = GameStruct(**values)
    json_encoder, pack_encoder = msgspec.json.Encoder(), msgspec.msgpack.Encoder()
    assert json.loads(json_encoder.encode(as_struct)) == json.loads(encode_json(values))
    assert msgpack.unpackb(pack_encoder.encode(values)) == msgpack.unpackb(encode_msgpack(values))
    r = args.repeat
    rows = [
        (
            BASELINE,
            per_call_us(lambda: game_view(state), r),
        ),
        ("build: dict literal", per_call_us(lambda: dict(**values), r)),
        ("build: Struct constructor", per_call_us(lambda: GameStruct(**values), r)),
        ("encode JSON: json.dumps (before)", per_call_us(lambda: encode_json(values), r)),
        ("encode JSON: msgspec, dict", per_call_us(lambda: json_encoder.encode(values), r)),
        ("encode JSON: msgspec, Struct", per_call_us(lambda: json_encoder.encode(as_struct), r)),
        ("encode msgpack: msgpack (before)", per_call_us(lambda: encode_msgpack(values), r)),
        ("encode msgpack: msgspec, dict", per_call_us(lambda: pack_encoder.encode(values), r)),
        ("encode msgpack: msgspec, Struct", per_call_us(lambda: pack_encoder.encode(as_struct), r)),
        ("diff: predictable(dict, dict)", per_call_us(lambda: predictable(obj, other), r)),
        (
            "diff: predictable(asdict(Struct), asdict(Struct))",
            per_call_us(
                lambda: predictable(
                    msgspec.structs.asdict(as_struct), msgspec.structs.asdict(other_struct)
                ),
                r,
            ),
        ),
    ]
    print(f"game {gid}: {len(obj['moves'])} plies; median of {r} runs of {CALLS} calls")
    width = max(len(name) for name, _ in rows)
    for name, us in rows:
        print(f"  {name:<{width}}  {us:9.2f} us")
    t = dict(rows)
    base = t[BASELINE]
    print("ratios")
    print(
        f"  build Struct/dict {t['build: Struct constructor'] / t['build: dict literal']:.2f}x"
        f"  (each {t['build: dict literal'] / base:.1%} of the projection)"
    )
    for kind in ("JSON", "msgpack"):
        dict_us = t[f"encode {kind}: msgspec, dict"]
        struct_us = t[f"encode {kind}: msgspec, Struct"]
        ours = next(us for name, us in rows if name.startswith(f"encode {kind}:"))
        print(
            f"  encode {kind}: Struct/dict (msgspec) {struct_us / dict_us:.2f}x;"
            f" msgspec dict / before {dict_us / ours:.2f}x"
        )
    diff_dict = t["diff: predictable(dict, dict)"]
    diff_struct = t["diff: predictable(asdict(Struct), asdict(Struct))"]
    print(f"  diff Struct (made mappings)/dict {diff_struct / diff_dict:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
