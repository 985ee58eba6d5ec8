"""The alerts a board raises for the arbiters, in their words (``BoardAlert``).

The reconstructor (``adapters.dgt.reconstruct``) raises them: a result signalled
on the board (rule 1, ``adapters.dgt.result_signals``), a position no legal move
explains once it has stood (rule 9, with the squares that differ and, when more
than one order of moves leads there, the candidate lines), the board matching
the game again, and the start array set up (a new game). The store feed
(``adapters.dgt.feed``) sends them as ``raise_alert``.
"""

from __future__ import annotations

from adapters.dgt.observations import BoardAlert
from adapters.dgt.placements import square_diff


def result_signalled(result: str, how: str, ply: int, at_ms: int) -> BoardAlert:
    """A result signalled (``how``: the kings on the centre squares, or the result
    piece): it awaits the arbiter's confirmation."""
    return BoardAlert(
        at_ms,
        "result_signalled",
        f"{how} signal {result}: awaiting the arbiter's confirmation",
        {"result": result, "ply": ply, "signal": how},
    )


def impossible_position(
    expected: str, found: str, ply: int, candidates: list[list[str]], at_ms: int
) -> BoardAlert:
    """The board shows ``found`` where the game at ``ply`` has ``expected`` (placements),
    and no legal move leads there (``candidates``: the lines of moves, in UCI, when
    more than one order leads there)."""
    diff = square_diff(expected, found)
    names = ", ".join(f"{d['square']} {d['expected'] or '-'}->{d['found'] or '-'}" for d in diff)
    if candidates:
        orders = " / ".join(" ".join(line) for line in candidates)
        names += f"; more than one order of moves leads there ({orders}): the arbiter decides"
    return BoardAlert(
        at_ms,
        "impossible_position",
        f"the board follows from no legal move at ply {ply}: {names}",
        {
            "ply": ply,
            "expected_fen": expected,
            "board_fen": found,
            "diff": diff,
            **({"candidate_lines": candidates} if candidates else {}),
        },
    )


def position_restored(ply: int, at_ms: int) -> BoardAlert:
    """The board matches the game again (an impossible-position alert is closed)."""
    return BoardAlert(
        at_ms,
        "position_restored",
        f"the board matches the game again at ply {ply}",
        {"ply": ply},
    )


def new_game(rotated: bool, at_ms: int) -> BoardAlert:
    """The start array was set up, in either orientation: a new game."""
    return BoardAlert(
        at_ms,
        "new_game",
        "the start position was set up: a new game",
        {"orientation": "rotated" if rotated else "normal"},
    )
