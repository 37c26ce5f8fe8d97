"""A session's conversation as it was sent: every message in the order it was said."""

from __future__ import annotations

from typing import Any

from memex.context import Context
from memex.db import cursors
from memex.db import turns as turn_rows
from memex.errors import InvalidInput, NotFound


def messages(ctx: Context, tenant_id: str, user_id: str, session_id: str, limit: int,
             cursor: str | None) -> dict[str, Any]:
    after = None
    if cursor:
        after = cursors.decode(cursor, rest=1)
        if after is None:
            raise InvalidInput("cursor: not a cursor this server issued")
    conn = ctx.db.connection()
    items, next_cursor = turn_rows.session_messages(conn, tenant_id, user_id, session_id, limit, after)
    if not items and not turn_rows.has_session(conn, tenant_id, user_id, session_id):
        raise NotFound(f"session {session_id} of user {user_id} not found")
    return {"user_id": user_id, "session_id": session_id, "messages": items, "next_cursor": next_cursor}
