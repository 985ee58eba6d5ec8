"""A store that went away, said once: a long-running process retries every second.

The gateway's reading of the log, its flag check and its analysis feed each keep
running when the database goes away (a restart, a crash, the network): every failed
attempt is made again a second later and the process resumes from the store once
it answers. ``Outage`` says so in the log once, not once a second: the first failure
(one line when the database went away, the traceback of anything else) and the first
success after it.
"""

from __future__ import annotations

import logging

from eventsourcing.persistence import InterfaceError, OperationalError

from adapters.store.database_errors import database_error
from adapters.store.database_errors import said as first_line

RETRY_S = 1.0
"""How long a process waits before it tries the store again."""


class Outage:
    """The failures of one activity (``what``: "reading the store", "the flag check"...),
    said in ``log`` once per outage."""

    def __init__(self, what: str, log: logging.Logger, every_s: float | None = RETRY_S) -> None:
        self.what = what
        self.log = log
        self.every_s = every_s
        """How long the activity waits before it tries again (None: it does not say)."""
        self.failures = 0
        """Attempts failed since the last success."""
        self.outages = 0
        """Outages seen (each said once)."""

    @property
    def retrying(self) -> str:
        """How the log says it is tried again."""
        return "retrying" if self.every_s is None else f"retrying every {self.every_s:g} s"

    def failed(self, error: BaseException) -> None:
        """An attempt failed: said if it is the first since the last success."""
        self.failures += 1
        if self.failures > 1:
            return
        self.outages += 1
        found = database_error(error)  # the server went away (AdminShutdown, a closed link)
        if isinstance(error, OperationalError | InterfaceError) or found is not None:
            shown = first_line(found if found is not None else error)
            self.log.warning("%s failed (%s); %s", self.what, shown, self.retrying)
        else:
            self.log.warning("%s failed; %s", self.what, self.retrying, exc_info=error)

    def succeeded(self) -> None:
        """An attempt succeeded: said if attempts had failed before it."""
        if self.failures:
            self.log.warning("%s works again after %d failed attempt(s)", self.what, self.failures)
        self.failures = 0
