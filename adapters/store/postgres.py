"""PostgreSQL set-up: the schema, its table, type and insert function, made once."""

from __future__ import annotations

from eventsourcing.postgres import PostgresApplicationRecorder
from psycopg.errors import DuplicateObject
from psycopg.sql import SQL, Identifier

SETUP_LOCK = "candidates: set up the schema {schema}"
"""Names the advisory lock held while a PostgreSQL schema is set up."""


def set_up_postgres(recorder: PostgresApplicationRecorder) -> bool:
    """Create the schema, its table, type and insert function once; True if it did.

    Every open of a PostgreSQL store comes here (``candidates init`` too), under
    a session advisory lock named after the schema: the first process creates
    what is missing, the others wait for it and then find everything there, so
    opening one store from many processes at once never runs two ``CREATE OR
    REPLACE FUNCTION`` together ("tuple concurrently updated")."""
    datastore = recorder.datastore
    schema = datastore.schema or "public"
    table = f"{schema}.{recorder.events_table_name}"
    with datastore.get_connection() as conn:
        key = SETUP_LOCK.format(schema=schema)
        conn.execute("SELECT pg_advisory_lock(hashtext(%s))", (key,))
        try:
            row = conn.execute(
                "SELECT to_regclass(%s) IS NOT NULL AS has_table, EXISTS (SELECT 1 FROM "
                "pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname = %s AND p.proname = %s) AS has_function",
                (table, schema, recorder.pg_function_name_insert_events),
            ).fetchone()
            ready = row is not None and row["has_table"] and row["has_function"]
            if not ready:
                conn.execute(SQL("CREATE SCHEMA IF NOT EXISTS {}").format(Identifier(schema)))
                for statement in recorder.sql_create_statements:
                    try:
                        conn.execute(statement, prepare=False)
                    except DuplicateObject:  # a type left by an earlier, interrupted set-up
                        if "CREATE TYPE" not in statement.as_string():
                            raise
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (key,))
    datastore.register_type_adapters()
    return not ready
