"""Rows of a user's sessions, the conversations their turns were sent in, and of a session's messages."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg

from memex.models import wire_time

# How many turns a page's sessions may hold on average before the page is found by enumerating the
# user's sessions (one index descent each) rather than by walking their turns from the latest back:
# the walk costs the turns of the page's span, the enumeration the number of the user's sessions.
WALK_TURNS_PER_SESSION = 40


def of_user(conn: psycopg.Connection, tenant_id: str, user_id: str, limit: int,
            after: tuple[datetime, str] | None) -> tuple[list[dict[str, Any]], tuple[datetime, str] | None]:
    """The user's sessions, the latest begun first (by their first turn's time, then id; a session
    keeps its place as turns are added to it, so pages stay stable), keyset-paginated after
    (started_at, session_id), with the key of the page's last row when more follow."""
    starts = _walked(conn, tenant_id, user_id, limit + 1, after)
    if starts is None:
        starts = _enumerated(conn, tenant_id, user_id, limit + 1, after)
    counted = {r["session_id"]: r for r in conn.execute(
        # Counted a turn at a time, then a session at a time: no count(DISTINCT) and its sort.
        """SELECT session_id, count(*) AS turns, sum(messages)::bigint AS messages, max(occurred_at) AS last_at
           FROM (SELECT t.session_id, t.occurred_at, count(m.id) AS messages
                 FROM turns t LEFT JOIN messages m ON m.tenant_id = t.tenant_id AND m.turn_id = t.id
                 WHERE t.tenant_id = %s AND t.user_id = %s AND t.session_id = ANY(%s)
                 GROUP BY t.tenant_id, t.id) per_turn
           GROUP BY session_id""",
        (tenant_id, user_id, [s["session_id"] for s in starts[:limit]]),
    ).fetchall()}
    last = starts[limit - 1] if len(starts) > limit else None
    return ([{"session_id": s["session_id"], "turns": counted[s["session_id"]]["turns"],
              "messages": counted[s["session_id"]]["messages"], "started_at": wire_time(s["started_at"]),
              "last_at": wire_time(counted[s["session_id"]]["last_at"])} for s in starts[:limit]],
            (last["started_at"], last["session_id"]) if last else None)


def _walked(conn: psycopg.Connection, tenant_id: str, user_id: str, wanted: int,
            after: tuple[datetime, str] | None) -> list[dict[str, Any]] | None:
    """The first `wanted` sessions begun before `after`, found among the user's turns from the latest
    back (a session begins at its earliest turn, then least id); None when that walk would read more
    than WALK_TURNS_PER_SESSION turns a session (a few long sessions), so a page reads its span only."""
    bound = wanted * WALK_TURNS_PER_SESSION
    after_sql = "AND (t.occurred_at, t.session_id) < (%s, %s)" if after is not None else ""
    walk = f"""SELECT t.id, t.session_id, t.occurred_at FROM turns t
               WHERE t.tenant_id = %s AND t.user_id = %s {after_sql}
               ORDER BY t.occurred_at DESC, t.session_id DESC LIMIT %s"""
    params = (tenant_id, user_id, *(after or ()), bound)
    starts = conn.execute(
        f"""SELECT w.session_id, w.occurred_at AS started_at FROM ({walk}) w
            WHERE w.id = (SELECT e.id FROM turns e
                          WHERE e.tenant_id = %s AND e.user_id = %s AND e.session_id = w.session_id
                          ORDER BY e.occurred_at, e.id LIMIT 1)
            ORDER BY w.occurred_at DESC, w.session_id DESC LIMIT %s""",
        (*params, tenant_id, user_id, wanted),
    ).fetchall()
    if len(starts) < wanted and conn.execute(f"SELECT count(*) AS n FROM ({walk}) w", params).fetchone()["n"] == bound:
        return None  # the walk stopped at its bound, not at the user's first turn
    return starts


def _enumerated(conn: psycopg.Connection, tenant_id: str, user_id: str, wanted: int,
                after: tuple[datetime, str] | None) -> list[dict[str, Any]]:
    """The first `wanted` sessions begun before `after`, from every session of the user with its
    first turn (one descent of turns_user_session_time a session)."""
    after_sql = "WHERE (s.started_at, s.session_id) < (%s, %s)" if after is not None else ""
    return conn.execute(
        f"""WITH RECURSIVE s AS (
                (SELECT session_id, occurred_at AS started_at FROM turns
                 WHERE tenant_id = %s AND user_id = %s ORDER BY session_id, occurred_at, id LIMIT 1)
                UNION ALL
                SELECT n.session_id, n.started_at FROM s CROSS JOIN LATERAL (
                    SELECT session_id, occurred_at AS started_at FROM turns
                    WHERE tenant_id = %s AND user_id = %s AND session_id > s.session_id
                    ORDER BY session_id, occurred_at, id LIMIT 1) n)
            SELECT s.session_id, s.started_at FROM s {after_sql}
            ORDER BY s.started_at DESC, s.session_id DESC LIMIT %s""",
        (tenant_id, user_id, tenant_id, user_id, *(after or ()), wanted),
    ).fetchall()


def messages(conn: psycopg.Connection, tenant_id: str, user_id: str, session_id: str, limit: int,
                     after: tuple[datetime, str, int] | None
                     ) -> tuple[list[dict[str, Any]], tuple[datetime, str, int] | None]:
    """The session's messages in the order they were said (the turn's time, then its position),
    keyset-paginated after (occurred_at, turn_id, position), with the key of the page's last row
    when more follow."""
    clauses = ["t.tenant_id = %s", "t.user_id = %s", "t.session_id = %s"]
    params: list[Any] = [tenant_id, user_id, session_id]
    if after is not None:
        clauses.append("(t.occurred_at, t.id, m.position) > (%s, %s, %s)")
        params.extend(after)
    rows = conn.execute(
        """SELECT m.id, m.turn_id, m.position, m.role, m.name, m.content, m.metadata, t.occurred_at
           FROM turns t JOIN messages m ON m.tenant_id = t.tenant_id AND m.turn_id = t.id
           WHERE """ + " AND ".join(clauses) + " ORDER BY t.occurred_at, t.id, m.position LIMIT %s",
        (*params, limit + 1),
    ).fetchall()
    last = rows[limit - 1] if len(rows) > limit else None
    next_key = (last["occurred_at"], last["turn_id"], last["position"]) if last else None
    return [{**r, "occurred_at": wire_time(r["occurred_at"])} for r in rows[:limit]], next_key


def exists(conn: psycopg.Connection, tenant_id: str, user_id: str, session_id: str) -> bool:
    return conn.execute(
        "SELECT 1 FROM turns WHERE tenant_id = %s AND user_id = %s AND session_id = %s LIMIT 1",
        (tenant_id, user_id, session_id),
    ).fetchone() is not None
