"""2.3: the rating list in order, with its tie-break chain, and 2.7's reserves.

The chain refines a tied group as a whole (average to two decimals, games in
2011, March 2012 rating, games in the March 2012 list); players it cannot
separate stay in one ``Tier``, an error (``UndecidedTie``) only where a place
depends on them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from engine.errors import CommandRefused
from engine.qualification.averages import average_rating
from engine.qualification.inputs import RatedPlayer


class UndecidedTie(CommandRefused):
    """The 2.3 list leaves players level where a place must be decided."""

    code = "undecided_tie"


@dataclass(frozen=True)
class Criterion:
    """One link of the 2.3 tie-break chain: higher is better."""

    name: str
    label: str
    value: Callable[[RatedPlayer], int | Decimal | None]


def _march(attr: str) -> Callable[[RatedPlayer], int | None]:
    def value(p: RatedPlayer) -> int | None:
        entry = p.entry("march_2012")
        if entry is None:
            return None
        result: int | None = getattr(entry, attr)
        return result

    return value


CHAIN: tuple[Criterion, ...] = (
    Criterion(
        "average", "the average rating (two decimals)", lambda p: average_rating(p).two_decimals
    ),
    Criterion("games_2011", "the number of games in 2011", lambda p: p.games_2011),
    Criterion("march_2012_rating", "the March 2012 rating", _march("rating")),
    Criterion("march_2012_games", "the number of games in the March 2012 list", _march("games")),
)
"""2.3, in order: average to two decimals; "the number of games from the
twelve months covering the whole year 2011"; "the list of March 2012"; "the
player with the greater number of games in this list"."""


@dataclass(frozen=True)
class Tier:
    """Players the 2.3 chain cannot separate (one player, almost always)."""

    players: tuple[RatedPlayer, ...]
    decided_by: str | None
    """The criterion that put this tier below the previous one (None for the first)."""
    level_because: str | None = None
    """Why several players stay level: data missing, or the chain is exhausted."""


ChainValues = tuple[int | Decimal | None, ...]


def _refine(
    group: list[RatedPlayer],
    depth: int,
    decided_by: str | None,
    chain: Mapping[str, ChainValues],
) -> list[Tier]:
    """Split a group level on the criteria before ``depth`` by the next ones (2.3)."""
    if len(group) == 1:
        return [Tier((group[0],), decided_by)]
    if depth == len(CHAIN):
        reason = (
            "level on every criterion of 2.3 (average, games in 2011, March 2012 rating, "
            "games in the March 2012 list); the regulations are silent beyond them"
        )
        return [Tier(tuple(group), decided_by, reason)]
    criterion = CHAIN[depth]
    values = {p.id: chain[p.id][depth] for p in group}
    missing = [p.id for p in group if values[p.id] is None]
    if missing:
        reason = f"{criterion.label} is needed to separate them and is not given for {missing}"
        return [Tier(tuple(group), decided_by, reason)]
    by_value: dict[int | Decimal, list[RatedPlayer]] = {}
    for p in group:
        value = values[p.id]
        assert value is not None
        by_value.setdefault(value, []).append(p)
    tiers: list[Tier] = []
    for i, v in enumerate(sorted(by_value, reverse=True)):
        first_by = decided_by if i == 0 else criterion.name
        tiers.extend(_refine(by_value[v], depth + 1, first_by, chain))
    return tiers


def rank_by_average(players: Sequence[RatedPlayer]) -> list[Tier]:
    """2.3: the eligible players in order, level players grouped in one tier.

    Players without an average (inactive in both lists, or in neither) are
    left out; the caller reports them.
    """
    chain = {p.id: tuple(c.value(p) for c in CHAIN) for p in players}
    eligible = [p for p in players if chain[p.id][0] is not None]
    if not eligible:
        return []
    return _refine(sorted(eligible, key=lambda p: p.id), 0, None, chain)


class Reserves:
    """2.7: the 2.3 list after the qualifiers, taken from the top."""

    def __init__(self, tiers: list[Tier]) -> None:
        self.tiers = list(tiers)

    def ids(self) -> tuple[str, ...]:
        return tuple(p.id for t in self.tiers for p in t.players)

    def remove(self, player_id: str) -> bool:
        """Take a player off the list (a nominee, a reserve who declines)."""
        for index, tier in enumerate(self.tiers):
            if any(p.id == player_id for p in tier.players):
                rest = tuple(p for p in tier.players if p.id != player_id)
                if rest:
                    self.tiers[index] = replace(tier, players=rest)
                else:
                    del self.tiers[index]
                return True
        return False

    def take(self, count: int, purpose: str) -> list[str]:
        """The next ``count`` players of the list (fewer if it runs out).

        UndecidedTie if the boundary falls inside a level tier: then 2.3
        cannot say who is in and who is out.
        """
        taken: list[str] = []
        while self.tiers and len(taken) < count:
            tier = self.tiers[0]
            room = count - len(taken)
            if len(tier.players) > room:
                names = [p.id for p in tier.players]
                raise UndecidedTie(
                    f"article 2.3 cannot decide {purpose}: {names} are level for "
                    f"{room} place(s): {tier.level_because}"
                )
            taken.extend(p.id for p in tier.players)
            del self.tiers[0]
        return taken
