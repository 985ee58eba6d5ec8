"""The command line loads the module of the subcommand named, and only that one.

A command on a SQLite store never loads the PostgreSQL driver, the gateway or the
engine analysis (``adapters/cli/__init__.py``); ``candidates --help`` and a line the
quick look misreads still get the parser of every subcommand.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import adapters.cli as cli
from adapters.cli import COMMANDS, build_parser, command_named, main, parse_arguments

HEAVY = ("psycopg", "eventsourcing.postgres", "websockets", "adapters.gateway.server")


def registered(module_name: str) -> set[str]:
    sub = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(f"adapters.cli.{module_name}").register(sub)
    return set(sub.choices)


def test_the_table_names_every_command_of_every_module() -> None:
    modules = sorted(m.name for m in pkgutil.iter_modules(cli.__path__) if m.name[:4] == "cmd_")
    assert sorted(set(COMMANDS.values())) == modules
    for module_name in modules:
        assert registered(module_name) == {c for c, m in COMMANDS.items() if m == module_name}


def test_the_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    listed = capsys.readouterr().out
    for command in COMMANDS:
        assert f"\n    {command} " in listed, command


def test_the_command_is_the_first_word_past_the_global_options() -> None:
    assert command_named(["--store", "x.sqlite", "standings", "--json"]) == "standings"
    assert command_named(["--tournament", "init", "--config", "h.toml", "apply", "-"]) == "apply"
    assert command_named(["--store=x.sqlite", "game", "1.1"]) == "game"
    assert command_named(["--help"]) is None


def test_a_line_the_quick_look_misreads_is_parsed_by_the_whole_parser(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # --tourn is argparse's abbreviation of --tournament: its value looks like a command
    args = parse_arguments(["--tourn", "standings", "init", "--store", "x.sqlite"])
    assert (args.command, args.tournament) == ("init", "standings")
    with pytest.raises(SystemExit):
        parse_arguments(["standings", "--no-such-option"])
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_arguments(["no-such-command"])
    error = capsys.readouterr().err
    assert all(f"'{command}'" in error for command in COMMANDS), error


def test_a_command_on_a_sqlite_store_loads_no_driver_gateway_or_analysis(tmp_path: Path) -> None:
    store = str(tmp_path / "store.sqlite")
    probe = (
        "import sys\n"
        "from adapters.cli import main\n"
        f"main(['--store', {store!r}, 'init'])\n"
        f"main(['--store', {store!r}, 'standings'])\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
        "print('adapters.store.door' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    loaded, opened = done.stdout.strip().splitlines()[-2:]
    assert opened == "True"  # the store was opened: the driver had its chance to load
    assert loaded == "[]", done.stdout


def test_the_whole_parser_is_still_one_call() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == set(COMMANDS)
