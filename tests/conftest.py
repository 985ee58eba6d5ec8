"""Shared fixtures: a store on every backend, the engine in memory.

``world`` is the engine's World in memory (tests/world.py): rule tests run on it.

``store_url`` runs a test once on SQLite (a fresh file) and once on
PostgreSQL when ``CANDIDATES_TEST_PG`` names a server (``.ci/run`` sets it);
without it the PostgreSQL case is reported as skipped. Each PostgreSQL test
gets a schema of its own, dropped afterwards, so runs never share tables.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from adapters.store import Store
from tests.helpers import at, ok, paired_tournament
from tests.world import World

PG_URL = os.environ.get("CANDIDATES_TEST_PG")

LONGEST_FIRST = (
    "tests/test_operations.py",
    "tests/test_demo.py",
    "tests/test_history_checker.py",
    "tests/test_scenario_full_event.py",
    "tests/test_dgt_serial.py",
    "tests/test_clock_truth_imports.py",
    "tests/test_kills.py",
    "tests/test_pg_setup.py",
    "tests/test_kept_projections.py",
    "tests/test_scenarios.py",
)
"""The modules holding the longest single units of work (a test, or a module or class
that ``--dist loadscope`` keeps on one worker), in the order they are handed out: one
started last would leave the other workers idle while it finishes alone. Only the order
changes; each module's own order is kept (the full event's steps run in order)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {module: i for i, module in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


def _pg_schema_url(base: str) -> Iterator[str]:
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    sep = "&" if "?" in base else "?"
    try:
        yield f"{base}{sep}schema={schema}"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """A fresh, empty store URL on each backend."""
    if request.param == "sqlite":
        yield str(tmp_path / "store.sqlite")
        return
    if not PG_URL:
        pytest.skip("CANDIDATES_TEST_PG is not set: PostgreSQL tests skipped")
    yield from _pg_schema_url(PG_URL)


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with Store(store_url) as s:
        yield s


@pytest.fixture
def world() -> World:
    """The engine alone, in memory (tests/world.py): for tests about rules, not backends."""
    return World()


@pytest.fixture
def sqlite_store(tmp_path) -> Iterator[Store]:
    """A fresh SQLite store only (for tests that are about rules, not backends)."""
    with Store(str(tmp_path / "store.sqlite")) as s:
        yield s


@pytest.fixture
def started(sqlite_store: Store) -> Store:
    """A SQLite store with the paired 2013 field and game 1.1 started (a test that needs
    a move played too overrides it, asking for this one)."""
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    return sqlite_store
