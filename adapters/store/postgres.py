"""PostgreSQL set-up: the schema, its table, type and insert functions, made once.

The store appends through a function of its own (``append_function``): in one call it
locks the events table against other writers (readers go on), reads the log's
position, and inserts, notifies and returns the new ids only when that is the
position the caller decided on. The ids are dense positions under the lock, not the
table's sequence (which a rollback or a crash moves on), so a position names the same
event in the store, a replica and a restored copy (docs/architecture.md, "One log,
many processes")."""

from __future__ import annotations

from eventsourcing.postgres import PostgresApplicationRecorder
from psycopg.errors import DuplicateObject
from psycopg.sql import SQL, Composed, Identifier, Literal

SETUP_LOCK = "candidates: set up the schema {schema}"
APPEND_FUNCTION = "candidates_append_dense_{id_type}"
"""The append function's name: a store set up before the dense positions (whose function
took the table's sequence) gains this one when it is next opened."""


def append_function_name(recorder: PostgresApplicationRecorder) -> str:
    return APPEND_FUNCTION.format(id_type=recorder.datastore.originator_id_type)


def append_function(recorder: PostgresApplicationRecorder) -> Composed:
    """The statement that creates the store's append function in the recorder's schema."""
    datastore = recorder.datastore
    return SQL(
        "CREATE OR REPLACE FUNCTION {schema}.{function}"
        "(events {schema}.{event}[], expected bigint) "
        "RETURNS TABLE (log_before bigint, appended bigint) "
        "LANGUAGE plpgsql AS $BODY$ "
        "DECLARE last_id bigint; "
        "BEGIN "
        "    LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; "
        "    SELECT coalesce(max(t.notification_id), 0) INTO last_id FROM {schema}.{table} t; "
        "    IF expected IS NOT NULL AND last_id <> expected THEN "
        "        RETURN QUERY SELECT last_id, NULL::bigint; "
        "        RETURN; "
        "    END IF; "
        "    NOTIFY {channel}; "
        "    RETURN QUERY WITH inserted AS ("
        "        INSERT INTO {schema}.{table} "
        "        (notification_id, originator_id, originator_version, topic, state) "
        "        SELECT last_id + e.n, e.originator_id, e.originator_version, e.topic, e.state "
        "        FROM unnest(events) WITH ORDINALITY "
        "        AS e(originator_id, originator_version, topic, state, n) "
        "        RETURNING {table}.notification_id AS id) "
        "    SELECT last_id, inserted.id FROM inserted; "
        "    PERFORM setval(pg_get_serial_sequence({qualified}, 'notification_id'), "
        "        greatest(last_id + cardinality(events), 1)); "
        "END; $BODY$"
    ).format(
        schema=Identifier(datastore.schema),
        function=Identifier(append_function_name(recorder)),
        event=Identifier(recorder.stored_event_type_name),
        table=Identifier(recorder.events_table_name),
        channel=Identifier(recorder.channel_name),
        qualified=Literal(f'"{datastore.schema or "public"}"."{recorder.events_table_name}"'),
    )


"""Names the advisory lock held while a PostgreSQL schema is set up."""


def set_up_postgres(recorder: PostgresApplicationRecorder) -> bool:
    """Create the schema, its table, type and insert functions once; True if it did.

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
                "WHERE n.nspname = %s AND p.proname = %s) AS has_function, EXISTS (SELECT 1 "
                "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname = %s AND p.proname = %s) AS has_append",
                (
                    table,
                    schema,
                    recorder.pg_function_name_insert_events,
                    schema,
                    append_function_name(recorder),
                ),
            ).fetchone()
            ready = row is not None and row["has_table"] and row["has_function"]
            if ready and row is not None and not row["has_append"]:
                # a store set up before the function: it gains it
                conn.execute(append_function(recorder), prepare=False)
            if not ready:
                conn.execute(SQL("CREATE SCHEMA IF NOT EXISTS {}").format(Identifier(schema)))
                for statement in recorder.sql_create_statements:
                    try:
                        conn.execute(statement, prepare=False)
                    except DuplicateObject:  # a type left by an earlier, interrupted set-up
                        if "CREATE TYPE" not in statement.as_string():
                            raise
                conn.execute(append_function(recorder), prepare=False)
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (key,))
    datastore.register_type_adapters()
    return not ready
