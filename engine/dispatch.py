"""Routes a command of the contract to the decision that owns it.

The caller (the store adapter) supplies a ``World`` (``engine.world``): read
access to the current state of the aggregates. A decision returns the events
to append, possibly on several streams; the caller appends them in one
transaction.

Each command is declared once, in its chapter (``engine.commands`` says how);
importing the chapters below fills the registry.
"""

from __future__ import annotations

from engine.arbiter import clock_rulings, draw_claims, illegal_moves
from engine.commands import REGISTRY, Command, parse_command
from engine.events import Event
from engine.game import moves, reconciliation
from engine.game import state as games
from engine.standings import playoffs, withdrawal
from engine.tournament import founding
from engine.world import World

COMMAND_MODULES = (
    founding,
    moves,
    reconciliation,
    draw_claims,
    illegal_moves,
    clock_rulings,
    withdrawal,
    playoffs,
)
"""The chapters that declare commands; a new chapter with commands is added here."""

__all__ = ["COMMAND_MODULES", "REGISTRY", "World", "decide", "parse_command"]


def decide(raw: object, world: World) -> tuple[Command, list[Event]]:
    """Check the command's form, then decide it; raises CommandRefused (or
    AlreadyRecorded for a ``play_move`` whose ``ply`` already holds that move)."""
    cmd = raw if isinstance(raw, Command) else parse_command(raw)
    if isinstance(cmd, moves.PlayMove):  # a retried move is a duplicate, whatever its instant
        moves.check_ply(world.game(cmd.game), cmd)
    spec = REGISTRY[cmd.cmd]
    if spec.in_time_order:
        values = vars(cmd)  # a time-ordered command has ``game`` and ``at_ms`` (@command checks)
        games.require_in_time_order(world.game(values["game"]), cmd.cmd, values["at_ms"])
    return cmd, cmd.decide(world)
