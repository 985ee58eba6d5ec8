"""Who is who in a PGN file: players identified by FIDE ID, else by the whole name.

A real file writes one player several ways (``"Caruana, Fabiano"``, ``"Caruana,F"``)
and two players with one surname side by side (the Muzychuk sisters), so identity
never rests on the surname alone: the FIDE ID when there is one, else the whole
normalised name or the one name it abbreviates. Names that may be one player written
two ways stop the import before anything is appended, until a players file says who
is who. The rules and the player ids are in docs/import.md, "Players"."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.errors import MalformedCommand
from engine.events import PlayerEntry


def player_id(name: str) -> str:
    """A stable id from a PGN name: the surname, lower case, ASCII, no spaces."""
    surname = name.split(",")[0].strip() or name.strip() or "unknown"
    return _slug(surname)


def _slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-") or "unknown"


def name_words(name: str) -> list[str]:
    """The words of a name, ASCII lower case (``"Vachier-Lagrave,M"`` -> vachier lagrave m)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return [w for w in re.split(r"[^a-z0-9]+", ascii_name.lower()) if w]


SAME, ABBREVIATION, VARIANT, DIFFERENT = "same", "abbreviation", "variant", "different"


def relation(a: str, b: str) -> str:
    """How two written names relate: the same words, one abbreviating the other
    (initials or a missing first name), a variant spelling (a shared surname, the other
    names with the same initials but spelled otherwise), or different people."""
    wa, wb = name_words(a), name_words(b)
    if not wa or not wb:
        return SAME if wa == wb else DIFFERENT
    if sorted(wa) == sorted(wb):
        return SAME
    rest_a, rest_b = list(wa), list(wb)
    shared = 0
    for word in wa:
        if len(word) > 1 and word in rest_b:
            rest_a.remove(word)
            rest_b.remove(word)
            shared += 1
    if not shared:
        return DIFFERENT
    short, long_ = sorted((rest_a, rest_b), key=len)
    spelled_otherwise = False
    for word in short:
        match = next((w for w in long_ if w.startswith(word) or word.startswith(w)), None)
        if match is None:
            match = next((w for w in long_ if w[0] == word[0]), None)
            if match is None:
                return DIFFERENT
            spelled_otherwise = True
        long_.remove(match)
    return VARIANT if spelled_otherwise else ABBREVIATION


@dataclass
class Seen:
    """Everything the file says about one written name."""

    name: str
    fide_id: str = ""
    title: str = ""
    rating: int = 0
    federation: str = ""


@dataclass(frozen=True)
class Identity:
    """One player of the file."""

    id: str
    name: str
    """The fullest spelling (``Surname, First`` preferred)."""
    spellings: tuple[str, ...]
    fide_id: str = ""
    title: str = ""
    rating: int = 0
    federation: str = ""

    def as_player(self) -> PlayerEntry:
        """The player object of ``create_tournament``."""
        out = PlayerEntry(
            id=self.id, name=self.name, federation=self.federation, rating=self.rating
        )
        if self.fide_id:
            out["fide_id"] = self.fide_id
        if self.title:
            out["title"] = self.title
        return out


@dataclass(frozen=True)
class Known:
    """A player already in the store's tournament: the file's names map onto it."""

    id: str
    name: str
    fide_id: str = ""


def resolve(
    seen: Sequence[Seen],
    mapping: Mapping[str, str] | None = None,
    known: Iterable[Known] = (),
) -> dict[tuple[str, str], Identity]:
    """Every (written name, FIDE ID or "") -> its player; MalformedCommand listing the
    ambiguous names."""
    mapping = dict(mapping or {})
    entries = list(seen)
    fixed: dict[int, str] = {}  # entry index -> a player id given by the mapping or the store
    for known_player in known:
        entries.append(Seen(known_player.name, known_player.fide_id))
        fixed[len(entries) - 1] = known_player.id
    for index, entry in enumerate(entries):
        if entry.name in mapping:
            fixed[index] = mapping[entry.name]
    parent = list(range(len(entries)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(i: int, j: int) -> None:
        parent[find(i)] = find(j)

    def fide_id(i: int) -> str:
        return entries[i].fide_id

    def group_ids(root: int) -> set[str]:
        return {fide_id(i) for i in range(len(entries)) if find(i) == root and fide_id(i)}

    def group_fixed(root: int) -> set[str]:
        return {fixed[i] for i in fixed if find(i) == root}

    def separated(i: int, j: int) -> bool:
        """Proven different: different FIDE IDs or different given ids."""
        ids_i, ids_j = group_ids(find(i)), group_ids(find(j))
        fixed_i, fixed_j = group_fixed(find(i)), group_fixed(find(j))
        return bool(ids_i and ids_j and ids_i != ids_j) or bool(
            fixed_i and fixed_j and fixed_i != fixed_j
        )

    for i in range(len(entries)):
        for j in range(i + 1, len(entries)):
            same_given = i in fixed and j in fixed and fixed[i] == fixed[j]
            same_fide = bool(fide_id(i)) and fide_id(i) == fide_id(j)
            if same_given or same_fide:
                union(i, j)
    for i in range(len(entries)):
        for j in range(i + 1, len(entries)):
            if (
                find(i) != find(j)
                and not separated(i, j)
                and relation(entries[i].name, entries[j].name) == SAME
            ):
                union(i, j)
    for i in range(len(entries)):
        candidates = {
            find(j)
            for j in range(len(entries))
            if find(j) != find(i)
            and relation(entries[i].name, entries[j].name) == ABBREVIATION
            and not separated(i, j)
        }
        if len(candidates) == 1:
            union(i, candidates.pop())
    ambiguous: list[tuple[str, str]] = []
    for i in range(len(entries)):
        for j in range(i + 1, len(entries)):
            if find(i) == find(j) or separated(i, j):
                continue
            if i in fixed and j in fixed:
                continue  # the mapping (or the store) says they differ
            kind = relation(entries[i].name, entries[j].name)
            if kind in (ABBREVIATION, VARIANT, SAME):
                ambiguous.append((entries[i].name, entries[j].name))
    if ambiguous:
        listed = "; ".join(f"{a!r} / {b!r}" for a, b in ambiguous)
        raise MalformedCommand(
            f"these names may be one player written two ways, and no FIDE ID says so: {listed}. "
            "Nothing was imported. Add WhiteFideId/BlackFideId tags, or pass --players FILE "
            '(a JSON object mapping each name as written to a player id, e.g. {"'
            + ambiguous[0][0]
            + '": "id", "'
            + ambiguous[0][1]
            + '": "id"}: names mapped to one id are one player)'
        )
    groups: dict[int, list[int]] = {}
    for i in range(len(entries)):
        groups.setdefault(find(i), []).append(i)
    drafts = []
    for members in groups.values():
        spellings = [entries[i].name for i in members]
        display = max(spellings, key=lambda n: ("," in n, len(name_words(n)), len(n)))
        given = next((fixed[i] for i in members if i in fixed), None)
        drafts.append((members, spellings, display, given))
    ids = _ids(
        [(display, given, _first(entries, members)) for members, _, display, given in drafts]
    )
    out: dict[tuple[str, str], Identity] = {}
    for (members, spellings, display, _), pid in zip(drafts, ids, strict=True):
        seen_here = [entries[i] for i in members if i < len(seen)]
        identity = Identity(
            id=pid,
            name=display,
            spellings=tuple(dict.fromkeys(spellings)),
            fide_id=_first(entries, members),
            title=next((e.title for e in seen_here if e.title), ""),
            rating=max((e.rating for e in seen_here), default=0),
            federation=next((e.federation for e in seen_here if e.federation), ""),
        )
        for i in members:
            out[(entries[i].name, entries[i].fide_id)] = identity
    return out


def _first(entries: Sequence[Seen], members: Sequence[int]) -> str:
    return next((entries[i].fide_id for i in members if entries[i].fide_id), "")


def _ids(players: Sequence[tuple[str, str | None, str]]) -> list[str]:
    """Surname ids, the whole name where two players share a surname, then + FIDE ID."""
    given = {g for _, g, _ in players if g}
    first = [g or player_id(name) for name, g, _ in players]
    out = []
    for (name, g, fide), candidate in zip(players, first, strict=True):
        if g:
            out.append(g)
            continue
        if first.count(candidate) > 1 or candidate in given:
            candidate = _slug(name)
            if sum(_slug(n) == candidate for n, x, _ in players if not x) > 1 or candidate in given:
                candidate = f"{candidate}-{fide or len(out) + 1}"
        out.append(candidate)
    return out
