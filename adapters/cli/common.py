"""Helpers shared by the subcommands: opening the store, printing JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from adapters.host import public_delay
from adapters.store import Store, open_store, store_url
from adapters.store.store_file import not_a_store
from engine.errors import MalformedCommand

CREATE_FLAG = "--create"
"""A writing command creates the store only when told (a mistyped ``--store`` is refused)."""
MAKE_ONE = "make one with `candidates init {path}`"


READ_COMMANDS = frozenset(
    {
        "audit",
        "clocks",
        "crosstable",
        "event-pgn",
        "export",
        "game",
        "incidents",
        "needs",
        "pairings",
        "pgn",
        "prizes",
        "report",
        "schedule",
        "standings",
        "trf",
    }
)
"""The commands that only read a store: they open a SQLite store read-only
(``adapters.store.store_file``), so they never write to it and work on a copy on a
read-only filesystem or in a read-only file (evidence audited where it lies)."""


def store_of(args: argparse.Namespace, *, create: bool = False) -> Store:
    """The store the command names. Unless ``create`` (``init``, or a writing command's
    ``--create``), a SQLite path where there is no store is refused and nothing is
    created there; ``args.create`` is that flag where the command has it. A file that is
    not a store is refused either way, in one line, before it is opened. A read
    command (``READ_COMMANDS``) opens the store read-only."""
    url = store_url(getattr(args, "store", None))
    creating = create or getattr(args, "create", False)
    if not creating:
        require_existing_store(url, writes=hasattr(args, "create"))
    elif is_sqlite_path(url) and Path(url).is_file():
        refuse_what_is_not_a_store(url, empty_ok=True)
    read_only = (
        not creating and is_sqlite_path(url) and getattr(args, "command", None) in (READ_COMMANDS)
    )
    return open_store(
        url,
        getattr(args, "future_tolerance", None),
        tournament=getattr(args, "tournament", None),
        read_only=read_only,
    )


def is_sqlite_path(url: str) -> bool:
    """Whether ``url`` names a SQLite file (not PostgreSQL, not a database in memory)."""
    return not url.startswith(("postgresql://", "postgres://")) and url != ":memory:"


def require_existing_store(url: str, *, writes: bool = False) -> None:
    """MalformedCommand when ``url`` is a SQLite path with no file (a mistyped ``--store``),
    saying how to make one (``writes``: the command has ``--create``), or a file that is
    not a store (``adapters.store.store_file.not_a_store``: nothing is written to it)."""
    if not is_sqlite_path(url):
        return
    if not Path(url).is_file():
        how = MAKE_ONE.format(path=url) + (f" or pass {CREATE_FLAG}" if writes else "")
        raise MalformedCommand(f"no store at {url} ({how})")
    refuse_what_is_not_a_store(url)


def refuse_what_is_not_a_store(url: str, *, empty_ok: bool = False) -> None:
    """MalformedCommand in one line when the file at ``url`` is not a store."""
    why = not_a_store(url, empty_ok=empty_ok)
    if why is not None:
        raise MalformedCommand(f"{url} is not a candidates store: {why}")


def add_create_option(parser: argparse.ArgumentParser) -> None:
    """``--create``: a writing command may create a store where there is none."""
    parser.add_argument(
        CREATE_FLAG,
        action="store_true",
        help="make the store if there is none (without it, a SQLite path with no store is "
        "refused and nothing is made there: a mistyped --store)",
    )


def readable_file(path: str | Path, what: str = "") -> Path:
    """``path`` when it is a file this process can read; else MalformedCommand in one line
    that names it and why (``what``: the option that gave it, e.g. ``--players``), before
    anything else is done (no store created, no server started)."""
    file = Path(path)
    label = f"{what} {path}" if what else str(path)
    try:
        with file.open("rb"):
            pass
    except OSError as error:
        raise MalformedCommand(f"{label}: cannot read the file ({error.strerror})") from None
    return file


def add_store_option(parser: argparse.ArgumentParser) -> None:
    """``--store`` and ``--tournament`` after the subcommand too
    (``candidates game 1.1 --store X --tournament womens``)."""
    parser.add_argument("--store", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    if "--tournament" not in parser._option_string_actions:  # qualify has its own
        parser.add_argument("--tournament", default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def add_public_delay_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--public-delay-s SECONDS`` (``adapters.host.public_delay``): ``args.public_delay_s``,
    0 or more seconds."""
    parser.add_argument(
        public_delay.FLAG,
        dest="public_delay_s",
        type=_public_delay_s,
        default=float(public_delay.DEFAULT_S),
        metavar="SECONDS",
        help=f"{help_text} (default {public_delay.DEFAULT_S}; 0: none)",
    )


def _public_delay_s(text: str) -> float:
    try:
        seconds = float(text)
        public_delay.delay_ms(seconds)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, got {text!r}") from None
    return seconds


def print_json(obj: Any, *, pretty: bool = False) -> None:
    text = json.dumps(obj, ensure_ascii=False, indent=2 if pretty else None, sort_keys=False)
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):  # text the terminal cannot show: escape it
        text = json.dumps(obj, ensure_ascii=True, indent=2 if pretty else None)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
