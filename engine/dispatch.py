"""Routes a command of the contract to the decision that owns it.

The caller (the store adapter) supplies a ``World`` (``engine.world``): read
access to the current state of the aggregates. A decision returns the events
to append, possibly on several streams; the caller appends them in one
transaction.

Each command is declared once, in its chapter (``engine.commands`` says how);
importing the chapters below fills the registry.
"""

from __future__ import annotations

from engine.arbiter import (
    board_alerts,
    clock_rulings,
    corrections,
    default_time,
    draw_claims,
    flag_rulings,
    illegal_moves,
    incidents,
    withdrawal_reasons,
)
from engine.commands import REGISTRY, Command, as_command, parse_command
from engine.errors import MalformedCommand
from engine.events import Event
from engine.game import importing, moves, reconciliation
from engine.game import state as games
from engine.standings import playoffs, withdrawal
from engine.timefmt import format_instant
from engine.tournament import founding
from engine.tournament.event_window import require_within_event
from engine.world import World

COMMAND_MODULES = (
    founding,
    moves,
    importing,
    reconciliation,
    draw_claims,
    illegal_moves,
    clock_rulings,
    corrections,
    flag_rulings,
    withdrawal,
    playoffs,
    board_alerts,
    incidents,
    default_time,
    withdrawal_reasons,
)
"""The chapters that declare commands; a new chapter with commands is added here."""

__all__ = ["COMMAND_MODULES", "REGISTRY", "World", "decide", "parse_command"]

DEFAULT_FUTURE_TOLERANCE_MS = 5 * 60_000
"""How far ahead of the receiving process's clock an instant may be (clocks of two
machines differ by seconds, not minutes): a command dated later is a typo (a year, a
day, an hour off) and would run the regulation clock past a flag that never fell."""


def require_not_in_future(cmd: Command, received_ms: int, tolerance_ms: int) -> None:
    """Refuse a command dated more than ``tolerance_ms`` after it was received.

    The engine has no clock of its own: the adapter that received the command says
    when (``received_ms``), so a decision stays a function of its inputs."""
    at_ms = getattr(cmd, "at_ms", None)
    if isinstance(at_ms, int) and at_ms > received_ms + tolerance_ms:
        raise MalformedCommand(
            f"{cmd.cmd}: the instant {format_instant(at_ms)} is later than when the command "
            f"was received ({format_instant(received_ms)}) by more than "
            f"{tolerance_ms / 1000:g} s: a command cannot be dated in the future (check the "
            "date and the zone)"
        )


def decide(
    raw: object,
    world: World,
    received_ms: int | None = None,
    future_tolerance_ms: int = DEFAULT_FUTURE_TOLERANCE_MS,
) -> tuple[Command, list[Event]]:
    """Check the command's form, then decide it; raises CommandRefused (or
    AlreadyRecorded for a ``play_move`` whose ``ply`` already holds that move).

    ``received_ms``: when the adapter received the command (its wall clock); an
    instant later than that by more than ``future_tolerance_ms`` is refused. None
    (a pure caller: a replay, a test of a rule) skips that check."""
    cmd = as_command(raw)
    if received_ms is not None:
        require_not_in_future(cmd, received_ms, future_tolerance_ms)
    require_within_event(cmd, world)
    # a retried move is a duplicate, whatever its instant
    if cmd.cmd == moves.PlayMove.cmd and isinstance(cmd, moves.PlayMove):
        moves.check_ply(world.game(cmd.game), cmd)
    spec = REGISTRY[cmd.cmd]
    if spec.in_time_order:
        values = vars(cmd)  # a time-ordered command has ``game`` and ``at_ms`` (@command checks)
        games.require_in_time_order(world.game(values["game"]), cmd.cmd, values["at_ms"])
    return cmd, cmd.decide(world)
