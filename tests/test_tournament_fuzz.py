"""Bad input to the tournament commands: a specific refusal, nothing appended, never a crash."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.store import Store
from tests.helpers import at
from tests.tournament_helpers import all_draws, event, play_rounds

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=12),
    st.text(max_size=12),
    st.sampled_from(["a", "b", "c", "chief", "white", "black", "P1-sudden_death-1", at(5)]),
    st.dictionaries(
        st.sampled_from(["a", "b", "c", "x"]), st.integers(-1, 4) | st.text(max_size=2)
    ),
    st.lists(st.integers(), max_size=3),
)
OUTCOMES: set[tuple[str, str]] = set()
FIELDS = {
    "draw_lots": ["tournament", "seed", "numbers", "check_federations", "at"],
    "withdraw": ["tournament", "player", "at", "reason", "arbiter"],
    "start_playoff": ["tournament", "arbiter", "at", "place", "seed", "numbers"],
    "advance_playoff": ["tournament", "arbiter", "at", "place", "seed", "numbers", "lot_winner"],
    "choose_colour": ["tournament", "game", "colour", "arbiter", "at"],
    "start_game": ["game", "at"],
}


@st.composite
def commands(draw: st.DrawFn) -> dict:
    name = draw(st.sampled_from(sorted(FIELDS)))
    cmd: dict = {"cmd": name}
    likely = {
        "tournament": "t",
        "arbiter": "chief",
        "at": at(5000),
        "player": "a",
        "reason": "ill",
        "seed": "s",
    }
    for field in FIELDS[name]:
        if field in likely and draw(st.integers(0, 4)):
            cmd[field] = likely[field]  # mostly well-formed, to reach the decisions
        elif draw(st.booleans()):
            cmd[field] = draw(VALUES)
    return cmd


def test_tournament_commands_never_crash() -> None:
    with tempfile.TemporaryDirectory() as tmp, Store(str(Path(tmp) / "s.sqlite")) as store:
        event(store, ["a", "b", "c"], cycles=1)
        play_rounds(store, all_draws)

        @settings(
            max_examples=300,
            derandomize=True,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture],
        )
        @given(sequence=st.lists(commands(), min_size=1, max_size=4))
        def run(sequence: list[dict]) -> None:
            for cmd in sequence:
                before = store.cache.count()
                answer = store.handle(cmd)
                # a refusal names the position it was decided at (docs/commands.md)
                assert set(answer) in ({"ok", "events"}, {"ok", "error", "seq"})
                OUTCOMES.add((cmd["cmd"], "ok" if answer["ok"] else answer["error"]["code"]))
                if not answer["ok"]:
                    assert answer["error"]["message"]
                    assert store.cache.count() == before
                    assert answer["seq"] == store.last_seq()

        run()
    # the decisions themselves were reached, not only the form checks
    assert ("start_playoff", "ok") in OUTCOMES
    assert ("withdraw", "rule_violation") in OUTCOMES or ("withdraw", "ok") in OUTCOMES
