"""What recall packs whatever the query says: the user's current facts and a session's latest
messages, as id lists (best first) for memories.get_many."""

from __future__ import annotations

import psycopg

from memex.db import history


def current_facts(conn: psycopg.Connection, tenant_id: str, user_id: str, agent_id: str | None,
                  limit: int) -> list[str]:
    """The user's own current semantic and procedural memories (what they are, how they want to be
    answered), the most important first, then the newest. With `agent_id`, that agent's, and the
    current facts that replaced one of its own, whichever agent heard them (the employer the planner
    heard of stands for the coach's that it replaced: retrieval/current_first.py)."""
    successors = f"OR id IN {history.replacing('t', 'u', 'a')}" if agent_id is not None else ""
    rows = conn.execute(
        f"""SELECT id FROM memories
            WHERE tenant_id = %(t)s AND user_id = %(u)s AND active AND memory_type IN ('semantic', 'procedural')
              AND subject = 'user' AND (%(a)s::text IS NULL OR agent_id = %(a)s {successors})
            ORDER BY importance DESC, valid_from DESC, created_at DESC, id LIMIT %(n)s""",
        {"t": tenant_id, "u": user_id, "a": agent_id, "n": limit},
    ).fetchall()
    return [row["id"] for row in rows]


def latest_messages(conn: psycopg.Connection, tenant_id: str, user_id: str, session_id: str,
                    agent_id: str | None, limit: int) -> list[str]:
    """The session's last messages (its episodic memories), newest first: by the turn's time, then
    by place in the turn."""
    rows = conn.execute(
        """SELECT m.id FROM memories m
           LEFT JOIN messages msg ON msg.tenant_id = m.tenant_id AND msg.id = m.source_message_id
           WHERE m.tenant_id = %(t)s AND m.session_id = %(s)s AND m.user_id = %(u)s AND m.active
             AND m.memory_type = 'episodic' AND (%(a)s::text IS NULL OR m.agent_id = %(a)s)
           ORDER BY m.valid_from DESC, msg.position DESC NULLS LAST, m.created_at DESC, m.id LIMIT %(n)s""",
        {"t": tenant_id, "u": user_id, "s": session_id, "a": agent_id, "n": limit},
    ).fetchall()
    return [row["id"] for row in rows]
