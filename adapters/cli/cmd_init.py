"""``candidates init``: set up a store (explicitly; every open does it too, once)."""

from __future__ import annotations

import argparse
import re
from typing import Any

from adapters.cli.common import add_store_option, print_json, store_of


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "init",
        help="set up the store (tables; on PostgreSQL, its schema and insert function)",
        description="Create what the store needs if it is missing, under a lock (PostgreSQL: "
        "an advisory lock), so it is safe to run at any time and from many processes. "
        "Prints whether anything was created.",
    )
    add_store_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        shown = re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", store.url)  # never print a password
        print_json({"store": shown, "created": store.created, "events": store.last_seq()})
    return 0
