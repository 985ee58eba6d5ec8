"""What one connection may send: a budget of frames and bytes per second.

Every frame a client sends costs the gateway time before the session reads it, so an
``Inbound`` is one connection's two token buckets (frames and bytes, each with a
burst; control frames count too). What is sent beyond them is debt: the connection
stops reading until it is paid, and a debt that stands longer than ``flood_close_s``
closes it (docs/protocol.md, "Flooding clients"). No clock is read here: the instants
come from the caller."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class InboundLimits:
    """The budget of one connection (``Limits.inbound``)."""

    frames_per_s: float = 50.0
    """Frames a client may send per second, sustained."""
    frame_burst: int = 500
    """Frames it may send at once (saved up while it sends fewer)."""
    bytes_per_s: float = 256 * 1024
    """Bytes (as received, framing included) a client may send per second, sustained."""
    byte_burst: int = 2 * 2**20 + 64
    """Bytes it may send at once: room for two of the largest messages (1 MiB each)."""
    flood_close_s: float = 10.0
    """How long a client may stay over its budget (reading paused) before it is closed."""


class Bucket:
    """``rate`` tokens a second, up to ``burst`` saved; spending may run into debt."""

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.level = burst
        self.at = now

    def spend(self, amount: float, now: float) -> None:
        self._refill(now)
        self.level -= amount

    def debt_s(self, now: float) -> float:
        """Seconds until the level is back to zero (0 when it is not below)."""
        self._refill(now)
        return max(0.0, -self.level / self.rate)

    def _refill(self, now: float) -> None:
        if now > self.at:
            self.level = min(self.burst, self.level + (now - self.at) * self.rate)
            self.at = now


class Inbound:
    """One connection's budget: ``spend`` what it sent, then ``verdict``."""

    def __init__(self, limits: InboundLimits, now: float) -> None:
        self.limits = limits
        self.frames = Bucket(limits.frames_per_s, limits.frame_burst, now)
        self.bytes = Bucket(limits.bytes_per_s, limits.byte_burst, now)
        self.over_since: float | None = None
        """When the client went over its budget (None: within it)."""
        self.sent_frames = 0
        self.sent_bytes = 0

    def spend(self, frames: int, size: int, now: float) -> None:
        self.frames.spend(frames, now)
        self.bytes.spend(size, now)
        self.sent_frames += frames
        self.sent_bytes += size

    def verdict(self, now: float) -> tuple[float, str | None]:
        """(seconds to stop reading, why to close the connection or None).

        Within its budget a client is read at once (0 s). Over it, reading pauses
        until the debt is paid; a client over its budget for longer than
        ``flood_close_s``, counting the pause it now needs, is closed instead."""
        wait = max(self.frames.debt_s(now), self.bytes.debt_s(now))
        if wait == 0.0:
            self.over_since = None
            return 0.0, None
        if self.over_since is None:
            self.over_since = now
        if now - self.over_since + wait > self.limits.flood_close_s:
            return wait, (
                f"flooding: sent more than {self.limits.frames_per_s:g} frames or "
                f"{self.limits.bytes_per_s / 1024:g} KiB a second for "
                f"{self.limits.flood_close_s:g} s"
            )
        return wait, None
