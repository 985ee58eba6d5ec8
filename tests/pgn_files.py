"""Real-looking PGN files of whole events, written the way broadcasts and databases write
them, for the import tests (``tests/test_import_real_files.py``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

OPENING = "1. d4 Nf6 2. c4 e6 3. Nf3 d5 4. Nc3 Be7"


@dataclass(frozen=True)
class Entrant:
    name: str
    fide_id: str = ""
    elo: int = 2700
    title: str = "GM"
    fed: str = ""


@dataclass
class Game:
    round: int
    board: int
    white: Entrant
    black: Entrant
    result: str
    date: str
    moves: str = OPENING
    extra: dict[str, str] = field(default_factory=dict)
    white_name: str | None = None
    black_name: str | None = None
    round_tag: str | None = None


def circle_rounds(players: int) -> list[list[tuple[int, int]]]:
    """One cycle by the circle method, colours NOT Berger's: in every round the player
    with the lower index has White on the odd boards, Black on the even ones."""
    ring = list(range(players))
    rounds = []
    for _ in range(players - 1):
        pairs = []
        for board in range(players // 2):
            a, b = ring[board], ring[players - 1 - board]
            low, high = min(a, b), max(a, b)
            pairs.append((low, high) if board % 2 == 0 else (high, low))
        rounds.append(pairs)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def double_round_robin(
    entrants: Sequence[Entrant],
    result: Callable[[int, int, int], str],
    *,
    second_cycle_order: Sequence[int] | None = None,
    first_day: int = 10,
) -> list[Game]:
    """Fourteen rounds of eight: the first cycle by ``circle_rounds``, the second with the
    colours reversed and its rounds in ``second_cycle_order``."""
    first = circle_rounds(len(entrants))
    second = [[(b, w) for w, b in pairs] for pairs in first]
    if second_cycle_order is not None:
        second = [second[i] for i in second_cycle_order]
    games: list[Game] = []
    for number, pairs in enumerate([*first, *second], start=1):
        for board, (w, b) in enumerate(pairs, start=1):
            games.append(
                Game(
                    number,
                    board,
                    entrants[w],
                    entrants[b],
                    result(number, w, b),
                    f"2019.03.{first_day + number:02d}",
                )
            )
    return games


def pgn(
    games: Sequence[Game], event: str = "FIDE Womens Candidates 2019", fide_ids: bool = True
) -> str:
    out = []
    for g in games:
        tags = [
            ("Event", event),
            ("Site", "Kazan RUS"),
            ("Date", g.date),
        ]
        if g.round_tag != "":
            tags.append(("Round", g.round_tag or f"{g.round}.{g.board}"))
        tags += [
            ("White", g.white_name or g.white.name),
            ("Black", g.black_name or g.black.name),
            ("Result", g.result),
            ("WhiteTitle", g.white.title),
            ("BlackTitle", g.black.title),
            ("WhiteElo", str(g.white.elo)),
            ("BlackElo", str(g.black.elo)),
        ]
        if fide_ids and g.white.fide_id:
            tags.append(("WhiteFideId", g.white.fide_id))
        if fide_ids and g.black.fide_id:
            tags.append(("BlackFideId", g.black.fide_id))
        tags += list(g.extra.items())
        head = "\n".join(f'[{k} "{v}"]' for k, v in tags)
        out.append(f"{head}\n\n{g.moves} {g.result}\n")
    return "\n".join(out)


WOMEN_2019 = [
    Entrant("Goryachkina, Aleksandra", "4147103", 2522, fed="RUS"),
    Entrant("Kosteniuk, Alexandra", "4147235", 2546, fed="RUS"),
    Entrant("Lagno, Kateryna", "14109336", 2554, fed="RUS"),
    Entrant("Muzychuk, Anna", "14111330", 2555, fed="UKR"),
    Entrant("Muzychuk, Mariya", "14114550", 2563, fed="UKR"),
    Entrant("Gunina, Valentina", "4168119", 2506, fed="RUS"),
    Entrant("Tan, Zhongyi", "8603642", 2517, fed="CHN"),
    Entrant("Dzagnidze, Nana", "13601520", 2510, fed="GEO"),
]
"""Eight players as the 2019 Women's Candidates wrote them, two of one surname (the
Muzychuk sisters)."""
