"""How each player used their time, move by move (the game page's chart, ``/api/games/{id}``).

For every move of the game's current line: the mover, the move, its instant,
the time the mover spent on it (from the previous move's instant, or the
game's start for White's first move, to this one's) and the mover's
regulation clock just after it (``left_ms``: the time control applied to the
recorded instants, as ``[%clk]`` in PGN; None while the clock is unknown).
``controls_at_moves`` are the move numbers at which a period ends (40 and 60
under 3.5.1), where the chart marks the controls. Pure: a fold of the game's
events.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

from engine.clock.time_control import TimeControl
from engine.events import Event, GameStarted, MovePlayed, MovesCorrected
from engine.game import state as games
from engine.game.state import Game, mover
from engine.side import Side
from engine.timefmt import format_instant
from projections.shapes import Ordinal


class MoveTime(TypedDict):
    """One move: the mover, the move, its instant, the time spent and the clock left."""

    ply: Ordinal
    side: Side
    san: str
    at: str | None
    spent_ms: int | None
    left_ms: int | None


class TimeUse(TypedDict):
    """Per move, the time the mover spent and the clock left; the move numbers that end
    a period."""

    controls_at_moves: list[int]
    moves: list[MoveTime]


MAX_CONTROLS = 4
"""At most this many controls are listed (a control that repeats every 40 moves)."""


def controls_at_moves(control: TimeControl | None, moves: int) -> list[int]:
    """The move numbers that end a period, up to the first beyond ``moves`` (at least two)."""
    found: list[int] = []
    if control is None:
        return found
    index, last = 0, 0
    while len(found) < MAX_CONTROLS:
        count = control.period(index).moves if control.periods else None
        if count is None:
            break
        last += count
        found.append(last)
        if last > moves and len(found) >= 2:
            break
        index += 1
    return found


def time_use(events: Iterable[Event]) -> TimeUse:
    """``{controls_at_moves, moves: [{ply, side, san, at, spent_ms, left_ms}]}``."""
    state: Game | None = None
    rows: list[MoveTime] = []
    instants: list[int] = []  # instants[i]: when the position after i plies arose
    for event in events:
        state = games.evolve(state, event)
        if state is None:
            continue
        if isinstance(event, GameStarted):
            instants = [event.at_ms]
        elif isinstance(event, MovePlayed):
            del rows[event.ply - 1 :]
            del instants[event.ply :]
            side = mover(state.initial_fen, event.ply)
            previous = instants[-1] if instants else None
            clock = state.clock
            rows.append(
                {
                    "ply": event.ply,
                    "side": side,
                    "san": event.san,
                    "at": format_instant(event.at_ms) if event.at_ms else None,
                    "spent_ms": (
                        max(0, event.at_ms - previous) if previous and event.at_ms else None
                    ),
                    "left_ms": clock.remaining_ms(side) if clock is not None else None,
                }
            )
            instants.append(event.at_ms)
        elif isinstance(event, MovesCorrected):
            # the replaced moves are gone from the line; the replacing ones have no time
            del rows[event.from_ply :]
            del instants[event.from_ply + 1 :]
    control = state.clock.control if state is not None and state.clock is not None else None
    moves = (len(rows) + 1) // 2
    return {"controls_at_moves": controls_at_moves(control, moves), "moves": rows}
