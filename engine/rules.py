"""Rules profiles: every choice of the regulations and Laws that can change.

A profile names the laws edition in force and carries its values, so a later
edition is a new profile, not an edit. ``candidates-2012`` is the 2012
Candidates regulations with the FIDE Laws of Chess in force in 2012 (the
2009 edition, effective 1 July 2009); ``fide-2023`` applies the Laws effective
1 January 2023 to the same event format, for comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import MalformedCommand


@dataclass(frozen=True)
class RulesProfile:
    """The values one edition of the rules fixes."""

    name: str
    laws_edition: str
    time_control: str
    """3.5.1 in PGN TimeControl form: 120 min/40, 60 min/20, 15 min + 30 s from move 61."""
    rapid_time_control: str
    """3.7.1.a: 25 min + 10 s a move."""
    blitz_time_control: str
    """3.7.2: 5 min + 3 s a move from move 1."""
    automatic_fivefold_repetition: bool
    """Laws 2014+ 9.6.1: fivefold repetition ends the game without a claim."""
    automatic_seventyfive_moves: bool
    """Laws 2014+ 9.6.2: 75 moves without capture or pawn move end the game."""


PROFILES: dict[str, RulesProfile] = {
    "candidates-2012": RulesProfile(
        name="candidates-2012",
        laws_edition="FIDE Laws of Chess, effective 1 July 2009",
        time_control="40/7200:20/3600:900+30",
        rapid_time_control="1500+10",
        blitz_time_control="300+3",
        automatic_fivefold_repetition=False,
        automatic_seventyfive_moves=False,
    ),
    "fide-2023": RulesProfile(
        name="fide-2023",
        laws_edition="FIDE Laws of Chess, effective 1 January 2023",
        time_control="40/7200:20/3600:900+30",
        rapid_time_control="1500+10",
        blitz_time_control="300+3",
        automatic_fivefold_repetition=True,
        automatic_seventyfive_moves=True,
    ),
}

DEFAULT_PROFILE = "candidates-2012"


def profile(name: str) -> RulesProfile:
    """The profile of that name; a clear error naming the known ones otherwise."""
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise MalformedCommand(f"unknown rules profile {name!r}; known: {known}") from None
