"""What a player needs, in words: the shortest condition exactly true over the scenarios.

Never written by hand: for each contender the scenarios where he finishes first
(outright; then those where he at least reaches a playoff) are a set, and a
small search finds the shortest condition on the varied games' results that
holds in exactly that set of scenarios (``projections.scenarios``).

The conditions are built from *atoms* about the points each player scores in
the varied games (a single game: a win, a draw, a loss):

- his own result: at least / at most / exactly a value ("he wins", "he does
  not lose", "he draws");
- his result against a rival's: "his result is at least Kramnik's", "better
  than Kramnik's"; his final points against a rival's: "he finishes ahead of
  Kramnik on points";
- a rival's result: "Kramnik loses", "Kramnik does not win".

Conditions are conjunctions of atoms, or a disjunction of two conjunctions of
one or two atoms (two-atom ones among the ``MAX_TERMS`` that cover the most
scenarios, so the search stays bounded); the search goes by length (the
number of atoms: 1, 2, 3, 4), conjunctions before disjunctions of the same
length, the player's own result first, so the first condition found is among
the shortest. "in every scenario" and "in no scenario" are said as such. Over a
sample (more than two rounds left) the scenarios are only counted ("finishes
first in 296 of 2187 sampled scenarios"): no short condition is exact over so
many games.

Where he finishes first level on points, the criteria that decided it are
named after the condition: "(3.7 b, more wins)".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from operator import itemgetter

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
    "cmp_ge": ("his result is at least {rival}'s", "he scores at least as much as {rival}"),
    "cmp_gt": ("his result is better than {rival}'s", "he scores more than {rival}"),
    "fin_ge": ("he finishes level with or ahead of {rival} on points",) * 2,
    "fin_gt": ("he finishes ahead of {rival} on points",) * 2,
}
"""A comparison with a rival's result in words: over one game, over several."""
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
                    out.append(Atom(kind + "_ge", player, 0, rival, ge, rank + order))
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
        supersets = [a for a in atoms if a.bits & target == target]
        subsets = [a for a in atoms if a.bits & ~target == 0]
        pairs: list[tuple[int, list[Atom]]] | None = None
        for length in range(1, MAX_ATOMS + 1):
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


def _points(half: int) -> str:
    whole, half_left = divmod(half, 2)
    text = (str(whole) if whole else "") + ("½" if half_left else "")
    return text or "0"


def _clause(atom: Atom, player: str, names: Mapping[str, str], games: int) -> str:
    """One atom in words ("he wins", "Kramnik does not lose", "his result is at least
    Kramnik's")."""
    who = "he" if atom.player == player else names.get(atom.player, atom.player)
    if atom.kind in COMPARISONS:
        one, several = COMPARISONS[atom.kind]
        template = one if games == 1 else several
        return template.format(rival=names.get(atom.rival or "", atom.rival or ""))
    if games == 1:
        if atom.kind == "ge":
            return f"{who} wins" if atom.value == 2 else f"{who} does not lose"
        if atom.kind == "le":
            return f"{who} loses" if atom.value == 0 else f"{who} does not win"
        return f"{who} draws"
    top = 2 * games
    every = "both his games" if games == 2 else f"all his {games} games"
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
    """A conjunction in words; rivals with the same result are named together
    ("Carlsen and Kramnik lose")."""
    grouped: dict[tuple[str, int, int], list[Atom]] = {}
    ordered: list[tuple[str, int, int]] = []
    for atom in term:
        key = (atom.kind, atom.value, games.get(atom.player, 1))
        if atom.player == player or atom.kind.startswith("cmp"):
            key = (atom.kind + ":" + (atom.rival or atom.player), atom.value, key[2])
        if key not in grouped:
            ordered.append(key)
        grouped.setdefault(key, []).append(atom)
    words: list[str] = []
    for key in ordered:
        atoms = grouped[key]
        first = _clause(atoms[0], player, names, games.get(atoms[0].player, 1))
        if len(atoms) == 1:
            words.append(first)
            continue
        who = _join([names.get(a.player, a.player) for a in atoms])
        name0 = names.get(atoms[0].player, atoms[0].player)
        rest = first.removeprefix(name0)
        # "Carlsen and Kramnik lose", "Carlsen and Kramnik do not win"
        rest = (
            rest.replace(" does not ", " do not ")
            .replace(" wins", " win")
            .replace(" loses", " lose")
            .replace(" draws", " draw")
            .replace(" scores", " each score")
        )
        words.append(f"both {who}{rest}" if len(atoms) == 2 else f"{who}{rest}")
    return _join(_on_points_together(words))


FINISHES, ON_POINTS = "he finishes ", " on points"


def _on_points_together(words: list[str]) -> list[str]:
    """Comparisons of final points said once: "he finishes level with or ahead of
    Carlsen and ahead of Kramnik on points"."""
    final = [w for w in words if w.startswith(FINISHES) and w.endswith(ON_POINTS)]
    if len(final) < 2:
        return words
    inner = [w.removeprefix(FINISHES).removesuffix(ON_POINTS) for w in final]
    merged = FINISHES + _join(inner) + ON_POINTS
    first = words.index(final[0])
    rest = [w for w in words if w not in final]
    return [*rest[:first], merged, *rest[first:]]


def condition_words(
    found: tuple[str, list[list[Atom]]] | None,
    player: str,
    names: Mapping[str, str],
    games: Mapping[str, int],
) -> str:
    """The condition as a phrase to follow "finishes first if" (or a sentence ending)."""
    if found is None:
        return ""
    kind, terms = found
    if kind == "all":
        return "in every scenario"
    if kind == "none":
        return "in no scenario"
    return ", or ".join(_term_words(t, player, names, games) for t in terms)


def criteria_note(decided: Iterable[str], chain: Sequence[str]) -> str:
    """The criteria that put the player first where he was level on points (``decided``:
    the ``decided_by`` of the scenarios he wins): "(3.7 b, more wins)"; empty when points
    alone did."""
    seen = {c for c in decided if c not in (POINTS, PLAYOFF)}
    notes = []
    for criterion in sorted(seen, key=lambda c: chain.index(c) if c in chain else 99):
        if criterion == WITHDRAWAL:
            notes.append("3.1, a withdrawn player cannot play tie-break games")
        elif criterion in chain:
            letter = LETTERS[chain.index(criterion)]
            notes.append(f"3.7 {letter}, {CRITERION_WORDS.get(criterion, criterion)}")
    return f" ({'; '.join(notes)})" if notes else ""


def as_bits(indexes: Sequence[int], size: int) -> int:
    """The scenarios of these indexes as bits (bit i: scenario i)."""
    if not indexes:
        return 0
    text = bytearray(b"0" * size)
    for i in indexes:
        text[size - 1 - i] = 49  # "1"
    return int(text, 2)


def needs_in_words(
    table: ScenarioTable, conditions: Conditions, player: str, names: Mapping[str, str]
) -> dict[str, str | None]:
    """``first_if`` and ``playoff_if`` (the conditions to finish first, and to reach at
    least the playoff when that differs; None where there is none, or no short one) and
    ``needs``, a sentence: the condition, or the count of scenarios where none is short
    enough (and always over a sample)."""
    name = names.get(player, player)
    outright = conditions.first.get(player, 0)
    share = outright | conditions.playoff.get(player, 0)
    sampled = "" if table.exhaustive else " sampled"

    def phrase(bits: int) -> tuple[str | None, str]:
        found = conditions.search(player, bits)
        if found is None:
            return None, f"in {_count(bits)} of {len(table.outcomes)}{sampled} scenarios"
        words = condition_words(found, player, names, conditions.games)
        return words, f"if {words}"

    first_if, first = phrase(outright) if outright else (None, "")
    playoff_if: str | None = None
    playoff = ""
    if share != outright:
        playoff_if, playoff = phrase(share)
    note = criteria_note(conditions.decided.get(player, ()), table.space.chain)
    if share == 0:
        sentence = f"{name} cannot finish first" + (" in any sampled scenario" if sampled else "")
    elif outright == conditions.universe:
        sentence = f"{name} finishes first in every{sampled} scenario{note}"
    elif outright == 0:
        sentence = f"{name} cannot finish first outright; he reaches a playoff {playoff}"
    else:
        sentence = f"{name} finishes first {first}{note}"
        if playoff:
            sentence += f"; at least a playoff {playoff}"
    return {"first_if": first_if, "playoff_if": playoff_if, "needs": sentence}


def _count(bits: int) -> int:
    return bin(bits).count("1")


def short_name(name: str) -> str:
    """The name a commentator says: the surname ("Carlsen" of "Carlsen,M" or "Magnus
    Carlsen")."""
    if "," in name:
        return name.split(",")[0].strip() or name
    parts = name.split()
    return parts[-1] if parts else name
