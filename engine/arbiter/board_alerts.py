"""Alerts an electronic board raises for the arbiters (``raise_alert``).

A board that sees something the record must not take on its word (a takeback,
an impossible position, a signalled result, a move the engine refused, a
disconnection) raises an ``AlertRaised`` on its own stream ``board/<serial>``,
so the gateway forwards it to the arbiters from the store alone. An alert
never changes a game: the arbiter rules (the arbiter is sovereign).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.arbiter.board_log import BoardLog
from engine.commands import Command, command
from engine.errors import MalformedCommand
from engine.events import AlertRaised, Event, board_stream
from engine.fields import Instant
from engine.world import World


@command(
    "raise_alert",
    summary="An electronic board raises an alert for the arbiters on board/<serial>.",
    events=(AlertRaised,),
    refusals=((MalformedCommand, "", "'board' is not a board's serial number"),),
    notes={
        "board": "the board's serial number: the alert goes to `board/<serial>`",
        "kind": "the alert's kind (`board_disconnected`, `clock_mismatch` ...)",
        "message": "the alert in words, for the arbiters",
        "game": "the game the board was playing, if known",
        "details": "what the board saw (free-form)",
        "by": "who raised it; default `dgt:<serial>`",
    },
)
@dataclass(frozen=True, kw_only=True)
class RaiseAlert(Command):
    board: str
    """The board's serial number: the alert goes to ``board/<serial>``."""
    kind: str
    message: str
    at_ms: Instant
    game: str | None = None
    details: dict[str, Any] | None = None
    by: str | None = None
    """Default ``dgt:<serial>``."""

    def decide(self, world: World) -> list[Event]:
        return raise_alert(world.board_log(self.board), self)


def raise_alert(state: BoardLog | None, cmd: RaiseAlert) -> list[Event]:
    """Record a board's alert at the end of its stream."""
    serial = cmd.board
    if "/" in serial or serial != serial.strip():
        raise MalformedCommand(f"raise_alert: {serial!r} is not a board's serial number")
    return [
        AlertRaised(
            originator_id=board_stream(serial),
            originator_version=(state.version if state else 0) + 1,
            at_ms=cmd.at_ms,
            by=cmd.by or f"dgt:{serial}",
            game=cmd.game,
            kind=cmd.kind,
            message=cmd.message,
            details=_values(cmd.details or {}),
        )
    ]


def _values(obj: Any) -> Any:
    """Event fields hold values only: lists become tuples, keys strings."""
    if isinstance(obj, dict):
        return {str(k): _values(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return tuple(_values(v) for v in obj)
    return obj
