"""``candidates kept [--drop]``: the kept projections of a store, and their reset.

The gateway's open alerts and standings and the flag check's games are kept in
the store with the position they were folded up to (``adapters.store.kept``). This
lists them (name, position, how far behind the log) and, with ``--drop``, drops
them: the next ``candidates serve`` then reads the whole log once and keeps
them again. The events are never touched.
"""

from __future__ import annotations

import argparse
from typing import Any

import msgpack

from adapters.cli.common import add_store_option, print_json, store_of
from adapters.store.kept import KeptRecord, kept_recorder, program_fingerprint


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "kept",
        help="the kept projections (open alerts, standings, the flag check) and their reset",
        description="List the projections kept in the store with the position they hold "
        "(docs/scale.md); --drop drops them, so the next start folds the whole log again. "
        "The events are never changed.",
    )
    parser.add_argument(
        "--drop", action="store_true", help="drop every kept projection (rebuilt at next start)"
    )
    parser.add_argument("--format", choices=("table", "json"), default="table")
    add_store_option(parser)
    parser.set_defaults(func=run)


def _format_of(record: KeptRecord) -> str:
    try:
        decoded = msgpack.unpackb(record.state, raw=False, strict_map_key=False)
    except Exception:  # msgpack raises several unrelated types on garbage
        return "unreadable"
    written = decoded.get("format") if isinstance(decoded, dict) else None
    return str(written) if isinstance(written, str) else "unreadable"


def run(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        recorder = kept_recorder(store)
        last = store.last_seq()
        records = recorder.records()
        if args.drop:
            for record in records:
                recorder.drop(record.name)
    fingerprint = program_fingerprint()
    rows = [
        {
            "name": r.name,
            "position": r.position,
            "behind": max(0, last - r.position),
            "bytes": len(r.state),
            "format": _format_of(r),
            "this_program": _format_of(r).endswith(f"/{fingerprint}"),
        }
        for r in records
    ]
    if args.format == "json":
        print_json({"log_position": last, "kept": rows, "dropped": bool(args.drop)})
        return 0
    if not rows:
        print(f"No kept projection (the log ends at {last}).")
        return 0
    print(f"The log ends at {last}.")
    for row in rows:
        usable = "" if row["this_program"] else " (written by another program: not used)"
        print(
            f"  {row['name']}: at {row['position']}, {row['behind']} events behind, "
            f"{row['bytes']} bytes{usable}"
        )
    if args.drop:
        print(f"Dropped {len(rows)}: the next start folds the whole log again.")
    return 0
