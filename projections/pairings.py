"""The pairings of each round as organisers post them (3.4.1, 3.1): boards, colours,
players with their drawn numbers, federations and ratings, and the results so far.

``{tournament, name, numbers_drawn, rounds: [{round, date, boards: [{game, board,
white, black, result, status}], bye}]}`` where ``white`` and ``black`` are
``{player, name, number, federation, rating}``; ``result`` is the PGN result of a
finished game (null otherwise) and ``status`` is ``not_started``, ``in_progress``,
``finished`` or ``not_played`` (a withdrawal cancelled it: 3.1, 3.3.3). Before the
drawing of lots there are no rounds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Literal, NotRequired, TypedDict

from msgspec import Meta

from engine.errors import RuleViolation
from engine.game.state import Game
from engine.tournament.pairing import is_bye
from engine.tournament.tournament import Player, Tournament
from projections.shapes import Number, Ordinal

NOT_PLAYED = "not_played"
BoardStatus = Literal["not_started", "in_progress", "finished", "not_played"]


class Entrant(TypedDict):
    """A player as the pairings post him: drawn number, federation, rating."""

    player: str
    name: str
    number: Ordinal
    federation: str
    rating: Number


class Board(TypedDict):
    """One board of a round's pairings."""

    game: str
    board: Ordinal
    white: Entrant
    black: Entrant
    result: str | None
    status: BoardStatus


class BoardIds(TypedDict):
    """A board with the players' ids (the shape pollers of ``/api/pairings`` read)."""

    game: str
    board: Ordinal
    white: str
    black: str
    status: BoardStatus
    result: str | None


class RoundPairings(TypedDict):
    """One round: its date, its boards, the player who sits out (an odd field)."""

    round: Ordinal
    date: str | None
    boards: list[Board]
    bye: Entrant | None
    games: NotRequired[
        Annotated[list[BoardIds], Meta(description="`/api/pairings` only: the boards by ids")]
    ]


class Pairings(TypedDict):
    """Each round's boards with colours, players and results so far (`candidates pairings
    --format json`)."""

    tournament: str
    name: str
    numbers_drawn: bool
    rounds: list[RoundPairings]


def entrant(player: Player, number: int) -> Entrant:
    rating = player.rating
    return {
        "player": player.id,
        "name": player.name,
        "number": number,
        "federation": player.federation,
        "rating": int(rating) if float(rating).is_integer() else rating,
    }


def _status(tournament: Tournament, game_id: str, game: Game | None) -> BoardStatus:
    if game is not None:
        return game.status.value
    try:
        tournament.check_can_start(game_id)
    except RuleViolation:
        return "not_played"
    return "not_started"


def pairings(
    tournament: Tournament,
    game_of: Callable[[str], Game | None],
    dates: Mapping[int, str],
    only_round: int | None = None,
) -> Pairings:
    """Every round's boards (or only ``only_round``'s); see the module docstring."""
    numbers = tournament.numbers
    out: Pairings = {
        "tournament": tournament.id,
        "name": tournament.name,
        "numbers_drawn": numbers is not None,
        "rounds": [],
    }
    if numbers is None:
        return out
    by_number = {n: p for p in tournament.players if (n := numbers.get(p.id)) is not None}
    size = len(tournament.players)
    rounds: dict[int, RoundPairings] = {}
    for pairing in tournament.schedule():
        if only_round is not None and pairing.round != only_round:
            continue
        entry = rounds.setdefault(
            pairing.round,
            {"round": pairing.round, "date": dates.get(pairing.round), "boards": [], "bye": None},
        )
        if is_bye(pairing, size):
            sitting = pairing.white if pairing.white <= size else pairing.black
            entry["bye"] = entrant(by_number[sitting], sitting)
            continue
        game_id = f"{pairing.round}.{pairing.board}"
        game = game_of(game_id)
        status = _status(tournament, game_id, game)
        entry["boards"].append(
            {
                "game": game_id,
                "board": pairing.board,
                "white": entrant(by_number[pairing.white], pairing.white),
                "black": entrant(by_number[pairing.black], pairing.black),
                "result": game.result if game is not None and status == "finished" else None,
                "status": status,
            }
        )
    out["rounds"] = [rounds[r] for r in sorted(rounds)]
    return out
