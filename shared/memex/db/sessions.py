"""Rows of a user's sessions: the conversations their turns were sent in."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg


def of_user(conn: psycopg.Connection, tenant_id: str, user_id: str, limit: int,
            after: tuple[datetime, str] | None) -> tuple[list[dict[str, Any]], tuple[datetime, str] | None]:
    """The user's sessions, the latest begun first (by their first turn's time, then id; a session
    keeps its place as turns are added to it, so pages stay stable), keyset-paginated after
    (started_at, session_id), with the key of the page's last row when more follow."""
    having = "HAVING (min(t.occurred_at), t.session_id) < (%s, %s)" if after is not None else ""
    rows = conn.execute(
        f"""SELECT t.session_id, count(DISTINCT t.id) AS turns, count(m.id) AS messages,
                   min(t.occurred_at) AS started_at, max(t.occurred_at) AS last_at
            FROM turns t LEFT JOIN messages m ON m.tenant_id = t.tenant_id AND m.turn_id = t.id
            WHERE t.tenant_id = %s AND t.user_id = %s
            GROUP BY t.session_id {having}
            ORDER BY started_at DESC, t.session_id DESC LIMIT %s""",
        (tenant_id, user_id, *(after or ()), limit + 1),
    ).fetchall()
    last = rows[limit - 1] if len(rows) > limit else None
    return ([{**r, "started_at": r["started_at"].isoformat(), "last_at": r["last_at"].isoformat()}
             for r in rows[:limit]], (last["started_at"], last["session_id"]) if last else None)
