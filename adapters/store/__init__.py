"""The store room: the event store and everything that reads or keeps it.

The door every command goes through (``door``: ``Store``), the hash links and
seals (``chain``), the stored encoding (``codec``), kept projections (``kept``),
the PostgreSQL wake-up of followers (``wakeup``) and the contract's queries
(``queries``). Other rooms import the store's public names from here.
"""

from adapters.store.door import (
    Store,
    TournamentView,
    game_order,
    logical_event,
    open_store,
    store_env,
    store_url,
    wall_clock_ms,
)

__all__ = [
    "Store",
    "TournamentView",
    "game_order",
    "logical_event",
    "open_store",
    "store_env",
    "store_url",
    "wall_clock_ms",
]
