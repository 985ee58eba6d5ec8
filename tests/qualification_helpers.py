"""Builders for qualification files (section 2 of the regulations)."""

from __future__ import annotations

import copy
from typing import Any


def rated(
    pid: str,
    july: int | None,
    january: int | None,
    *,
    march: int | None = None,
    march_games: int | None = None,
    games_2011: int | None = None,
    inactive_july: bool = False,
    inactive_january: bool = False,
    federation: str = "FID",
) -> dict[str, Any]:
    """A player's lines in the July 2011, January 2012 and March 2012 lists."""
    player: dict[str, Any] = {"id": pid, "name": pid.title(), "federation": federation}
    if july is not None:
        player["july_2011"] = {"rating": july, "inactive": inactive_july}
    if january is not None:
        player["january_2012"] = {"rating": january, "inactive": inactive_january}
    if march is not None:
        player["march_2012"] = {"rating": march, "games": march_games}
    if games_2011 is not None:
        player["games_2011"] = games_2011
    return player


BASE_PLAYERS = [
    rated("cup1", 2740, 2750),
    rated("cup2", 2730, 2740),
    rated("cup3", 2720, 2730),
    rated("champion", 2817, 2799),
    rated("challenger", 2746, 2739),
]
"""The players of 2.1 and the 2012 match: never on the 2.3 list."""


def qualification_file(
    rating_players: list[dict[str, Any]],
    *,
    nominee: str | None = None,
    loser: str | None = "challenger",
    start_date: str | None = "2012-10-20",
    withdrawals: list[dict[str, Any]] | None = None,
    world_cup: list[str] | None = None,
    extra_players: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A qualification file around ``rating_players`` (the 2.3 candidates)."""
    raw: dict[str, Any] = {
        "world_cup_2011": world_cup or ["cup1", "cup2", "cup3"],
        "world_championship_match_2012": {"champion": "champion", "challenger": "challenger"},
        "players": copy.deepcopy(BASE_PLAYERS + (extra_players or []) + rating_players),
    }
    if loser is not None:
        raw["world_championship_match_2012"]["loser"] = loser
    if nominee is not None:
        raw["nominee"] = nominee
    if start_date is not None:
        raw["start_date"] = start_date
    if withdrawals is not None:
        raw["withdrawals"] = withdrawals
    return raw


TEN_RATED = [
    rated("r1", 2800, 2810),
    rated("r2", 2790, 2800),
    rated("r3", 2780, 2790),
    rated("r4", 2770, 2780),
    rated("r5", 2760, 2770),
    rated("r6", 2750, 2760),
    rated("r7", 2740, 2750),
    rated("nom", 2700, 2705),
]
"""Distinct averages r1 > r2 > ... > r7 > nom: the 2.3 order is r1..r7, nom."""
