"""The state of a ``clock/<id>`` stream: its version and its last reading.

Because the last reading carries everything the next decision needs (its
``open_alerts`` are the alert state, see ``engine.game.reconciliation``), the
state is read from the last reading alone: a game with tens of thousands of
readings loads as fast as one with none.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.events import ClockReadingRecorded, Event


@dataclass(frozen=True, slots=True)
class ClockLog:
    """State of a ``clock/<id>`` stream: its version and its last reading."""

    game_id: str
    version: int = 0
    last: ClockReadingRecorded | None = None
    """The last reading: its ``open_alerts`` are the alert state."""

    @property
    def open_alerts(self) -> tuple[str, ...]:
        return self.last.open_alerts if self.last else ()


def evolve(state: ClockLog | None, event: Event) -> ClockLog | None:
    """Fold one event of a clock stream."""
    game_id = event.originator_id.partition("/")[2]
    log = state if state is not None else ClockLog(game_id)
    if isinstance(event, ClockReadingRecorded):
        return ClockLog(log.game_id, event.originator_version, event)
    return ClockLog(log.game_id, event.originator_version, log.last)
