"""Helpers shared by the subcommands: opening the store, printing JSON."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from adapters.store import Store, open_store


def store_of(args: argparse.Namespace) -> Store:
    return open_store(getattr(args, "store", None), getattr(args, "future_tolerance", None))


def add_store_option(parser: argparse.ArgumentParser) -> None:
    """``--store`` after the subcommand too (``candidates game 1.1 --store X``)."""
    parser.add_argument("--store", default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def print_json(obj: Any, *, pretty: bool = False) -> None:
    text = json.dumps(obj, ensure_ascii=False, indent=2 if pretty else None, sort_keys=False)
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):  # text the terminal cannot show: escape it
        text = json.dumps(obj, ensure_ascii=True, indent=2 if pretty else None)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
