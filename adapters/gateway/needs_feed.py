"""The ``needs`` frame: what each player needs to finish first, live (docs/needs.md).

A follower keeps one ``NeedsFeed`` per channel: each time a tournament's standings
change (a result, a correction, a withdrawal), its ``needs`` object is read again
(``adapters.queries.needs_object``) from the scenarios it scored before: a result of
one of the varied games only narrows them (``ScenarioTable.follow``), so the update
costs the words and the chances, not the tie-breaks of every scenario again.

``{"op": "needs", "seq", "tournament", "needs": {...}}`` goes to every subscriber of
the tournament (commentators live, the public after the delay, like the standings it
derives from). The frame lists the scenarios when they are at most
``projections.needs.SCENARIOS_IN_FRAME``; ``/api/needs`` always lists them all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adapters import queries
from adapters.gateway.frames import Frame
from adapters.store import TournamentView
from engine.errors import CommandRefused
from projections.needs import for_frame
from projections.scenarios import ScenarioTable


class NeedsFeed:
    """The last ``needs`` object of each tournament and the scenarios it was built from."""

    def __init__(self) -> None:
        self.tables: dict[str, ScenarioTable] = {}
        self.objects: dict[str, Any] = {}
        self.wdl: dict[str, Mapping[str, Sequence[float]]] = {}
        """Per tournament: game -> win/draw/loss of a game in progress, from an analysis
        (``set_wdl``); games not named are weighed by the ratings."""

    def read(self, view: TournamentView, tid: str) -> Any:
        """The tournament's ``needs`` object now (None while it has no pairings)."""
        try:
            needs, table = queries.needs_object(
                view, None, self.wdl.get(tid), previous=self.tables.get(tid)
            )
        except CommandRefused:
            self.tables.pop(tid, None)
            self.objects[tid] = None
            return None
        self.tables[tid] = table
        self.objects[tid] = needs
        return needs

    def set_wdl(self, tid: str, wdl: Mapping[str, Sequence[float]]) -> None:
        """Win/draw/loss estimates of games in progress (read at the next update)."""
        self.wdl[tid] = dict(wdl)


def needs_frame(seq: int, tid: str, needs: Mapping[str, Any] | None) -> Frame:
    """The ``needs`` frame of one tournament, for every subscriber of it."""
    body = {
        "op": "needs",
        "seq": seq,
        "tournament": tid,
        "needs": for_frame(needs) if needs is not None else None,
    }
    return Frame(body, seq, None, broad=True, tournament=tid)
