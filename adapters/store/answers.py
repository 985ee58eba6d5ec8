"""The contract's answer to a command, as the store's door gives it (``Store.handle``).

Declared once here, where it is made; the gateway's ``result`` frame is this answer with
the frame's ``op`` and ``id`` (``adapters.gateway.frames.ResultFrame``), and its schema is
generated from these types (docs/schema/frames.schema.json)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, NotRequired, TypedDict, cast

from msgspec import Meta

from engine.errors import AlreadyRecorded, CommandRefused
from engine.events import Event
from projections.shapes import Count, EventWire


class RefusalError(TypedDict):
    """Why a command was refused: its ``code`` (docs/commands.md lists them) and words."""

    code: str
    message: str


class Answer(TypedDict):
    """The contract's answer to a command (``Store.handle``)."""

    ok: bool
    events: NotRequired[list[EventWire]]
    error: NotRequired[RefusalError]
    seq: NotRequired[
        Annotated[
            Count,
            Meta(
                description="a refusal's position of the log: decided on the state after that event"
            ),
        ]
    ]
    duplicate: NotRequired[bool]
    message: NotRequired[str]


def answer_of(events: Sequence[Event]) -> Answer:
    """An accepted command's answer: the events it appended, in their contract form."""
    # an event's contract form: its envelope, then its own fields (each event its own)
    return {"ok": True, "events": [cast(EventWire, e.to_wire()) for e in events]}


def duplicate_answer(repeat: AlreadyRecorded) -> Answer:
    """A ``play_move`` whose ``ply`` already holds the move: ok, nothing appended."""
    return {"ok": True, "events": [], "duplicate": True, "message": repeat.message}


def refusal(refused: CommandRefused) -> Answer:
    """A refused command's answer (its position of the log is added where it is known)."""
    return {"ok": False, "error": RefusalError(code=refused.code, message=refused.message)}
