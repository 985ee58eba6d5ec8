"""The ``candidates`` command line.

Each module of this package whose name starts with ``cmd_`` adds its
subcommands through ``register(subparsers)``; a subcommand's handler takes
the parsed arguments and returns the exit status. ``--store`` (a SQLite path
or a ``postgresql://`` URL) defaults to ``$CANDIDATES_STORE``, else
``./var/candidates.sqlite``; ``--tournament ID`` picks one of a store's
tournaments (default: its only one). ``--config FILE`` (or ``$CANDIDATES_CONFIG``)
reads the hall's one configuration file (``adapters.cli.hall_config``): what the
command line leaves out is taken from it.

No subcommand ends in a traceback: a refusal, a file that cannot be read or
written, text that is not UTF-8 or is nested too deeply, all end with one
``candidates: ...`` line on stderr and exit status 2 (``tests/test_cli_inputs.py``).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from adapters.cli.hall_config import ConfigError, apply_config
from engine.errors import CommandRefused


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="candidates",
        description="A live, event-sourced engine for the FIDE Candidates Tournament.",
    )
    parser.add_argument(
        "--store",
        default=None,
        help="SQLite path or postgresql:// URL (default: $CANDIDATES_STORE, "
        "else ./var/candidates.sqlite)",
    )
    parser.add_argument(
        "--tournament",
        default=None,
        metavar="ID",
        help="the tournament of a store that holds several (default: the store's only one)",
    )
    parser.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="the hall's configuration (TOML: store, tokens, delays, board groups; "
        "docs/operations.md); default: $CANDIDATES_CONFIG. Options given here win over it",
    )
    parser.add_argument(
        "--future-tolerance",
        type=float,
        default=None,
        metavar="SECONDS",
        help="refuse commands dated more than this after they are received "
        "(default: $CANDIDATES_FUTURE_TOLERANCE_S, else 300)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("cmd_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        apply_config(args)
    except ConfigError as error:
        return fail(str(error))
    try:
        status: int = args.func(args)
    except CommandRefused as refused:
        print(f"candidates: {refused.message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # a file that cannot be read or written: name it, no traceback
        return fail(f"{exc.filename!r}: {exc.strerror}" if exc.filename else str(exc))
    except UnicodeError as exc:
        return fail(f"the input is not UTF-8 text ({exc})")
    except RecursionError:
        return fail("the input is nested too deeply to be read")
    return status


def fail(message: str) -> int:
    print(f"candidates: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
