"""``candidates export``, ``candidates import-log``, ``candidates seal``: replay logs and seals."""

from __future__ import annotations

import argparse
from typing import Any

from adapters.cli.common import add_create_option, add_store_option, print_json, store_of
from adapters.formats.replay_log import export_log, import_log, read_log
from engine.events import ChainSealed


def register(sub: Any) -> None:
    export = sub.add_parser(
        "export",
        help="write the store's replay log (msgpack, docs/replay-log.md)",
        description="Write every stored event, in global order, with its hash link, "
        "to a replay log. With --tournament ID (a store of several), only that "
        "tournament's streams: an extract, read by `candidates audit FILE`.",
    )
    export.add_argument("--out", required=True, metavar="FILE", help="the log to write")
    export.add_argument("--notes", default="", help="free text for the log's header")
    export.add_argument(
        "--generated",
        action="append",
        default=[],
        metavar="TEXT",
        help="name data of the log that was generated, not recorded (repeatable)",
    )
    add_store_option(export)
    export.set_defaults(func=run_export)

    imp = sub.add_parser(
        "import-log",
        help="load a replay log into an empty store",
        description="Check every hash link of the log, then load it into an empty store.",
    )
    imp.add_argument("file")
    add_create_option(imp)
    add_store_option(imp)
    imp.set_defaults(func=run_import)

    seal = sub.add_parser(
        "seal",
        help="seal the hash chains now (docs/audit.md)",
        description="Append a ChainSealed event covering every event not yet sealed.",
    )
    seal.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: one line (events covered, digest); json: the whole seal",
    )
    add_store_option(seal)
    seal.set_defaults(func=run_seal)


def run_export(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        count = export_log(
            store,
            args.out,
            args.notes,
            args.generated,
            tournament=getattr(args, "tournament", None),
        )
    print_json({"file": args.out, "events": count})
    return 0


def run_import(args: argparse.Namespace) -> int:
    log = read_log(args.file)
    with store_of(args) as store:
        count = import_log(store, log)
    print_json({"file": args.file, "events": count, "tournament": log.tournament})
    return 0


def run_seal(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        seal = store.seal()
    if args.format == "json":
        if seal is None:
            print_json({"sealed": False, "reason": "nothing to seal, or no tournament yet"})
        else:
            print_json({"sealed": True, **seal.to_wire()})
        return 0
    if not isinstance(seal, ChainSealed):
        print("Nothing to seal: every event is sealed already, or there is no tournament yet.")
        return 0
    streams = len(seal.heads)
    print(
        f"Sealed the first {seal.events_before} events ({streams} stream"
        f"{'' if streams == 1 else 's'} with new events), digest {seal.order_digest[:16]}... "
        "(--format json for the whole seal)"
    )
    return 0
