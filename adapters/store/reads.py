"""What the contract's queries read: one tournament's state and its streams.

``Reads`` is a typing protocol: a store's default tournament (``Store.reads``), one
tournament's ``TournamentView`` and an in-memory world of the tests all satisfy
it, so a query (``adapters.store.queries``, ``adapters.formats.event_export``)
answers the same from any of them. It extends the engine's ``World`` (what a
decision reads) with the streams and readings a query shows.
"""

from __future__ import annotations

from typing import Protocol

from engine.events import ClockReadingRecorded, Event
from engine.world import World


class Reads(World, Protocol):
    """Read access to one tournament: its states (``World``), its streams (named as the
    engine names them), its clocks' readings and its games."""

    def stream(self, stream_id: str, after_version: int = 0) -> list[Event]: ...

    def readings(self, game_id: str) -> list[ClockReadingRecorded]: ...

    def reading_at(self, game_id: str, at_ms: int) -> tuple[ClockReadingRecorded, int] | None: ...

    def game_ids(self) -> list[str]: ...
