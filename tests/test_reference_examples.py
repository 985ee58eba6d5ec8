"""Every example of ``docs/commands.md`` is sent to a store prepared as its "given" says
and answered as the reference prints; every refusal a command meets is one it declares.

The examples are read back from the committed ``docs/commands.md`` (not from the tables
that generate it), so what a reader copies is what is checked. The settings (what a
store holds before the example) are ``tools/examples.SETTINGS``, named in the reference
by their words.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from adapters.store import Store
from engine.commands import REGISTRY
from tests.world import World
from tools.examples import EXAMPLES, SETTINGS, Raw

ROOT = Path(__file__).resolve().parents[1]

SECTION = re.compile(r"^## `(?P<name>[a-z_]+)`$", re.M)
EXAMPLE = re.compile(
    r"^Example, given (?P<given>.+):\n\n    (?P<command>\{.*\})\n\nAnswer: (?P<answer>.+)$", re.M
)


def documented() -> dict[str, tuple[str, Raw, dict[str, Any]]]:
    """Command -> (its setting's name, the example, the answer) as docs/commands.md says."""
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    by_words = {s.words: name for name, s in SETTINGS.items()}
    found: dict[str, tuple[str, Raw, dict[str, Any]]] = {}
    starts = list(SECTION.finditer(text))
    for i, head in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        examples = list(EXAMPLE.finditer(text, head.end(), end))
        assert len(examples) == 1, f"{head['name']}: one example, with its answer"
        shown = examples[0]
        assert shown["given"] in by_words, f"{head['name']}: no setting {shown['given']!r}"
        answer = shown["answer"]
        if answer.startswith("`ok`, appending "):
            expected = {"ok": True, "events": re.findall(r"`([A-Za-z]+)`", answer[6:])}
        else:
            refused = re.fullmatch(r"refused, `([a-z_]+)` \(nothing appended\)\.", answer)
            assert refused, f"{head['name']}: an answer the test cannot read: {answer!r}"
            expected = {"ok": False, "code": refused[1]}
        found[head["name"]] = (by_words[shown["given"]], json.loads(shown["command"]), expected)
    return found


DOCUMENTED = documented()


def prepared(target: Store | World, setting: str) -> None:
    for raw in SETTINGS[setting].commands:
        answer = target.handle(raw)
        assert answer["ok"], (setting, raw, answer)


def test_every_command_has_one_example_in_the_reference() -> None:
    assert sorted(DOCUMENTED) == sorted(REGISTRY) == sorted(EXAMPLES)


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_the_example_gets_the_answer_the_reference_prints(name: str, tmp_path: Path) -> None:
    setting, raw, expected = DOCUMENTED[name]
    with Store(str(tmp_path / "store.sqlite")) as store:
        prepared(store, setting)
        before = store.cache.count()
        answer = store.handle(raw)
        if expected["ok"]:
            assert answer["ok"], answer
            assert [e["type"] for e in answer["events"]] == expected["events"]
            assert store.cache.count() == before + len(expected["events"])
        else:
            assert not answer["ok"] and answer["error"]["code"] == expected["code"], answer
            assert store.cache.count() == before


# -- what each command actually raises ----------------------------------------------------------

ELSEWHERE = {
    "game": ["1.2", "9.9", "P1-rapid-1.1", "P1-sudden_death-1"],
    "player": ["kramnik", "white", "nobody"],
    "arbiter": ["deputy", "advisor", "nobody"],
    "advisor": ["chief", "nobody"],
    "by": ["white", "black", "both", "nobody"],
    "side": ["white", "black"],
    "claim": [2],
    "tournament": ["match-2013", "london-2013"],
    "at": ["2013-03-14T09:00:00Z", "2013-03-15T14:00:00Z", "2013-03-15T23:00:00Z"],
    "ply": [1, 3, 9],
    "from_ply": [0, 9],
    "delta_ms": [0, -9_000_000],
    "seed": ["other"],
    "kind": ["other", "stalemate", "unknown_kind"],
    "decision": ["accepted", "not_fallen", "maybe"],
    "result": ["1-0", "*"],
    "colour": ["black"],
    "place": [2],
    "move": ["Ke2", "zz"],
    "white_ms": [-1],
    "moves": [["Qh5"], ["e4", "e5"]],
    "order": [[1, 1]],
    "numbers": [{"carlsen": 1}],
    "opinion": ["draw"],
    "satisfactory": [False],
    "accompanied_by": ["advisor", "chief"],
    "boards": [{"9": [1]}, {"1": [1, 1, 2, 3]}],
    "lot_winner": ["carlsen"],
    "penalty": ["warning", "expelled", {"kind": "time_added", "ms": 60000}],
    "running": [None],
    "intended_move": ["Qh5"],
    "termination": ["agreement"],
    "present": [[]],
    "time_control": ["bad"],
    "details": [{"seen": "nothing"}],
    "round": [2],
    "board": [9, "x"],
}
"""Other values of fields, each of the right type: a command in a state it does not fit."""


def variants(raw: Raw) -> list[Raw]:
    out = [raw]
    for key, values in ELSEWHERE.items():
        if key in raw:
            out += [{**raw, key: value} for value in values if value != raw[key]]
    return out


def test_every_refusal_a_command_meets_is_one_it_declares() -> None:
    """Every example, and variants of it (another game, player, arbiter, instant ...), sent
    in every setting: a refusal's code is one its command's reference lists."""
    worlds = {}
    for name in SETTINGS:
        worlds[name] = World()
        prepared(worlds[name], name)
    met: dict[str, set[str]] = {}
    for name, example in EXAMPLES.items():
        declared = {r.code for r in REGISTRY[name].all_refusals()}
        for setting, world in worlds.items():
            for raw in variants(example.command):
                answer = copy.deepcopy(world).handle(raw)
                if not answer["ok"]:
                    code = answer["error"]["code"]
                    assert code in declared, (name, setting, raw, answer["error"])
                    met.setdefault(name, set()).add(code)
    assert len(met) >= len(REGISTRY) - 1  # every command is refused somewhere
