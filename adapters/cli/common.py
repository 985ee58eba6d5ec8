"""Helpers shared by the subcommands: opening the store, printing JSON."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from adapters.store import Store, open_store


def store_of(args: argparse.Namespace) -> Store:
    return open_store(
        getattr(args, "store", None),
        getattr(args, "future_tolerance", None),
        tournament=getattr(args, "tournament", None),
    )


def add_store_option(parser: argparse.ArgumentParser) -> None:
    """``--store`` and ``--tournament`` after the subcommand too
    (``candidates game 1.1 --store X --tournament womens``)."""
    parser.add_argument("--store", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    if "--tournament" not in parser._option_string_actions:  # qualify has its own
        parser.add_argument("--tournament", default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def print_json(obj: Any, *, pretty: bool = False) -> None:
    text = json.dumps(obj, ensure_ascii=False, indent=2 if pretty else None, sort_keys=False)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
