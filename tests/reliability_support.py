"""Commands of a small event with ids, and a CLI run killed right after a commit.

``event_commands`` gives the commands of a short event (the tournament, two games
with moves, clock readings, an illegal move recorded), each with a
``command_id``, as ``candidates apply`` lines. ``run_cli`` runs the real CLI in a
subprocess that may kill itself with SIGKILL at a chosen point: right after its
Nth commit (after the transaction, before the answer is printed: the window
where a client cannot know whether its command was applied), inside an insert,
or after a delay. Fault injection around the real store, not a mock.
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

MOVES = [
    "d4",
    "Nf6",
    "c4",
    "e6",
    "Nc3",
    "Bb4",
    "Qc2",
    "O-O",
    "a3",
    "Bxc3+",
    "Qxc3",
    "b6",
    "Bg5",
    "Bb7",
    "f3",
    "h6",
    "Bh4",
    "d5",
    "e3",
    "Nbd7",
]


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
import contextlib, os, signal, sys, threading

from eventsourcing.sqlite import SQLiteApplicationRecorder

from adapters.store.log_writer import SQLiteLogWriter
from adapters.store.writer import Writer

mode, n, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
postgres = any(a.startswith(("postgresql://", "postgres://")) for a in sys.argv[4:])
if postgres:  # the driver only for a PostgreSQL store, as the command line itself
    from adapters.store.postgres_log_writer import PostgresLogWriter
count = 0


def die():
    os.kill(os.getpid(), signal.SIGKILL)


if mode == "commit":  # right after the Nth commit: the answer is never printed
    original = Writer.insert

    def append(self, events, after, batch=None):
        global count
        inserted = original(self, events, after, batch)
        if inserted.ids and not self.chain._sealing:
            count += 1
            if count == n:
                die()
        return inserted

    Writer.insert = append
elif mode == "insert":  # inside the Nth insert: rows written, transaction not committed
    class DyingAfterRows:  # the writer's SQLite connection, killed once it wrote the rows

        def __init__(self, conn):
            self.conn = conn

        def __getattr__(self, name):
            return getattr(self.conn, name)

        def executemany(self, *args):
            global count
            result = self.conn.executemany(*args)
            count += 1
            if count == n:
                die()
            return result

    sqlite_connection = SQLiteLogWriter.connection

    @contextlib.contextmanager
    def dying_connection(self):
        with sqlite_connection(self) as conn:
            yield DyingAfterRows(conn)

    SQLiteLogWriter.connection = dying_connection
    sqlite_insert = SQLiteApplicationRecorder._insert_events

    def sqlite_rows(self, c, stored_events, **kwargs):
        global count
        result = sqlite_insert(self, c, stored_events, **kwargs)
        count += 1
        if count == n:
            die()
        return result

    SQLiteApplicationRecorder._insert_events = sqlite_rows

    def pg_counted(original):
        def insert(self, *args, **kwargs):
            global count
            count += 1
            if count == n:  # the insert is one statement: killed while the server runs it
                threading.Timer(delay, die).start()
            return original(self, *args, **kwargs)

        return insert

    if postgres:
        from eventsourcing.postgres import PostgresApplicationRecorder

        PostgresLogWriter.insert = pg_counted(PostgresLogWriter.insert)
        PostgresApplicationRecorder.insert_events = pg_counted(
            PostgresApplicationRecorder.insert_events
        )
elif mode == "timer":
    threading.Timer(delay, die).start()

from adapters.cli import main

sys.exit(main(sys.argv[4:]))
"""


def run_cli(
    args: list[str], kill: tuple[str, int, float] | None = None, timeout: float = 120
) -> Any:
    """``candidates ARGS`` in a subprocess. ``kill``: ``("commit", N, 0)`` dies by SIGKILL
    right after its Nth commit; ``("insert", N, delay)`` inside its Nth insert (SQLite:
    rows written, not committed; PostgreSQL: ``delay`` s into the statement);
    ``("timer", 0, delay)`` ``delay`` s after it started. A killed run returns -9."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if kill is not None:
        mode, n, delay = kill
        argv = [sys.executable, "-c", KILLER, mode, str(n), str(delay), *args]
    else:
        argv = [sys.executable, "-m", "adapters.cli", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)


KILLED = -signal.SIGKILL


def recorded(store_url: str) -> list[tuple[str, int, str, dict[str, Any]]]:
    """Every stored event but the seals: (stream, version, type, fields)."""
    from adapters.store import Store
    from adapters.store.chain import event_fields

    with Store(store_url) as store:
        return [
            (e.originator_id, e.originator_version, e.kind, {"at_ms": e.at_ms, **event_fields(e)})
            for _, e in store.cache.events_since(0)
            if e.kind != "ChainSealed"
        ]
