"""What a player needs, in words for the air: the shortest condition exactly true over
the scenarios.

Never written by hand: for each contender, the scenarios where he finishes first are a
set, and a bounded search over conditions on the varied games' results (his own
result, a rival's, a comparison) finds the shortest one true in exactly that set,
preferring results a commentator can name. Where none is exact the sentence gives the
chance and the scenario counts (docs/needs.md)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from operator import itemgetter
from typing import Annotated, TypedDict

from msgspec import Meta

from engine.standings.tiebreaks import HALF_POINTS
from projections.scenarios import (
    PLAYOFF,
    POINTS,
    RESULTS,
    WITHDRAWAL,
    ScenarioTable,
)

MAX_ATOMS = 4
"""The longest condition searched (atoms)."""
COMPARISONS = {
    "cmp_ge": ("a result at least as good as {rival}'s", "at least {rival}'s score"),
    "cmp_gt": ("a better result than {rival}'s", "a better score than {rival}'s"),
    "cmp_eq": ("the same result as {rival}", "the same score as {rival}"),
    "fin_ge": ("at least as many points as {rival}",) * 2,
    "fin_gt": ("more points than {rival}",) * 2,
    "fin_eq": ("as many points as {rival}",) * 2,
}
"""A comparison with a rival, after "with": over one game, over several."""
RESULT_KINDS = ("ge", "le", "eq")
"""Atoms about one player's own results."""
MAX_PAIR_ATOMS = 48
"""Two-atom terms of a disjunction are made of the first (simplest) atoms only."""
MAX_TERMS = 120
"""The two-atom terms a disjunction of two of them is searched among (the widest)."""
CRITERION_WORDS = {
    "h2h": "the games between the tied players",
    "wins": "more wins",
    "sb": "Sonneborn-Berger",
    "koya": "Koya",
}
LETTERS = "abcdefgh"


@dataclass(frozen=True)
class Atom:
    """One statement about the varied games' results, true in the scenarios of ``bits``."""

    kind: str
    """``ge``, ``le``, ``eq`` (a player's points against a value), ``cmp_ge``, ``cmp_gt``
    (the player's points against a rival's)."""
    player: str
    value: int
    """Half points (``ge``, ``le``, ``eq``)."""
    rival: str | None
    bits: int
    rank: int
    """Preference among atoms of the same length (lower first)."""


def result_bits(table: ScenarioTable) -> list[tuple[int, int, int]]:
    """For each varied game, the scenarios (as bits) where it ends 1-0, 1/2-1/2, 0-1."""
    out: list[tuple[int, int, int]] = []
    for g in range(len(table.space.remaining)):
        column = bytes(map(itemgetter(g), table.choices))[::-1]  # scenario 0 last: bit 0
        bits = [int(column.translate(MARK[c]), 2) if column else 0 for c in range(3)]
        out.append((bits[0], bits[1], bits[2]))
    return out


MARK = [bytes.maketrans(b"\x00\x01\x02", b"100"), bytes.maketrans(b"\x00\x01\x02", b"010"),
        bytes.maketrans(b"\x00\x01\x02", b"001")]  # fmt: skip
"""Per result index: bytes 0/1/2 -> ASCII 1 where the byte is that result, else 0."""


def _value_bits(
    table: ScenarioTable, columns: list[tuple[int, int, int]]
) -> dict[str, dict[int, int]]:
    """Each player's half points in the varied games -> the scenarios (bits) where he
    scores exactly that."""
    universe = (1 << len(table.choices)) - 1
    out: dict[str, dict[int, int]] = {}
    for pairing, bits in zip(table.space.remaining, columns, strict=True):
        for player, side in ((pairing.white, 0), (pairing.black, 1)):
            before = out.get(player, {0: universe})
            after: dict[int, int] = {}
            for value, held in before.items():
                for c, result in enumerate(RESULTS):
                    both = held & bits[c]
                    if both:
                        v = value + HALF_POINTS[result][side]
                        after[v] = after.get(v, 0) | both
            out[player] = after
    return out


class Conditions:
    """The atoms of one scenario table, and the search for one player's condition."""

    def __init__(self, table: ScenarioTable) -> None:
        self.table = table
        self.universe = (1 << len(table.choices)) - 1
        self.values = _value_bits(table, result_bits(table)) if table.exhaustive else {}
        won: dict[str, list[int]] = {}
        played_off: dict[str, list[int]] = {}
        self.decided: dict[str, set[str]] = {}
        """Per player: how the scenarios he wins were decided (``Outcome.decided_by``)."""
        for i, outcome in enumerate(table.outcomes):
            if outcome.winner is not None:
                won.setdefault(outcome.winner, []).append(i)
                self.decided.setdefault(outcome.winner, set()).add(outcome.decided_by)
            for p in outcome.playoff:
                played_off.setdefault(p, []).append(i)
        size = len(table.outcomes)
        self.first = {p: as_bits(found, size) for p, found in won.items()}
        """Per player: the scenarios he wins outright (bits)."""
        self.playoff = {p: as_bits(found, size) for p, found in played_off.items()}
        """Per player: the scenarios where he plays the playoff for first place (bits)."""
        self.points = table.space.counted.half_points()
        """Half points before the varied games (13.4 e reductions aside: wording only)."""
        self.games: dict[str, int] = {}
        for pairing in table.space.remaining:
            for p in (pairing.white, pairing.black):
                self.games[p] = self.games.get(p, 0) + 1

    def atoms(self, player: str) -> list[Atom]:
        """The atoms a condition about ``player`` may use, his own first."""
        out: list[Atom] = []
        people = [player, *sorted(p for p in self.values if p != player)]
        for order, p in enumerate(people):
            if p not in self.values:
                continue
            values = sorted(self.values[p])
            own = 0 if p == player else 2
            for v in values:
                at_least = at_most = 0
                for w, b in self.values[p].items():
                    if w >= v:
                        at_least |= b
                    if w <= v:
                        at_most |= b
                if v != values[0]:
                    out.append(Atom("ge", p, v, None, at_least, own * 100 + order))
                if v != values[-1]:
                    out.append(Atom("le", p, v, None, at_most, own * 100 + order))
                if v not in (values[0], values[-1]):
                    out.append(Atom("eq", p, v, None, self.values[p][v], own * 100 + order + 50))
        if player in self.values:
            mine = self.values[player]
            for order, rival in enumerate(people[1:]):
                theirs = self.values.get(rival)
                if theirs is None:
                    continue
                lead = self.points.get(player, 0) - self.points.get(rival, 0)
                # his result against the rival's; then his final points against the rival's
                for kind, offset, rank in (("cmp", 0, 100), ("fin", lead, 150)):
                    ge = gt = 0
                    for v, vb in mine.items():
                        for w, wb in theirs.items():
                            if v + offset >= w:
                                ge |= vb & wb
                            if v + offset > w:
                                gt |= vb & wb
                    # never ahead: "level with", not "level with or ahead of"
                    ge_kind = kind + ("_ge" if gt else "_eq")
                    out.append(Atom(ge_kind, player, 0, rival, ge, rank + order))
                    out.append(Atom(kind + "_gt", player, 0, rival, gt, rank + order))
        universe = self.universe
        unique: dict[int, Atom] = {}
        for atom in out:  # one atom per set of scenarios: the first (the simplest)
            if 0 < atom.bits < universe:
                unique.setdefault(atom.bits, atom)
        return list(unique.values())

    def search(self, player: str, target: int) -> tuple[str, list[list[Atom]]] | None:
        """``("all"|"none"|"dnf", terms)``: the shortest condition true in exactly ``target``."""
        if target == 0:
            return "none", []
        if target == self.universe:
            return "all", []
        if not self.table.exhaustive:
            return None  # over a sample of many games no short condition is exact: counted
        atoms = sorted(self.atoms(player), key=lambda a: a.rank)
        found = _shortest(atoms, target, MAX_ATOMS)
        if found is None or all(a.kind in RESULT_KINDS for t in found[1] for a in t):
            return found
        # results a commentator can name ("with a win if Beta loses") before a comparison,
        # when they take at most one statement more
        length = sum(len(t) for t in found[1])
        results = [a for a in atoms if a.kind in RESULT_KINDS]
        return _shortest(results, target, min(MAX_ATOMS, length + 1)) or found


def _shortest(atoms: Sequence[Atom], target: int, most: int) -> tuple[str, list[list[Atom]]] | None:
    """The first condition of at most ``most`` atoms true in exactly ``target``."""
    supersets = [a for a in atoms if a.bits & target == target]
    subsets = [a for a in atoms if a.bits & ~target == 0]
    pairs: list[tuple[int, list[Atom]]] | None = None
    for length in range(1, most + 1):
        found = _conjunction(supersets, target, length)
        if found is not None:
            return "dnf", [found]
        if length >= 2:
            if pairs is None:
                pairs = widest(_terms(atoms[:MAX_PAIR_ATOMS], target, 2))
            found_or = _disjunction(atoms, subsets, target, length, pairs)
            if found_or is not None:
                return "dnf", found_or
    return None


def _conjunction(atoms: Sequence[Atom], target: int, length: int) -> list[Atom] | None:
    for combo in combinations(atoms, length):
        bits = -1
        for a in combo:
            bits &= a.bits
        if bits == target:
            return list(combo)
    return None


def _terms(atoms: Sequence[Atom], target: int, size: int) -> list[tuple[int, list[Atom]]]:
    """Conjunctions of ``size`` atoms true only inside ``target`` (and somewhere)."""
    out: list[tuple[int, list[Atom]]] = []
    for combo in combinations(atoms, size):
        bits = -1
        for a in combo:
            bits &= a.bits
        if bits and bits & ~target == 0:
            out.append((bits, list(combo)))
    return out


def widest(terms: list[tuple[int, list[Atom]]]) -> list[tuple[int, list[Atom]]]:
    """The ``MAX_TERMS`` two-atom terms covering the most scenarios, one per set of
    scenarios (the search for two of them stays bounded)."""
    seen: dict[int, tuple[int, list[Atom]]] = {}
    for bits, term in terms:
        seen.setdefault(bits, (bits, term))
    ranked = sorted(seen.values(), key=lambda t: -t[0].bit_count())
    return ranked[:MAX_TERMS]


def _disjunction(
    atoms: Sequence[Atom],
    subsets: Sequence[Atom],
    target: int,
    length: int,
    pairs: list[tuple[int, list[Atom]]],
) -> list[list[Atom]] | None:
    """Two conjunctions of one or two atoms whose union is ``target``, ``length`` atoms in
    all (``pairs``: the two-atom conjunctions true only inside ``target``)."""
    terms = {1: [(a.bits, [a]) for a in subsets], 2: pairs}
    for first in range(1, length // 2 + 1):
        second = length - first
        if second > 2:
            continue
        for bits_a, term_a in terms[first]:
            for bits_b, term_b in terms[second]:
                if bits_a | bits_b == target:
                    return [term_a, term_b]
    return None


# --- words -----------------------------------------------------------------------
#
# A condition is said without a pronoun (nobody's is assumed): the player's own results
# after "with" ("with a win", "with a draw or a win and more points than Carlsen"), the
# rivals' after "if" ("if Kramnik loses"), alternatives after ", or": "Kramnik finishes
# first with a win, or with a draw if Carlsen loses".


def _points(half: int) -> str:
    whole, half_left = divmod(half, 2)
    text = (str(whole) if whole else "") + ("½" if half_left else "")
    return text or "0"


def _own(atom: Atom, names: Mapping[str, str], games: int) -> str:
    """The subject's own result or a comparison, to follow "with"."""
    if atom.kind in COMPARISONS:
        one, several = COMPARISONS[atom.kind]
        rival = names.get(atom.rival or "", atom.rival or "")
        return (one if games == 1 else several).format(rival=rival)
    if games == 1:
        return {
            ("ge", 2): "a win",
            ("ge", 1): "a win or a draw",
            ("le", 0): "a loss",
            ("le", 1): "a draw or a loss",
        }.get((atom.kind, atom.value), "a draw")
    top = 2 * games
    if atom.kind == "ge":
        if atom.value == top:
            return f"{NUMBERS.get(games, str(games))} wins"
        return f"at least {_points(atom.value)} from {games}"
    if atom.kind == "le":
        if atom.value == 0:
            return f"{NUMBERS.get(games, str(games))} losses"
        return f"at most {_points(atom.value)} from {games}"
    return f"exactly {_points(atom.value)} from {games}"


NUMBERS = {2: "two", 3: "three", 4: "four"}


def _rival(atom: Atom, who: str, games: int) -> str:
    """A rival's result as a clause ("Kramnik loses", "Kramnik scores at most 1 of 2")."""
    if games == 1:
        if atom.kind == "ge":
            return f"{who} wins" if atom.value == 2 else f"{who} does not lose"
        if atom.kind == "le":
            return f"{who} loses" if atom.value == 0 else f"{who} does not win"
        return f"{who} draws"
    top = 2 * games
    every = "both games" if games == 2 else f"all {games} games"
    if atom.kind == "ge":
        if atom.value == top:
            return f"{who} wins {every}"
        return f"{who} scores at least {_points(atom.value)} of {games}"
    if atom.kind == "le":
        if atom.value == 0:
            return f"{who} loses {every}"
        return f"{who} scores at most {_points(atom.value)} of {games}"
    return f"{who} scores exactly {_points(atom.value)} of {games}"


def _join(parts: Sequence[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _term_words(
    term: Sequence[Atom], player: str, names: Mapping[str, str], games: Mapping[str, int]
) -> str:
    """A conjunction in words: "with a win if Kramnik loses"; rivals with the same result
    are named together ("if Carlsen and Kramnik lose")."""
    own, rivals = _term_parts(term, player, names, games)
    words = f"with {own}" if own else ""
    if rivals:
        words += (" if " if own else "if ") + rivals
    return words


def _term_parts(
    term: Sequence[Atom], player: str, names: Mapping[str, str], games: Mapping[str, int]
) -> tuple[str, str]:
    """(the player's own part, to follow "with"; the rivals' part, to follow "if")."""
    compared: dict[str, list[str]] = {}
    own: list[str] = []
    for atom in term:
        if atom.player != player:
            continue
        if atom.kind in COMPARISONS and atom.rival is not None:
            # "at least as many points as Carlsen and Kramnik"
            if atom.kind not in compared:
                own.append(atom.kind)
            compared.setdefault(atom.kind, []).append(names.get(atom.rival, atom.rival))
        else:
            own.append(_own(atom, names, games.get(player, 1)))
    count = games.get(player, 1)
    own = [
        (COMPARISONS[o][0 if count == 1 else 1].format(rival=_join(compared[o])))
        if o in compared
        else o
        for o in own
    ]
    grouped: dict[tuple[str, int, int], list[Atom]] = {}
    for atom in term:
        if atom.player != player:
            key = (atom.kind, atom.value, games.get(atom.player, 1))
            grouped.setdefault(key, []).append(atom)
    rivals: list[str] = []
    for atoms in grouped.values():
        count = games.get(atoms[0].player, 1)
        if len(atoms) == 1:
            rivals.append(_rival(atoms[0], names.get(atoms[0].player, atoms[0].player), count))
            continue
        who = _join([names.get(a.player, a.player) for a in atoms])
        rest = _rival(atoms[0], "", count)
        # "Carlsen and Kramnik lose", "Carlsen and Kramnik do not win"
        rest = (
            rest.replace(" does not ", " do not ")
            .replace(" wins", " win")
            .replace(" loses", " lose")
            .replace(" draws", " draw")
            .replace(" scores", " each score")
        )
        rivals.append(f"{who}{rest}")
    return _join(own), _join(rivals)


def condition_words(
    found: tuple[str, list[list[Atom]]] | None,
    player: str,
    names: Mapping[str, str],
    games: Mapping[str, int],
) -> str:
    """The condition, to follow "finishes first" ("with a win", "if Kramnik loses",
    "whatever the results", "in no case")."""
    if found is None:
        return ""
    kind, terms = found
    if kind == "all":
        return "whatever the results"
    if kind == "none":
        return "in no case"
    if len(terms) == 2 and games.get(player, 1) == 1:
        terms = [terms[0], [_beside(terms[0], a, player) for a in terms[1]]]
    parts = [_term_parts(t, player, names, games) for t in terms]
    if len(parts) == 2 and parts[0][0] and parts[0][0] == parts[1][0] and all(r for _, r in parts):
        # the same result of his own under either condition: said once
        return f"with {parts[0][0]} if {parts[0][1]}, or if {parts[1][1]}"
    return ", or ".join(_term_words(t, player, names, games) for t in terms)


def _beside(first: Sequence[Atom], atom: Atom, player: str) -> Atom:
    """In "with a win, or with a win or a draw if ...", the second "a win" is already said
    by the first alternative: "with a win, or with a draw if ..." (the same scenarios)."""
    if len(first) != 1 or first[0].player != player or atom.player != player:
        return atom
    said = first[0]
    if said.kind == "ge" and said.value == 2 and atom.kind == "ge" and atom.value == 1:
        return Atom("eq", player, 1, None, atom.bits, atom.rank)
    if said.kind == "le" and said.value == 0 and atom.kind == "le" and atom.value == 1:
        return Atom("eq", player, 1, None, atom.bits, atom.rank)
    return atom


def tiebreak_words(chain: Sequence[str], first_place_by_games: bool) -> str:
    """The tie-break for first place, named once for the whole panel: "Level on points:
    3.7 a the games between the tied players, 3.7 b more wins, 3.7 c Sonneborn-Berger;
    then a playoff (3.7.1)"."""
    if first_place_by_games:
        return "Level on points for first: a playoff (3.7.1)"
    named = [f"3.7 {LETTERS[i]} {CRITERION_WORDS.get(c, c)}" for i, c in enumerate(chain)]
    return "Level on points: " + ", ".join(named) + "; then a playoff (3.7.1)"


def criteria_note(decided: Iterable[str], chain: Sequence[str]) -> str:
    """What the panel's tie-break line does not say: a first place that a withdrawal
    decided (3.1). The chain's criteria are named once (``tiebreak_words``), never per
    player."""
    if WITHDRAWAL in set(decided):
        return " (3.1, a withdrawn player cannot play tie-break games)"
    return ""


def decided_by(decided: Iterable[str], chain: Sequence[str]) -> list[str]:
    """The criteria that put the player first where he was level on points, in the
    chain's order (``h2h``, ``wins``, ...; ``withdrawal``)."""
    seen = {c for c in decided if c not in (POINTS, PLAYOFF)}
    return sorted(seen, key=lambda c: chain.index(c) if c in chain else 99)


def as_bits(indexes: Sequence[int], size: int) -> int:
    """The scenarios of these indexes as bits (bit i: scenario i)."""
    if not indexes:
        return 0
    text = bytearray(b"0" * size)
    for i in indexes:
        text[size - 1 - i] = 49  # "1"
    return int(text, 2)


def percent(chance: float) -> str:
    """``20.9%``; ``under 0.1%`` / ``over 99.9%`` rather than a 0 or 100 that is not."""
    if 0 < chance < 0.0005:
        return "under 0.1%"
    if 0.9995 < chance < 1:
        return "over 99.9%"
    return f"{100 * chance:.1f}%"


class NeedsWords(TypedDict):
    """A player's conditions to finish first, in words."""

    first_if: str | None
    playoff_if: str | None
    needs: Annotated[str, Meta(description="the sentence for the air, no pronoun")]
    detail: Annotated[str | None, Meta(description="the scenario counts behind the sentence")]


def needs_in_words(
    table: ScenarioTable,
    conditions: Conditions,
    player: str,
    names: Mapping[str, str],
    chance: float | None = None,
) -> NeedsWords:
    """``first_if`` and ``playoff_if`` (the conditions to finish first, and to reach at
    least the playoff when that differs; None where there is none, or no short one),
    ``needs``, the sentence for the air, and ``detail``, the scenario counts behind it.

    Where no short condition is exact (always over a sample) the sentence gives the
    ``chance`` first ("Aronian: 20.9% to finish first") and the counts go to ``detail``
    ("first in 601 of 2,187 sampled scenarios"): a count of sampled scenarios is not a
    chance, and side by side they read as a contradiction."""
    name = names.get(player, player)
    outright = conditions.first.get(player, 0)
    share = outright | conditions.playoff.get(player, 0)
    total = len(table.outcomes)
    sampled = "" if table.exhaustive else " sampled"
    counted = False

    def phrase(bits: int) -> str | None:
        nonlocal counted
        found = conditions.search(player, bits)
        if found is None:
            counted = True
            return None
        return condition_words(found, player, names, conditions.games)

    first_if = phrase(outright) if outright else None
    playoff_if = phrase(share) if share not in (outright, 0) else None
    note = criteria_note(conditions.decided.get(player, ()), table.space.chain)
    detail = (
        f"first outright in {_count(outright):,} of {total:,}{sampled} scenarios, "
        f"at least a playoff in {_count(share):,}"
    )
    settled = not table.space.remaining  # every game played: what is, not what may be
    if share == 0:
        sentence = f"{name} cannot finish first"
    elif settled and outright:
        sentence = f"{name} has finished first{note}"
    elif settled:
        sentence = f"{name} plays the playoff for first place"
    elif counted:
        sentence = (
            f"{name}: {percent(chance)} to finish first"
            if chance is not None
            else f"{name} finishes first in {_count(share):,} of {total:,}{sampled} scenarios"
        )
    elif outright == conditions.universe:
        sentence = f"{name} finishes first whatever the results{note}"
    elif outright == 0:
        sentence = f"{name} cannot finish first outright but reaches a playoff {playoff_if}"
    else:
        sentence = f"{name} finishes first {first_if}{note}"
        if playoff_if:
            sentence += f"; at least a playoff {playoff_if}"
    return {
        "first_if": first_if,
        "playoff_if": playoff_if,
        "needs": sentence,
        "detail": detail if share else None,
    }


def _count(bits: int) -> int:
    return bin(bits).count("1")
