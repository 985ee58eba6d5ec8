"""One field vocabulary for commands, qualification files and bids (engine/fields.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from adapters.store import Store
from engine import fields
from engine.commands import parse_command
from engine.errors import MalformedCommand
from engine.qualification.bidding import check_bid
from engine.qualification.inputs import parse_qualification
from engine.side import Side


def test_a_checker_names_the_place_and_returns_the_typed_value() -> None:
    assert fields.text("field 'game'", "1.1") == "1.1"
    assert fields.words("players[0].name", "  Carlsen ") == "Carlsen"
    assert fields.whole("hotel.stars", Decimal("5")) == 5
    assert fields.side("field 'by'", "black") is Side.BLACK
    assert fields.identifier("field 'claim'", 2) == "2"
    assert fields.optional(fields.whole, "x", None) is None
    with pytest.raises(MalformedCommand, match=r"^players\[0\].name must be a non-empty string"):
        fields.words("players[0].name", "   ")
    with pytest.raises(MalformedCommand, match=r"^field 'game' must be a non-empty string"):
        fields.text("field 'game'", "")


@pytest.mark.parametrize(
    "value", [Decimal("2790.5"), Decimal("Infinity"), Decimal("NaN"), 2790.0, True, "2790"]
)
def test_a_whole_number_has_no_fraction(value: object) -> None:
    with pytest.raises(MalformedCommand, match="rating must be a whole number"):
        fields.whole("rating", value)


def test_unknown_keys_are_named_sorted() -> None:
    fields.refuse_unknown_keys("hotel", {"name": "x"}, ("name", "stars"))
    with pytest.raises(MalformedCommand, match=r"^hotel: unknown field\(s\) \['a', 'z'\]$"):
        fields.refuse_unknown_keys("hotel", {"z": 1, "name": "x", "a": 2}, ("name",))


def test_the_three_inputs_word_the_same_fault_alike() -> None:
    """A flag that is not true or false: a command, a qualification file, a bid."""
    with pytest.raises(MalformedCommand, match="field 'check_federations' must be true or false"):
        parse_command({"cmd": "draw_lots", "tournament": "t", "seed": "s", "check_federations": 1})
    with pytest.raises(MalformedCommand, match=r"july_2011.inactive must be true or false, got 1"):
        parse_qualification(
            {
                "players": [{"id": "p", "july_2011": {"rating": 2700, "inactive": 1}}],
                "world_cup_2011": ["p", "p", "p"],
                "world_championship_match_2012": {"champion": "p", "challenger": "p"},
            }
        )
    with pytest.raises(MalformedCommand, match="registered_post must be true or false, got 1"):
        check_bid({"registered_post": 1})


def test_an_integer_out_of_range_inside_an_object_or_a_list_is_refused(tmp_path) -> None:
    """A raise_alert whose details hold 2**64 is refused as malformed, and nothing is
    stored (the store's hash chain packs events as msgpack, 64-bit integers at most)."""
    with Store(str(tmp_path / "s.sqlite")) as store:
        answer = store.handle(
            {
                "cmd": "raise_alert",
                "board": "13001",
                "kind": "board_disconnected",
                "message": "m",
                "at": "2013-03-15T14:00:00Z",
                "details": {"seen": [1, {"n": 2**64}]},
            }
        )
        assert answer["ok"] is False and answer["error"]["code"] == "malformed_command"
        assert "out of range" in answer["error"]["message"] and store.cache.count() == 0
