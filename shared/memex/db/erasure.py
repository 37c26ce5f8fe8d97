"""Erasure of a memory, a session or a user: everything derived, history included.

A memory that had been superseded by an erased one becomes current again: what replaced it
is no longer known.
"""

from __future__ import annotations

import psycopg


def _reactivate_orphans(conn: psycopg.Connection, tenant_id: str, user_ids: list[str]) -> None:
    conn.execute(
        """UPDATE memories m SET active = true, valid_to = NULL
           WHERE m.tenant_id = %s AND m.user_id = ANY(%s) AND NOT m.active
             AND NOT EXISTS (SELECT 1 FROM memories n WHERE n.tenant_id = m.tenant_id AND n.supersedes = m.id)""",
        (tenant_id, user_ids),
    )


def memory_chain(conn: psycopg.Connection, tenant_id: str, ids: list[str]) -> int:
    rows = conn.execute(
        "DELETE FROM memories WHERE tenant_id = %s AND id = ANY(%s) RETURNING id", (tenant_id, ids)
    ).fetchall()
    return len(rows)


def session(conn: psycopg.Connection, tenant_id: str, session_id: str, user_id: str | None) -> dict[str, int]:
    user_filter = "AND user_id = %s" if user_id else ""
    params = (tenant_id, session_id, user_id) if user_id else (tenant_id, session_id)
    memories = conn.execute(
        f"DELETE FROM memories WHERE tenant_id = %s AND session_id = %s {user_filter} RETURNING user_id",
        params,
    ).fetchall()
    turns = conn.execute(
        f"DELETE FROM turns WHERE tenant_id = %s AND session_id = %s {user_filter} RETURNING user_id",
        params,
    ).fetchall()
    users = sorted({r["user_id"] for r in memories + turns})
    _reactivate_orphans(conn, tenant_id, users)
    return {"turns": len(turns), "memories": len(memories)}


def user(conn: psycopg.Connection, tenant_id: str, user_id: str) -> dict[str, int]:
    memories = conn.execute(
        "DELETE FROM memories WHERE tenant_id = %s AND user_id = %s RETURNING id", (tenant_id, user_id)
    ).fetchall()
    turns = conn.execute(
        "DELETE FROM turns WHERE tenant_id = %s AND user_id = %s RETURNING id", (tenant_id, user_id)
    ).fetchall()
    return {"turns": len(turns), "memories": len(memories)}
