"""Any JSON in: a qualification or a bid report out, or MalformedCommand; never a crash."""

from __future__ import annotations

import contextlib
import copy
import json
from decimal import Decimal
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import CommandRefused
from engine.qualification.bidding import check_bid
from engine.qualification.inputs import parse_qualification
from engine.qualification.qualification import qualify

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**7)
    | st.decimals(allow_nan=False, allow_infinity=False, places=2)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


def paths(value, prefix=()):
    """Every (path) inside a JSON value, for mutation."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, (*prefix, i))


def mutated(original, data):
    doc = copy.deepcopy(original)
    all_paths = [p for p in paths(doc) if p]
    where = data.draw(st.sampled_from(all_paths))
    parent = doc
    for key in where[:-1]:
        parent = parent[key]
    parent[where[-1]] = data.draw(json_values)
    return doc


def load(name):
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"), parse_float=Decimal)


QUALIFICATION = load("qualification-2013-withdrawals.json")
BID = load("bid-guarantee.json")


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_mutated_qualification_file_qualifies_or_is_refused(data):
    raw = mutated(QUALIFICATION, data)
    try:
        result = qualify(parse_qualification(raw))
    except CommandRefused as refused:
        assert refused.message
        return
    assert len(result.field) <= 8


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_mutated_bid_is_checked_or_refused(data):
    raw = mutated(BID, data)
    try:
        report = check_bid(raw)
    except CommandRefused as refused:
        assert refused.message
        return
    assert report.items


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_any_json_at_all(value):
    for decide in (lambda v: qualify(parse_qualification(v)), check_bid):
        with contextlib.suppress(CommandRefused):
            decide(value)
