"""Any command, well-formed or not, gets an answer of the contract and never
takes the engine down; a refused command appends nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.store import Store
from engine import fields as f
from engine.commands import REGISTRY
from tests.helpers import at, ok, paired_tournament

VALUES: dict[str, st.SearchStrategy[Any]] = {
    "game": st.sampled_from(["1.1"] * 6 + ["1.2", "8.4", "9.9", "x", "", "P1-rapid-1.1"]),
    "tournament": st.sampled_from(["london-2013", "other", ""]),
    "move": st.sampled_from(["e4", "e2e4", "d4", "Nf6", "g8f6", "O-O", "zz", "e1e8", "", "Qxf7#"]),
    "by": st.sampled_from(["white", "black", "both", "chief", "carlsen", "dgt:1", ""]),
    "side": st.sampled_from(["white", "black", "red", None]),
    "arbiter": st.sampled_from(["chief", "deputy", "advisor", "carlsen", "nobody"]),
    "advisor": st.sampled_from(["advisor", "chief", "nobody"]),
    "kind": st.sampled_from(
        [
            "threefold_repetition",
            "fifty_moves",
            "perpetual_check",
            "stalemate",
            "insufficient_material",
            "theoretical_draw",
            "agreement",
            "",
        ]
    ),
    "decision": st.sampled_from(["accepted", "rejected", "maybe"]),
    "result": st.sampled_from(["1-0", "0-1", "1/2-1/2", "*", "2-0"]),
    "at": st.integers(1, 4000).map(lambda s: at(s)),
    "claim": st.sampled_from([1, 2, "1", 99, -1]),
    "player": st.sampled_from(["carlsen", "kramnik", "ghost"]),
    "intended_move": st.sampled_from(["Nf3", "g1f3", "e4", "zz"]),
    "running": st.sampled_from(["white", "black", None]),
    "colour": st.sampled_from(["white", "black"]),
    "white": st.sampled_from(["aronian", "carlsen", "x"]),
    "black": st.sampled_from(["aronian", "carlsen", "y"]),
    "stage": st.sampled_from(["tournament", "rapid", "blitz", "sudden_death"]),
    "reason": st.sampled_from(["penalty", "draw agreed", "clock error", "x"]),
    "opinion": st.sampled_from(["draw", "not a draw", "unclear"]),
}
BY_CHECKER: dict[object, st.SearchStrategy[Any]] = {
    f.text: st.text(min_size=1, max_size=6),
    f.integer: st.integers(-5, 400_000),
    f.number: st.integers(-5, 3000),
    f.side: st.sampled_from(["white", "black"]),
    f.result: st.sampled_from(["1-0", "0-1", "1/2-1/2"]),
    f.identifier: st.integers(1, 3) | st.text(min_size=1, max_size=3),
}
GARBAGE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=3),
)


@st.composite
def commands(draw: st.DrawFn) -> dict[str, Any]:
    name = draw(st.sampled_from(sorted(REGISTRY)))
    raw: dict[str, Any] = {"cmd": name}
    for spec in REGISTRY[name].fields:
        field, checker = spec.wire, spec.check
        if not spec.required and draw(st.integers(0, 3)) > 0:
            continue
        if draw(st.integers(0, 39)) == 0:
            raw[field] = draw(GARBAGE | st.sampled_from(["never", "", 5]))
        elif field in VALUES:
            raw[field] = draw(VALUES[field])
        elif field.endswith("_ms"):
            raw[field] = draw(st.integers(-10_000, 10_000_000))
        elif spec.nullable and draw(st.booleans()):
            raw[field] = None
        elif checker in BY_CHECKER:
            raw[field] = draw(BY_CHECKER[checker])
        else:
            raw[field] = draw(GARBAGE)
    if draw(st.integers(0, 19)) == 0:
        raw["unexpected"] = 1
    return raw


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(commands(), min_size=1, max_size=25))
def test_every_command_gets_an_answer_and_refusals_append_nothing(
    batch: list[dict[str, Any]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp, Store(str(Path(tmp) / "s.sqlite")) as store:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        for raw in batch:
            before = store.cache.count()
            answer = store.handle(raw)
            assert isinstance(answer, dict) and isinstance(answer["ok"], bool), answer
            if answer["ok"]:
                assert isinstance(answer["events"], list)
            else:
                assert set(answer["error"]) == {"code", "message"}, answer
                assert answer["error"]["message"], answer
                assert store.cache.count() == before, (raw, answer)
