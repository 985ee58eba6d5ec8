"""Which rules profile judges an imported event, and the format it fixes.

- ``--rules`` when given;
- the Candidates profile of the year when the file's ``Event`` tag names a Candidates
  (``candidates-2012`` before any later edition) and the file's players fit its format
  (eight, 3.1): the year the Event tag names, else the year its games are dated (an
  ``Event "Candidates"`` whose games are dated 2024 is ``candidates-2024``), else
  ``candidates-2012``;
- else ``round-robin``: a round robin that is not a Candidates is never judged by the
  Candidates' regulations (``engine.rules``).

A Candidates profile fixes the format (3.1: a double round robin of 14 rounds): cycles
or rounds given that say otherwise are refused before anything is appended.
"""

from __future__ import annotations

import re

from engine.errors import MalformedCommand
from engine.rules import DEFAULT_PROFILE, PROFILES, RulesProfile, profile

ROUND_ROBIN_PROFILE = "round-robin"
"""The profile of a round robin whose Event tag names no Candidates."""


def choose_profile(
    rules: str | None, event_name: str, entrants: int | None = None, year: int | None = None
) -> tuple[str, str]:
    """(the rules profile of a file's event, why it applies); ``year``: the year the
    file's games are dated, when they are."""
    if rules is not None:
        return rules, "given with --rules"
    if re.search(r"candidates", event_name.lower()):
        named = profile_hint(event_name)
        dated = profile_hint(f"candidates {year}") if named is None and year else None
        hint = named or dated or DEFAULT_PROFILE
        wanted = profile(hint).players
        if entrants is not None and wanted is not None and entrants != wanted:
            return ROUND_ROBIN_PROFILE, (
                f"the Event tag names a Candidates ({event_name!r}) but the file has "
                f"{entrants} players, not the {wanted} of its format ({hint})"
            )
        if dated is not None:
            return hint, (
                f"the Event tag names a Candidates ({event_name!r}) and its games are dated {year}"
            )
        if named is None:
            return hint, (
                f"the Event tag names a Candidates ({event_name!r}) of no year, and its games "
                "give none"
            )
        return hint, f"the Event tag names a Candidates ({event_name!r})"
    named = f"the Event tag {event_name!r}" if event_name else "no Event tag"
    return ROUND_ROBIN_PROFILE, f"default: {named} names no Candidates"


def check_format(rp: RulesProfile, cycles: int | None, rounds: int | None) -> None:
    """``--cycles`` / ``--rounds`` that contradict a profile's fixed format are refused."""
    if rp.cycles is None:
        return
    for option, given, fixed in (("--cycles", cycles, rp.cycles), ("--rounds", rounds, rp.rounds)):
        if given is not None and given != fixed:
            raise MalformedCommand(
                f"{option} {given}: {rp.name} is a {rp.format_text()} (3.1); pass "
                "--rules round-robin for another round robin"
            )


def profile_hint(event_name: str) -> str | None:
    """The Candidates profile of the year an Event tag names (``FIDE Candidates 2018``)."""
    found = re.search(r"candidates\D*(20\d\d)", event_name.lower())
    if not found:
        return None
    year = int(found[1])
    editions = sorted(
        int(n.rsplit("-", 1)[1]) for n in PROFILES if re.fullmatch(r"candidates-\d{4}", n)
    )
    usable = [y for y in editions if y <= year]
    return f"candidates-{usable[-1]}" if usable else None
