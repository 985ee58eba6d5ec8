"""A store that fails under a command, said in one line.

A full disk (SQLite's ``database or disk is full``, an ``ENOSPC``), a file that cannot
be written, a database that went away: the command ends with one ``candidates: ...``
line on stderr and exit status 2, never a traceback (``adapters.cli.main``). What was
committed before stays; a file of commands that carry ``command_id`` is finished by
running it again once the cause is gone (those applied answer as they did).
"""

from __future__ import annotations

from adapters.store.database_errors import database_error, said

RERUN = (
    "what was committed before stays; free the space or fix the cause, then run the same "
    "command again (commands with command_id are not applied twice)"
)


def store_trouble(error: BaseException) -> str | None:
    """The one line that says ``error`` when it is the store's database failing (here or
    in an exception it was raised from), else None (a fault of the program: raised)."""
    found = database_error(error)
    if found is None:
        return None
    return f"the store could not be written or read: {said(found)}; {RERUN}"
