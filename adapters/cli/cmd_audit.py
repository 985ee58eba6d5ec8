"""``candidates audit [--store S | FILE] [--strict]``: integrity and rule findings."""

from __future__ import annotations

import argparse
from typing import Any

from adapters.audit import audit_log, audit_store
from adapters.cli.common import add_store_option, print_json, store_of
from adapters.formats.replay_log import read_log


def register(sub: Any) -> None:
    audit = sub.add_parser(
        "audit",
        help="verify the hash chains and seals, re-derive projections, re-check the rules",
        description="Audit a store (default) or a replay log FILE. Exit status 1 for an "
        "integrity failure (broken link or seal, differing projection, illegal move, "
        "impossible clock); rule findings (arbiter overrides, results without a legal "
        "reason) are listed, and fail only with --strict.",
    )
    audit.add_argument("file", nargs="?", help="a replay log to audit instead of the store")
    audit.add_argument("--strict", action="store_true", help="rule findings fail too")
    audit.add_argument("--format", choices=("text", "json"), default="text")
    add_store_option(audit)
    audit.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.file:
        report = audit_log(read_log(args.file), args.file)
    else:
        with store_of(args) as store:
            report = audit_store(store)
    if args.format == "json":
        print_json(report.as_dict(), pretty=True)
    else:
        print(report.render())
    return report.exit_status(args.strict)
