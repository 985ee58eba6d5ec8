"""The FIDE Tournament Report File (TRF16), written and read back.

Rating officers take an event's results as a TRF: fixed columns, one line per record.
Written here: the tournament records, one ``001`` record per player with his games
round by round (forfeits as ``+``/``-``, rounds without a game as ``0000 - Z``), and
points and rank as the standings ruled them, so a rating officer sees every game
played and the table as the arbiters ruled it. The columns are in docs/tournament.md,
"The FIDE rating report (TRF16)"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

ROUND_START = 92
"""Column of round 1's opponent; each round takes ten columns."""
ROUND_WIDTH = 10

PLAYER_COLUMNS: dict[str, tuple[int, int]] = {
    "number": (5, 8),
    "sex": (10, 10),
    "title": (11, 13),
    "name": (15, 47),
    "rating": (49, 52),
    "federation": (54, 56),
    "fide_id": (58, 68),
    "birth_date": (70, 79),
    "points": (81, 84),
    "rank": (86, 89),
}
"""TRF16 ``001`` columns, 1-based and inclusive, as the format numbers them."""
RIGHT_ALIGNED = {"number", "title", "rating", "fide_id", "points", "rank"}

SCORE_CODES = {"1": "1", "1/2": "=", "0": "0"}
DEFAULT_CODES = {"1": "+", "0": "-"}
SCORES = {"1": 1.0, "=": 0.5, "0": 0.0, "+": 1.0, "-": 0.0, "W": 1.0, "D": 0.5, "L": 0.0}
"""Points of a TRF result code (byes and absences score 0 in a round robin)."""


@dataclass(frozen=True)
class RoundEntry:
    """One round of a ``001`` record."""

    opponent: int
    """The opponent's starting number; 0 for no game."""
    colour: str
    """``w``, ``b`` or ``-``."""
    result: str
    """``1``, ``=``, ``0``, ``+``, ``-``, ``Z`` ...; blank for a game not finished."""


@dataclass(frozen=True)
class TrfPlayer:
    number: int
    name: str
    rating: int
    federation: str
    fide_id: str
    title: str
    points: float
    rank: int
    rounds: tuple[RoundEntry, ...]
    sex: str = ""
    birth_date: str = ""


@dataclass(frozen=True)
class TrfReport:
    """A parsed TRF: the tournament records by kind, and the players."""

    records: dict[str, list[str]] = field(default_factory=dict)
    players: tuple[TrfPlayer, ...] = ()


def _put(line: list[str], start: int, end: int, text: str, right: bool = False) -> None:
    width = end - start + 1
    text = text[:width]
    text = text.rjust(width) if right else text.ljust(width)
    line[start - 1 : end] = list(text)


def player_line(player: TrfPlayer) -> str:
    """One ``001`` record, columns as ``PLAYER_COLUMNS`` and the rounds from 92."""
    rounds = len(player.rounds)
    line = [" "] * (ROUND_START - 1 + ROUND_WIDTH * rounds)
    _put(line, 1, 3, "001")
    values = {
        "number": str(player.number),
        "sex": player.sex,
        "title": player.title,
        "name": player.name,
        "rating": str(player.rating) if player.rating else "",
        "federation": player.federation,
        "fide_id": player.fide_id,
        "birth_date": player.birth_date,
        "points": f"{player.points:.1f}",
        "rank": str(player.rank),
    }
    for key, (start, end) in PLAYER_COLUMNS.items():
        _put(line, start, end, values[key], key in RIGHT_ALIGNED)
    for i, entry in enumerate(player.rounds):
        at = ROUND_START + ROUND_WIDTH * i
        _put(line, at, at + 3, f"{entry.opponent:04d}")
        _put(line, at + 5, at + 5, entry.colour)
        _put(line, at + 7, at + 7, entry.result)
    return "".join(line).rstrip()


def _date(iso: str, short: bool = False) -> str:
    """``2013-03-15`` as TRF writes it: ``2013/03/15`` (``13/03/15`` when short)."""
    text = iso.replace("-", "/")
    return text[2:] if short else text


def round_dates_line(dates: Sequence[str | None]) -> str:
    line = [" "] * (ROUND_START - 1 + ROUND_WIDTH * len(dates))
    _put(line, 1, 3, "132")
    for i, day in enumerate(dates):
        if day:
            at = ROUND_START + ROUND_WIDTH * i
            _put(line, at, at + 7, _date(day, short=True))
    return "".join(line).rstrip()


def starting_numbers(crosstable: Mapping[str, Any]) -> dict[str, int]:
    """The drawn numbers (3.4.1); when the lots are not known (an event imported from its
    games alone), numbers by rating, highest first, then by name."""
    drawn = {p["player"]: p["number"] for p in crosstable["players"]}
    if all(n is not None for n in drawn.values()):
        return drawn
    by_rating = sorted(crosstable["players"], key=lambda p: (-(p["rating"] or 0), p["name"]))
    return {p["player"]: n for n, p in enumerate(by_rating, start=1)}


def trf_players(
    crosstable: Mapping[str, Any],
    standings: Mapping[str, Any],
    rounds: int,
    pairings: Mapping[str, Any],
    fide: Mapping[str, tuple[str, str]],
) -> list[TrfPlayer]:
    """The ``001`` records of the event from its crosstable, standings and pairings objects
    (``fide``: player id -> (FIDE id, title) where known)."""
    numbers = starting_numbers(crosstable)
    ranks = {r["player"]: r["rank"] for r in standings["rows"]}
    points = {r["player"]: r["points"] for r in standings["rows"]}
    worst = len(crosstable["players"])
    paired: dict[tuple[str, int], tuple[str, str]] = {}
    for rnd in pairings["rounds"]:
        for board in rnd["boards"]:
            w, b = board["white"]["player"], board["black"]["player"]
            paired[(w, rnd["round"])] = (b, "w")
            paired[(b, rnd["round"])] = (w, "b")
    out = []
    for p in crosstable["players"]:
        played: dict[int, RoundEntry] = {}
        for opponent, games in p["results"].items():
            for g in games:
                code = (DEFAULT_CODES if g["default"] else SCORE_CODES)[g["score"]]
                played[g["round"]] = RoundEntry(numbers[opponent], g["colour"][0], code)
        entries = []
        for r in range(1, rounds + 1):
            if r in played:
                entries.append(played[r])
            elif (p["player"], r) in paired:
                opponent, colour = paired[(p["player"], r)]
                entries.append(RoundEntry(numbers[opponent], colour, " "))
            else:
                entries.append(RoundEntry(0, "-", "Z"))
        fide_id, title = fide.get(p["player"], ("", ""))
        rating = p["rating"]
        out.append(
            TrfPlayer(
                number=numbers[p["player"]],
                name=p["name"],
                rating=int(rating or 0),
                federation=p["federation"],
                fide_id=fide_id,
                title=title,
                points=float(points.get(p["player"]) or 0),
                rank=int(ranks.get(p["player"]) or worst),
                rounds=tuple(entries),
            )
        )
    return sorted(out, key=lambda q: q.number)


def trf_text(
    records: Sequence[tuple[str, str]],
    round_dates: Sequence[str | None],
    players: Sequence[TrfPlayer],
) -> str:
    """The file: tournament ``records`` (kind, text) in order, the round dates, the players."""
    lines = [f"{kind} {text}".rstrip() for kind, text in records]
    lines.append(round_dates_line(round_dates))
    lines += [player_line(p) for p in players]
    return "\n".join(lines) + "\n"


def _field(line: str, start: int, end: int) -> str:
    return line[start - 1 : end].strip()


def parse_player(line: str) -> TrfPlayer:
    """Read one ``001`` record by its columns."""
    values = {key: _field(line, *cols) for key, cols in PLAYER_COLUMNS.items()}
    rounds = []
    at = ROUND_START
    while at <= len(line):
        opponent = _field(line, at, at + 3)
        colour = _field(line, at + 5, at + 5) or "-"
        result = line[at + 6 : at + 7] if len(line) >= at + 7 else " "
        rounds.append(RoundEntry(int(opponent or 0), colour, result or " "))
        at += ROUND_WIDTH
    return TrfPlayer(
        number=int(values["number"]),
        name=values["name"],
        rating=int(values["rating"] or 0),
        federation=values["federation"],
        fide_id=values["fide_id"],
        title=values["title"],
        points=float(values["points"] or 0),
        rank=int(values["rank"] or 0),
        rounds=tuple(rounds),
        sex=values["sex"],
        birth_date=values["birth_date"],
    )


def parse_trf(text: str) -> TrfReport:
    """Read a TRF: tournament records by kind (``012`` ...), ``001`` players; ``###`` lines
    are comments. Raises ValueError naming the line of a record it cannot read."""
    records: dict[str, list[str]] = {}
    players = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("###"):
            continue
        kind = line[:3]
        if kind == "001":
            try:
                players.append(parse_player(line))
            except ValueError as exc:
                raise ValueError(f"line {number}: not a TRF player record ({exc})") from None
        else:
            records.setdefault(kind, []).append(line[4:].rstrip())
    return TrfReport(records, tuple(players))
