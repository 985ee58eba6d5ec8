"""The ``create_tournament`` command for a complete field (``candidates qualify``).

Each player's rating is his 2.3 average: 3.7.3 b-d rank the players of a
sudden-death stage by it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.errors import MalformedCommand
from engine.qualification.inputs import QualificationInput
from engine.qualification.result import QualificationResult


def create_tournament_command(
    inp: QualificationInput,
    result: QualificationResult,
    *,
    tournament: str,
    name: str,
    start_date: str,
    rules: str | None = None,
    arbiters: Sequence[Mapping[str, str]] = (),
) -> dict[str, Any]:
    """The contract's ``create_tournament`` for the field, ratings = 2.3 averages.

    The rating of each player is his average of July 2011 and January 2012
    (possibly fractional): 3.7.3 b-d rank the players of a sudden-death
    stage by it. Refused (MalformedCommand) while the field is incomplete or
    a player has no average.
    """
    if not result.complete:
        raise MalformedCommand(
            "the field is not complete, no tournament can be created: "
            + "; ".join(result.pending or (f"{len(result.field)} players",))
        )
    players: list[dict[str, Any]] = []
    for place in result.field:
        who = inp.player(place.player)
        assert who is not None
        avg = result.averages[place.player].value
        if avg is None:
            raise MalformedCommand(
                f"{place.player} has no average rating of July 2011 and January 2012 "
                "(article 2.3); 3.7.3 needs one for every player"
            )
        rating: int | float = int(avg) if avg.denominator == 1 else float(avg)
        players.append(
            {"id": who.id, "name": who.name, "federation": who.federation, "rating": rating}
        )
    cmd: dict[str, Any] = {
        "cmd": "create_tournament",
        "tournament": tournament,
        "name": name,
        "start_date": start_date,
        "cycles": 2,
        "players": players,
        "arbiters": [dict(a) for a in arbiters],
    }
    if rules is not None:
        cmd["rules"] = rules
    return cmd
