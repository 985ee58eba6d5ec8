"""The generated command reference and schemas agree with the engine and with what runs.

- ``docs/commands.md`` and ``docs/schema/`` are what ``make docs`` writes now.
- Every declared refusal code is a code of ``engine.errors``; every refusal a
  scenario expects is one its command declares.
- The commands schema says yes exactly when ``parse_command`` does, on every
  command line of ``tests/scenarios/`` and every example of the reference.
- The query objects of the 2013 event (every game, the standings after each
  round, the crosstable, the pairings) validate against the queries schema.
  (Every gateway frame is validated by ``tests/gateway_support.Peer``.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from adapters.formats.replay_log import import_log, read_log
from adapters.store import open_store
from adapters.store.queries import (
    crosstable_object,
    game_object,
    needs_object,
    pairings_object,
    standings_object,
)
from engine.command_ids import command_identity
from engine.commands import REGISTRY, parse_command, refusal_codes
from engine.errors import MalformedCommand
from tests.gateway_support import CLIENT_FRAME, check_server_frame
from tools import reference
from tools.sample import SAMPLE_LOG

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "tests" / "scenarios"


def _registry() -> Registry:
    resources = [
        (reference.SCHEMA_ID + name, Resource.from_contents(schema))
        for name, schema in reference.schemas().items()
    ]
    return Registry().with_resources(resources)


def validator(file: str, definition: str | None = None) -> Draft202012Validator:
    """A validator of one schema file (or one of its ``$defs``), references resolved."""
    schema: dict[str, Any] = reference.schemas()[file]
    if definition is not None:
        schema = {"$ref": f"{reference.SCHEMA_ID}{file}#/$defs/{definition}"}
    return Draft202012Validator(schema, registry=_registry())


def test_generated_docs_are_up_to_date() -> None:
    for rel, text in reference.generated_files().items():
        path = ROOT / rel
        assert path.exists(), f"{rel} is missing: run make docs"
        assert path.read_text(encoding="utf-8") == text, f"{rel} is out of date: run make docs"


def test_schemas_are_valid_json_schemas() -> None:
    for schema in reference.schemas().values():
        Draft202012Validator.check_schema(schema)


def test_every_command_is_in_the_reference_with_its_refusals() -> None:
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    codes = refusal_codes()
    for name, spec in REGISTRY.items():
        assert f"## `{name}`" in text
        for refusal in spec.all_refusals():
            assert refusal.code in codes
            assert f"| `{refusal.code}` |" in text


def _scenario_lines() -> list[tuple[str, int, dict[str, Any]]]:
    out = []
    for path in sorted(SCENARIOS.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip() and not line.startswith("#"):
                out.append((path.stem, number, json.loads(line)))
    return out


def _mutations(raw: dict[str, Any]) -> list[dict[str, Any]]:
    """The example broken one way at a time: a field dropped, emptied, mistyped, one added."""
    out = [{**raw, "colour_of_the_sky": "blue"}, {**raw, "cmd": "fly"}]
    for key, value in raw.items():
        if key == "cmd":
            continue
        out.append({k: v for k, v in raw.items() if k != key})
        out.append({**raw, key: [] if not isinstance(value, list) else "x"})
        out.append({**raw, key: ""})
        out.append({**raw, key: True})
        out.append({**raw, key: 2**60})
        out.append({**raw, key: None})
    return out


def test_the_schema_accepts_exactly_what_the_engine_parses() -> None:
    """Every scenario command, every example and every example broken one way:
    schema-valid iff ``parse_command`` reads it."""
    check = validator("commands.schema.json")
    lines = _scenario_lines()
    for spec in REGISTRY.values():
        lines.append(("example", 0, reference.example(spec)))
        lines += [("mutant", 0, m) for m in _mutations(reference.example(spec))]
    assert len(lines) > 500
    for spec in list(REGISTRY.values())[:5]:  # a command_id, good and bad, on any command
        raw = reference.example(spec)
        lines += [("command_id", 0, {**raw, "command_id": v}) for v in ("c-1", "", "a\nb", 7)]
    for where, number, raw in lines:
        try:
            parse_command(command_identity(raw)[0])  # the store takes command_id off first
            parsed = True
        except MalformedCommand:
            parsed = False
        errors = [e.message for e in check.iter_errors(raw)]
        assert parsed == (not errors), (where, number, raw.get("cmd"), errors)


def test_examples_are_valid_commands() -> None:
    for spec in REGISTRY.values():
        assert parse_command(reference.example(spec)).cmd == spec.name


def test_refusals_seen_in_scenarios_are_declared() -> None:
    """A refusal the scenarios expect is one its command's reference lists."""
    seen = 0
    for path in sorted(SCENARIOS.glob("*.expected.json")):
        for answer in json.loads(path.read_text(encoding="utf-8"))["answers"]:
            if answer["ok"] or answer["cmd"] not in REGISTRY:
                continue
            declared = {r.code for r in REGISTRY[answer["cmd"]].all_refusals()}
            assert answer["error"]["code"] in declared, (path.name, answer)
            seen += 1
    assert seen > 5


def test_malformed_schema_rejections_name_the_field() -> None:
    check = validator("commands.schema.json")
    errors = list(check.iter_errors({"cmd": "resign", "game": "1.1", "at": "2013-03-15T14:00Z"}))
    assert any("'by' is a required property" in e.message for e in errors)
    errors = list(check.iter_errors({"cmd": "resign", "game": "1.1", "by": "w", "at": "x"}))
    assert len(errors) == 2


@pytest.fixture(scope="module")
def event_2013(tmp_path_factory: pytest.TempPathFactory):
    store = open_store(str(tmp_path_factory.mktemp("ref") / "e.sqlite"))
    import_log(store, read_log(SAMPLE_LOG))
    yield store
    store.close()


def test_query_objects_of_the_2013_event_match_the_schema(event_2013) -> None:
    store = event_2013
    games = validator("queries.schema.json", "game")
    tournament = store.reads.tournament()
    assert tournament is not None
    for game_id in sorted(tournament.pairings()):
        games.validate(game_object(store.reads, game_id))
    standings = validator("queries.schema.json", "standings")
    for after in range(0, 15):
        standings.validate(standings_object(store.reads, after))
    validator("queries.schema.json", "crosstable").validate(crosstable_object(store.reads))
    validator("queries.schema.json", "pairings").validate(pairings_object(store.reads))
    needs = validator("queries.schema.json", "needs")
    for after in (12, 13, 14):  # every combination of two rounds, one round, none left
        needs.validate(needs_object(store.reads, after)[0])


def test_the_query_objects_of_the_2013_event_are_values_of_their_types(event_2013) -> None:
    """What the schemas are generated from holds what the projections build: msgspec reads
    each object as its declared type, every field checked (as a kept state is loaded)."""
    store = event_2013
    types = reference.QUERY_OBJECTS
    for game_id in sorted(store.reads.tournament().pairings()):
        msgspec.convert(game_object(store.reads, game_id), types["game"])
    for after in range(0, 15):
        msgspec.convert(standings_object(store.reads, after), types["standings"])
    msgspec.convert(crosstable_object(store.reads), types["crosstable"])
    msgspec.convert(pairings_object(store.reads), types["pairings"])
    msgspec.convert(needs_object(store.reads, 13)[0], types["needs"])
    with pytest.raises(msgspec.ValidationError, match="status"):
        msgspec.convert({**game_object(store.reads, "1.1"), "status": "paused"}, types["game"])


def test_a_wrong_game_object_is_refused_by_the_schema(event_2013) -> None:
    games = validator("queries.schema.json", "game")
    good = game_object(event_2013.reads, "1.1")
    assert games.is_valid(good)
    assert not games.is_valid({**good, "status": "paused"})
    assert not games.is_valid({k: v for k, v in good.items() if k != "fen"})


def test_the_gateway_tests_check_every_frame_against_the_schema() -> None:
    """``tests/gateway_support`` refuses a frame outside the frames schema."""
    check_server_frame({"op": "pong", "id": "1"})
    with pytest.raises(AssertionError, match="outside the schema"):
        check_server_frame({"op": "snapshot", "seq": 3})
    with pytest.raises(AssertionError, match="outside the schema"):
        check_server_frame({"op": "result", "id": "c1", "ok": False})
    assert CLIENT_FRAME.is_valid({"op": "subscribe", "games": ["1.1"], "since": 4})
    assert not CLIENT_FRAME.is_valid({"op": "subscribe", "games": "all"})
