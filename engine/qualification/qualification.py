"""Who plays the Candidates: qualification (2.1-2.7) and replacements (3.3.1-3.3.3).

FIDE Candidates Tournament regulations for the 2011-2013 cycle, section 2
("in order of priority"):

- 2.1 the three top finishers of the World Cup 2011;
- 2.2 the loser of the 2012 World Championship match;
- 2.3 three players by the average of the July 2011 and January 2012 rating
  lists, excluding the players of 2.1 and 2.2, with its tie-break chain
  (two decimals, then games in 2011, then the March 2012 rating, then the
  games in the March 2012 list) and its inactive-list rules;
- 2.6 one player nominated by the organiser, rated at least 2700 in January 2012;
- 2.7 every replacement comes from the same average rating list.

Section 3.3: a player who does not return his contract in time is replaced
(3.3.1); one who withdraws at least three months before the start is replaced
(3.3.2); one who withdraws later is not (3.3.3).

Pure: the input is a mapping (decoded JSON), the answer a
``QualificationResult`` of values. Ratings are whole numbers, averages exact
``Fraction``s compared at two decimals (``Decimal``), never floats.

Interpretations (each also in ``docs/qualification.md``):

- The World Champion, who plays the 2012 match, is not a candidate: both
  players of the match are left out of the 2.3 list (the loser qualifies
  under 2.2 once the match is played).
- The tie-break chain refines the tied group as a whole: those a criterion
  separates are ranked by it, those still level go on to the next one. A
  criterion whose figures are missing for a member of the group leaves the
  group level; so does the end of the chain (the regulations are silent).
  A level group is an error only where it decides a place (the third rated
  place, a replacement): ``UndecidedTie`` names the players and the cause.
- A player who qualifies twice (say in 2.1 and 2.2) takes the place of the
  higher priority; the other place is filled per 2.7 from the rating list,
  as is the place of any withdrawal that is replaced, the nominee's included.
- A withdrawal exactly three calendar months before the start day is "at
  least 3 months before" (3.3.2) and is replaced.
- A reserve who withdraws (declines) leaves the reserve list; nobody replaces
  a reserve.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from engine.errors import CommandRefused, MalformedCommand
from engine.fields import boolean, optional, refuse_unknown_keys, unknown_keys, whole, words
from engine.timefmt import parse_day

NOMINEE_MIN_RATING = 2700
"""2.6: the nominee's rating in the January 2012 list is at least this."""

RATED_PLACES = 3
"""2.3: three players qualify by rating."""

FIELD_SIZE = 8
"""1.1: eight players take part."""

WITHDRAWAL_MONTHS = 3
"""3.3.2 / 3.3.3: the boundary between a replaced and an unreplaced withdrawal."""

TWO_DECIMALS = Decimal("0.01")

LIST_NAMES = {
    "july_2011": "July 2011",
    "january_2012": "January 2012",
    "march_2012": "March 2012",
}

WITHDRAWAL_KINDS = ("withdrew", "contract_not_submitted")
"""``withdrew``: 3.3.2 / 3.3.3; ``contract_not_submitted``: 3.3.1 (always replaced)."""


class UndecidedTie(CommandRefused):
    """The 2.3 list leaves players level where a place must be decided."""

    code = "undecided_tie"


# --- input ---------------------------------------------------------------------


@dataclass(frozen=True)
class ListEntry:
    """A player's line in one FIDE rating list."""

    rating: int
    games: int | None
    """Rated games counted in that list, when known."""
    inactive: bool
    """The player is flagged inactive in that list."""


@dataclass(frozen=True)
class RatedPlayer:
    """A player and his lines in the three lists of 2.3."""

    id: str
    name: str
    federation: str
    lists: Mapping[str, ListEntry | None]
    """``july_2011``, ``january_2012``, ``march_2012`` -> entry, None if absent."""
    games_2011: int | None
    """2.3: rated games in the twelve months of 2011, when known."""

    def entry(self, list_name: str) -> ListEntry | None:
        return self.lists.get(list_name)


@dataclass(frozen=True)
class Withdrawal:
    """A qualified player (or a reserve) who leaves before the event (3.3)."""

    player: str
    on: date
    kind: str
    reason: str


@dataclass(frozen=True)
class QualificationInput:
    """Everything section 2 decides from, checked for form."""

    players: tuple[RatedPlayer, ...]
    world_cup: tuple[str, ...]
    """2.1: winner, runner-up, third, in that order."""
    match_players: tuple[str, ...]
    """The champion and the challenger of the 2012 match (both leave 2.3)."""
    champion: str | None
    match_loser: str | None
    """2.2: None while the match is not played."""
    nominee: str | None
    """2.6: None while the organiser has not nominated."""
    start_date: date | None
    """The first day of the event (3.3.2 / 3.3.3 count back from it)."""
    withdrawals: tuple[Withdrawal, ...]

    def player(self, player_id: str) -> RatedPlayer | None:
        return next((p for p in self.players if p.id == player_id), None)

    @property
    def title_holder(self) -> str | None:
        """The World Champion after the 2012 match (its winner), or before it."""
        if self.match_loser is None:
            return self.champion
        return next(p for p in self.match_players if p != self.match_loser)


# --- 2.3 average ---------------------------------------------------------------


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


# --- 2.3 ranking with its tie-break chain --------------------------------------


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


# --- result --------------------------------------------------------------------


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

    def as_dict(self, inp: QualificationInput) -> dict[str, Any]:
        """The JSON form (``candidates qualify --format json``)."""

        def place(p: Place) -> dict[str, Any]:
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


# --- parsing -------------------------------------------------------------------

_TOP_KEYS = {
    "world_cup_2011",
    "world_championship_match_2012",
    "nominee",
    "start_date",
    "players",
    "withdrawals",
    "event",
    "sources",
    "assumptions",
    "notes",
}
_PLAYER_KEYS = {"id", "name", "federation", "games_2011", "note", *LIST_NAMES}
_ENTRY_KEYS = {"rating", "games", "inactive"}


def _entry(where: str, raw: object) -> ListEntry | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise MalformedCommand(f"{where} must be an object {{rating, games?, inactive?}} or null")
    refuse_unknown_keys(where, raw, _ENTRY_KEYS)
    rating = whole(f"{where}.rating", raw.get("rating"))
    if not 0 < rating < 4000:
        raise MalformedCommand(f"{where}.rating must be a FIDE rating, got {rating}")
    games = optional(whole, f"{where}.games", raw.get("games"))
    if games is not None and games < 0:
        raise MalformedCommand(f"{where}.games cannot be negative, got {games}")
    inactive = boolean(f"{where}.inactive", raw.get("inactive", False))
    return ListEntry(rating, games, inactive)


def _player(index: int, raw: object) -> RatedPlayer:
    where = f"players[{index}]"
    if not isinstance(raw, Mapping):
        raise MalformedCommand(f"{where} must be an object")
    pid = words(f"{where}.id", raw.get("id"))
    where = f"players[{index}] ({pid})"
    refuse_unknown_keys(where, raw, _PLAYER_KEYS)
    games_2011 = optional(whole, f"{where}.games_2011", raw.get("games_2011"))
    if games_2011 is not None and games_2011 < 0:
        raise MalformedCommand(f"{where}.games_2011 cannot be negative, got {games_2011}")
    return RatedPlayer(
        id=pid,
        name=optional(words, f"{where}.name", raw.get("name")) or pid,
        federation=optional(words, f"{where}.federation", raw.get("federation")) or "",
        lists={name: _entry(f"{where}.{name}", raw.get(name)) for name in LIST_NAMES},
        games_2011=games_2011,
    )


def parse_qualification(raw: object) -> QualificationInput:
    """Check the form of a qualification file (see ``docs/qualification.md``)."""
    if not isinstance(raw, Mapping):
        raise MalformedCommand("a qualification file must be a JSON object")
    unknown = unknown_keys(raw, _TOP_KEYS)
    if unknown:
        raise MalformedCommand(f"unknown field(s) {unknown}; known: {', '.join(sorted(_TOP_KEYS))}")
    players_raw = raw.get("players")
    if not isinstance(players_raw, list) or not players_raw:
        raise MalformedCommand("'players' must be a non-empty list of players")
    players = tuple(_player(i, p) for i, p in enumerate(players_raw))
    ids = [p.id for p in players]
    duplicates = sorted(i for i, n in Counter(ids).items() if n > 1)
    if duplicates:
        raise MalformedCommand(f"player ids must be unique; repeated: {duplicates}")
    known = set(ids)

    def ref(where: str, value: object, *, optional: bool = False) -> str | None:
        pid = words(where, value) if value is not None or not optional else None
        if pid is not None and pid not in known:
            raise MalformedCommand(f"{where} names {pid!r}, who is not in 'players'")
        return pid

    cup = raw.get("world_cup_2011")
    if not isinstance(cup, list) or len(cup) != 3:
        raise MalformedCommand(
            "'world_cup_2011' must list the three top finishers of the World Cup 2011 "
            "(winner, runner-up, third) (article 2.1)"
        )
    world_cup = tuple(ref(f"world_cup_2011[{i}]", c) or "" for i, c in enumerate(cup))
    if len(set(world_cup)) != 3:
        raise MalformedCommand(f"'world_cup_2011' names a player twice: {list(world_cup)}")

    match = raw.get("world_championship_match_2012")
    if not isinstance(match, Mapping):
        raise MalformedCommand(
            "'world_championship_match_2012' must be an object {champion, challenger, loser?} "
            "(article 2.2)"
        )
    refuse_unknown_keys("world_championship_match_2012", match, ("champion", "challenger", "loser"))
    champion = ref("world_championship_match_2012.champion", match.get("champion"))
    challenger = ref("world_championship_match_2012.challenger", match.get("challenger"))
    if champion == challenger:
        raise MalformedCommand("the 2012 match needs two different players")
    loser = ref("world_championship_match_2012.loser", match.get("loser"), optional=True)
    if loser is not None and loser not in (champion, challenger):
        raise MalformedCommand(
            f"world_championship_match_2012.loser {loser!r} did not play the match "
            f"({champion!r} v {challenger!r})"
        )

    nominee = ref("nominee", raw.get("nominee"), optional=True)
    start = raw.get("start_date")
    start_date = None if start is None else parse_day("start_date", start)

    withdrawals_raw = raw.get("withdrawals") or []
    if not isinstance(withdrawals_raw, list):
        raise MalformedCommand("'withdrawals' must be a list")
    withdrawals: list[Withdrawal] = []
    for i, w in enumerate(withdrawals_raw):
        where = f"withdrawals[{i}]"
        if not isinstance(w, Mapping):
            raise MalformedCommand(f"{where} must be an object {{player, on, kind?, reason?}}")
        refuse_unknown_keys(where, w, ("player", "on", "kind", "reason"))
        kind = w.get("kind", "withdrew")
        if kind not in WITHDRAWAL_KINDS:
            raise MalformedCommand(
                f"{where}.kind must be one of {', '.join(WITHDRAWAL_KINDS)}, got {kind!r}"
            )
        withdrawals.append(
            Withdrawal(
                player=ref(f"{where}.player", w.get("player")) or "",
                on=parse_day(f"{where}.on", w.get("on")),
                kind=str(kind),
                reason=optional(words, f"{where}.reason", w.get("reason")) or "",
            )
        )
    return QualificationInput(
        players=players,
        world_cup=world_cup,
        match_players=(champion or "", challenger or ""),
        champion=champion,
        match_loser=loser,
        nominee=nominee,
        start_date=start_date,
        withdrawals=tuple(withdrawals),
    )


# --- the decision --------------------------------------------------------------


def months_before(day: date, months: int) -> date:
    """The same day ``months`` calendar months earlier (the month's last day if shorter)."""
    month_index = day.year * 12 + day.month - 1 - months
    year, month = divmod(month_index, 12)
    month += 1
    for d in (day.day, 30, 29, 28):
        try:
            return date(year, month, d)
        except ValueError:
            continue
    raise AssertionError("unreachable")  # pragma: no cover


class _Reserves:
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


def qualify(inp: QualificationInput) -> QualificationResult:
    """Decide the field (2.1-2.7), then apply the withdrawals (3.3.1-3.3.3)."""
    averages = {p.id: average_rating(p) for p in inp.players}
    places: list[Place | None] = []
    holder: dict[str, str] = {}
    """player -> article of the place he already holds."""
    vacated: list[tuple[int, str]] = []
    """(index of a place left empty, why) to be filled per 2.7."""
    pending: list[str] = []

    # 2.1 World Cup 2011: winner, runner-up, third.
    finish = ("winner", "runner-up", "third")
    for pid, how in zip(inp.world_cup, finish, strict=True):
        if pid == inp.title_holder:
            places.append(None)
            vacated.append((len(places) - 1, f"World Cup 2011 {how} {pid!r} is the World Champion"))
            continue
        places.append(Place(pid, "2.1", f"World Cup 2011 {how}"))
        holder[pid] = "2.1"

    # 2.2 the loser of the 2012 World Championship match.
    if inp.match_loser is None:
        places.append(None)
        pending.append(
            "2.2: the 2012 World Championship match "
            f"({inp.match_players[0]} v {inp.match_players[1]}) has no loser yet"
        )
    elif inp.match_loser in holder:
        places.append(None)
        vacated.append(
            (
                len(places) - 1,
                f"the 2012 match loser {inp.match_loser!r} already qualified under "
                f"{holder[inp.match_loser]}",
            )
        )
    else:
        places.append(Place(inp.match_loser, "2.2", "loser of the 2012 World Championship match"))
        holder[inp.match_loser] = "2.2"

    # 2.3 by average rating, without the players of 2.1 and 2.2 (and the champion).
    left_out: dict[str, str] = {}
    for pid in inp.world_cup:
        if pid in holder:
            left_out[pid] = f"qualified under {holder[pid]}"
    for pid in inp.match_players:
        if pid in holder:
            why = f"qualified under {holder[pid]}"
        elif pid == inp.title_holder:
            why = "the World Champion (2012 match): not a candidate"
        else:
            why = "plays the 2012 World Championship match, whose loser qualifies under 2.2"
        left_out.setdefault(pid, why)
    for p in inp.players:
        if p.id not in left_out and averages[p.id].value is None:
            left_out[p.id] = f"no average rating (article 2.3): {averages[p.id].basis}"
    ranked_players = [p for p in inp.players if p.id not in left_out]
    tiers = rank_by_average(ranked_players)
    reserves = _Reserves(tiers)
    rated = reserves.take(RATED_PLACES, f"the {RATED_PLACES} rated places")
    for number in range(1, RATED_PLACES + 1):
        if number > len(rated):
            places.append(None)
            pending.append(f"2.3: rated place {number}: the list has no more eligible players")
            continue
        pid = rated[number - 1]
        places.append(Place(pid, "2.3", f"rated place {number} by average rating"))
        holder[pid] = "2.3"

    # 2.6 the organiser's nominee.
    nominee = _nominee(inp, holder)
    if nominee.status == "accepted" and nominee.player is not None:
        places.append(Place(nominee.player, "2.6", "nominated by the organiser"))
        holder[nominee.player] = "2.6"
        reserves.remove(nominee.player)
    else:
        places.append(None)
        pending.append(f"2.6: {nominee.reason}")

    # 2.7 places vacated by a double qualification, filled from the list.
    fill = reserves.take(len(vacated), "the place(s) vacated by double qualification")
    for (index, why), pid in zip(vacated, fill + [""] * (len(vacated) - len(fill)), strict=True):
        if not pid:
            pending.append(f"2.7: no reserve left for the place vacated because {why}")
            continue
        places[index] = Place(pid, "2.7", f"replacement from the 2.3 list: {why}")
        holder[pid] = "2.7"

    places = [None if p is None else replace(p, slot=i) for i, p in enumerate(places, 1)]
    qualifiers = tuple(p for p in places if p is not None)
    field_places = list(places)
    decisions = _withdrawals(inp, field_places, reserves, pending)

    rating_rows = _rating_rows(tiers, averages, field_places, reserves, decisions)
    return QualificationResult(
        qualifiers=qualifiers,
        field=tuple(p for p in field_places if p is not None),
        nominee=nominee,
        rating_list=tuple(rating_rows),
        not_ranked=tuple(left_out.items()),
        reserves=reserves.ids(),
        withdrawals=tuple(decisions),
        pending=tuple(pending),
        averages=averages,
    )


def _nominee(inp: QualificationInput, holder: Mapping[str, str]) -> NomineeDecision:
    """2.6: "a player, nominated by the organiser, with a rating of at least 2700
    in the FIDE rating list of January 2012"."""
    pid = inp.nominee
    if pid is None:
        return NomineeDecision(None, "pending", "2.6", "the organiser has not nominated a player")
    player = inp.player(pid)
    assert player is not None
    january = player.entry("january_2012")
    rating = january.rating if january else None
    if pid in holder:
        return NomineeDecision(
            pid, "refused", "2.6", f"{pid} already qualified under {holder[pid]}", rating
        )
    if pid in inp.match_players:
        return NomineeDecision(
            pid, "refused", "2.6", f"{pid} plays the 2012 World Championship match", rating
        )
    if rating is None:
        return NomineeDecision(
            pid, "refused", "2.6", f"{pid} has no rating in the January 2012 list", None
        )
    if rating < NOMINEE_MIN_RATING:
        return NomineeDecision(
            pid,
            "refused",
            "2.6",
            f"{pid} is rated {rating} in the January 2012 list; the nominee needs at least "
            f"{NOMINEE_MIN_RATING}",
            rating,
        )
    return NomineeDecision(
        pid,
        "accepted",
        "2.6",
        f"rated {rating} in the January 2012 list, at least {NOMINEE_MIN_RATING}",
        rating,
    )


def _withdrawals(
    inp: QualificationInput,
    field_places: list[Place | None],
    reserves: _Reserves,
    pending: list[str],
) -> list[WithdrawalDecision]:
    """3.3.1-3.3.3, in date order; replacements come from the 2.7 list."""
    decisions: list[WithdrawalDecision] = []
    gone: set[str] = set()
    for w in sorted(inp.withdrawals, key=lambda w: w.on):
        if w.player in gone:
            raise MalformedCommand(f"{w.player} withdraws twice (again on {w.on.isoformat()})")
        index = next(
            (i for i, p in enumerate(field_places) if p is not None and p.player == w.player),
            None,
        )
        if index is None:
            if reserves.remove(w.player):
                gone.add(w.player)
                decisions.append(
                    WithdrawalDecision(
                        w.player,
                        w.on,
                        w.kind,
                        "2.7",
                        None,
                        "a reserve declined: off the list",
                        w.reason,
                    )
                )
                continue
            raise MalformedCommand(
                f"withdrawal of {w.player!r} on {w.on.isoformat()}: he is neither qualified "
                "nor a reserve at that date"
            )
        if inp.start_date is not None and w.on >= inp.start_date:
            raise MalformedCommand(
                f"{w.player} withdrew on {w.on.isoformat()}, not before the start of the event "
                f"({inp.start_date.isoformat()}): that is a withdrawal from the tournament "
                "(article 3.1), recorded with the tournament's withdraw command"
            )
        place = field_places[index]
        assert place is not None
        if w.kind == "contract_not_submitted":
            article, replaced = "3.3.1", True
            why = "did not submit the signed contract in time"
        else:
            if inp.start_date is None:
                raise MalformedCommand(
                    f"the withdrawal of {w.player} needs the event's 'start_date' to apply "
                    "articles 3.3.2 / 3.3.3 (three months before the start)"
                )
            boundary = months_before(inp.start_date, WITHDRAWAL_MONTHS)
            if w.on <= boundary:
                article, replaced = "3.3.2", True
                why = (
                    f"withdrew on {w.on.isoformat()}, at least 3 months before the start "
                    f"({inp.start_date.isoformat()}; limit {boundary.isoformat()})"
                )
            else:
                article, replaced = "3.3.3", False
                why = (
                    f"withdrew on {w.on.isoformat()}, less than 3 months before the start "
                    f"({inp.start_date.isoformat()}; limit {boundary.isoformat()}): not "
                    "replaced, his first-round opponent is declared the winner"
                )
        gone.add(w.player)
        if not replaced:
            field_places[index] = replace(place, withdrawn=True)
            decisions.append(
                WithdrawalDecision(w.player, w.on, w.kind, article, None, why, w.reason)
            )
            continue
        successors = reserves.take(1, f"the replacement of {w.player}")
        successor = successors[0] if successors else None
        if successor is None:
            field_places[index] = None
            pending.append(f"{article}: no reserve left on the 2.3 list to replace {w.player}")
            decisions.append(
                WithdrawalDecision(
                    w.player, w.on, w.kind, article, None, why + "; no reserve left", w.reason
                )
            )
            continue
        field_places[index] = Place(
            successor,
            "2.7",
            f"replaces {w.player} ({article})",
            replaces=w.player,
            slot=place.slot,
        )
        decisions.append(
            WithdrawalDecision(w.player, w.on, w.kind, article, successor, why, w.reason)
        )
    return decisions


def _rating_rows(
    tiers: list[Tier],
    averages: Mapping[str, Average],
    field_places: Sequence[Place | None],
    reserves: _Reserves,
    decisions: Sequence[WithdrawalDecision],
) -> list[RankedRow]:
    final: dict[str, Place] = {p.player: p for p in field_places if p is not None}
    reserve_order = {pid: n for n, pid in enumerate(reserves.ids(), start=1)}
    withdrew = {d.player: d for d in decisions}
    rows: list[RankedRow] = []
    rank = 1
    for tier in tiers:
        ids = tuple(p.id for p in tier.players)
        for p in tier.players:
            if p.id in withdrew:
                d = withdrew[p.id]
                status = (
                    "reserve, declined"
                    if d.article == "2.7"
                    else f"withdrew ({d.article})"
                    + (f", replaced by {d.replaced_by}" if d.replaced_by else "")
                )
            elif p.id in final:
                status = f"qualified ({final[p.id].article})"
            elif p.id in reserve_order:
                status = f"reserve {reserve_order[p.id]}"
            else:
                status = "not qualified"
            avg = averages[p.id]
            rows.append(
                RankedRow(
                    rank=rank,
                    player=p.id,
                    average=avg.text() or "",
                    basis=avg.basis,
                    decided_by=tier.decided_by,
                    level_with=tuple(i for i in ids if i != p.id),
                    level_because=tier.level_because,
                    status=status,
                )
            )
        rank += len(ids)
    return rows


# --- the tournament from the result --------------------------------------------


def create_tournament_command(
    inp: QualificationInput,
    result: QualificationResult,
    *,
    tournament: str,
    name: str,
    start_date: str,
    rules: str | None = None,
    arbiters: Sequence[Mapping[str, str]] = (),
) -> dict[str, Any]:
    """The contract's ``create_tournament`` for the field, ratings = 2.3 averages.

    The rating of each player is his average of July 2011 and January 2012
    (possibly fractional): 3.7.3 b-d rank the players of a sudden-death
    stage by it. Refused (MalformedCommand) while the field is incomplete or
    a player has no average.
    """
    if not result.complete:
        raise MalformedCommand(
            "the field is not complete, no tournament can be created: "
            + "; ".join(result.pending or (f"{len(result.field)} players",))
        )
    players: list[dict[str, Any]] = []
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
            {"id": who.id, "name": who.name, "federation": who.federation, "rating": rating}
        )
    cmd: dict[str, Any] = {
        "cmd": "create_tournament",
        "tournament": tournament,
        "name": name,
        "start_date": start_date,
        "cycles": 2,
        "players": players,
        "arbiters": [dict(a) for a in arbiters],
    }
    if rules is not None:
        cmd["rules"] = rules
    return cmd
