"""Alerts an electronic board raises for the arbiters (``raise_alert``).

A board that sees something the record must not take on its word (a takeback,
an impossible position, a signalled result, a move the engine refused, a
disconnection) raises an ``AlertRaised`` on its own stream ``board/<serial>``,
so the gateway forwards it to the arbiters from the store alone. An alert
never changes a game: the arbiter rules (Laws 7, 8; 3.9.2 b, the arbiter is
sovereign).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.commands import Command
from engine.errors import MalformedCommand
from engine.events import AlertRaised, Event, board_stream


@dataclass(frozen=True)
class BoardAlerts:
    """State of a ``board/<serial>`` stream: how many alerts it holds."""

    serial: str
    version: int


def evolve(state: BoardAlerts | None, event: Event) -> BoardAlerts:
    """Fold one event of a board's stream."""
    serial = event.originator_id.partition("/")[2]
    return BoardAlerts(state.serial if state else serial, event.originator_version)


def raise_alert(state: BoardAlerts | None, cmd: Command) -> list[Event]:
    """Record a board's alert at the end of its stream."""
    serial: str = cmd["board"]
    if "/" in serial or serial != serial.strip():
        raise MalformedCommand(f"raise_alert: {serial!r} is not a board's serial number")
    return [
        AlertRaised(
            originator_id=board_stream(serial),
            originator_version=(state.version if state else 0) + 1,
            at_ms=cmd["at_ms"],
            by=cmd.get("by") or f"dgt:{serial}",
            game=cmd.get("game"),
            kind=cmd["kind"],
            message=cmd["message"],
            details=_values(cmd.get("details") or {}),
        )
    ]


def _values(obj: Any) -> Any:
    """Event fields hold values only: lists become tuples, keys strings."""
    if isinstance(obj, dict):
        return {str(k): _values(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return tuple(_values(v) for v in obj)
    return obj
