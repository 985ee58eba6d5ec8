"""``candidates init [PATH]``: make a store, or set up what an existing one lacks.

The one command that makes a store where there is none (besides a writing command's
``--create``): every other command refuses a SQLite path with no store, so a
mistyped ``--store`` is never a new, empty store."""

from __future__ import annotations

import argparse
import re
from typing import Any

from adapters.cli.common import add_store_option, print_json, store_of


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "init",
        help="make the store (a SQLite file and its directories, or a PostgreSQL schema's "
        "tables and insert function)",
        description="Make the store, or create what it lacks, under a lock (PostgreSQL: "
        "an advisory lock), so it is safe to run at any time and from many processes. "
        "Prints whether anything was created. The other commands never make a store "
        "where there is none (the writing ones do with --create).",
    )
    parser.add_argument(
        "path",
        nargs="?",
        default=None,
        metavar="PATH",
        help="the store (a SQLite path or a postgresql:// URL); default: --store, else the "
        "configuration's store, else $CANDIDATES_STORE, else ./var/candidates.sqlite",
    )
    add_store_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.path is not None:  # the store named here wins over --store and the configuration
        args.store = args.path
    with store_of(args, create=True) as store:
        shown = re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", store.url)  # never print a password
        print_json({"store": shown, "created": store.created, "events": store.last_seq()})
    return 0
