"""What a client asks, read without a socket (``adapters.gateway.requests``): every
subscribe and command frame either becomes the value the session acts on or is refused
with the code and message the client gets back (docs/protocol.md)."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.gateway.frames import FrameError
from adapters.gateway.requests import (
    MAX_FRAME_ID,
    MAX_GAMES,
    frame_id,
    frame_op,
    parse_command,
    parse_subscribe,
    shown,
)
from adapters.gateway.tokens import ANONYMOUS, parse_tokens

TOKENS = parse_tokens(
    {
        "chief-token": {"role": "arbiter", "name": "Chief", "arbiter": "chief"},
        "desk-token": {"role": "arbiter", "name": "Desk"},
        "studio-token": {"role": "commentator", "name": "Studio"},
    }
)
NAMES = {"open": "Open", "womens": "Women's"}


def refused(code: str, call: Any, *args: Any, **kwargs: Any) -> FrameError:
    with pytest.raises(FrameError) as caught:
        call(*args, **kwargs)
    assert caught.value.code == code, caught.value.message
    return caught.value


class TestOps:
    def test_the_three_ops_of_a_client(self) -> None:
        assert [frame_op({"op": op}) for op in ("subscribe", "command", "ping")] == [
            "subscribe",
            "command",
            "ping",
        ]

    def test_a_frame_that_is_not_a_map_or_names_no_known_op_is_refused(self) -> None:
        error = refused("malformed_frame", frame_op, ["subscribe"])
        assert "got list" in error.message
        error = refused("unknown_op", frame_op, {"op": "delete", "id": "q1"})
        assert error.frame_id == "q1" and "'delete'" in error.message

    def test_a_frame_id_is_echoed_only_when_it_is_short_text(self) -> None:
        assert frame_id({}, required=False) is None
        assert frame_id({"id": "a" * MAX_FRAME_ID}, required=True) == "a" * MAX_FRAME_ID
        refused("malformed_frame", frame_id, {"id": "a" * (MAX_FRAME_ID + 1)}, required=False)
        refused("malformed_frame", frame_id, {"id": 7}, required=False)
        refused("malformed_frame", frame_id, {}, required=True)

    def test_a_clients_value_is_shown_cut_short(self) -> None:
        assert shown("x" * 1000).endswith("...") and len(shown("x" * 1000)) == 80


class TestSubscribe:
    def test_no_token_is_the_public_every_game_of_every_tournament_afresh(self) -> None:
        asked = parse_subscribe({"op": "subscribe"}, TOKENS, NAMES, "open")
        assert asked.identity == ANONYMOUS
        assert (asked.games, asked.since, asked.tournaments) == (None, None, None)

    def test_a_token_chosen_games_of_a_further_tournament_and_a_resume(self) -> None:
        frame = {
            "op": "subscribe",
            "token": "studio-token",
            "tournament": "womens",
            "games": ["1.1", "2.3"],
            "since": 41,
        }
        asked = parse_subscribe(frame, TOKENS, NAMES, "open")
        assert (asked.identity.role, asked.identity.name) == ("commentator", "Studio")
        assert asked.games == {"womens/1.1", "womens/2.3"}  # keys among every tournament's
        assert (asked.since, asked.tournaments) == (41, {"womens"})
        first = parse_subscribe({**frame, "tournament": "open"}, TOKENS, NAMES, "open")
        assert first.games == {"1.1", "2.3"}  # the store's first: plain ids

    @pytest.mark.parametrize(
        ("field", "value", "code"),
        [
            ("tournament", "blitz", "unknown_tournament"),
            ("tournament", 3, "malformed_frame"),
            ("games", "1.1", "malformed_frame"),
            ("games", ["x" * 65], "malformed_frame"),
            ("games", ["1.1"] * (MAX_GAMES + 1), "malformed_frame"),
            ("since", True, "malformed_frame"),
            ("since", "12", "malformed_frame"),
            ("token", "no-such-token", "invalid_token"),
            ("token", "t" * 513, "malformed_frame"),
        ],
    )
    def test_a_bad_field_is_refused_with_its_code(self, field: str, value: Any, code: str) -> None:
        refused(code, parse_subscribe, {"op": "subscribe", field: value}, TOKENS, NAMES, "open")

    def test_an_unknown_tournament_names_the_ones_the_store_holds(self) -> None:
        error = refused(
            "unknown_tournament",
            parse_subscribe,
            {"tournament": "blitz"},
            TOKENS,
            {},
            None,
        )
        assert "none yet" in error.message


MOVE = {"cmd": "play_move", "game": "1.1", "move": "e4"}


class TestCommand:
    def test_an_arbiters_command_passes_as_sent(self) -> None:
        desk = TOKENS.identify("desk-token")
        assert desk is not None
        asked = parse_command({"op": "command", "id": "c1", "command": MOVE}, desk, True)
        assert (asked.frame_id, asked.command) == ("c1", MOVE)

    def test_a_token_bound_to_an_arbiter_acts_as_that_arbiter_only(self) -> None:
        chief = TOKENS.identify("chief-token")
        assert chief is not None
        ruling = {"cmd": "rule_flag", "game": "1.1", "decision": "fallen"}
        asked = parse_command({"id": "r", "command": ruling}, chief, True)
        assert asked.command["arbiter"] == "chief"
        other = {**ruling, "arbiter": "deputy"}
        error = refused("forbidden", parse_command, {"id": "r", "command": other}, chief, True)
        assert "'deputy'" in error.message and error.frame_id == "r"
        move = parse_command({"id": "m", "command": MOVE}, chief, True)
        assert "arbiter" not in move.command  # a command without the field is left alone

    def test_refusals_in_order_id_subscription_role_form(self) -> None:
        desk = TOKENS.identify("desk-token")
        studio = TOKENS.identify("studio-token")
        assert desk is not None and studio is not None
        refused("malformed_frame", parse_command, {"command": MOVE}, desk, True)
        error = refused("not_subscribed", parse_command, {"id": "c", "command": {}}, desk, False)
        assert "nothing was appended" in error.message
        refused("forbidden", parse_command, {"id": "c", "command": MOVE}, studio, True)
        refused("forbidden", parse_command, {"id": "c", "command": MOVE}, ANONYMOUS, True)
        refused("malformed_frame", parse_command, {"id": "c", "command": "e4"}, desk, True)
