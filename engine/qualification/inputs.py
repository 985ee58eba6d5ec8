"""The qualification file (``candidates qualify``): its form checked, its values typed.

What section 2 of the regulations decides from: the rating lists of 2.3, the World
Cup of 2.1, the 2012 match of 2.2, the nominee of 2.6, the start day and the
withdrawals of 3.3 (``docs/qualification.md`` gives the file). Bad input is a
``MalformedCommand`` naming the field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from engine.errors import MalformedCommand
from engine.fields import boolean, optional, refuse_unknown_keys, unknown_keys, whole, words
from engine.timefmt import parse_day

LIST_NAMES = {
    "july_2011": "July 2011",
    "january_2012": "January 2012",
    "march_2012": "March 2012",
}

WITHDRAWAL_KINDS = ("withdrew", "contract_not_submitted")
"""``withdrew``: 3.3.2 / 3.3.3; ``contract_not_submitted``: 3.3.1 (always replaced)."""


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
