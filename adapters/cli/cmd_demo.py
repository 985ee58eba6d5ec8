"""``candidates demo``: the 2013 Candidates, imported into a fresh store and shown."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from adapters.cli.cmd_game import render_table
from adapters.pgn_import import import_pgn
from adapters.queries import game_object, game_pgn_text
from adapters.store import Store

REPLAY_LOGS = Path(__file__).resolve().parents[2] / "replay_logs"
SOURCE_PGN = REPLAY_LOGS / "sources" / "candidates-2013.pgn"


def register(sub: Any) -> None:
    demo = sub.add_parser("demo", help="import the 2013 Candidates into a fresh store and show it")
    demo.add_argument("--demo-store", default="./var/demo.sqlite", help="the store to (re)create")
    demo.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = Path(args.demo_store)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with Store(str(path)) as store:
        reports = import_pgn(store, SOURCE_PGN)
        imported = sum(r.status == "imported" for r in reports)
        print(f"Imported {imported} games of {SOURCE_PGN.name} into {path}")
        print()
        print(render_table(game_object(store, "1.1")))
        print()
        print(game_pgn_text(store, "1.1"))
    return 0
