"""The state of a ``board/<serial>`` stream: how many alerts the board raised.

Kept apart from the command that appends to it (``engine.arbiter.board_alerts``)
so that ``engine.world`` can name it, as ``engine.game.clock_log`` for clocks.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.events import Event


@dataclass(frozen=True, slots=True)
class BoardLog:
    """State of a ``board/<serial>`` stream: its serial and version."""

    serial: str
    version: int = 0


def evolve(state: BoardLog | None, event: Event) -> BoardLog:
    """Fold one event of a board's stream."""
    serial = event.originator_id.partition("/")[2]
    return BoardLog(state.serial if state else serial, event.originator_version)
