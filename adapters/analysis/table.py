"""The evaluations, kept beside the store: the table ``analyses``.

An evaluation is derived data, not an event of the record: never appended to the
log, sealed or audited. One row per position of a game, numbered in the order
written, so a gateway reads the rows after the last it read as it reads the log; a
position is written once, so a restarted analyser never stores it twice. On SQLite
the table is a file of its own beside the store's (``<store>-analyses``), so an
evaluation never takes the store's write lock nor makes a move wait; on PostgreSQL
it is in the store's schema (docs/analysis.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore
from psycopg.sql import SQL, Composed, Identifier

from adapters.store import Store
from adapters.store.kept import (
    KeptRecorder,
    PostgresKeptRecorder,
    SQLiteKeptRecorder,
    advisory_lock,
)
from adapters.store.sqlite_files import beside, database_file
from projections.evaluation import Evaluation

TABLE = "analyses"
COLUMNS = (
    "tournament, game, ply, fen, at_ms, cp, mate, wdl_win, wdl_draw, wdl_loss, "
    "pv, pv_san, depth, nodes, analysed_at_ms"
)
SETUP_LOCK = "candidates: set up the analyses of {schema}"
KEPT_NAME = "analysis"
"""The analysis' own position in the log, a kept projection (``adapters.store.kept``) kept
where its evaluations are."""
FILE_SUFFIX = "-analyses"
"""A SQLite store's evaluations are in ``<store file>-analyses`` (``analyses_file``)."""
LOCK_TIMEOUT_S = 10
"""How long a write to the analyses' file waits for another writer of it (as the store's)."""
SQLITE_CREATE = (
    f"CREATE TABLE {TABLE} (id INTEGER PRIMARY KEY AUTOINCREMENT, "
    "tournament TEXT NOT NULL, game TEXT NOT NULL, ply INTEGER NOT NULL, "
    "fen TEXT NOT NULL, at_ms INTEGER NOT NULL, cp INTEGER, mate INTEGER, "
    "wdl_win INTEGER NOT NULL, wdl_draw INTEGER NOT NULL, wdl_loss INTEGER NOT NULL, "
    "pv TEXT NOT NULL, pv_san TEXT NOT NULL, depth INTEGER NOT NULL, "
    "nodes INTEGER NOT NULL, analysed_at_ms INTEGER NOT NULL, "
    "UNIQUE (tournament, game, ply, fen))"
)


@dataclass(frozen=True)
class AnalysisRow:
    """One stored evaluation: which game's position, and the verdict."""

    id: int
    tournament: str
    game: str
    evaluation: Evaluation
    analysed_at_ms: int


class AnalysisTable(Protocol):
    def set_up(self) -> None: ...

    def exists(self) -> bool: ...

    def insert(
        self, tournament: str, game: str, evaluation: Evaluation, analysed_at_ms: int
    ) -> bool: ...

    def since(self, after_id: int, limit: int = 1000) -> list[AnalysisRow]: ...

    def positions(self, tournament: str, game: str) -> set[tuple[int, str]]: ...

    def count(self) -> int: ...

    def kept(self) -> KeptRecorder:
        """Where the analysis keeps its own position (``KEPT_NAME``): beside its rows."""
        ...

    def drop(self) -> int:
        """Every evaluation and the analysis' position dropped; how many evaluations."""
        ...

    def close(self) -> None: ...


def _values(tournament: str, game: str, e: Evaluation, analysed_at_ms: int) -> tuple[Any, ...]:
    return (
        tournament,
        game,
        e.ply,
        e.fen,
        e.at_ms,
        e.cp,
        e.mate,
        *e.wdl,
        " ".join(e.pv),
        " ".join(e.pv_san),
        e.depth,
        e.nodes,
        analysed_at_ms,
    )


def _row(r: Any) -> AnalysisRow:
    (rid, tournament, game, ply, fen, at_ms, cp, mate, win, draw, loss) = r[:11]
    pv, pv_san, depth, nodes, analysed = r[11:16]
    evaluation = Evaluation(
        int(ply),
        str(fen),
        None if cp is None else int(cp),
        None if mate is None else int(mate),
        (int(win), int(draw), int(loss)),
        tuple(str(pv).split()),
        tuple(str(pv_san).split()),
        int(depth),
        int(nodes),
        int(at_ms),
    )
    return AnalysisRow(int(rid), str(tournament), str(game), evaluation, int(analysed))


class SQLiteAnalyses:
    """``analyses`` in one SQLite database (the file beside the store, or the store's own
    database: in memory, or an older store's)."""

    def __init__(self, datastore: SQLiteDatastore) -> None:
        self.datastore = datastore
        self.ready = False

    def exists(self) -> bool:
        if not self.ready:
            with self.datastore.transaction(commit=False) as c:
                c.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", (TABLE,))
                self.ready = c.fetchone()[0] == 1
        return self.ready

    def set_up(self) -> None:
        if not self.exists():
            self.create()

    def create(self, rows: Sequence[AnalysisRow] = ()) -> None:
        """The table with ``rows`` (their ids kept), in one transaction that holds the
        write lock from its start: another process setting it up at once waits, then
        finds it whole and adds nothing."""
        with self.datastore.get_connection(commit=True) as conn:
            c = conn.cursor().sqlite_cursor
            c.execute("BEGIN IMMEDIATE")
            try:
                c.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", (TABLE,))
                if c.fetchone()[0] == 0:
                    c.execute(SQLITE_CREATE)
                    c.executemany(
                        f"INSERT INTO {TABLE} (id, {COLUMNS}) VALUES ({', '.join('?' * 16)})",
                        [
                            (r.id, *_values(r.tournament, r.game, r.evaluation, r.analysed_at_ms))
                            for r in rows
                        ],
                    )
                c.execute("COMMIT")
            except BaseException:
                if c.connection.in_transaction:
                    c.execute("ROLLBACK")
                raise
        self.ready = True

    def insert(
        self, tournament: str, game: str, evaluation: Evaluation, analysed_at_ms: int
    ) -> bool:
        self.set_up()
        with self.datastore.transaction(commit=True) as c:
            c.execute(
                f"INSERT INTO {TABLE} ({COLUMNS}) VALUES ({', '.join('?' * 15)}) "
                "ON CONFLICT DO NOTHING",
                _values(tournament, game, evaluation, analysed_at_ms),
            )
            return bool(c.sqlite_cursor.rowcount)

    def since(self, after_id: int, limit: int = 1000) -> list[AnalysisRow]:
        """The rows after ``after_id``, at most ``limit`` (-1: all)."""
        if not self.exists():
            return []
        with self.datastore.transaction(commit=False) as c:
            c.execute(
                f"SELECT id, {COLUMNS} FROM {TABLE} WHERE id > ? ORDER BY id LIMIT ?",
                (after_id, limit),
            )
            return [_row(r) for r in c.fetchall()]

    def positions(self, tournament: str, game: str) -> set[tuple[int, str]]:
        if not self.exists():
            return set()
        with self.datastore.transaction(commit=False) as c:
            c.execute(
                f"SELECT ply, fen FROM {TABLE} WHERE tournament = ? AND game = ?",
                (tournament, game),
            )
            return {(int(r[0]), str(r[1])) for r in c.fetchall()}

    def count(self) -> int:
        if not self.exists():
            return 0
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT count(*) FROM {TABLE}")
            return int(c.fetchone()[0])

    def kept(self) -> KeptRecorder:
        return SQLiteKeptRecorder(self.datastore)

    def drop(self) -> int:
        count = 0
        if self.exists():
            count = self.count()
            with self.datastore.transaction(commit=True) as c:
                c.execute(f"DROP TABLE {TABLE}")
            self.ready = False
        self.kept().drop(KEPT_NAME)
        return count

    def close(self) -> None:
        """The connections are the store's: it closes them."""


class SQLiteAnalysesFile:
    """The analyses of a SQLite store, in the file beside it (``analyses_file``): the
    store's own file is only read, for an older store's table until ``set_up`` copied it."""

    def __init__(self, store: SQLiteDatastore, path: Path) -> None:
        self.path = path
        self.legacy = SQLiteAnalyses(store)
        """An older store's table, in the store's own file."""
        self._own: SQLiteAnalyses | None = None

    def own(self, create: bool = False) -> SQLiteAnalyses | None:
        """The table in the file beside the store, once the file is there (or made, with
        ``create``): a gateway that only reads never makes it."""
        if self._own is None and (create or self.path.exists()):
            self._own = SQLiteAnalyses(SQLiteDatastore(str(self.path), lock_timeout=LOCK_TIMEOUT_S))
        return self._own

    def _made(self) -> SQLiteAnalyses:
        own = self.own(create=True)
        assert own is not None
        return own

    def _reading(self) -> SQLiteAnalyses:
        """The table beside the store; an older store's own until that one is set up."""
        own = self.own()
        if own is not None and own.exists():
            return own
        return self.legacy

    def set_up(self) -> None:
        own = self._made()
        if own.exists():
            return
        own.create(self.legacy.since(0, -1))  # an older store's evaluations move with their ids

    def exists(self) -> bool:
        return self._reading().exists()

    def insert(
        self, tournament: str, game: str, evaluation: Evaluation, analysed_at_ms: int
    ) -> bool:
        self.set_up()
        return self._made().insert(tournament, game, evaluation, analysed_at_ms)

    def since(self, after_id: int, limit: int = 1000) -> list[AnalysisRow]:
        return self._reading().since(after_id, limit)

    def positions(self, tournament: str, game: str) -> set[tuple[int, str]]:
        return self._reading().positions(tournament, game)

    def count(self) -> int:
        return self._reading().count()

    def kept(self) -> KeptRecorder:
        return self._made().kept()

    def drop(self) -> int:
        """Both tables (the file's, and an older store's, which would be copied again)."""
        count = self.count()
        own = self.own()
        if own is not None:
            own.drop()
        self.legacy.drop()
        return count

    def close(self) -> None:
        if self._own is not None:
            self._own.datastore.close()
            self._own = None


class PostgresAnalyses:
    """``analyses`` in the store's PostgreSQL schema."""

    def __init__(self, datastore: PostgresDatastore) -> None:
        self.datastore = datastore
        self.table = Identifier(datastore.schema, TABLE)
        self.ready = False

    def _sql(self, text: str) -> Composed:
        return SQL(text).format(table=self.table)

    def exists(self) -> bool:
        if not self.ready:
            with self.datastore.get_connection() as conn:
                row = conn.execute(
                    "SELECT to_regclass(%s) IS NOT NULL AS ready",
                    (f"{self.datastore.schema}.{TABLE}",),
                ).fetchone()
                self.ready = row is not None and bool(row["ready"])
        return self.ready

    def set_up(self) -> None:
        if self.exists():
            return
        with advisory_lock(self.datastore, SETUP_LOCK) as conn:
            conn.execute(
                self._sql(
                    "CREATE TABLE IF NOT EXISTS {table} (id bigserial PRIMARY KEY, "
                    "tournament text NOT NULL, game text NOT NULL, ply integer NOT NULL, "
                    "fen text NOT NULL, at_ms bigint NOT NULL, cp integer, mate integer, "
                    "wdl_win integer NOT NULL, wdl_draw integer NOT NULL, "
                    "wdl_loss integer NOT NULL, pv text NOT NULL, pv_san text NOT NULL, "
                    "depth integer NOT NULL, nodes bigint NOT NULL, "
                    "analysed_at_ms bigint NOT NULL, UNIQUE (tournament, game, ply, fen))"
                )
            )
            conn.commit()
        self.ready = True

    def insert(
        self, tournament: str, game: str, evaluation: Evaluation, analysed_at_ms: int
    ) -> bool:
        self.set_up()
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(
                self._sql(
                    f"INSERT INTO {{table}} ({COLUMNS}) VALUES ({', '.join(['%s'] * 15)}) "
                    "ON CONFLICT DO NOTHING"
                ),
                _values(tournament, game, evaluation, analysed_at_ms),
            )
            return bool(curs.rowcount)

    def since(self, after_id: int, limit: int = 1000) -> list[AnalysisRow]:
        if not self.exists():
            return []
        with self.datastore.transaction(commit=False) as curs:
            rows = curs.execute(
                self._sql(
                    f"SELECT id, {COLUMNS} FROM {{table}} WHERE id > %s ORDER BY id LIMIT %s"
                ),
                (after_id, limit),
            ).fetchall()
        return [_row(list(r.values())) for r in rows]

    def positions(self, tournament: str, game: str) -> set[tuple[int, str]]:
        if not self.exists():
            return set()
        with self.datastore.transaction(commit=False) as curs:
            rows = curs.execute(
                self._sql("SELECT ply, fen FROM {table} WHERE tournament = %s AND game = %s"),
                (tournament, game),
            ).fetchall()
        return {(int(r["ply"]), str(r["fen"])) for r in rows}

    def count(self) -> int:
        if not self.exists():
            return 0
        with self.datastore.transaction(commit=False) as curs:
            row = curs.execute(self._sql("SELECT count(*) AS n FROM {table}")).fetchone()
        return int(row["n"]) if row else 0

    def kept(self) -> KeptRecorder:
        return PostgresKeptRecorder(self.datastore)

    def drop(self) -> int:
        count = 0
        if self.exists():
            count = self.count()
            with self.datastore.transaction(commit=True) as curs:
                curs.execute(self._sql("DROP TABLE {table}"))
            self.ready = False
        self.kept().drop(KEPT_NAME)
        return count

    def close(self) -> None:
        """The connections are the store's: it closes them."""


def analyses_file(store: SQLiteDatastore) -> Path | None:
    """The file of a SQLite store's analyses, ``<store file>-analyses`` beside it; None for
    a store in memory (or named by a URI), whose analyses stay in its own database."""
    database = database_file(store)
    return beside(database, FILE_SUFFIX) if database is not None else None


def analysis_table(store: Store) -> AnalysisTable:
    """The analyses of a store: in the file beside it on SQLite, in its schema on
    PostgreSQL. ``close()`` it before the store."""
    recorder = store.app.recorder
    if isinstance(recorder, PostgresApplicationRecorder):
        return PostgresAnalyses(recorder.datastore)
    if isinstance(recorder, SQLiteApplicationRecorder):
        path = analyses_file(recorder.datastore)
        if path is None:
            return SQLiteAnalyses(recorder.datastore)
        return SQLiteAnalysesFile(recorder.datastore, path)
    raise TypeError(f"no analyses beside {type(recorder).__name__}")  # pragma: no cover
