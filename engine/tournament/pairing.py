"""Berger tables for round robins (FIDE Handbook C.05, Annex 1), any N.

Players carry pairing numbers 1..N. With an odd N a dummy number N+1 is the
bye. Round r (1-based) of one cycle pairs the numbers a, b (a, b < M, where M
is the even table size) with ``a + b = r + 1 (mod M - 1)``; the number that
pairs with itself meets M instead. Board 1 is the game against M (M has
White in even rounds), then the boards follow round the ring. In a double
round robin the second cycle repeats the first with colours reversed
(3.1: rounds 8-14 for 8 players).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pairing:
    """One board of one round: numbers, White first. ``bye`` when one side is the dummy."""

    round: int
    board: int
    white: int
    black: int

    @property
    def game_id(self) -> str:
        return f"{self.round}.{self.board}"


def table_size(players: int) -> int:
    """Numbers in the table: N, or N+1 with a bye for an odd N."""
    if players < 2:
        raise ValueError(f"a round robin needs at least 2 players, got {players}")
    return players + players % 2


def rounds_per_cycle(players: int) -> int:
    return table_size(players) - 1


def berger_round(players: int, round_in_cycle: int) -> list[tuple[int, int]]:
    """(white, black) numbers of every board of one round of the first cycle."""
    size = table_size(players)
    ring = size - 1
    if not 1 <= round_in_cycle <= ring:
        raise ValueError(f"round {round_in_cycle} is outside 1..{ring}")
    target = (round_in_cycle + 1) % ring
    fixed = next(p for p in range(1, size) if (2 * p) % ring == target)
    boards = [(size, fixed) if round_in_cycle % 2 == 0 else (fixed, size)]
    for step in range(1, size // 2):
        first = (fixed - 1 + step) % ring + 1
        second = (target - first) % ring or ring
        boards.append((first, second))
    return boards


def berger_schedule(players: int, cycles: int = 2) -> list[Pairing]:
    """Every pairing of the event, bye boards included (a side > players is the bye)."""
    ring = rounds_per_cycle(players)
    out: list[Pairing] = []
    for cycle in range(cycles):
        for r in range(1, ring + 1):
            for board, (white, black) in enumerate(berger_round(players, r), start=1):
                if cycle % 2 == 1:
                    white, black = black, white
                out.append(Pairing(cycle * ring + r, board, white, black))
    return out


def is_bye(pairing: Pairing, players: int) -> bool:
    return pairing.white > players or pairing.black > players
