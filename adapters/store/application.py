"""The eventsourcing application under the store, and where a store is.

``store_url`` names the store: a SQLite path (default ``./var/candidates.sqlite``,
or ``$CANDIDATES_STORE``) or a ``postgresql://user@host:port/db[?schema=s]`` URL;
``store_env`` is the library's environment for it (msgpack records, hash-linked by
the chain's mapper). The future tolerance is the store's one other setting.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard
from urllib.parse import parse_qs, unquote, urlparse

from eventsourcing.application import Application

from adapters.store.chain import ChainMapper
from adapters.store.codec import TOPIC as MSGPACK_TOPIC
from adapters.store.store_file import read_only_name
from engine.dispatch import DEFAULT_FUTURE_TOLERANCE_MS
from engine.errors import MalformedCommand

if TYPE_CHECKING:
    from eventsourcing.postgres import PostgresApplicationRecorder

DEFAULT_STORE = "./var/candidates.sqlite"


def store_url(explicit: str | None = None) -> str:
    """The store to use: the argument, else ``$CANDIDATES_STORE``, else the default path."""
    return explicit or os.environ.get("CANDIDATES_STORE") or DEFAULT_STORE


def future_tolerance_ms(explicit_s: float | None = None) -> int:
    """The tolerance for instants ahead of the wall clock: the argument (seconds), else
    ``$CANDIDATES_FUTURE_TOLERANCE_S``, else 5 minutes."""
    if explicit_s is None:
        text = os.environ.get("CANDIDATES_FUTURE_TOLERANCE_S")
        if not text:
            return DEFAULT_FUTURE_TOLERANCE_MS
        try:
            explicit_s = float(text)
        except ValueError:
            raise MalformedCommand(
                f"CANDIDATES_FUTURE_TOLERANCE_S must be a number of seconds, got {text!r}"
            ) from None
    if explicit_s < 0:
        raise MalformedCommand(f"the future tolerance must be 0 or more seconds, got {explicit_s}")
    return round(explicit_s * 1000)


CONNECT_TIMEOUT_S = 5
"""How long a read of a PostgreSQL store waits for a connection of its pool (a new one
to a database out of reach included) before it fails and its caller retries."""


def store_env(url: str, *, read_only: bool = False) -> dict[str, str]:
    """The eventsourcing environment for a SQLite path or a PostgreSQL URL. ``read_only``
    (a SQLite path): opened through SQLite's read-only URI, no table made, no folder
    (``adapters.store.store_file.read_only_name``)."""
    env = {"TRANSCODER_TOPIC": MSGPACK_TOPIC, "ORIGINATOR_ID_TYPE": "text"}
    if url.startswith(("postgresql://", "postgres://")):
        parts = urlparse(url)
        query = parse_qs(parts.query)
        env.update(
            PERSISTENCE_MODULE="eventsourcing.postgres",
            POSTGRES_DBNAME=(parts.path or "/").lstrip("/") or "postgres",
            POSTGRES_HOST=parts.hostname or "127.0.0.1",
            POSTGRES_PORT=str(parts.port or 5432),
            POSTGRES_USER=unquote(parts.username or "postgres"),
            POSTGRES_PASSWORD=unquote(parts.password or ""),
            POSTGRES_ENABLE_DB_FUNCTIONS="y",
            CREATE_TABLE="n",  # set up once, under a lock: set_up_postgres
            # a read waits at most this long for a connection: a database out of reach is
            # said within seconds (a board reader's outage line), not after the library's 30
            POSTGRES_CONNECT_TIMEOUT=str(CONNECT_TIMEOUT_S),
        )
        if "schema" in query:
            env["POSTGRES_SCHEMA"] = schema_name(query["schema"][0])
    else:
        path = url.removeprefix("sqlite:///").removeprefix("sqlite://")
        if read_only and path != ":memory:":
            env.update(
                PERSISTENCE_MODULE="eventsourcing.sqlite",
                SQLITE_DBNAME=read_only_name(path),
                SQLITE_LOCK_TIMEOUT="10",
                CREATE_TABLE="n",
            )
            return env
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        env.update(
            PERSISTENCE_MODULE="eventsourcing.sqlite",
            SQLITE_DBNAME=path,
            SQLITE_LOCK_TIMEOUT="10",
        )
    return env


SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")
"""A schema the store accepts: a PostgreSQL identifier that reads the same quoted or not
(lower case, digits, underscores; at most 63 bytes). The store's own statements quote it
(``psycopg.sql.Identifier``); the event store's library writes it into its statements as
given, so a name that would need quoting is refused rather than sent."""


def schema_name(given: str) -> str:
    """``given`` when it is a ``SCHEMA_NAME``; else MalformedCommand saying what is allowed."""
    if SCHEMA_NAME.fullmatch(given) is None:
        shown = given if len(given) <= 40 else given[:37] + "..."
        raise MalformedCommand(
            f"schema={shown!r} is not a plain PostgreSQL identifier: use lower-case letters, "
            "digits and underscores (at most 63, not starting with a digit)"
        )
    return given


def is_postgres_recorder(recorder: object) -> TypeGuard[PostgresApplicationRecorder]:
    """Whether ``recorder`` is the library's PostgreSQL recorder. The PostgreSQL driver is
    loaded only by a store of a ``postgresql://`` URL (a command on a SQLite store starts
    without it): while it is not loaded, no recorder can be one."""
    module = sys.modules.get("eventsourcing.postgres")
    return module is not None and isinstance(recorder, module.PostgresApplicationRecorder)


class CandidatesApplication(Application[str]):
    """The eventsourcing application that holds every stream of the store's tournaments."""

    name = "Candidates"
    log_section_size = 1000

    def construct_mapper(self) -> ChainMapper:
        """Stored records carry their hash link (adapters/store/chain.py, docs/audit.md)."""
        return ChainMapper(self.construct_transcoder())
