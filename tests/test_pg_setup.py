"""PostgreSQL set-up once: opening one store from many processes at once.

Every open used to run ``CREATE OR REPLACE FUNCTION``; two at once failed with
"tuple concurrently updated". The set-up now runs under an advisory lock and
only when something is missing (adapters/store/postgres.py, ``set_up_postgres``).
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import uuid
from typing import Any

import pytest

from adapters.store import Store
from tests.conftest import PG_URL

pytestmark = pytest.mark.skipif(not PG_URL, reason="CANDIDATES_TEST_PG is not set")
PROCESSES = 8
ROUNDS = int(os.environ.get("CANDIDATES_PG_OPEN_ROUNDS", "50"))


def _open(url: str, barrier: Any, results: Any) -> None:
    barrier.wait()
    try:
        with Store(url) as store:
            store.last_seq()
        results.put("ok")
    except Exception as exc:  # reported to the parent, which fails the test
        results.put(f"{type(exc).__name__}: {exc}")


def _drop(base: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def test_eight_processes_open_one_new_store_at_once_fifty_times() -> None:
    assert PG_URL
    context = multiprocessing.get_context("fork")
    failures: list[str] = []
    for _ in range(ROUNDS):
        schema = f"t_open_{uuid.uuid4().hex[:10]}"  # a new schema: every round sets up
        url = f"{PG_URL}{'&' if '?' in PG_URL else '?'}schema={schema}"
        barrier = context.Barrier(PROCESSES)
        results = context.Queue()
        workers = [
            context.Process(target=_open, args=(url, barrier, results)) for _ in range(PROCESSES)
        ]
        try:
            for worker in workers:
                worker.start()
            outcomes = [results.get(timeout=60) for _ in workers]
            for worker in workers:
                worker.join(60)
            failures.extend(o for o in outcomes if o != "ok")
        finally:
            _drop(PG_URL, schema)
    assert failures == []


def test_candidates_init_sets_up_once_and_says_so(tmp_path: Any) -> None:
    assert PG_URL
    schema = f"t_init_{uuid.uuid4().hex[:10]}"
    url = f"{PG_URL}{'&' if '?' in PG_URL else '?'}schema={schema}"
    try:
        runs = [
            subprocess.run(
                [sys.executable, "-m", "adapters.cli", "--store", url, "init"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            for _ in range(2)
        ]
        assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
        assert '"created": true' in runs[0].stdout
        assert '"created": false' in runs[1].stdout
    finally:
        _drop(PG_URL, schema)
