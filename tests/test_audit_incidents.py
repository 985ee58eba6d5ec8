"""``candidates audit`` lists the incident book as arbiter rulings and checks it against
the games it changed (Laws 2009 6.7 a, 12.3 b, 13.4; 3.9.2 c).

A store written by the engine has no rule finding: every penalty, default and
clock deduction has its ruling. Events appended by hand (as a broken writer or
someone with write access would) are named: a penalty result with no incident,
an incident whose penalty does not fit its kind, a deduction naming an incident
that gave none.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.audit import INFO, INTEGRITY, RULE, audit_store
from adapters.store import Store
from engine.events import INCIDENTS_STREAM, ClockAdjusted, IncidentRecorded, ResultRecorded
from tests.cli import candidates
from tests.helpers import T0_MS

SCENARIO = Path(__file__).parent / "scenarios" / "incident_book_round_3.jsonl"


@pytest.fixture
def round_3(tmp_path: Path) -> str:
    path = str(tmp_path / "r3.sqlite")
    candidates("apply", "--create", str(SCENARIO), store=path)
    return path


def test_the_books_rulings_are_listed_and_explain_every_consequence(round_3: str) -> None:
    with Store(round_3) as store:
        report = audit_store(store)
    assert report.of(INTEGRITY) == [] and report.of(RULE) == []
    rulings = [f for f in report.of(INFO) if f.kind == "arbiter_ruling"]
    assert [f.record.type for f in rulings if f.record is not None] == [
        "DefaultRuled",
        "IncidentRecorded",
        "IncidentRecorded",
        "LeavePermitted",
        "PlayerReturned",
        "IncidentRecorded",
        "IncidentRecorded",
    ]
    assert rulings[1].message == (
        "chief: incident 1, device_sounded (Laws 2009 12.3 b) by gelfand in game 3.1, "
        "penalty game_lost"
    )
    assert not [f for f in report.findings if f.kind == "unknown_stream"]


def incident(version: int, **fields: object) -> IncidentRecorded:
    base: dict = {
        "incident": str(version),
        "kind": "disturbance",
        "article": "Laws 2009 12.6",
        "arbiter": "chief",
        "player": "aronian",
        "game": "1.1",
        "side": "white",
        "round": 1,
        "details": "by hand",
        "penalty": "warning",
    }
    base.update(fields)
    return IncidentRecorded(
        originator_id=INCIDENTS_STREAM,
        originator_version=version,
        at_ms=T0_MS + 60_000,
        by="chief",
        **base,
    )


def test_13_4_d_a_penalty_result_without_its_incident_is_named(started: Store) -> None:
    started.append(
        [
            ResultRecorded(
                originator_id="game/1.1",
                originator_version=2,
                at_ms=T0_MS + 60_000,
                by="chief",
                result="0-1",
                termination="penalty",
                reason="incident 9: device_sounded",
                arbiter="chief",
            )
        ]
    )
    found = [f for f in audit_store(started).of(RULE) if f.kind == "unexplained_penalty"]
    assert len(found) == 1 and "no incident in the book" in found[0].message


def test_12_3_b_an_incident_whose_penalty_does_not_fit_is_named(started: Store) -> None:
    started.append([incident(1, kind="device_sounded", article="Laws 2009 12.3 b")])
    found = [f for f in audit_store(started).of(RULE) if f.kind == "penalty_does_not_fit"]
    assert len(found) == 1 and "12.3 b" in found[0].message


def test_13_4_c_a_deduction_naming_an_incident_that_gave_none_is_named(started: Store) -> None:
    started.append(
        [
            incident(1),
            ClockAdjusted(
                originator_id="game/1.1",
                originator_version=2,
                at_ms=T0_MS + 60_000,
                by="chief",
                side="white",
                delta_ms=-600_000,
                reason="incident 1: disturbance (Laws 2009 12.6); Laws 2009 13.4 c",
                arbiter="chief",
            ),
        ]
    )
    found = [f for f in audit_store(started).of(RULE) if f.kind == "unexplained_penalty"]
    assert len(found) == 1 and "names incident 1" in found[0].message
