"""Rows of a user's sessions, the conversations their turns were sent in, and of a session's messages."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg

from memex.db import erasing
from memex.models import wire_time


def of_user(conn: psycopg.Connection, tenant_id: str, user_id: str, limit: int,
            after: tuple[datetime, str] | None, agent_id: str | None = None
            ) -> tuple[list[dict[str, Any]], tuple[datetime, str] | None]:
    """The user's sessions, the latest begun first (by their first turn's time, then id; a session
    keeps its place as turns are added to it, so pages stay stable), keyset-paginated after
    (started_at, session_id), with the key of the page's last row when more follow. Read from the
    sessions' rows (migration 0025), which the turns' and messages' writes keep counted: a page
    costs its own rows, however long its sessions. With `agent_id`, only the sessions that agent
    sent a turn in, each counted whole; each session read is checked by one probe of index
    turns_user_agent (migration 0026), so a page costs the user's sessions walked to fill it, not
    their turns. UserBeingErased, read in the same statement, when the user is being erased
    (db/erasing.py)."""
    after_sql = "AND (s.started_at, s.session_id) < (%(at)s, %(session)s)" if after is not None else ""
    agent_sql = """AND EXISTS (SELECT 1 FROM turns t WHERE t.tenant_id = s.tenant_id AND t.user_id = s.user_id
                                  AND t.session_id = s.session_id AND t.agent_id = %(agent)s)""" if agent_id else ""
    page = f"""SELECT s.session_id, s.turns, s.messages, s.started_at, s.last_at FROM sessions s
               WHERE s.tenant_id = %(t)s AND s.user_id = %(u)s {after_sql} {agent_sql}
               ORDER BY s.started_at DESC, s.session_id DESC LIMIT %(limit)s"""
    params = {"t": tenant_id, "u": user_id, "agent": agent_id, "limit": limit + 1}
    if after is not None:
        params["at"], params["session"] = after
    rows = erasing.rows(conn.execute(erasing.with_mark(page, "started_at DESC, session_id DESC"), params).fetchall(),
                        user_id)
    last = rows[limit - 1] if len(rows) > limit else None
    return ([{**r, "started_at": wire_time(r["started_at"]), "last_at": wire_time(r["last_at"])}
             for r in rows[:limit]],
            (last["started_at"], last["session_id"]) if last else None)


def messages(conn: psycopg.Connection, tenant_id: str, user_id: str, session_id: str, limit: int,
                     after: tuple[datetime, str, int] | None
                     ) -> tuple[list[dict[str, Any]], tuple[datetime, str, int] | None]:
    """The session's messages in the order they were said (the turn's time, then its position),
    keyset-paginated after (occurred_at, turn_id, position), with the key of the page's last row
    when more follow. UserBeingErased, read in the same statement, when the user is being erased."""
    clauses = ["t.tenant_id = %(t)s", "t.user_id = %(u)s", "t.session_id = %(session)s"]
    params: dict[str, Any] = {"t": tenant_id, "u": user_id, "session": session_id, "limit": limit + 1}
    if after is not None:
        clauses.append("(t.occurred_at, t.id, m.position) > (%(at)s, %(turn)s, %(position)s)")
        params["at"], params["turn"], params["position"] = after
    page = ("""SELECT m.id, m.turn_id, m.position, m.role, m.name, m.content, m.metadata, t.occurred_at
               FROM turns t JOIN messages m ON m.tenant_id = t.tenant_id AND m.turn_id = t.id
               WHERE """ + " AND ".join(clauses) + " ORDER BY t.occurred_at, t.id, m.position LIMIT %(limit)s")
    rows = erasing.rows(conn.execute(erasing.with_mark(page, "occurred_at, turn_id, position"), params).fetchall(),
                        user_id)
    last = rows[limit - 1] if len(rows) > limit else None
    next_key = (last["occurred_at"], last["turn_id"], last["position"]) if last else None
    return [{**r, "occurred_at": wire_time(r["occurred_at"])} for r in rows[:limit]], next_key


def exists(conn: psycopg.Connection, tenant_id: str, user_id: str, session_id: str) -> bool:
    return conn.execute(
        "SELECT 1 FROM sessions WHERE tenant_id = %s AND user_id = %s AND session_id = %s",
        (tenant_id, user_id, session_id),
    ).fetchone() is not None
