"""``kill -9`` at the worst moments, on SQLite and PostgreSQL.

- ``candidates apply`` killed right after a commit, before its answer: re-running
  the whole file (every command has a ``command_id``) finishes the work, answers
  every line as an uninterrupted run does, and stores exactly its events.
- ``candidates import-log`` killed inside its one transaction, or at any time:
  the store is empty or complete, never partial, and a retry succeeds.
- ``candidates import-pgn`` killed inside a game's insert: no half game.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import chess.pgn
import pytest

from adapters.formats.replay_log import read_log, write_log
from adapters.store import Store
from tests.reliability_support import KILLED, event_commands, recorded, run_cli, write_commands

SAMPLE = Path(__file__).resolve().parents[1] / "replay_logs" / "candidates-2013.msgpack"
PGN = Path(__file__).resolve().parents[1] / "replay_logs" / "sources" / "candidates-2013.pgn"
MAX_KILLS = 10
PART = 5000
"""Records of the sample in the log the import kills use (a whole log of its own)."""


@pytest.fixture(scope="module")
def part_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """The sample's first 5,000 records as a whole log: every stream a prefix of its
    own, so every link holds; its trailer counts and digests them."""
    sample = read_log(SAMPLE)
    path = tmp_path_factory.mktemp("logs") / "part.msgpack"
    with open(path, "wb") as handle:
        write_log(handle, sample.header, sample.records[:PART])
    return path, PART


def answers(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_apply_killed_after_commits_is_finished_by_running_the_file_again(
    store_url: str, tmp_path: Path
) -> None:
    commands = event_commands()
    path = write_commands(tmp_path / "event.jsonl", commands)
    reference = str(tmp_path / "reference.sqlite")
    clean = run_cli(["--store", reference, "apply", "--create", str(path)])
    assert clean.returncode == 0, clean.stderr
    kills = 0
    rng = random.Random(17)
    while True:
        step = rng.randint(1, 6) if kills < MAX_KILLS else 0
        run = run_cli(
            ["--store", store_url, "apply", "--create", str(path)],
            kill=("commit", step, 0) if step else None,
        )
        if run.returncode != KILLED:
            break
        kills += 1
        assert "Traceback" not in run.stderr
    assert kills >= 5, "the file ended before enough kills"
    assert run.returncode == 0, run.stderr
    assert answers(run.stdout) == answers(clean.stdout)  # the same answer for every line
    assert recorded(store_url) == recorded(reference)  # nothing twice, nothing lost


def test_import_log_killed_inside_its_transaction_leaves_the_store_empty(
    store_url: str, part_log: tuple[Path, int]
) -> None:
    path, total = part_log
    args = ["--store", store_url, "import-log", "--create", str(path)]
    kills = [("insert", 1, 0.02), ("insert", 1, 0.1), ("timer", 0, 0.4), ("timer", 0, 0.9)]
    for kill in kills:  # SQLite: rows written, no commit; PostgreSQL: mid-statement; any time
        run = run_cli(args, kill=kill)
        with Store(store_url) as store:
            count = store.last_seq() and store.cache.count()
        assert count in (0, total), (kill, count)
        assert "Traceback" not in run.stderr
        if count:
            break  # the one statement completed before the kill: whole
        assert run.returncode == KILLED
    if not count:
        done = run_cli(args)
        assert done.returncode == 0, done.stderr
    with Store(store_url) as store:
        assert store.cache.count() == total


def test_import_pgn_killed_inside_a_games_insert_never_leaves_half_a_game(
    store_url: str,
) -> None:
    with open(PGN, encoding="utf-8") as handle:
        plies = []
        while (game := chess.pgn.read_game(handle)) is not None:
            plies.append(len(list(game.mainline_moves())))
    for n in (1, 2, 20):  # the tournament's insert, then games' inserts
        run = run_cli(
            ["--store", store_url, "import-pgn", "--create", str(PGN)], kill=("insert", n, 0.001)
        )
        assert run.returncode in (KILLED, 0)
        with Store(store_url) as store:
            tournament = store.reads.tournament()
            if store.last_seq():
                assert tournament is not None and tournament.numbers is not None
            for game_id in store.reads.game_ids():
                game = store.reads.game(game_id)
                assert game is not None and game.status == "finished", game_id
    done = run_cli(["--store", store_url, "import-pgn", "--create", str(PGN)])
    assert done.returncode == 0, done.stderr
    with Store(store_url) as store:
        stored = sorted(store.reads.game(g).ply for g in store.reads.game_ids())  # type: ignore[union-attr]
    assert stored == sorted(plies)
