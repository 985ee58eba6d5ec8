"""What the move reconstructor concludes from a board (``adapters.dgt.reconstruct``):
moves seen, corrected and confirmed, takebacks, recovered lines and alerts for the
arbiters, each with the instant (epoch ms) it was concluded and its JSON form (the
lines ``candidates dgt moves`` prints)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Observation(ABC):
    """Something the reconstructor concluded from the board."""

    at_ms: int

    @property
    @abstractmethod
    def type(self) -> str: ...

    @abstractmethod
    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class MoveSeen(Observation):
    """A move was recognised (``provisional``: it may still be corrected)."""

    uci: str
    san: str
    ply: int
    provisional: bool

    @property
    def type(self) -> str:
        return "move"

    def to_json(self) -> dict[str, Any]:
        return {"type": "move", "ply": self.ply, "uci": self.uci, "san": self.san}


@dataclass(frozen=True)
class MoveCorrected(Observation):
    """The provisional move at ``ply`` was a transient: replaced (or withdrawn: ``uci`` None)."""

    ply: int
    replaced: str
    uci: str | None
    san: str | None
    provisional: bool

    @property
    def type(self) -> str:
        return "correction"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "correction",
            "ply": self.ply,
            "replaced": self.replaced,
            "uci": self.uci,
            "san": self.san,
        }


@dataclass(frozen=True)
class MoveConfirmed(Observation):
    """The move at ``ply`` can no longer be a transient."""

    ply: int
    uci: str
    reason: str

    @property
    def type(self) -> str:
        return "confirmed"

    def to_json(self) -> dict[str, Any]:
        return {"type": "confirmed", "ply": self.ply, "uci": self.uci, "reason": self.reason}


@dataclass(frozen=True)
class TakebackSeen(Observation):
    """The board went back to the position after ``to_ply`` plies."""

    from_ply: int
    to_ply: int
    undone: tuple[str, ...]

    @property
    def type(self) -> str:
        return "takeback"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "takeback",
            "from_ply": self.from_ply,
            "to_ply": self.to_ply,
            "undone": list(self.undone),
        }


@dataclass(frozen=True)
class LineRecovered(Observation):
    """The board showed that a move already taken was not the one played: the line
    from ``from_ply`` is ``moves`` (the board's), not ``replaced`` (rule 7)."""

    from_ply: int
    replaced: tuple[str, ...]
    moves: tuple[str, ...]
    message: str

    @property
    def type(self) -> str:
        return "recovery"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "recovery",
            "from_ply": self.from_ply,
            "replaced": list(self.replaced),
            "moves": list(self.moves),
            "message": self.message,
        }


@dataclass(frozen=True)
class BoardAlert(Observation):
    """For the arbiters: ``impossible_position``, ``position_restored``,
    ``result_signalled``, ``new_game``."""

    kind: str
    message: str
    details: dict[str, Any]

    @property
    def type(self) -> str:
        return "alert"

    def to_json(self) -> dict[str, Any]:
        return {"type": "alert", "kind": self.kind, "message": self.message, **self.details}
