"""The memories without their vector, as SQL: read oldest first (those the embedder failed on last), filled
in, counted (index memories_without_vector, migration 0042; vector_failed_at, 0044). memex/vectorless.py
says who leaves them and who fills them."""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg

from memex.db import erasing


def waiting(conn: psycopg.Connection, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` memories without a vector (every tenant's): those the sweep never failed to embed first,
    oldest first, then those it did, the one that failed longest ago first (failed); not those of a user
    being erased, whose rows go. Each read walks index memories_without_vector in its order, the failed
    ones only once the others are all read: they are then few (one set back a run that failed). One
    statement sorting every memory waiting took ~8 ms a read at 2,000 waiting and ~113 ms at 20,000, where
    this takes ~2-4 ms (docs/measurements/performance.md, twenty-second stop)."""
    rows = _waiting(conn, "m.vector_failed_at IS NULL", "m.created_at, m.id", limit)
    if len(rows) < limit:
        rows += _waiting(conn, "m.vector_failed_at IS NOT NULL", "m.vector_failed_at, m.created_at, m.id",
                         limit - len(rows))
    return rows


def _waiting(conn: psycopg.Connection, which: str, order: str, limit: int) -> list[dict[str, Any]]:
    return conn.execute(
        f"""SELECT m.tenant_id, m.id, m.content, m.context, m.memory_type, m.subject
            FROM memories m
            WHERE m.embedding IS NULL AND {which} AND {erasing.unmarked("m")}
            ORDER BY {order} LIMIT %s""",
        (limit,),
    ).fetchall()


def fill(conn: psycopg.Connection, filled: list[tuple[dict[str, Any], Any]]) -> int:
    """The vectors of these rows of `waiting` (each with its vector); returns how many were written. A row
    that has one meanwhile (a job's retry) keeps it, one erased has none to fill, and one whose context an
    erasure took after it was read is left for the next reading: its vector would be made from erased words.
    A vector written ends its failures (as every writer's does: db/memories.py): were an erasure to take it
    again, the memory would wait in its own place, not behind every one that never failed."""
    with conn.cursor() as cur:  # one pipelined round trip; psycopg adds up the rows each update wrote
        cur.executemany(f"""UPDATE memories m SET embedding = %s, vector_failed_at = NULL
                            WHERE m.tenant_id = %s AND m.id = %s AND m.embedding IS NULL
                              AND m.context IS NOT DISTINCT FROM %s AND {erasing.unmarked("m")}""",
                        [(np.asarray(vector, dtype=np.float32), row["tenant_id"], row["id"], row["context"])
                         for row, vector in filled])
        return cur.rowcount


def failed(conn: psycopg.Connection, row: dict[str, Any]) -> None:
    """This row of `waiting` could not be embedded: it waits behind the others from now on."""
    conn.execute("UPDATE memories SET vector_failed_at = now() WHERE tenant_id = %s AND id = %s AND embedding IS NULL",
                 (row["tenant_id"], row["id"]))


def count(conn: psycopg.Connection) -> int:
    """How many memories (every tenant's) wait for their vector: not those of a user being erased, which
    wait for the erasure to take them (as `waiting` leaves them), not for the embedder."""
    return conn.execute(f"SELECT count(*) AS n FROM memories m WHERE m.embedding IS NULL AND {erasing.unmarked('m')}"
                        ).fetchone()["n"]
