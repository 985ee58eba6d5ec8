"""The drawing of lots for pairing numbers (3.4.1) under the federation rule of 3.1.

3.1 keeps the players of one federation (two to four of them) to the first rounds of
each cycle; generalised to N players, a federation of k must have its internal games
in the first rounds a round robin of k takes. The draw is reproducible from its seed
with a documented algorithm and no pseudo-random generator, whose sequence could
change between versions; an impossible constraint is refused naming the federations.
The algorithm is in docs/tournament.md, "The drawing of lots"."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from engine.tournament.pairing import berger_schedule, rounds_per_cycle

MAX_GROUP_UNDER_RULE = 4
"""3.1 speaks of "up to four players ... from the same federation"."""


@dataclass(frozen=True)
class Entrant:
    """What the drawing needs to know of a player."""

    id: str
    federation: str


def lot_key(seed: str, purpose: str, item: str) -> bytes:
    """The lot of one item: SHA-256 of purpose, seed and item (UTF-8, unit-separated)."""
    return hashlib.sha256(f"{purpose}\x1f{seed}\x1f{item}".encode()).digest()


def seeded_order(seed: str, purpose: str, items: Iterable[str]) -> list[str]:
    """``items`` in lot order for this seed and purpose: the hash-based shuffle."""
    return sorted(items, key=lambda item: (lot_key(seed, purpose, item), item))


def window_rounds(group_size: int) -> int:
    """Rounds of one cycle within which a federation of this size meets itself (3.1)."""
    return rounds_per_cycle(group_size)


def federation_groups(entrants: Sequence[Entrant]) -> dict[str, list[str]]:
    """Federations with 2 to 4 players (the ones 3.1 constrains), with their player ids."""
    groups: dict[str, list[str]] = {}
    for entrant in entrants:
        if entrant.federation:
            groups.setdefault(entrant.federation, []).append(entrant.id)
    return {fed: ids for fed, ids in groups.items() if 2 <= len(ids) <= MAX_GROUP_UNDER_RULE}


def meeting_rounds(players: int) -> dict[frozenset[int], int]:
    """Pair of numbers -> the round of the first cycle in which they meet."""
    return {
        frozenset((p.white, p.black)): p.round
        for p in berger_schedule(players, cycles=1)
        if p.white <= players and p.black <= players
    }


def valid_number_sets(players: int, group_size: int) -> list[tuple[int, ...]]:
    """Every set of pairing numbers whose holders meet each other within the window (3.1)."""
    meets = meeting_rounds(players)
    window = window_rounds(group_size)
    return [
        combo
        for combo in combinations(range(1, players + 1), group_size)
        if all(meets[frozenset(pair)] <= window for pair in combinations(combo, 2))
    ]


def federation_violations(entrants: Sequence[Entrant], numbers: Mapping[str, int]) -> list[str]:
    """Each pair of one federation (2-4 players) that meets outside its window (3.1)."""
    meets = meeting_rounds(len(entrants))
    out: list[str] = []
    for fed, ids in sorted(federation_groups(entrants).items()):
        window = window_rounds(len(ids))
        for a, b in combinations(sorted(ids), 2):
            met = meets[frozenset((numbers[a], numbers[b]))]
            if met > window:
                out.append(f"{a} and {b} ({fed}) meet in round {met}, not within rounds 1-{window}")
    return out


class NoValidDrawing(Exception):
    """No pairing numbers satisfy the federation rule of 3.1 for these players."""


def draw_numbers(entrants: Sequence[Entrant], seed: str) -> dict[str, int]:
    """Pairing numbers 1..N from the seed, honouring 3.1; NoValidDrawing if impossible."""
    size = len(entrants)
    groups = federation_groups(entrants)
    order = sorted(groups, key=lambda fed: (-len(groups[fed]), fed))
    candidates = {
        fed: sorted(
            valid_number_sets(size, len(groups[fed])),
            key=lambda combo, fed=fed: lot_key(  # type: ignore[misc]
                seed, f"federation:{fed}", ",".join(map(str, combo))
            ),
        )
        for fed in order
    }

    def place(index: int, used: frozenset[int]) -> list[tuple[int, ...]] | None:
        if index == len(order):
            return []
        for combo in candidates[order[index]]:
            if used.isdisjoint(combo):
                rest = place(index + 1, used | frozenset(combo))
                if rest is not None:
                    return [combo, *rest]
        return None

    chosen = place(0, frozenset())
    if chosen is None:
        described = "; ".join(
            f"{fed} ({', '.join(sorted(groups[fed]))}) within rounds 1-"
            f"{window_rounds(len(groups[fed]))}"
            for fed in order
        )
        raise NoValidDrawing(
            f"no pairing numbers for {size} players let each federation meet itself as 3.1 "
            f"requires: {described}"
        )
    numbers: dict[str, int] = {}
    for fed, combo in zip(order, chosen, strict=True):
        for pid, n in zip(seeded_order(seed, "player", groups[fed]), combo, strict=True):
            numbers[pid] = n
    free = sorted(set(range(1, size + 1)) - set(numbers.values()))
    others = seeded_order(seed, "player", [e.id for e in entrants if e.id not in numbers])
    numbers.update(zip(others, free, strict=True))
    return numbers
