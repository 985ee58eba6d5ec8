"""The store room: the event store and everything that reads or keeps it.

The one door every command goes through (``door``: ``Store``) and the parts it
holds: opening a store (``opening``), the cache of states and the reads of the log
(``cache``), the tournaments and their views (``registry``, ``views``; their stream
names, ``names``), a command's path up to its save (``decisions``) and the writer
with its position check and retry (``writer``). Beside them: the application and
where a store is (``application``), a log held in memory that can let records go
(``memory_log``), the inserts and looks at the log (``log_writer``), PostgreSQL
set-up (``postgres``), the hash links and seals (``chain``), the stored encoding
(``codec``), kept projections (``kept``), the PostgreSQL wake-up of followers
(``wakeup``), a store that went away said once (``outage``) and the contract's
queries (``queries``). Other rooms import the store's public names from here.
"""

from adapters.store.application import store_env, store_url
from adapters.store.door import Store, open_store
from adapters.store.memory_log import MemoryLog
from adapters.store.names import logical_event
from adapters.store.views import TournamentView, game_order

__all__ = [
    "MemoryLog",
    "Store",
    "TournamentView",
    "game_order",
    "logical_event",
    "open_store",
    "store_env",
    "store_url",
]
