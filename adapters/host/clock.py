"""The wall clock: this process's idea of now, as UTC epoch milliseconds.

The engine has no clock of its own; an adapter reads this one (the store when it
receives a command, the gateway when it releases the public's events, a board's
link when bytes arrive, the command line's live views) and passes the instant in.
Tests inject a clock of their own wherever a decision depends on it."""

from __future__ import annotations

import time


def wall_clock_ms() -> int:
    """Now, in UTC epoch milliseconds."""
    return time.time_ns() // 1_000_000
