"""The store's list of its further tournaments (``tournaments``: ``TournamentListed``).

A store holds one tournament on the plain stream names; each further one is created
under its own id (its streams namespaced by it: ``tournament/<id>``,
``game/<id>/<round>.<board>``) and listed on ``tournaments`` in the same step. The
listing is decided here, from the creation the founding decided and the list as it
stands, like every other event but the store's seals.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.events import TOURNAMENTS_STREAM, Event, TournamentCreated, TournamentListed


@dataclass(frozen=True)
class TournamentList:
    """The further tournaments of a store, in the order they were created."""

    ids: tuple[str, ...] = ()
    version: int = 0
    """The version of the ``tournaments`` stream."""


def evolve(state: TournamentList | None, event: Event) -> TournamentList | None:
    if isinstance(event, TournamentListed):
        listed = state or TournamentList()
        return TournamentList((*listed.ids, event.tournament), event.originator_version)
    return state


def list_tournament(listed: TournamentList | None, created: TournamentCreated) -> TournamentListed:
    """The listing of a further tournament the founding created (its id, its name); the
    founding refuses a tournament that exists, so an id is listed once."""
    listed = listed or TournamentList()
    return TournamentListed(
        originator_id=TOURNAMENTS_STREAM,
        originator_version=listed.version + 1,
        at_ms=created.at_ms,
        by=created.by,
        tournament=created.tournament,
        name=created.name,
    )
