"""The store's tournaments: the first one (on the plain stream names), the further ones
listed on ``tournaments`` (``engine.tournament.listing``), and one view of each.

A read or a command names its tournament, or none: then the store's default one
(``--tournament``), else its only one. The registry answers which view that is, and
refuses with the choices when the store holds several and none is named. How the
first tournament's streams are named against the others' is ``adapters.store.names``.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from adapters.store.cache import StateCache
from adapters.store.views import TournamentView
from engine.arbiter.board_log import BoardLog
from engine.arbiter.incident_book import IncidentBook
from engine.errors import MalformedCommand, UnknownTournament
from engine.events import TOURNAMENT_STREAM, TOURNAMENTS_STREAM, ClockReadingRecorded, Event
from engine.game.clock_log import ClockLog
from engine.game.state import Game
from engine.tournament import listing
from engine.tournament import tournament as tournaments
from engine.tournament.listing import TournamentList
from engine.tournament.tournament import Tournament


class Registry:
    """The tournaments of one store and their views, read through its cache."""

    def __init__(self, cache: StateCache, default_tournament: str | None = None) -> None:
        self.cache = cache
        self.default_tournament = default_tournament
        """The tournament of reads and commands that name none (``--tournament``); None:
        the store's only one."""
        self._first_id: str | None = None
        self._views: dict[str | None, TournamentView] = {
            None: TournamentView(cache, None, self.first_tournament_id)
        }

    def first_tournament_id(self) -> str | None:
        """The id of the store's first tournament (the one on the plain stream names)."""
        if self._first_id is None:
            first = self.cache.fold(TOURNAMENT_STREAM, tournaments.evolve)
            self._first_id = first.id if first is not None else None
        return self._first_id

    def first_tournament(self) -> Tournament | None:
        """The state of the store's first tournament (on the plain ``tournament`` stream,
        which also carries the seals of the whole store)."""
        return self._views[None].tournament()

    def listed(self) -> TournamentList:
        """The further tournaments (``TournamentListed``) and the version of their list."""
        return self.cache.fold(TOURNAMENTS_STREAM, listing.evolve) or TournamentList()

    def tournament_ids(self) -> list[str]:
        """Every tournament of the store, the first one first."""
        first = self.first_tournament_id()
        return ([first] if first is not None else []) + list(self.listed().ids)

    def view(self, tournament: str | None = None, *, creating: bool = False) -> TournamentView:
        """One tournament of the store: ``tournament`` (its id), else the default one,
        else the only one.

        Refused with the choices when the store holds several and none is named,
        or when the named one is not in the store (unless ``creating`` it)."""
        first = self.first_tournament_id()
        tournament = tournament or self.default_tournament
        if tournament is None:
            listed = self.listed().ids
            if listed:
                raise MalformedCommand(
                    f"this store holds {len(listed) + 1} tournaments "
                    f"({', '.join([str(first), *listed])}): name one with 'tournament' "
                    "(--tournament on the command line)"
                )
            return self._views[None]
        if first is None or tournament == first:
            return self._views[None]
        if tournament not in self._views:
            if not creating and tournament not in self.listed().ids:
                raise UnknownTournament(
                    f"no tournament {tournament!r} in this store; it holds "
                    f"{', '.join(map(repr, self.tournament_ids()))}"
                )
            if "/" in tournament:
                raise MalformedCommand(f"a tournament id cannot contain '/': {tournament!r}")
            self._views[tournament] = TournamentView(
                self.cache, tournament, self.first_tournament_id
            )
        return self._views[tournament]


class StoreReads:
    """The reads of a store's default tournament (``Registry.view()``: the one named by
    ``--tournament``, else the only one), as the contract's queries read them
    (``adapters.store.reads.Reads``): each read asks the registry for that view, so a
    store that comes to hold several tournaments refuses a read that names none, and
    looks at the store once (``StateCache.session``)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def tournament(self) -> Tournament | None:
        with self.registry.cache.session():
            return self.registry.view().tournament()

    def game(self, game_id: str) -> Game | None:
        with self.registry.cache.session():
            return self.registry.view().game(game_id)

    def clock_log(self, game_id: str) -> ClockLog | None:
        with self.registry.cache.session():
            return self.registry.view().clock_log(game_id)

    def board_log(self, serial: str) -> BoardLog | None:
        """The state of a board's ``board/<serial>`` alert stream (shared by the store's
        tournaments)."""
        with self.registry.cache.session():
            return self.registry.view().board_log(serial)

    def incident_book(self) -> IncidentBook | None:
        """The Chief Arbiter's incident book (``engine.arbiter.incident_book``)."""
        with self.registry.cache.session():
            return self.registry.view().incident_book()

    def stream(self, stream_id: str, after_version: int = 0) -> list[Event]:
        with self.registry.cache.session():
            return self.registry.view().stream(stream_id, after_version)

    def reading_at(self, game_id: str, at_ms: int) -> tuple[ClockReadingRecorded, int] | None:
        with self.registry.cache.session():
            return self.registry.view().reading_at(game_id, at_ms)

    def readings(self, game_id: str) -> list[ClockReadingRecorded]:
        with self.registry.cache.session():
            return self.registry.view().readings(game_id)

    def game_ids(self) -> list[str]:
        with self.registry.cache.session():
            return self.registry.view().game_ids()

    def session(self) -> AbstractContextManager[StateCache]:
        """Reads made together look at the store once (``StateCache.session``)."""
        return self.registry.cache.session()

    def last_seq(self) -> int:
        return self.registry.cache.last_seq()
