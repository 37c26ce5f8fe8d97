"""Rows of a user's sessions, the conversations their turns were sent in, of a session's messages, and of a
user's turns with their messages."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg

from memex.db import cursors, erasing
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


def turns(conn: psycopg.Connection, tenant_id: str, user_id: str, limit: int,
          after: tuple[datetime, str, int] | None, agent_id: str | None = None, session_id: str | None = None
          ) -> tuple[list[dict[str, Any]], tuple[datetime, str, int] | None]:
    """The user's turns in the order they were said, each with its messages in order (with the
    `subject` each was stored with), keyset-paginated after (occurred_at, turn id, created_at in
    microseconds since 1970), with the key of the page's last row when more follow. Turns said at one
    time are in the order they were received, as pipeline._said decides them: an import of the turns
    in this order decides them as they were (a cursor carries integers, so the time of receipt
    travels as one). With `agent_id` or `session_id`, only that agent's or session's turns.
    UserBeingErased, read in the same statement, when the user is being erased."""
    clauses = ["t.tenant_id = %(t)s", "t.user_id = %(u)s"]
    params: dict[str, Any] = {"t": tenant_id, "u": user_id, "limit": limit + 1}
    if agent_id is not None:
        clauses.append("t.agent_id = %(agent)s")
        params["agent"] = agent_id
    if session_id is not None:
        clauses.append("t.session_id = %(session)s")
        params["session"] = session_id
    if after is not None:
        clauses.append("(t.occurred_at, t.created_at, t.id) > (%(at)s, %(received)s, %(turn)s)")
        params["at"], params["turn"] = after[:2]
        params["received"] = cursors.instant(after[2])
    page = ("""SELECT t.id AS turn_id, t.session_id, t.agent_id, t.occurred_at, t.utc_offset, t.created_at,
                      t.status, t.metadata, t.idempotency_key, t.imported_from_digests,
                      (SELECT jsonb_agg(jsonb_build_object('id', m.id, 'role', m.role, 'name', m.name,
                                                           'content', m.content, 'metadata', m.metadata,
                                                           'subject', m.subject) ORDER BY m.position)
                       FROM messages m WHERE m.tenant_id = t.tenant_id AND m.turn_id = t.id) AS messages
               FROM turns t WHERE """ + " AND ".join(clauses)
            + " ORDER BY t.occurred_at, t.created_at, t.id LIMIT %(limit)s")
    rows = erasing.rows(conn.execute(erasing.with_mark(page, "occurred_at, created_at, turn_id"), params).fetchall(),
                        user_id)
    last = rows[limit - 1] if len(rows) > limit else None
    next_key = (last["occurred_at"], last["turn_id"], cursors.microseconds(last["created_at"])) if last else None
    return rows[:limit], next_key


def exists(conn: psycopg.Connection, tenant_id: str, user_id: str, session_id: str) -> bool:
    return conn.execute(
        "SELECT 1 FROM sessions WHERE tenant_id = %s AND user_id = %s AND session_id = %s",
        (tenant_id, user_id, session_id),
    ).fetchone() is not None
