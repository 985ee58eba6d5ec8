"""The runbook as the drill reads it: docs/operations.md's ``sh`` blocks, by name.

Every ``sh`` block of the runbook carries a ``<!-- drill: NAME as USER -->`` line;
the drill (``deploy/drill.py``) runs the blocks by name, in the order of ``STEPS``,
and tests/test_runbook_whole.py runs them as the user each names.
A block's command lines are read as a shell would join them (``\\``
continuations joined, comments and blank lines dropped).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNBOOK = ROOT / "docs" / "operations.md"
STEPS = (
    "install",
    "database",
    "configure",
    "check-config",
    "founding",
    "tournament",
    "units",
    "start-gateways",
    "start-boards",
    "backup-timer",
    "during-play",
    "board-reader-died",
    "gateway-died",
    "database-restarted",
    "backup-now",
    "restore-database",
    "restore",
    "machine-lost-database",
    "machine-lost",
)
"""The runbook's blocks, in the order the drill runs them (tests/test_operations.py
checks that every ``sh`` block of docs/operations.md is one of these). ``founding``
makes the founding file from the organisers' list, which the drill does not have (it
writes the real London 2013 founding, its boards as published, itself);
tests/test_runbook_as_user.py runs that block."""


class DrillError(Exception):
    """A step of the drill could not be carried out (not a finding: a failure to run)."""


BLOCK = re.compile(r"<!-- drill: ([\w-]+)(?: as ([\w-]+))? -->\s*\n```sh\n(.*?)```", re.S)
"""A named block: ``<!-- drill: NAME as USER -->`` then its ``sh`` fence."""


def runbook_blocks(text: str | None = None) -> dict[str, list[str]]:
    """Name -> the command lines of each ``<!-- drill: NAME as USER -->`` block (``\\``
    continuations joined, comments and blank lines dropped)."""
    text = RUNBOOK.read_text(encoding="utf-8") if text is None else text
    return {name: command_lines(body) for name, _, body in BLOCK.findall(text)}


def block_users(text: str | None = None) -> dict[str, str]:
    """Name -> the user the runbook runs the block as (``root``, ``postgres``, the
    hall's ``candidates``): the ``as USER`` of its ``<!-- drill: -->`` line, "" where
    it names none."""
    text = RUNBOOK.read_text(encoding="utf-8") if text is None else text
    return {name: user for name, user, _ in BLOCK.findall(text)}


def sh_blocks(text: str | None = None) -> list[str]:
    """The body of every ``sh`` code block of the runbook, tagged or not."""
    text = RUNBOOK.read_text(encoding="utf-8") if text is None else text
    return re.findall(r"```sh\n(.*?)```", text, re.S)


def command_lines(body: str) -> list[str]:
    lines: list[str] = []
    pending = ""
    for raw in body.splitlines():
        line = raw.rstrip()
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        lines.append((pending + line.strip()).strip())
        pending = ""
    if pending:
        lines.append(pending.strip())
    return lines
