"""Errors the engine reports when it refuses a command.

Hierarchy (every refusal appends nothing)::

    CommandRefused                 base: carries a stable ``code`` and a message
    +-- MalformedCommand           missing or ill-typed field, unknown command
    +-- UnknownTournament          no tournament created yet / wrong id
    +-- UnknownGame                no such game id (not paired, not created)
    +-- UnknownClaim               no draw claim by that id in the game
    +-- IllegalMove                the move is not legal (or not parseable) here
    +-- GameNotInProgress          the game has not started, or has finished
    +-- NotAnArbiter               a command that needs an arbiter of the event
    +-- RuleViolation              the regulations forbid it (article named)
    +-- OutOfOrder                 dated before what is already recorded (no article)
    +-- Conflict                   someone else changed the same stream first
    +-- CommandIdReused            a ``command_id`` already applied to another command

``AlreadyRecorded`` is not a refusal: a ``play_move`` whose ``ply`` is already
recorded with the same move is answered as a duplicate (ok, nothing appended).

``code`` is part of the command contract (``{"ok": false, "error": {"code":
..., "message": ...}}``); messages are for people and may be reworded.
"""

from __future__ import annotations


class CommandRefused(Exception):
    """Base class: the engine refused a command; nothing was appended."""

    code = "refused"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def as_error(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class MalformedCommand(CommandRefused):
    """The command is not of the contract's form (missing field, bad type, unknown name)."""

    code = "malformed_command"


class UnknownTournament(CommandRefused):
    """No tournament by that id in this store."""

    code = "unknown_tournament"


class UnknownGame(CommandRefused):
    """No game by that id: not paired, not imported."""

    code = "unknown_game"


class UnknownClaim(CommandRefused):
    """No draw claim by that id in the game (``claim_draw`` numbers them 1, 2, ...)."""

    code = "unknown_claim"


class IllegalMove(CommandRefused):
    """The move cannot be parsed or is not legal in the current position."""

    code = "illegal_move"


class GameNotInProgress(CommandRefused):
    """The game is not being played: not started yet, or already finished."""

    code = "game_not_in_progress"


class NotAnArbiter(CommandRefused):
    """The command needs an arbiter of this event (chief or deputy, or the advisor)."""

    code = "not_an_arbiter"


class RuleViolation(CommandRefused):
    """The regulations forbid what the command asks; the message names the article."""

    code = "rule_violation"

    def __init__(self, article: str, message: str) -> None:
        super().__init__(f"{message} (article {article})")
        self.article = article


class Conflict(CommandRefused):
    """Another command changed the same stream first (optimistic concurrency)."""

    code = "conflict"


class OutOfOrder(CommandRefused):
    """The command is dated before what the game (or its clock) already recorded: the
    record keeps a game's events in the order of their instants, so that its clock runs
    forward. No article orders records (Laws 2009 6.7 a says when a move is completed,
    not in what order it is written down): the refusal cites none."""

    code = "out_of_order"


class CommandIdReused(CommandRefused):
    """The ``command_id`` was already applied to a command with a different body."""

    code = "command_id_reused"


class AlreadyRecorded(Exception):
    """A ``play_move`` with a ``ply`` that already holds the same move: a retry.

    Not a refusal: the store answers ``{"ok": true, "events": [], "duplicate": ...}``
    and appends nothing."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
