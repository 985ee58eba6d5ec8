"""What the move reconstructor concludes from a board (``adapters.dgt.reconstruct``):
moves seen, corrected and confirmed, takebacks, recovered lines and alerts for the
arbiters, each with the instant (epoch ms) it was concluded and its JSON form (the
lines ``candidates dgt moves`` prints)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict, cast


class Line(TypedDict):
    """An observation's JSON form (a line ``candidates dgt moves`` prints): its ``type``,
    then its own fields (each kind of line below)."""

    type: str
    at: NotRequired[str]
    """When it was concluded (ISO-8601), for a timed input (a ``.dgt`` recording)."""


class MoveLine(Line):
    ply: int
    uci: str
    san: str


class CorrectionLine(Line):
    ply: int
    replaced: str
    uci: str | None
    san: str | None


class ConfirmedLine(Line):
    ply: int
    uci: str
    reason: str


class TakebackLine(Line):
    from_ply: int
    to_ply: int
    undone: list[str]


class RecoveryLine(Line):
    from_ply: int
    replaced: list[str]
    moves: list[str]
    message: str


class AlertLine(Line):
    """An alert's line: ``kind`` and ``message``, then its ``details`` (free-form, each
    kind its own) spread beside them."""

    kind: str
    message: str


@dataclass(frozen=True)
class Observation(ABC):
    """Something the reconstructor concluded from the board."""

    at_ms: int

    @property
    @abstractmethod
    def type(self) -> str: ...

    @abstractmethod
    def to_json(self) -> Line: ...


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

    def to_json(self) -> MoveLine:
        return MoveLine(type="move", ply=self.ply, uci=self.uci, san=self.san)


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

    def to_json(self) -> CorrectionLine:
        return CorrectionLine(
            type="correction", ply=self.ply, replaced=self.replaced, uci=self.uci, san=self.san
        )


@dataclass(frozen=True)
class MoveConfirmed(Observation):
    """The move at ``ply`` can no longer be a transient."""

    ply: int
    uci: str
    reason: str

    @property
    def type(self) -> str:
        return "confirmed"

    def to_json(self) -> ConfirmedLine:
        return ConfirmedLine(type="confirmed", ply=self.ply, uci=self.uci, reason=self.reason)


@dataclass(frozen=True)
class TakebackSeen(Observation):
    """The board went back to the position after ``to_ply`` plies."""

    from_ply: int
    to_ply: int
    undone: tuple[str, ...]

    @property
    def type(self) -> str:
        return "takeback"

    def to_json(self) -> TakebackLine:
        return TakebackLine(
            type="takeback", from_ply=self.from_ply, to_ply=self.to_ply, undone=list(self.undone)
        )


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

    def to_json(self) -> RecoveryLine:
        return RecoveryLine(
            type="recovery",
            from_ply=self.from_ply,
            replaced=list(self.replaced),
            moves=list(self.moves),
            message=self.message,
        )


@dataclass(frozen=True)
class BoardAlert(Observation):
    """For the arbiters: ``impossible_position``, ``position_restored``,
    ``result_signalled``, ``new_game``."""

    kind: str
    message: str
    details: dict[str, Any]
    """What the board saw, free-form (``raise_alert``'s ``details``)."""

    @property
    def type(self) -> str:
        return "alert"

    def to_json(self) -> AlertLine:
        line = {"type": "alert", "kind": self.kind, "message": self.message, **self.details}
        return cast(AlertLine, line)  # the details beside kind and message
