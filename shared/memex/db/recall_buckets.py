"""What recall packs whatever the query says: the user's current facts and a session's latest
messages, best first (the facts as ids for memories.get_many)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg

from memex.db import history, validity
from memex.episodic import SHOWS_NOTHING


def current_facts(conn: psycopg.Connection, tenant_id: str, user_id: str, agent_id: str | None,
                  limit: int, as_of: datetime | None = None) -> list[str]:
    """The user's own current semantic and procedural memories (what they are, how they want to be
    answered), the most important first, then the newest. With `agent_id`, that agent's, and the
    current facts that replaced one of its own, whichever agent heard them (the employer the planner
    heard of stands for the coach's that it replaced: retrieval/current_first.py): the user's facts
    in that order, each checked in turn until `limit` pass, so that only the chains of another
    agent's facts read before then are walked (history.replaces_heard), not one of every fact the
    agent heard that ended (bench.agent_history). With `as_of`, the facts that held then (validity.py)."""
    at = "at" if as_of is not None else None
    facts = f"""SELECT id, agent_id, importance, valid_from, created_at FROM memories
               WHERE tenant_id = %(t)s AND user_id = %(u)s AND {validity.held('memories', at)}
                 AND memory_type IN ('semantic', 'procedural') AND subject = 'user'"""
    order = "ORDER BY importance DESC, valid_from DESC, created_at DESC, id"
    if agent_id is None:
        sql = f"{facts} {order} LIMIT %(n)s"
    else:
        # OFFSET 0: the agent's condition stays above the ordered facts, not pushed down to be
        # checked on every one of them before they are ordered
        sql = f"""SELECT id FROM ({facts} {order} OFFSET 0) m
                  WHERE m.agent_id = %(a)s OR {history.replaces_heard('m', 't', 'u', 'a', at)}
                  {order} LIMIT %(n)s"""
    rows = conn.execute(sql, {"t": tenant_id, "u": user_id, "a": agent_id, "n": limit, "at": as_of}).fetchall()
    return [row["id"] for row in rows]


def latest_messages(conn: psycopg.Connection, tenant_id: str, user_id: str, session_id: str,
                    agent_id: str | None, limit: int, as_of: datetime | None = None) -> list[dict[str, Any]]:
    """The session's last messages, newest first: by the turn's time, then the turns said at one
    time in the order they were sent (each kept whole: a file imported with only the day's date),
    then by place in the turn.
    A message is its episodic memory (`memory_id`) once the extraction stored it; until then, while
    its turn is queued, or for good when the turn failed first, the stored message itself
    (`memory_id` null, with its `message_id`, `turn_id`, `name`, `content` and `said_at`): an agent
    that sends a turn and recalls for its next reply has what it just sent, however far behind the
    queue is. One statement reads both, so a turn processed meanwhile is read once, one way or the
    other. A memory consolidated away (inactive) stays out, and its message with it (it has a memory).
    With `as_of`, the messages said by then (and not consolidated away by then: validity.py).
    A message that shows nothing (episodic.py) is no bullet, and has no memory once processed: while
    queued it is left out here, where it would take a place from a line said before it."""
    at = "at" if as_of is not None else None
    rows = conn.execute(
        f"""(SELECT m.id AS memory_id, NULL AS message_id, NULL AS turn_id, NULL AS name, NULL AS content,
                   m.valid_from AS said_at, COALESCE(turn.created_at, m.created_at) AS sent_at,
                   COALESCE(msg.turn_id, m.id) AS sent_in, msg.position, m.id AS tie
            FROM memories m
            LEFT JOIN messages msg ON msg.tenant_id = m.tenant_id AND msg.id = m.source_message_id
            LEFT JOIN turns turn ON turn.tenant_id = msg.tenant_id AND turn.id = msg.turn_id
            WHERE m.tenant_id = %(t)s AND m.session_id = %(s)s AND m.user_id = %(u)s AND {validity.held('m', at)}
              AND m.memory_type = 'episodic' AND (%(a)s::text IS NULL OR m.agent_id = %(a)s)
            ORDER BY said_at DESC, sent_at DESC, sent_in DESC, msg.position DESC NULLS LAST, m.id LIMIT %(n)s)
           UNION ALL
           -- only unfinished turns' messages are looked at: a processed turn's are its memories
           (SELECT NULL, msg.id, msg.turn_id, msg.name, msg.content, t.occurred_at, t.created_at, t.id, msg.position, msg.id
            FROM turns t JOIN messages msg ON msg.tenant_id = t.tenant_id AND msg.turn_id = t.id
            WHERE t.tenant_id = %(t)s AND t.user_id = %(u)s AND t.session_id = %(s)s AND t.status <> 'processed'
              AND (%(a)s::text IS NULL OR t.agent_id = %(a)s)
              AND {'true' if at is None else 't.occurred_at <= %(at)s'} AND msg.content !~ %(nothing)s
              -- its episodic memory, by the key the pipeline writes it with (_store_episodic)
              AND NOT EXISTS (SELECT 1 FROM memories e
                              WHERE e.tenant_id = msg.tenant_id AND e.dedupe_key = 'message:' || msg.id)
            ORDER BY t.occurred_at DESC, t.created_at DESC, t.id DESC, msg.position DESC LIMIT %(n)s)
           ORDER BY said_at DESC, sent_at DESC, sent_in DESC, position DESC NULLS LAST, tie LIMIT %(n)s""",
        {"t": tenant_id, "u": user_id, "s": session_id, "a": agent_id, "n": limit, "at": as_of,
         "nothing": SHOWS_NOTHING},
    ).fetchall()
    return [{key: row[key] for key in ("memory_id", "message_id", "turn_id", "name", "content", "said_at")}
            for row in rows]
