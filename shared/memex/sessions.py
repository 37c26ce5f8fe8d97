"""A user's sessions, and a session's conversation as it was sent: every message in the order it
was said."""

from __future__ import annotations

from typing import Any

from memex.context import Context
from memex.db import cursors
from memex.db import sessions as session_rows
from memex.errors import NotFound


def of_user(ctx: Context, tenant_id: str, user_id: str, limit: int, cursor: str | None,
            agent_id: str | None = None) -> dict[str, Any]:
    """The user's sessions (those with a turn), the latest begun first; none for a user with none.
    With `agent_id`, those the agent sent a turn in: a session two agents took turns in is listed
    for each, whole (its messages are one conversation, as `messages` reads it)."""
    of = cursors.listing("sessions", tenant_id, user_id, *([agent_id] if agent_id else []))
    items, next_cursor = cursors.page(
        of, cursor, lambda after: session_rows.of_user(ctx.db.connection(), tenant_id, user_id, limit, after,
                                                       agent_id))
    return {"user_id": user_id, "sessions": items, "next_cursor": next_cursor}


def messages(ctx: Context, tenant_id: str, user_id: str, session_id: str, limit: int,
             cursor: str | None) -> dict[str, Any]:
    of = cursors.listing("messages", tenant_id, user_id, session_id)
    conn = ctx.db.connection()
    # A user being erased: 409 read with the page, before a session of theirs is looked for (404).
    items, next_cursor = cursors.page(
        of, cursor, lambda after: session_rows.messages(conn, tenant_id, user_id, session_id, limit, after), rest=1)
    if not items and not session_rows.exists(conn, tenant_id, user_id, session_id):
        raise NotFound(f"session {session_id} of user {user_id} not found")
    return {"user_id": user_id, "session_id": session_id, "messages": items, "next_cursor": next_cursor}
