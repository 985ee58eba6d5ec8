"""Which side of the clock is White's: configured, or inferred, never assumed.

The DGT protocol reports the left and right clocks, never colours, and where the
clock stands depends on the hall. ``ClockSides`` maps them as configured, or infers
the mapping from lever presses that agree with the side on move; until it is known,
readings are held and then released mapped, so none is lost and none guessed
(docs/dgt.md, section 5)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

LEFT, RIGHT = "left", "right"
OTHER = {LEFT: RIGHT, RIGHT: LEFT}


@dataclass(frozen=True)
class ClockReading:
    """One clock reading in the protocol's terms, with its arrival time."""

    at_ms: int
    left_ms: int
    right_ms: int
    running: str | None
    left_flag: bool = False
    """The clock shows the left flag (fallen, or shown at the end of a period)."""
    right_flag: bool = False


@dataclass(frozen=True)
class ColouredReading:
    """A reading mapped to White and Black."""

    at_ms: int
    white_ms: int
    black_ms: int
    running: str | None
    """``white``, ``black`` or None (stopped)."""
    flag: str | None = None
    """``white`` or ``black``: the side whose flag the device shows (Laws 6.10 a
    evidence for the arbiter), None when no flag is shown."""


@dataclass
class ClockSides:
    white_side: str | None = None
    """``left`` or ``right`` once known."""
    configured: bool = False
    votes_needed: int = 2
    max_held: int = 3600
    votes: dict[str, int] = field(default_factory=lambda: {LEFT: 0, RIGHT: 0})
    held: deque[ClockReading] = field(default_factory=deque)
    _last_running: str | None = None

    @classmethod
    def of(cls, white_side: str | None) -> ClockSides:
        if white_side is None:
            return cls()
        if white_side not in (LEFT, RIGHT):
            raise ValueError(f"the clock side of White is 'left' or 'right', not {white_side!r}")
        return cls(white_side=white_side, configured=True)

    @property
    def known(self) -> bool:
        return self.white_side is not None

    def forget_lever(self) -> None:
        """The link was down: the next reading shows no press."""
        self._last_running = None

    def lever_changed(self, reading: ClockReading) -> bool:
        """Did this reading show the lever on another side than the last one?"""
        changed = (
            reading.running is not None
            and self._last_running is not None
            and reading.running != self._last_running
        )
        if reading.running is not None:
            self._last_running = reading.running
        return changed

    def observe(
        self, reading: ClockReading, white_to_move: bool, evidence: bool
    ) -> list[ColouredReading]:
        """A reading; ``evidence``: the lever just moved (or the clock was just started)
        with the board settled, so the running clock is the player's to move."""
        if evidence and reading.running is not None and not self.configured:
            white = reading.running if white_to_move else OTHER[reading.running]
            self.votes[white] += 1
            if self.white_side is None:
                lead, other = (
                    (LEFT, RIGHT) if self.votes[LEFT] >= self.votes[RIGHT] else (RIGHT, LEFT)
                )
                if (
                    self.votes[lead] >= self.votes_needed
                    and self.votes[lead] > 2 * self.votes[other]
                ):
                    self.white_side = lead
        if self.white_side is None:
            self.held.append(reading)
            while len(self.held) > self.max_held:
                self.held.popleft()
            return []
        out = [self.colour(r) for r in self.held]
        self.held.clear()
        out.append(self.colour(reading))
        return out

    def colour(self, reading: ClockReading) -> ColouredReading:
        white_left = self.white_side == LEFT
        running = None
        if reading.running is not None:
            running = "white" if (reading.running == LEFT) == white_left else "black"
        white_flag = reading.left_flag if white_left else reading.right_flag
        black_flag = reading.right_flag if white_left else reading.left_flag
        return ColouredReading(
            at_ms=reading.at_ms,
            white_ms=reading.left_ms if white_left else reading.right_ms,
            black_ms=reading.right_ms if white_left else reading.left_ms,
            running=running,
            # Both flags shown (one side's flag fell, then the other's): the first one
            # matters, and it is the one whose clock stopped first: not the running one.
            flag="white"
            if white_flag and (not black_flag or running != "white")
            else ("black" if black_flag else None),
        )
