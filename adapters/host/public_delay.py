"""The public delay: how long after the arbiters the public sees a move (FIDE fair play).

One setting, read by the gateway (its public channel releases each event this
long after it was appended), the DGT feed and its correction policy (a board's
correction of its own misread is applied at once only while the public has not
seen the plies). On the command line it is ``--public-delay-s SECONDS``, 15
minutes unless told; 0 turns it off (a replay, a test)."""

from __future__ import annotations

DEFAULT_S = 15 * 60
"""Fair play: the public sees the games 15 minutes late unless told otherwise."""
FLAG = "--public-delay-s"
"""The one flag that sets it (the unit in its name, as every duration's)."""


def delay_ms(seconds: float) -> int:
    """The delay in milliseconds; ValueError for a negative or non-finite one."""
    if not 0 <= seconds < float("inf"):
        raise ValueError(f"the public delay must be 0 or more seconds, got {seconds:g}")
    return round(seconds * 1000)


DEFAULT_MS = delay_ms(DEFAULT_S)
