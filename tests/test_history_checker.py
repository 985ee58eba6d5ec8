"""A short run of the history checker (tests/history_checker.py; ``make history`` runs
200 histories on each store): writers, a board reader and resuming subscribers on one
store, with kills of a writer, a gateway and the database, every history checked
against the log. The figures of the long run are in docs/scale.md."""

from __future__ import annotations

import pytest

from tests.conftest import PG_URL
from tests.history_checker import run_histories, summary

HISTORIES = 2


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_every_history_holds_the_consistency_rule(backend: str) -> None:
    if backend == "postgresql" and not PG_URL:
        pytest.skip("CANDIDATES_TEST_PG is not set: PostgreSQL tests skipped")
    outcomes = run_histories(HISTORIES, backend, first_seed=101, seconds=3.0)
    assert len(outcomes) == HISTORIES
    assert all(o.sent and o.events and o.segments for o in outcomes), summary(outcomes)
    anomalies = [a for o in outcomes for a in o.anomalies]
    assert not anomalies, "\n".join(anomalies[:20])
