"""Prize money (3.8.1, 3.8.2), from the final order of the round robin.

Players level on points share equally the prizes of the places they occupy, whatever
the tie-breaks and playoffs say (those decide the title, not the money); a withdrawn
player receives nothing and his amount remains with FIDE. Exact fractions of a euro
internally, ``eur`` on the wire rounded to the cent (docs/tournament.md, "Prizes")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import TypedDict

from engine.rules import PRIZES_2012_EUR
from projections.shapes import Number


class Prize(TypedDict):
    player: str
    eur: Number


class PrizeFund(TypedDict):
    """The fund and what remains with FIDE (3.8.2)."""

    fund_eur: Number
    retained_by_fide_eur: Number


class PrizesObject(PrizeFund):
    """Each player's prize in final order, the fund and what remains with FIDE."""

    prizes: list[Prize]


__all__ = ["PRIZES_2012_EUR", "euros", "prize_shares", "prizes_object"]


def euros(amount: Fraction) -> int | float:
    """The wire form of an amount: an integer when whole, else rounded to the cent."""
    if amount.denominator == 1:
        return int(amount)
    return round(float(amount), 2)


def prize_shares(
    order: Sequence[str],
    points: Mapping[str, Fraction],
    withdrawn: Iterable[str] = (),
    table: Sequence[int] = PRIZES_2012_EUR,
) -> tuple[dict[str, Fraction], Fraction]:
    """(player -> prize, amount remaining with FIDE) for players in final order."""
    gone = set(withdrawn)
    shares: dict[str, Fraction] = {}
    retained = Fraction(sum(table[len(order) :]))
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and points[order[end + 1]] == points[order[start]]:
            end += 1
        group = order[start : end + 1]
        pot = Fraction(sum(table[start : end + 1]))
        for player in group:
            share = pot / len(group)
            if player in gone:
                retained += share
                shares[player] = Fraction(0)
            else:
                shares[player] = share
        start = end + 1
    return shares, retained


def prizes_object(
    order: Sequence[str],
    points: Mapping[str, Fraction],
    withdrawn: Iterable[str] = (),
    table: Sequence[int] = PRIZES_2012_EUR,
) -> PrizesObject:
    """``{prizes: [{player, eur}], fund_eur, retained_by_fide_eur}`` in final order."""
    shares, retained = prize_shares(order, points, withdrawn, table)
    return {
        "prizes": [{"player": p, "eur": euros(shares[p])} for p in order],
        "fund_eur": sum(table),
        "retained_by_fide_eur": euros(retained),
    }
