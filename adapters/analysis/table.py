"""The evaluations, kept beside the store: the table ``analyses`` in its own database.

An evaluation is derived data, not an event of the record: it is never appended
to the log, never sealed nor audited. It is kept in the store's own database
(the same SQLite file, the same PostgreSQL schema) in a table of its own, one
row per position of a game (``tournament``, ``game``, ``ply``, ``fen``: a
corrected line's positions are other rows), numbered in the order written
(``id``), so a gateway reads the rows after the last it read as it reads the
log. A position is written once: a second write of it changes nothing
(``INSERT ... ON CONFLICT DO NOTHING``), so an analyser that restarts never
stores a position twice. ``drop`` removes them all (``candidates analyse
--drop``): they are rebuilt by the next analysis.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Protocol

from eventsourcing.persistence import IntegrityError
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore
from psycopg.sql import SQL, Composed, Identifier

from adapters.store import Store
from adapters.store.kept import advisory_lock
from projections.evaluation import Evaluation

TABLE = "analyses"
COLUMNS = (
    "tournament, game, ply, fen, at_ms, cp, mate, wdl_win, wdl_draw, wdl_loss, "
    "pv, pv_san, depth, nodes, analysed_at_ms"
)
SETUP_LOCK = "candidates: set up the analyses of {schema}"


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

    def drop(self) -> int: ...


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
    """``analyses`` in the store's SQLite file."""

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
        if self.exists():
            return
        with (
            contextlib.suppress(IntegrityError),
            self.datastore.transaction(commit=True) as c,
        ):
            c.execute(
                f"CREATE TABLE IF NOT EXISTS {TABLE} (id INTEGER PRIMARY KEY AUTOINCREMENT, "
                "tournament TEXT NOT NULL, game TEXT NOT NULL, ply INTEGER NOT NULL, "
                "fen TEXT NOT NULL, at_ms INTEGER NOT NULL, cp INTEGER, mate INTEGER, "
                "wdl_win INTEGER NOT NULL, wdl_draw INTEGER NOT NULL, wdl_loss INTEGER NOT NULL, "
                "pv TEXT NOT NULL, pv_san TEXT NOT NULL, depth INTEGER NOT NULL, "
                "nodes INTEGER NOT NULL, analysed_at_ms INTEGER NOT NULL, "
                "UNIQUE (tournament, game, ply, fen))"
            )
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

    def drop(self) -> int:
        if not self.exists():
            return 0
        count = self.count()
        with self.datastore.transaction(commit=True) as c:
            c.execute(f"DROP TABLE {TABLE}")
        self.ready = False
        return count


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

    def drop(self) -> int:
        if not self.exists():
            return 0
        count = self.count()
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(self._sql("DROP TABLE {table}"))
        self.ready = False
        return count


def analysis_table(store: Store) -> AnalysisTable:
    """The analyses of a store, in its own database (through the same connections)."""
    recorder = store.app.recorder
    if isinstance(recorder, PostgresApplicationRecorder):
        return PostgresAnalyses(recorder.datastore)
    if isinstance(recorder, SQLiteApplicationRecorder):
        return SQLiteAnalyses(recorder.datastore)
    raise TypeError(f"no analyses beside {type(recorder).__name__}")  # pragma: no cover
