"""``candidates event-pgn``: the whole event as PGN with ``[%clk]``, and its crosstable."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from adapters.cli.cmd_tournament import render_crosstable, render_standings
from adapters.cli.common import add_store_option, store_of
from adapters.formats.event_export import store_event_pgn
from adapters.store import Store
from adapters.store.queries import crosstable_object, standings_object
from projections.names import Names


def store_crosstable(store: Store) -> str:
    """The final standings (3.6.1, 3.7 a-c) and the crosstable, as the arbiters print them."""
    return (
        render_standings(
            standings_object(store.reads), Names.of(store.reads.tournament()).displayed()
        )
        + "\n\n"
        + render_crosstable(crosstable_object(store.reads))
        + "\n"
    )


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "event-pgn",
        help="every game as PGN with [%%clk], and the crosstable",
        description="Write every game of the event (round and board order) as PGN with the "
        "mover's clock after each move, and the crosstable as organisers publish it.",
    )
    parser.add_argument("--out", default="-", help="the PGN file (default: standard output)")
    parser.add_argument("--crosstable", default=None, metavar="FILE", help="write it there too")
    parser.add_argument(
        "--site", default=None, help="the PGN Site tag (default: the tournament's site)"
    )
    add_store_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        text = store_event_pgn(store.reads, args.site)
        table = store_crosstable(store)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
    if args.crosstable == "-":
        sys.stdout.write(table)
    elif args.crosstable:
        Path(args.crosstable).write_text(table, encoding="utf-8")
    return 0
