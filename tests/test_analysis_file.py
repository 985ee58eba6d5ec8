"""Where a SQLite store's evaluations are kept (docs/analysis.md, "Kept beside the store"):
a database file of their own beside the store's, ``<store file>-analyses``, with the
analysis' own position, so that the analysis never writes the store's file (never takes
its write lock, never wakes its followers). An older store, which kept them in its own
file, still opens: its evaluations are read there until the analysis copies them beside
it, ids and all; ``candidates analyse --drop`` drops both.

Real parts: SQLite files, Stockfish within a small node budget (skipped where it is not
installed), ``candidates analyse`` as a process of its own.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from adapters.analysis.service import Analyser, line_positions
from adapters.analysis.table import (
    KEPT_NAME,
    AnalysisRow,
    SQLiteAnalyses,
    analyses_file,
    analysis_table,
)
from adapters.store import Store
from adapters.store.kept import kept_recorder
from engine.events import game_stream
from projections.evaluation import Evaluation
from tests.helpers import paired_tournament
from tests.test_analysis import ENGINE, SMALL, analyse_cli, needs_engine, play


def rows(url: str, after_id: int = 0) -> list[AnalysisRow]:
    """What a gateway reads: the evaluations after ``after_id``."""
    with Store(url) as store:
        table = analysis_table(store)
        try:
            return table.since(after_id)
        finally:
            table.close()


def tables(path: Path) -> set[str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def data_version(conn: sqlite3.Connection) -> int:
    """Changes each time another connection commits to the database."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def older_store(store: Store, plies: int) -> list[Evaluation]:
    """The layout before the file of their own: the first ``plies`` positions of 1.1
    evaluated in the store's own file (table ``analyses``), the analysis' position kept
    there too."""
    _, positions = line_positions("london-2013", "1.1", store.cache.stream(game_stream("1.1")))
    evaluations = [
        Evaluation(p.ply, p.fen, 20 - p.ply, None, (300, 600, 100), (), (), 12, 20_000, p.at_ms)
        for p in positions[:plies]
    ]
    old = SQLiteAnalyses(store.app.recorder.datastore)
    for evaluation in evaluations:
        assert old.insert("london-2013", "1.1", evaluation, 1_000)
    kept_recorder(store).save(KEPT_NAME, store.last_seq(), b"\x80")
    return evaluations


@needs_engine
def test_the_evaluations_and_the_position_are_beside_the_store_never_in_it(
    sqlite_store: Store,
) -> None:
    paired_tournament(sqlite_store)
    play(sqlite_store, "1.1", ["e4", "e5", "Nf3"])
    database = Path(sqlite_store.url)
    watcher = sqlite3.connect(database)
    before = data_version(watcher)
    Analyser(sqlite_store.url, SMALL, ENGINE, until_idle=True).run(threading.Event())
    assert data_version(watcher) == before  # the analysis committed nothing to the store
    assert "analyses" not in tables(database)
    assert kept_recorder(sqlite_store).load(KEPT_NAME) is None
    beside = database.with_name("store.sqlite-analyses")
    assert analyses_file(sqlite_store.app.recorder.datastore) == beside
    assert {"analyses", "tracking", "kept_projections"} <= tables(beside)
    assert sorted(r.evaluation.ply for r in rows(sqlite_store.url)) == [0, 1, 2, 3]


def test_an_older_store_is_read_in_its_own_file_and_reading_makes_no_file(
    sqlite_store: Store,
) -> None:
    paired_tournament(sqlite_store)
    play(sqlite_store, "1.1", ["e4", "e5", "Nf3"])
    older_store(sqlite_store, 2)
    found = rows(sqlite_store.url)
    assert [(r.id, r.evaluation.ply) for r in found] == [(1, 0), (2, 1)]
    assert not Path(sqlite_store.url + "-analyses").exists()  # a gateway only reads


@needs_engine
def test_an_older_stores_evaluations_move_beside_it_and_are_not_evaluated_again(
    sqlite_store: Store,
) -> None:
    paired_tournament(sqlite_store)
    play(sqlite_store, "1.1", ["e4", "e5", "Nf3"])
    old = older_store(sqlite_store, 2)
    analyser = Analyser(sqlite_store.url, SMALL, ENGINE, until_idle=True)
    assert analyser.run(threading.Event())
    assert analyser.counters.analysed == 2  # plies 2 and 3: 0 and 1 came with the store
    moved = rows(sqlite_store.url)
    assert [(r.id, r.evaluation) for r in moved[:2]] == [(1, old[0]), (2, old[1])]
    # a gateway that had read the older table up to id 2 goes on with the new rows
    assert sorted(r.evaluation.ply for r in rows(sqlite_store.url, after_id=2)) == [2, 3]


def test_drop_drops_the_files_evaluations_and_an_older_stores(sqlite_store: Store) -> None:
    paired_tournament(sqlite_store)
    play(sqlite_store, "1.1", ["e4", "e5", "Nf3"])
    older_store(sqlite_store, 3)
    table = analysis_table(sqlite_store)
    table.set_up()  # the older store's three copied beside it
    table.kept().save(KEPT_NAME, sqlite_store.last_seq(), b"\x80")
    table.close()
    done = analyse_cli(sqlite_store.url, "--drop")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"dropped": 3}
    assert rows(sqlite_store.url) == []
    assert "analyses" not in tables(Path(sqlite_store.url))  # not copied back by the next run
    assert kept_recorder(sqlite_store).load(KEPT_NAME) is None
    table = analysis_table(sqlite_store)
    assert table.kept().load(KEPT_NAME) is None
    table.close()
