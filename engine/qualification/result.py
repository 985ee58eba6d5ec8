"""What qualification decides: the places, the nominee, the 2.3 list, the withdrawals.

Values only, with their JSON form (``candidates qualify --format json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import TypedDict

from engine.errors import MalformedCommand
from engine.events import PlayerEntry
from engine.qualification.averages import Average
from engine.qualification.inputs import QualificationInput

FIELD_SIZE = 8
"""1.1: eight players take part."""


@dataclass(frozen=True)
class Place:
    """One place in the field: who holds it and why."""

    player: str
    article: str
    reason: str
    replaces: str | None = None
    withdrawn: bool = False
    """3.3.3: withdrew too late to be replaced; the place stays his."""
    slot: int = 0
    """1-8 in the order of priority: 1-3 (2.1), 4 (2.2), 5-7 (2.3), 8 (2.6)."""


@dataclass(frozen=True)
class RankedRow:
    """A line of the 2.3 list as published: rank, average, how it was decided."""

    rank: int
    player: str
    average: str
    basis: str
    decided_by: str | None
    level_with: tuple[str, ...]
    level_because: str | None
    status: str


@dataclass(frozen=True)
class NomineeDecision:
    """2.6: the organiser's nominee, accepted or refused with the article."""

    player: str | None
    status: str
    """``accepted``, ``refused`` or ``pending`` (not nominated yet)."""
    article: str
    reason: str
    january_2012_rating: int | None = None


@dataclass(frozen=True)
class WithdrawalDecision:
    """3.3: what became of one withdrawal."""

    player: str
    on: date
    kind: str
    article: str
    replaced_by: str | None
    reason: str
    """How the regulations treat it (the article's reasoning)."""
    stated_reason: str = ""
    """The reason the player (or the file) gave."""


class PlaceJson(TypedDict):
    """A place of the field in the JSON form, with the player's name and average."""

    place: int
    player: str
    name: str
    federation: str
    article: str
    reason: str
    average_rating: str | None
    replaces: str | None
    withdrawn: bool


class NomineeJson(TypedDict):
    player: str | None
    status: str
    article: str
    reason: str
    january_2012_rating: int | None


class WithdrawalJson(TypedDict):
    player: str
    on: str
    """The day, ISO 8601."""
    kind: str
    article: str
    replaced_by: str | None
    reason: str
    stated_reason: str


class RankedRowJson(TypedDict):
    rank: int
    player: str
    average: str
    basis: str
    decided_by: str | None
    level_with: list[str]
    level_because: str | None
    status: str


class NotRankedJson(TypedDict):
    player: str
    reason: str


class QualificationJson(TypedDict):
    """The JSON form of a qualification (``candidates qualify --format json``)."""

    complete: bool
    qualifiers: list[PlaceJson]
    field: list[PlaceJson]
    nominee: NomineeJson
    reserves: list[str]
    withdrawals: list[WithdrawalJson]
    pending: list[str]
    rating_list: list[RankedRowJson]
    not_ranked: list[NotRankedJson]


@dataclass(frozen=True)
class QualificationResult:
    """The qualifiers, the reserves and the replacements, with reasons."""

    qualifiers: tuple[Place, ...]
    """The places as first decided (2.1, 2.2, 2.3, 2.6 and 2.7 for vacated ones)."""
    field: tuple[Place, ...]
    """The places after the withdrawals of 3.3."""
    nominee: NomineeDecision
    rating_list: tuple[RankedRow, ...]
    not_ranked: tuple[tuple[str, str], ...]
    """(player, why he is not on the 2.3 list)."""
    reserves: tuple[str, ...]
    """2.7: the remaining players of the 2.3 list, in order, after the replacements."""
    withdrawals: tuple[WithdrawalDecision, ...]
    pending: tuple[str, ...]
    """Places not yet decided (match not played, nominee not named, no reserve left)."""
    averages: Mapping[str, Average]

    @property
    def complete(self) -> bool:
        return not self.pending and len(self.field) == FIELD_SIZE

    @property
    def nominee_refused(self) -> bool:
        return self.nominee.status == "refused"

    def as_dict(self, inp: QualificationInput) -> QualificationJson:
        """The JSON form (``candidates qualify --format json``)."""

        def place(p: Place) -> PlaceJson:
            who = inp.player(p.player)
            avg = self.averages.get(p.player)
            return {
                "place": p.slot,
                "player": p.player,
                "name": who.name if who else p.player,
                "federation": who.federation if who else "",
                "article": p.article,
                "reason": p.reason,
                "average_rating": avg.text() if avg else None,
                "replaces": p.replaces,
                "withdrawn": p.withdrawn,
            }

        return {
            "complete": self.complete,
            "qualifiers": [place(p) for p in self.qualifiers],
            "field": [place(p) for p in self.field],
            "nominee": {
                "player": self.nominee.player,
                "status": self.nominee.status,
                "article": self.nominee.article,
                "reason": self.nominee.reason,
                "january_2012_rating": self.nominee.january_2012_rating,
            },
            "reserves": list(self.reserves),
            "withdrawals": [
                {
                    "player": w.player,
                    "on": w.on.isoformat(),
                    "kind": w.kind,
                    "article": w.article,
                    "replaced_by": w.replaced_by,
                    "reason": w.reason,
                    "stated_reason": w.stated_reason,
                }
                for w in self.withdrawals
            ],
            "pending": list(self.pending),
            "rating_list": [
                {
                    "rank": r.rank,
                    "player": r.player,
                    "average": r.average,
                    "basis": r.basis,
                    "decided_by": r.decided_by,
                    "level_with": list(r.level_with),
                    "level_because": r.level_because,
                    "status": r.status,
                }
                for r in self.rating_list
            ],
            "not_ranked": [{"player": p, "reason": why} for p, why in self.not_ranked],
        }


def field_entries(inp: QualificationInput, result: QualificationResult) -> list[PlayerEntry]:
    """The complete field as ``create_tournament`` takes it, each player rated by his 2.3
    average (July 2011 and January 2012, fractional ones too): 3.7.3 b-d rank a
    sudden-death stage's players by it. MalformedCommand while the field is incomplete
    or a player has no average."""
    if not result.complete:
        raise MalformedCommand(
            "the field is not complete, no tournament can be created: "
            + "; ".join(result.pending or (f"{len(result.field)} players",))
        )
    players: list[PlayerEntry] = []
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
            PlayerEntry(id=who.id, name=who.name, federation=who.federation, rating=rating)
        )
    return players
