"""Pairing numbers inferred from the games of a round robin (for imported events).

Given who played White and Black in which round, find Berger numbers that
reproduce every game of the file in ``engine.tournament.pairing``'s table, same colours.
Real events sometimes play the table's rounds in another order (London 2013
played the table's round 7 as round 6 and its round 6 as round 7: a change
of the playing schedule, 3.2), so each round of the file is matched to a
round of the table too; the table's own order is preferred.

The search assigns one game at a time, always taking next a game with the
most players (and its round) already placed, so once a game is placed the
rest follow almost without choice. None when nothing fits (another pairing
system, or a file too incomplete to decide).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.tournament.pairing import berger_schedule, rounds_per_cycle


@dataclass(frozen=True)
class Inferred:
    numbers: dict[str, int]
    round_order: tuple[int, ...]
    """``round_order[r - 1]`` is the table round played as round r."""


def cycles_for(players: int, last_round: int) -> int:
    """The number of cycles that holds ``last_round`` rounds."""
    ring = rounds_per_cycle(players)
    return max(1, -(-last_round // ring))


def infer_numbers(
    players: Sequence[str], games: Sequence[tuple[int, str, str]], cycles: int
) -> Inferred | None:
    """Numbers 1..N and the round order so that every (round, white, black) is in the table."""
    size = len(players)
    boards: dict[int, list[tuple[int, int]]] = {}
    for p in berger_schedule(size, cycles):
        if p.white <= size and p.black <= size:
            boards.setdefault(p.round, []).append((p.white, p.black))
    total_rounds = len(boards)
    if any(not 1 <= r <= total_rounds for r, _, _ in games):
        return None
    numbers: dict[str, int] = {}
    taken: dict[int, str] = {}
    played_as: dict[int, int] = {}  # file round -> table round
    table_used: dict[int, int] = {}  # table round -> file round
    todo = list(games)

    def placed(game: tuple[int, str, str]) -> int:
        return (game[0] in played_as) + (game[1] in numbers) + (game[2] in numbers)

    def fits(player: str, n: int) -> bool:
        return numbers.get(player, n) == n and taken.get(n, player) == player

    def table_rounds(file_round: int) -> list[int]:
        if file_round in played_as:
            return [played_as[file_round]]
        free = [r for r in boards if r not in table_used]
        return sorted(free, key=lambda r: (r != file_round, r))

    def search() -> bool:
        if not todo:
            return True
        index = max(range(len(todo)), key=lambda i: (placed(todo[i]), -i))
        game = todo.pop(index)
        file_round, white, black = game
        for table_round in table_rounds(file_round):
            for wn, bn in boards[table_round]:
                if not (fits(white, wn) and fits(black, bn)):
                    continue
                new = [(p, n) for p, n in ((white, wn), (black, bn)) if p not in numbers]
                new_round = file_round not in played_as
                for p, n in new:
                    numbers[p], taken[n] = n, p
                if new_round:
                    played_as[file_round], table_used[table_round] = table_round, file_round
                if search():
                    return True
                for p, n in new:
                    del numbers[p], taken[n]
                if new_round:
                    del played_as[file_round], table_used[table_round]
        todo.insert(index, game)
        return False

    if not search():
        return None
    free = sorted(set(range(1, size + 1)) - set(taken))
    numbers.update(zip([p for p in players if p not in numbers], free, strict=True))
    rest = iter(sorted(set(boards) - set(table_used)))
    order = tuple(
        played_as[r] if r in played_as else next(rest) for r in range(1, total_rounds + 1)
    )
    return Inferred(dict(numbers), order)
