"""What the gateway keeps in the store between runs (``adapters.store.kept``, name ``gateway``).

At a position of the log: the open alerts, each tournament's standings and known game
ids, and the counters of events folded. A gateway that starts loads them and reads
only the events after the position; the state is saved by a thread of its own after
an update's frames were handed out, so keeping it never delays a move on its way to
the viewers (docs/scale.md, "Kept projections")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from adapters.gateway.follower import Resumed
from adapters.gateway.frames import AlertFrame, Frame
from projections.standings import Standings

NAME = "gateway"
FORMAT = 1
"""The layout of the state below; a change of it is a new number."""


class KeptAlert(TypedDict):
    """An open alert as kept: its frame's body and routing fields (not its encodings)."""

    body: AlertFrame
    seq: int
    game: str | None
    audience: str
    broad: bool
    tournament: str | None


class GatewayKept(TypedDict):
    """The layout of the gateway's kept state (checked as it is loaded)."""

    games: dict[str, list[str]]
    standings: dict[str, Standings | None]
    alerts: list[KeptAlert]
    events: int
    alerts_raised: int


def frame_state(frame: Frame, body: AlertFrame) -> KeptAlert:
    """An alert frame (``body``: its body) as plain data."""
    return {
        "body": body,
        "seq": frame.seq,
        "game": frame.game,
        "audience": frame.audience,
        "broad": frame.broad,
        "tournament": frame.tournament,
    }


def frame_from_state(data: KeptAlert) -> Frame:
    return Frame(
        data["body"], data["seq"], data["game"], data["audience"], data["broad"], data["tournament"]
    )


@dataclass
class GatewayState:
    """The gateway's kept state at ``position``."""

    position: int = 0
    games: dict[str, list[str]] = field(default_factory=dict)
    """Tournament id -> its game ids known to the follower."""
    standings: dict[str, Standings | None] = field(default_factory=dict)
    """Tournament id -> its standings object (None while it has none)."""
    alerts: list[Frame] = field(default_factory=list)
    """The open alerts (``OpenAlerts.frames``), in the order they were raised."""
    events: int = 0
    """Events folded into this state since it was first built (each exactly once)."""
    alerts_raised: int = 0
    """``AlertRaised`` events among them."""

    def to_state(self) -> GatewayKept:
        return {
            "games": self.games,
            "standings": self.standings,
            "alerts": [frame_state(f, f.body) for f in self.alerts if f.body["op"] == "alert"],
            "events": self.events,
            "alerts_raised": self.alerts_raised,
        }

    @classmethod
    def from_state(cls, position: int, state: GatewayKept) -> GatewayState:
        """Raises KeyError, TypeError or ValueError when ``state`` is not of this layout."""
        games = {str(t): [str(g) for g in ids] for t, ids in state["games"].items()}
        standings = {str(t): s for t, s in state["standings"].items()}
        alerts = [frame_from_state(a) for a in state["alerts"]]
        if not all(isinstance(a.body, dict) for a in alerts):
            raise TypeError("an alert's body is not a map")
        events, raised = int(state["events"]), int(state["alerts_raised"])
        return cls(position, games, standings, alerts, events, raised)

    def resumed(self) -> Resumed:
        return Resumed(self.position, self.games, self.standings)
