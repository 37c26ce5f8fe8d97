"""The memories without their vector, as SQL: read oldest first, filled in, counted (index
memories_without_vector, migration 0042). memex/vectorless.py says who leaves them and who fills them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import numpy as np
import psycopg

from memex.db import erasing


def waiting(conn: psycopg.Connection, limit: int, after: tuple[datetime, str] | None = None) -> list[dict[str, Any]]:
    """Up to `limit` memories without a vector (every tenant's), oldest first, after the key `after`
    (created_at, id); not those of a user being erased, whose rows go."""
    later = "AND (m.created_at, m.id) > (%(at)s, %(id)s)" if after else ""
    return conn.execute(
        f"""SELECT m.tenant_id, m.id, m.created_at, m.content, m.context, m.memory_type, m.subject
            FROM memories m
            WHERE m.embedding IS NULL {later} AND {erasing.unmarked("m")}
            ORDER BY m.created_at, m.id LIMIT %(n)s""",
        {"at": after[0] if after else None, "id": after[1] if after else None, "n": limit},
    ).fetchall()


def fill(conn: psycopg.Connection, filled: list[tuple[dict[str, Any], Any]]) -> int:
    """The vectors of these rows of `waiting` (each with its vector); returns how many were written. A row
    that has one meanwhile (a job's retry) keeps it, one erased has none to fill, and one whose context an
    erasure took after it was read is left for the next reading: its vector would be made from erased words."""
    with conn.cursor() as cur:  # one pipelined round trip; psycopg adds up the rows each update wrote
        cur.executemany(f"""UPDATE memories m SET embedding = %s
                            WHERE m.tenant_id = %s AND m.id = %s AND m.embedding IS NULL
                              AND m.context IS NOT DISTINCT FROM %s AND {erasing.unmarked("m")}""",
                        [(np.asarray(vector, dtype=np.float32), row["tenant_id"], row["id"], row["context"])
                         for row, vector in filled])
        return cur.rowcount


def count(conn: psycopg.Connection) -> int:
    """How many memories (every tenant's) wait for their vector."""
    return conn.execute("SELECT count(*) AS n FROM memories WHERE embedding IS NULL").fetchone()["n"]
