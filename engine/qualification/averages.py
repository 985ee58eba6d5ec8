"""2.3: a player's average rating of the July 2011 and January 2012 lists.

Exact ``Fraction``s, compared at two decimals (``Decimal``) as 2.3 says, never
floats; the inactive-list rules decide which lists count.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from engine.qualification.inputs import LIST_NAMES, RatedPlayer

TWO_DECIMALS = Decimal("0.01")


@dataclass(frozen=True)
class Average:
    """2.3: a player's average rating and how it was formed."""

    value: Fraction | None
    """Exact average, None when the player cannot qualify by rating."""
    basis: str
    """Which lists made it, in words (or why there is none)."""

    @property
    def two_decimals(self) -> Decimal | None:
        """2.3: "two decimals will be taken into consideration"."""
        if self.value is None:
            return None
        exact = Decimal(self.value.numerator) / Decimal(self.value.denominator)
        return exact.quantize(TWO_DECIMALS, rounding=ROUND_HALF_UP)

    def text(self) -> str | None:
        shown = self.two_decimals
        return None if shown is None else f"{shown:.2f}"


def average_rating(player: RatedPlayer) -> Average:
    """2.3: (July 2011 + January 2012) / 2, with the inactive-list rules.

    "Players who appear in the inactive list in both July 2011 and January
    2012 will not be able to qualify as a rated player. If the player is
    inactive in one list but appears in the other, then the single rating
    that is published shall be taken as the average." A player absent from
    a list is treated as not published in it.
    """
    july, january = player.entry("july_2011"), player.entry("january_2012")
    active = [(name, e) for name, e in (("july_2011", july), ("january_2012", january)) if e]
    active = [(name, e) for name, e in active if not e.inactive]
    if len(active) == 2:
        assert july is not None and january is not None
        return Average(Fraction(july.rating + january.rating, 2), "July 2011 and January 2012")
    if len(active) == 1:
        name, entry = active[0]
        other = "january_2012" if name == "july_2011" else "july_2011"
        missing = player.entry(other)
        why = "inactive" if missing is not None else "absent"
        return Average(
            Fraction(entry.rating),
            f"{LIST_NAMES[name]} only ({why} in the {LIST_NAMES[other]} list)",
        )
    if july is None and january is None:
        return Average(None, "in neither the July 2011 nor the January 2012 list")
    return Average(None, "inactive in both the July 2011 and January 2012 lists")
