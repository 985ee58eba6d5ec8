"""Strict forms: an instant as ISO 8601 says it, a move as SAN says it.

The fourth hardening pass found ``at`` accepted with a trailing NUL, a space for the
``T`` and twelve fractional digits, and ``Nf6+`` / ``Nf6#`` accepted for a move that
gives no check, ``N-f6`` for ``Nf6``. An instant is now the extended form with a ``T``,
at most milliseconds and a zone (engine.timefmt.INSTANT_FORM); a move's check or mate
mark, when given, must be true (Laws of Chess 2009 3.9, 5.1 a), a hyphen only castles,
and what is stored is the canonical SAN (docs/commands.md, ``play_move``).
"""

from __future__ import annotations

import pytest

from adapters.store import Store
from engine.errors import MalformedCommand
from engine.timefmt import parse_instant
from tests.helpers import at, ok, play, refused


@pytest.mark.parametrize(
    "text",
    [
        "2013-03-15T14:00:05.000Z\x00",
        "2013-03-15 14:00:05.000Z",
        "2013-03-15T14:00:05.000000000001Z",
        "2013-03-15T14:00:05.1234Z",
        "2013-03-15T14:00:05,123Z",
        "2013-03-15T14:00:05+0100",
        "20130315T140005Z",
        " 2013-03-15T14:00:05Z",
        "2013-03-15T14Z",
    ],
)
def test_an_instant_not_in_the_strict_form_is_refused_and_appends_nothing(
    started: Store, text: str
) -> None:
    message = refused(
        started, {"cmd": "play_move", "game": "1.1", "move": "d4", "at": text}, "malformed_command"
    )
    assert "not an ISO-8601 instant" in message and "at most milliseconds" in message


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("2013-03-15T14:00:05.123Z", 1363356005123),
        ("2013-03-15T14:00:05.1Z", 1363356005100),
        ("2013-03-15T14:00:05z", 1363356005000),
        ("2013-03-15T14:00Z", 1363356000000),
        ("2013-03-15T15:00:05+01:00", 1363356005000),
    ],
)
def test_the_strict_forms_are_read_to_the_millisecond(text: str, ms: int) -> None:
    assert parse_instant(text) == ms


def test_an_instant_without_a_zone_still_says_so() -> None:
    with pytest.raises(MalformedCommand, match="has no time zone"):
        parse_instant("2013-03-15 14:00:05")


@pytest.mark.parametrize(
    ("move", "says"),
    [
        ("Nf6+", "marked check but 'Nf6' gives no check"),
        ("Nf6#", "marked mate but 'Nf6' does not mate"),
        ("N-f6", "not SAN (a hyphen only castles): write 'Nf6', or 'g8f6'"),
        ("Ng8-f6", "not SAN"),
    ],
)
def test_laws_3_9_a_check_mark_the_move_does_not_give_is_refused(
    started: Store, move: str, says: str
) -> None:
    play(started, "1.1", "d4")
    message = refused(
        started, {"cmd": "play_move", "game": "1.1", "move": move, "at": at(30)}, "illegal_move"
    )
    assert says in message


@pytest.mark.parametrize("given", ["Nf6", "g8f6", "Ng8f6"])
def test_what_is_stored_is_the_canonical_san(started: Store, given: str) -> None:
    play(started, "1.1", "d4")
    events = ok(started, {"cmd": "play_move", "game": "1.1", "move": given, "at": at(30)})
    assert events[0]["san"] == "Nf6" and events[0]["uci"] == "g8f6"


def test_a_true_mark_is_kept_and_a_missing_one_is_added(started: Store) -> None:
    """Fool's mate: ``Qh4#`` as given; ``Bb5`` then ``Bxd7`` written without its ``+``."""
    play(started, "1.1", "f3 e5 g4")
    events = ok(started, {"cmd": "play_move", "game": "1.1", "move": "Qh4#", "at": at(40)})
    assert events[0]["san"] == "Qh4#" and events[1]["type"] == "ResultRecorded"
    ok(started, {"cmd": "start_game", "game": "1.2", "at": at(0)})
    play(started, "1.2", "e4 d5 Bb5")
    ok(started, {"cmd": "play_move", "game": "1.2", "move": "c6", "at": at(40)})
    events = ok(started, {"cmd": "play_move", "game": "1.2", "move": "Bxc6", "at": at(50)})
    assert events[0]["san"] == "Bxc6+"


def test_castling_keeps_its_hyphens(started: Store) -> None:
    play(started, "1.1", "e4 e5 Nf3 Nc6 Bc4 Bc5")
    events = ok(started, {"cmd": "play_move", "game": "1.1", "move": "O-O", "at": at(90)})
    assert events[0]["san"] == "O-O"
