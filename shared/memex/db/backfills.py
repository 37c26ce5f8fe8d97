"""Rows of bulk jobs: their progress counters and the position they resume from."""

from __future__ import annotations

from typing import Any

import psycopg


def create(conn: psycopg.Connection, tenant_id: str, backfill_id: str, kind: str, source: str | None,
           user_id: str | None, total: int) -> None:
    conn.execute(
        """INSERT INTO backfills (tenant_id, id, kind, source, user_id, total, position)
           VALUES (%s, %s, %s, %s, %s, %s, '') ON CONFLICT DO NOTHING""",
        (tenant_id, backfill_id, kind, source, user_id, total),
    )


def get(conn: psycopg.Connection, tenant_id: str, backfill_id: str) -> dict[str, Any] | None:
    return conn.execute("SELECT * FROM backfills WHERE tenant_id = %s AND id = %s", (tenant_id, backfill_id)).fetchone()


def advance(conn: psycopg.Connection, tenant_id: str, backfill_id: str, expected: str, position: str,
            done: int, failed: int, finished: bool) -> bool:
    """Count a chunk once: only the delivery that finds the position where the chunk began moves
    it on, so a redelivered chunk adds nothing to the counters."""
    row = conn.execute(
        """UPDATE backfills SET position = %s, done = done + %s, failed = failed + %s, updated_at = now(),
                  status = CASE WHEN %s THEN 'done' ELSE status END
           WHERE tenant_id = %s AND id = %s AND position = %s RETURNING id""",
        (position, done, failed, finished, tenant_id, backfill_id, expected),
    ).fetchone()
    return row is not None


def fail(conn: psycopg.Connection, tenant_id: str, backfill_id: str, error: str) -> None:
    conn.execute(
        "UPDATE backfills SET status = 'failed', error = %s, updated_at = now() WHERE tenant_id = %s AND id = %s",
        (error, tenant_id, backfill_id),
    )


def memory_ids_after(conn: psycopg.Connection, tenant_id: str, user_id: str | None, after: str,
                     limit: int) -> list[dict[str, Any]]:
    return conn.execute(
        """SELECT id, content, context FROM memories WHERE tenant_id = %s AND (%s::text IS NULL OR user_id = %s)
             AND id > %s ORDER BY id LIMIT %s""",
        (tenant_id, user_id, user_id, after, limit),
    ).fetchall()


def turn_ids_after(conn: psycopg.Connection, tenant_id: str, user_id: str | None, after: str,
                   limit: int) -> list[str]:
    rows = conn.execute(
        """SELECT id FROM turns WHERE tenant_id = %s AND (%s::text IS NULL OR user_id = %s)
             AND id > %s ORDER BY id LIMIT %s""",
        (tenant_id, user_id, user_id, after, limit),
    ).fetchall()
    return [r["id"] for r in rows]


def count_scope(conn: psycopg.Connection, table: str, tenant_id: str, user_id: str | None) -> int:
    assert table in ("memories", "turns")
    return conn.execute(
        f"SELECT count(*) AS n FROM {table} WHERE tenant_id = %s AND (%s::text IS NULL OR user_id = %s)",
        (tenant_id, user_id, user_id),
    ).fetchone()["n"]


def set_embeddings(conn: psycopg.Connection, tenant_id: str, pairs: list[tuple[str, Any]]) -> None:
    with conn.cursor() as cur:
        cur.executemany("UPDATE memories SET embedding = %s WHERE tenant_id = %s AND id = %s",
                        [(vector, tenant_id, memory_id) for memory_id, vector in pairs])
