"""The ``needs`` frame: what each player needs to finish first, live (docs/needs.md).

Each time a tournament's standings change (a result, a correction, a withdrawal),
the follower reads what its ``needs`` object is computed from
(``adapters.queries.needs_inputs``: immutable, at the position it read); the
gateway computes it in a thread of its own (``NeedsFeed.compute``), so the moves'
frames never wait for it, and sends the frame when it is ready. A result of one
of the varied games only narrows the scenarios scored before
(``ScenarioTable.follow``): the update costs the words and the chances, not the
tie-breaks of every scenario again.

``{"op": "needs", "seq", "tournament", "needs": {...}}`` goes to the subscribers of
the tournament that asked for it (``"needs": true``; commentators live, the public
after the delay, like the standings it derives from), after their snapshot or resume
and whenever it changes. The frame lists the scenarios when they are at most
``projections.needs.SCENARIOS_IN_FRAME``; ``/api/needs`` always lists them all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from adapters.gateway.frames import Frame
from projections.needs import NeedsInputs, compute, for_frame
from projections.scenarios import ScenarioTable

NEEDS = "needs"
"""The frame's audience: the clients that subscribed with ``"needs": true``."""


class NeedsFeed:
    """One channel's last scored scenarios of each tournament (used by one thread)."""

    def __init__(self) -> None:
        self.tables: dict[str, ScenarioTable] = {}
        self.inputs: dict[str, NeedsInputs] = {}
        """Per tournament: the inputs last computed from (an analysis recomputes them)."""
        self.wdl: dict[str, Mapping[str, Sequence[float]]] = {}
        """Per tournament: game -> win/draw/loss of a game in progress, from an analysis
        (``set_wdl``); games not named are weighed by the ratings."""

    def compute(self, tid: str, inputs: NeedsInputs | None) -> Any:
        """The tournament's ``needs`` object (None while it has none: no pairings)."""
        if inputs is None:
            self.tables.pop(tid, None)
            self.inputs.pop(tid, None)
            return None
        self.inputs[tid] = inputs
        wdl = self.wdl.get(tid)
        if wdl:
            paired = set(inputs.tournament.pairings())
            inputs = replace(inputs, wdl={g: v for g, v in wdl.items() if g in paired})
        needs, table = compute(inputs, self.tables.get(tid))
        self.tables[tid] = table
        return needs

    def set_wdl(self, tid: str, wdl: Mapping[str, Sequence[float]]) -> None:
        """Win/draw/loss estimates of games in progress (read at the next computation;
        ``Gateway.set_analysis`` computes again at once)."""
        self.wdl[tid] = dict(wdl)


def needs_frame(seq: int, tid: str, needs: Mapping[str, Any] | None) -> Frame:
    """The ``needs`` frame of one tournament, for its subscribers that asked for it."""
    body = {
        "op": "needs",
        "seq": seq,
        "tournament": tid,
        "needs": for_frame(needs) if needs is not None else None,
    }
    return Frame(body, seq, None, audience=NEEDS, broad=True, tournament=tid)
