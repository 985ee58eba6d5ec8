"""Commands of a small event with ids, and a CLI run killed right after a commit.

``event_commands`` gives the commands of a short event (the tournament, two games
with moves, clock readings, an illegal move recorded), each with a
``command_id``, as ``candidates apply`` lines. ``run_killed`` runs the real CLI
in a subprocess that kills itself with SIGKILL right after its Nth commit: after
the transaction and before the answer is printed, the window where a client
cannot know whether its command was applied.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.helpers import ARBITERS, PLAYERS_2013, at

MOVES = "d4 Nf6 c4 e6 Nc3 Bb4 Qc2 O-O a3 Bxc3+ Qxc3 b6 Bg5 Bb7 f3 h6 Bh4 d5 e3 Nbd7".split()


def event_commands(readings: int = 20) -> list[dict[str, Any]]:
    """Every command carries ``command_id`` (``c<line>``)."""
    commands: list[dict[str, Any]] = [
        {
            "cmd": "create_tournament",
            "tournament": "london-2013",
            "name": "FIDE Candidates Tournament 2013",
            "rules": "candidates-2012",
            "start_date": "2013-03-13",
            "cycles": 2,
            "players": PLAYERS_2013,
            "arbiters": ARBITERS,
        },
        {
            "cmd": "draw_lots",
            "tournament": "london-2013",
            "numbers": {p["id"]: i for i, p in enumerate(PLAYERS_2013, start=1)},
        },
        {"cmd": "start_game", "game": "1.1", "at": at(0)},
        {"cmd": "start_game", "game": "1.2", "at": at(0)},
    ]
    for ply, move in enumerate(MOVES, start=1):
        seconds = 10 * ply
        commands.append(
            {"cmd": "play_move", "game": "1.1", "move": move, "at": at(seconds), "ply": ply}
        )
        if ply <= readings:
            commands.append(
                {
                    "cmd": "clock_reading",
                    "game": "1.2",
                    "at": at(seconds),
                    "white_ms": 7_200_000 - 1000 * seconds,
                    "black_ms": 7_200_000,
                    "running": "white",
                }
            )
    commands.append(
        {
            "cmd": "record_illegal_move",
            "game": "1.2",
            "by": "white",
            "arbiter": "chief",
            "at": at(10 * len(MOVES) + 5),
        }
    )
    return [{**c, "command_id": f"c{i}"} for i, c in enumerate(commands, start=1)]


def write_commands(path: Path, commands: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(c) + "\n" for c in commands), encoding="utf-8")
    return path


KILLER = """
import os, signal, sys
from adapters import store as store_module

kill_at = int(sys.argv[1])
commits = 0
original = store_module.Store.append


def append(self, events):
    global commits
    ids = original(self, events)
    if ids and not self.chain._sealing:
        commits += 1
        if commits == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)  # committed; the answer is never printed
    return ids


store_module.Store.append = append
from adapters.cli import main

sys.exit(main(sys.argv[2:]))
"""


def run_cli(args: list[str], kill_after_commit: int = 0, timeout: float = 120) -> Any:
    """``candidates ARGS`` in a subprocess; with ``kill_after_commit`` N it dies by
    SIGKILL right after its Nth commit (returncode -9)."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if kill_after_commit:
        argv = [sys.executable, "-c", KILLER, str(kill_after_commit), *args]
    else:
        argv = [sys.executable, "-m", "adapters.cli", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)


KILLED = -signal.SIGKILL


def recorded(store_url: str) -> list[tuple[str, int, str, dict[str, Any]]]:
    """Every stored event but the seals: (stream, version, type, fields)."""
    from adapters.chain import event_fields
    from adapters.store import Store

    with Store(store_url) as store:
        return [
            (e.originator_id, e.originator_version, e.kind, {"at_ms": e.at_ms, **event_fields(e)})
            for _, e in store.events_since(0)
            if e.kind != "ChainSealed"
        ]
