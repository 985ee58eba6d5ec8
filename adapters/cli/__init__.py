"""The ``candidates`` command line.

Each ``cmd_*`` module registers its subcommands; only the module of the subcommand
named is imported (``COMMANDS``), so a command that reads a SQLite store starts
without loading the gateway, the analysis or the PostgreSQL driver. ``--store``,
``--tournament`` and ``--config`` (the hall's file, ``adapters.cli.hall_config``)
are global. No subcommand ends in a traceback: a refusal, an unreadable file or a
store that fails ends with one ``candidates: ...`` line on stderr and exit status 2
(README, "The command line")."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from adapters.cli.hall_config import ConfigError, apply_config
from engine.errors import CommandRefused

COMMANDS: dict[str, str] = {
    "analyse": "cmd_analyse",
    "apply": "cmd_apply",
    "audit": "cmd_audit",
    "bid-check": "cmd_qualify",
    "clocks": "cmd_game",
    "crosstable": "cmd_tournament",
    "demo": "cmd_demo",
    "dgt": "cmd_dgt",
    "event-pgn": "cmd_event_pgn",
    "export": "cmd_log",
    "founding": "cmd_founding",
    "game": "cmd_game",
    "import-log": "cmd_log",
    "import-pgn": "cmd_game",
    "incidents": "cmd_incidents",
    "init": "cmd_init",
    "kept": "cmd_kept",
    "needs": "cmd_needs",
    "pairings": "cmd_tournament",
    "pgn": "cmd_game",
    "prizes": "cmd_tournament",
    "qualify": "cmd_qualify",
    "replay": "cmd_replay",
    "report": "cmd_incidents",
    "schedule": "cmd_tournament",
    "seal": "cmd_log",
    "serve": "cmd_serve",
    "standings": "cmd_tournament",
    "trf": "cmd_tournament",
    "watch": "cmd_watch",
}
"""Each subcommand and the module of this package that registers it (tests/test_cli_start.py
checks the table against what the modules register)."""

GLOBAL_VALUE_OPTIONS = ("--store", "--tournament", "--config", "--future-tolerance")


class _Guessed(Exception):
    """The parser built for the subcommand named could not read the line."""


class _TrialParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _Guessed(message)


def command_named(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names, read as argparse would in the usual cases: the first
    word that is not a global option or its value. None when there is no such word."""
    words = iter(argv)
    for word in words:
        if word in GLOBAL_VALUE_OPTIONS:
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def build_parser(
    command: str | None = None, parser_class: type[argparse.ArgumentParser] | None = None
) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of ``command``'s module only when it is one."""
    parser = (parser_class or argparse.ArgumentParser)(
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
    names = [COMMANDS[command]] if command in COMMANDS else sorted(set(COMMANDS.values()))
    for name in names:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def parse_arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """``argv`` parsed with only the named subcommand's module loaded; on anything that
    parser cannot read, parsed again by the parser of every subcommand (its help, its
    error message)."""
    words = sys.argv[1:] if argv is None else list(argv)
    command = command_named(words)
    if command in COMMANDS:
        try:
            return build_parser(command, _TrialParser).parse_args(words)
        except _Guessed:
            pass
    return build_parser().parse_args(words)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_arguments(argv)
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
    except Exception as exc:  # the store's database failing (a full disk): one line
        from adapters.cli.store_trouble import store_trouble  # the store's, loaded by now

        said = store_trouble(exc)
        if said is None:
            raise
        return fail(said)
    return status


def fail(message: str) -> int:
    print(f"candidates: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
