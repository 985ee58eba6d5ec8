"""``candidates apply FILE.jsonl``: one command a line in, one JSON result a line out.

Resumable: a run cut short (a crash, ``kill -9``, a lost connection) is finished
by running the whole file again, when its commands carry ``command_id``: those
already applied answer as they did and append nothing, the rest are applied.
The run seals what it appended when it ends (docs/audit.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import IO, Any

from adapters.cli.common import add_create_option, add_store_option, print_json, store_of
from adapters.formats.jsontext import TextError, loads
from adapters.store.answers import refusal
from engine.errors import MalformedCommand

MAX_LINE_BYTES = 2**20
"""Longest line read as a command (1 MiB, a websocket message's bound too): a longer one
is refused by its number, read no further than this, and the next lines still run."""


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "apply",
        help="apply commands (one JSON object a line; - for stdin)",
        description="Apply commands of the contract, one JSON object a line. Prints one "
        "JSON result a line; exits 1 if any command was refused. With a command_id on "
        "every command, a run cut short is resumed by running the whole file again.",
    )
    parser.add_argument("file", help="a .jsonl file, or - for standard input")
    add_create_option(parser)
    add_store_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    refused = 0
    if args.file == "-":
        handle: IO[bytes] = sys.stdin.buffer
    else:
        try:
            handle = open(args.file, "rb")  # noqa: SIM115
        except OSError as exc:
            raise MalformedCommand(f"cannot read {args.file!r}: {exc.strerror}") from None
    with store_of(args) as store, handle:
        for number, data in enumerate(bounded_lines(handle), start=1):
            if data is None:
                raw: object = None
                problem: str | None = (
                    f"line {number}: longer than {MAX_LINE_BYTES} bytes; a command is at "
                    f'most {MAX_LINE_BYTES} bytes (docs/commands.md, "Limits")'
                )
            else:
                raw, problem = parse_line(data, number)
            if problem is None and raw is None:
                continue
            if problem is not None:
                result = refusal(MalformedCommand(problem))
            else:
                result = store.handle(raw)
            refused += not result["ok"]
            print_json(result)
        store.writer.seal_appended()
    return 1 if refused else 0


def bounded_lines(handle: IO[bytes], limit: int = MAX_LINE_BYTES) -> Iterator[bytes | None]:
    """The lines of ``handle``, each None when longer than ``limit`` bytes (the rest of
    such a line is skipped in pieces of ``limit``: never held whole in memory)."""
    while True:
        line = handle.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or (line.endswith(b"\n") and len(line) == limit + 1):
            yield line
            continue
        while line and not line.endswith(b"\n"):
            line = handle.readline(limit)
        yield None


def parse_line(data: bytes, number: int) -> tuple[object, str | None]:
    """(the decoded command, None), (None, None) for a blank or ``#`` line, or
    (None, why the line is not a command). Bytes are read per line, so one line
    that is not UTF-8 or not JSON is reported and the next lines still run."""
    try:
        text = data.decode("utf-8-sig" if number == 1 else "utf-8").strip()
    except UnicodeDecodeError as exc:
        return None, f"line {number}: not UTF-8 (byte {exc.start + 1})"
    if not text or text.startswith("#"):
        return None, None
    try:
        value = loads(text)
    except TextError as exc:
        return None, f"line {number}: {exc}"
    if not isinstance(value, dict):
        kind = "null" if value is None else type(value).__name__
        return None, f"line {number}: a command is a JSON object, not {kind}"
    return value, None
