"""Commands under a client's id: the same command sent again applies once.

A command may carry ``command_id`` (a client-chosen string, unique per store). Its
identity is the id and the digest of the rest of its body (``command_identity``);
the command applied under it is recorded by ``CommandApplied`` on
``command/<command_id>`` (``command_applied``), decided here with the command's
events and appended in the same transaction, so a stream position written once
makes the id apply once. The store reads an earlier record back to answer a repeat.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from engine.commands import Command
from engine.errors import CommandIdReused, MalformedCommand
from engine.events import CommandApplied, Event, command_stream

MAX_COMMAND_ID = 200
"""Longest ``command_id`` accepted (characters)."""


def command_identity(raw: object) -> tuple[object, str | None, str | None]:
    """(the command without its ``command_id``, the id, the digest of the rest).

    The digest is SHA-256 of the body as canonical JSON (sorted keys), so the
    same command sent again, in any key order, has the same digest."""
    if not isinstance(raw, dict) or "command_id" not in raw:
        return raw, None, None
    command_id = raw["command_id"]
    if not isinstance(command_id, str) or not command_id:
        raise MalformedCommand(f"field 'command_id' must be a non-empty string, got {command_id!r}")
    if len(command_id) > MAX_COMMAND_ID:
        raise MalformedCommand(
            f"field 'command_id' is {len(command_id)} characters long; at most {MAX_COMMAND_ID}"
        )
    if not command_id.isprintable():
        raise MalformedCommand("field 'command_id' must be printable text (no control characters)")
    body = {k: v for k, v in raw.items() if k != "command_id"}
    try:
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        command_id.encode("utf-8")
        data = text.encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError, RecursionError) as exc:
        raise MalformedCommand(f"the command is not JSON text: {exc}") from None
    return body, command_id, hashlib.sha256(data).hexdigest()


def command_applied(
    command_id: str, digest: str, cmd: Command, events: Sequence[Event]
) -> CommandApplied:
    """The record of a command applied under an id (version 1 of its stream)."""
    instants = [e.at_ms for e in events]
    values = vars(cmd)
    by = values.get("by") if isinstance(values.get("by"), str) else values.get("arbiter")
    at_ms = values.get("at_ms")
    return CommandApplied(
        originator_id=command_stream(command_id),
        originator_version=1,
        at_ms=max(instants) if instants else (at_ms if isinstance(at_ms, int) else 0),
        by=str(by) if isinstance(by, str) else "client",
        command_id=command_id,
        command=cmd.cmd,
        digest=digest,
        events=tuple((e.originator_id, e.originator_version) for e in events),
    )


def check_repeat(command_id: str, digest: str, record: object) -> CommandApplied:
    """The record an id names, if it was applied to the same body; CommandIdReused if
    the stream is not a command record or the id named another command."""
    if not isinstance(record, CommandApplied):
        raise CommandIdReused(f"command_id {command_id!r} names a stream that is not a command")
    if record.digest != digest:
        raise CommandIdReused(
            f"command_id {command_id!r} was already applied to another {record.command} "
            "command (a different body); an id names one command: nothing was appended"
        )
    return record
