"""The command registry: one declaration per command gives its wire form, its
decision and what a command reference needs; the JSON form is unchanged."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass
from typing import Any

import pytest

import engine.dispatch  # noqa: F401  (imports every chapter that declares commands)
from engine import fields
from engine.arbiter.penalties import penalty_form
from engine.commands import COMMON_NOTES, REGISTRY, Command, command, parse_command
from engine.errors import MalformedCommand, UnknownGame
from engine.events import Event
from engine.fields import Instant
from engine.game.moves import PlayMove
from engine.game.reconciliation import ClockReading
from engine.side import Side
from engine.tournament.tournament import ARBITER_ROLES
from tests.helpers import T0, T0_MS

SAMPLE: dict[object, object] = {
    fields.text: "x",
    fields.integer: 7,
    fields.number: 2.5,
    fields.boolean: True,
    fields.side: "black",
    fields.result: "1-0",
    fields.array: [1],
    fields.mapping: {"a": 1},
    fields.instant: T0,
    fields.identifier: 3,
    penalty_form: {"kind": "time_added", "side": "black", "ms": 60_000},
}

CONTRACT = {
    "create_tournament",
    "draw_lots",
    "start_game",
    "play_move",
    "resign",
    "withdraw",
    "start_playoff",
    "advance_playoff",
    "choose_colour",
    "declare_result",
    "claim_draw",
    "advise_claim",
    "rule_claim",
    "record_illegal_move",
    "offer_draw",
    "agree_draw",
    "clock_reading",
    "adjust_clock",
    "check_flags",
}


def full(name: str) -> dict[str, Any]:
    """A command with every field given a well-formed value."""
    return {"cmd": name, **{f.wire: SAMPLE[f.check] for f in REGISTRY[name].fields}}


def test_every_command_of_the_contract_is_declared_once() -> None:
    assert set(REGISTRY) >= CONTRACT
    assert len({spec.cls for spec in REGISTRY.values()}) == len(REGISTRY)
    for name, spec in REGISTRY.items():
        assert spec.cls.cmd == name


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_declaration_gives_what_a_command_reference_needs(name: str) -> None:
    spec = REGISTRY[name]
    assert spec.summary and "\n" not in spec.summary
    assert set(spec.roles) <= set(ARBITER_ROLES)
    assert all(issubclass(e, Event) for e in spec.events)
    if spec.in_time_order:
        assert {"game", "at"} <= {f.wire for f in spec.fields if f.required}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_the_wire_form_round_trips(name: str) -> None:
    cmd = parse_command(full(name))
    assert type(cmd) is REGISTRY[name].cls
    assert parse_command(cmd.to_wire()) == cmd
    with pytest.raises(FrozenInstanceError):
        cmd.__setattr__("by", "someone else")


def test_at_is_read_into_at_ms_and_fields_are_typed() -> None:
    cmd = parse_command(
        {"cmd": "play_move", "game": "1.1", "move": "e4", "at": T0, "white_ms": 5, "black_ms": 6}
    )
    assert cmd == PlayMove(game="1.1", move="e4", at_ms=T0_MS, white_ms=5, black_ms=6)
    assert cmd.to_wire()["at"] == T0 and "at_ms" not in cmd.to_wire()
    resigned = parse_command({"cmd": "resign", "game": "1.1", "by": "white", "at": T0})
    assert vars(resigned)["by"] is Side.WHITE


def test_an_optional_null_is_absent_and_its_default_applies() -> None:
    cmd = parse_command({"cmd": "play_move", "game": "1.1", "move": "e4", "at": T0, "by": None})
    assert isinstance(cmd, PlayMove) and cmd.by == "arbiter" and cmd.white_ms is None


def test_a_required_field_may_be_null_only_when_its_type_says_so() -> None:
    raw = {"cmd": "clock_reading", "game": "1.1", "at": T0, "white_ms": 1, "black_ms": 2}
    with pytest.raises(MalformedCommand, match="clock_reading: missing field 'running'"):
        parse_command(raw)
    stopped = parse_command({**raw, "running": None})
    assert isinstance(stopped, ClockReading) and stopped.running is None
    with pytest.raises(MalformedCommand, match="field 'game' must be a non-empty string, got None"):
        parse_command({**raw, "running": None, "game": None})


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "a command must be a JSON object, got list"),
        ({"game": "1.1"}, "a command needs a string field 'cmd'"),
        ({"cmd": "castle"}, "unknown command 'castle'; known commands: adjust_clock, "),
        ({"cmd": "resign", "game": "1.1", "at": T0}, "resign: missing field 'by'"),
        (
            {"cmd": "resign", "game": "1.1", "by": "white", "at": T0, "at_ms": 1, "x": 1},
            r"resign: unknown field\(s\) 'at_ms', 'x'",
        ),
        ({"cmd": "resign", "game": "1.1", "by": "red", "at": T0}, "'white' or 'black', got 'red'"),
        ({"cmd": "resign", "game": "1.1", "by": "white", "at": 5}, "field 'at' must be an ISO"),
        (
            {**full("declare_result"), "result": "2-0"},
            "field 'result' must be one of 1-0, 0-1, 1/2-1/2, \\*; got '2-0'",
        ),
        ({**full("check_flags"), "games": "1.1"}, "field 'games' must be a list"),
        ({**full("draw_lots"), "numbers": [1]}, "field 'numbers' must be an object"),
        ({**full("draw_lots"), "check_federations": 1}, "must be true or false, got 1"),
        ({**full("rule_claim"), "claim": True}, "must be a string or integer, got True"),
        ({**full("adjust_clock"), "delta_ms": 2**53}, r"out of range \(\|n\| <= 2\*\*53 - 1\)"),
    ],
)
def test_malformed_commands_keep_their_messages(raw: object, message: str) -> None:
    with pytest.raises(MalformedCommand, match=message):
        parse_command(raw)


class TestDeclaring:
    """A new command is one dataclass and one ``@command``; mistakes fail at import."""

    def test_a_new_command_is_parsed_and_decided_once_declared(self) -> None:
        @command(
            "note_for_test",
            summary="A note (test only).",
            events=(),
            refusals=((UnknownGame, "", "no such game"),),
            notes={"text": "the note", "at": "when the note was written"},
        )
        @dataclass(frozen=True, kw_only=True)
        class Note(Command):
            game: str
            at_ms: Instant
            text: str | None = None

            def decide(self, world: object) -> list[Event]:
                return []

        try:
            cmd = parse_command({"cmd": "note_for_test", "game": "1.1", "at": T0})
            assert cmd == Note(game="1.1", at_ms=T0_MS) and cmd.decide(None) == []
            # every command has the optional ``tournament`` of the Command base
            assert [(f.wire, f.required) for f in REGISTRY["note_for_test"].fields] == [
                ("tournament", False),
                ("game", True),
                ("at", True),
                ("text", False),
            ]
            spec = REGISTRY["note_for_test"]
            # its own notes, the common ones elsewhere; codes from the error classes
            assert [f.note for f in spec.fields][1:] == [
                COMMON_NOTES["game"],
                "when the note was written",
                "the note",
            ]
            assert [r.code for r in spec.refusals] == ["unknown_game"]
        finally:
            del REGISTRY["note_for_test"]

    def test_a_name_is_declared_once(self) -> None:
        with pytest.raises(TypeError, match="'resign' is declared twice"):

            @command("resign", summary="again")
            @dataclass(frozen=True, kw_only=True)
            class Again(Command):
                def decide(self, world: object) -> list[Event]:
                    return []

    def test_a_command_is_frozen_and_decides(self) -> None:
        with pytest.raises(TypeError, match="a command is a frozen dataclass"):

            @command("plain_for_test", summary="no")
            class Plain(Command):  # not declared a dataclass itself
                def decide(self, world: object) -> list[Event]:
                    return []

        with pytest.raises(TypeError, match="frozen"):

            @command("mutable_for_test", summary="no")
            @dataclass(kw_only=True)
            class Mutable(Command):
                def decide(self, world: object) -> list[Event]:
                    return []

        with pytest.raises(TypeError, match="declares its decision"):

            @command("undecided_for_test", summary="no")
            @dataclass(frozen=True, kw_only=True)
            class Undecided(Command):
                game: str

    def test_a_time_ordered_command_names_its_game_and_instant(self) -> None:
        with pytest.raises(TypeError, match="time-ordered command has required 'game' and 'at_ms'"):

            @command("untimed_for_test", summary="no", in_time_order=True)
            @dataclass(frozen=True, kw_only=True)
            class Untimed(Command):
                game: str

                def decide(self, world: object) -> list[Event]:
                    return []

    def test_every_field_has_its_meaning_declared_and_every_refusal_its_error_class(
        self,
    ) -> None:
        with pytest.raises(TypeError, match="field 'colour' has no note"):

            @command("mute_for_test", summary="no")
            @dataclass(frozen=True, kw_only=True)
            class Mute(Command):
                colour: str

                def decide(self, world: object) -> list[Event]:
                    return []

        with pytest.raises(TypeError, match="notes for fields it does not have"):

            @command("stray_for_test", summary="no", notes={"colour": "a colour"})
            @dataclass(frozen=True, kw_only=True)
            class Stray(Command):
                def decide(self, world: object) -> list[Event]:
                    return []

        with pytest.raises(TypeError, match="declared with errors of engine"):

            @command("coded_for_test", summary="no", refusals=(("unknown_game", "", "no"),))  # type: ignore[arg-type]
            @dataclass(frozen=True, kw_only=True)
            class Coded(Command):
                def decide(self, world: object) -> list[Event]:
                    return []

        assert not {n for n in REGISTRY if n.endswith("_for_test")}

    def test_a_field_type_without_a_checker_is_refused(self) -> None:
        with pytest.raises(TypeError, match="no field checker for type"):

            @command("complex_for_test", summary="no")
            @dataclass(frozen=True, kw_only=True)
            class Complex(Command):
                value: complex

                def decide(self, world: object) -> list[Event]:
                    return []

        assert not {n for n in REGISTRY if n.endswith("_for_test")}
