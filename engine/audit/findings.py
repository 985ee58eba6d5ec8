"""What an audit finds: a severity, a stable kind, a message, and the event it names."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.events import Event


class Severity(StrEnum):
    INTEGRITY = "integrity"
    """The log is not what the engine would have stored: the exit status is 1."""
    RULE = "rule"
    """An arbiter's override or a result without a legal reason behind it: listed."""
    INFO = "info"
    """A note (no seal, an unaudited stream)."""


INTEGRITY, RULE, INFO = Severity.INTEGRITY, Severity.RULE, Severity.INFO


@dataclass(frozen=True)
class Finding:
    severity: Severity
    kind: str
    """Stable name: illegal_move, impossible_result, impossible_clock, after_result,
    ill_typed_field, unjudgeable_event, arbiter_override, draw_without_reason,
    dead_position_unproven, ..."""
    message: str
    event: Event | None = None
    """The event the finding names (its stream, version and type), if one."""
