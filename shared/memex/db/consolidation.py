"""Rows of consolidation: who is over the threshold, what may be grouped, the summaries there are, and
writing or extending a summary."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg

from memex.db import erasing
from memex.db import history as history_rows
from memex.db import memories as memory_rows

SUMMARY_TYPE = "summary"


def tenants(conn: psycopg.Connection) -> list[str]:
    return [r["id"] for r in conn.execute("SELECT id FROM tenants ORDER BY id").fetchall()]


def users_over(conn: psycopg.Connection, tenant_id: str, threshold: int, user_id: str | None) -> list[str]:
    """Users of the tenant (or just `user_id`) with more than `threshold` active episodic memories. A
    message whose vector is still to come is not counted: the run passes it over (eligible())."""
    rows = conn.execute(
        """SELECT user_id FROM memories
           WHERE tenant_id = %s AND active AND memory_type = 'episodic' AND embedding IS NOT NULL
             AND (%s::text IS NULL OR user_id = %s)
           GROUP BY user_id HAVING count(*) > %s ORDER BY user_id""",
        (tenant_id, user_id, user_id, threshold),
    ).fetchall()
    return [r["user_id"] for r in rows]


def eligible(conn: psycopg.Connection, tenant_id: str, user_id: str, said_before: datetime,
             after: tuple[datetime, str] | None, limit: int, vectors: bool) -> list[dict[str, Any]]:
    """The user's active episodic memories said before `said_before`, summaries excepted, oldest
    first from `after` (keyset), at most `limit`; each with its vector (`embedding`) only if `vectors`
    (grouping compares them only with a similarity set). A message whose vector is still to come
    (stored while the embedder failed, migration 0040) waits for it."""
    return conn.execute(
        f"""SELECT id, content, {"embedding, " if vectors else ""}valid_from, importance, session_id, agent_id
           FROM memories
           WHERE tenant_id = %s AND user_id = %s AND active AND memory_type = 'episodic' AND type <> %s
             AND valid_from < %s AND embedding IS NOT NULL AND (%s::timestamptz IS NULL OR (valid_from, id) > (%s, %s))
           ORDER BY valid_from, id LIMIT %s""",
        (tenant_id, user_id, SUMMARY_TYPE, said_before, *((after[0], after[0], after[1]) if after else (None, None, None)),
         limit),
    ).fetchall()


def active_summaries(conn: psycopg.Connection, tenant_id: str, user_id: str) -> list[dict[str, Any]]:
    """The user's active summaries, newest first, each with the text of every line it summarises
    (`lines`; not the summaries alike it ended, fold_summary): what a run needs to tell a group it
    would summarise from one summarised already, and a summary alike another."""
    return conn.execute(
        f"""SELECT s.id, s.content, s.valid_from, s.importance, s.agent_id, s.session_id,
                  array_agg(DISTINCT o.content) AS lines
            FROM memories s JOIN ({history_rows.SUMMARY_LINES}) ON l.tenant_id = s.tenant_id AND l.memory_id = s.id
            WHERE s.tenant_id = %s AND s.user_id = %s AND s.active AND s.memory_type = 'episodic' AND s.type = %s
            GROUP BY s.tenant_id, s.id ORDER BY s.valid_from DESC, s.id DESC""",
        (tenant_id, user_id, SUMMARY_TYPE),
    ).fetchall()


def still_active(conn: psycopg.Connection, tenant_id: str, ids: list[str]) -> set[str]:
    """Those of these memories still active, and not of a user being erased (db/erasing.py): a group
    read before the erasure began is not summarised."""
    rows = conn.execute(f"""SELECT id FROM memories WHERE tenant_id = %s AND id = ANY(%s) AND active
                            AND {erasing.unmarked("memories")}""", (tenant_id, ids)).fetchall()
    return {r["id"] for r in rows}


def write_summary(conn: psycopg.Connection, tenant_id: str, summary: dict[str, Any], originals: list[str],
                  at: datetime) -> bool:
    """Insert the summary, link it to each original (its history and its sources) and end the
    originals at `at`. False when a summary with its dedupe key exists already (nothing written)."""
    if memory_rows.insert(conn, tenant_id, {**summary, "type": SUMMARY_TYPE}) is None:
        return False
    _take_in(conn, tenant_id, summary["id"], originals, at)
    return True


def extend_summary(conn: psycopg.Connection, tenant_id: str, summary_id: str, originals: list[str],
                   latest: datetime, importance: float, agent_id: str | None, session_id: str | None,
                   at: datetime) -> None:
    """The summary takes in more lines saying what it says: it cites them (its history and its sources),
    they end at `at`, and it widens to them (_widen). Its text and vector stay: the lines say what it says."""
    _take_in(conn, tenant_id, summary_id, originals, at)
    _widen(conn, tenant_id, summary_id, latest, importance, agent_id, session_id)


def fold_summary(conn: psycopg.Connection, tenant_id: str, kept: dict[str, Any], ended: dict[str, Any],
                 at: datetime) -> None:
    """Of two active summaries alike (written before a run extended one rather than writing another),
    `kept` takes in `ended`: it cites each line `ended` cites (which stay ended as they were), it
    replaces `ended` (its history: erasing `kept` or one of its own lines makes `ended` current again,
    as erasure does what a memory replaced), `ended` ends at `at`, and `kept` widens to it (_widen).
    `ended` still cites its lines, so erasing any of them erases both."""
    conn.execute(
        """INSERT INTO memory_links (tenant_id, memory_id, replaced_id)
           SELECT tenant_id, %s, replaced_id FROM memory_links WHERE tenant_id = %s AND memory_id = %s
           ON CONFLICT DO NOTHING""",
        (kept["id"], tenant_id, ended["id"]),
    )
    history_rows.link(conn, tenant_id, kept["id"], ended["id"])
    history_rows.end(conn, tenant_id, ended["id"], at)
    _widen(conn, tenant_id, kept["id"], ended["valid_from"], ended["importance"], ended["agent_id"],
           ended["session_id"])


def _widen(conn: psycopg.Connection, tenant_id: str, summary_id: str, latest: datetime, importance: float,
           agent_id: str | None, session_id: str | None) -> None:
    """The summary, citing more lines, is as recent as the latest (`latest`) and as important as the most
    important; it keeps its agent and session only when the new lines share them (`agent_id`,
    `session_id`: theirs, None when they differ); `summary_of` counts the lines it cites."""
    conn.execute(
        f"""UPDATE memories SET valid_from = greatest(valid_from, %(latest)s),
                  importance = greatest(importance, %(importance)s),
                  agent_id = CASE WHEN agent_id = %(agent)s THEN agent_id END,
                  session_id = CASE WHEN session_id = %(session)s THEN session_id END,
                  metadata = jsonb_set(metadata, '{{summary_of}}', to_jsonb(
                      (SELECT count(*) FROM {history_rows.SUMMARY_LINES}
                       WHERE l.tenant_id = %(t)s AND l.memory_id = %(id)s)))
            WHERE tenant_id = %(t)s AND id = %(id)s""",
        {"latest": latest, "importance": importance, "agent": agent_id, "session": session_id,
         "t": tenant_id, "id": summary_id},
    )


def _take_in(conn: psycopg.Connection, tenant_id: str, summary_id: str, originals: list[str], at: datetime) -> None:
    """The summary cites each original (its history and its sources: what erasure follows) and they end at `at`."""
    for original in originals:
        history_rows.link(conn, tenant_id, summary_id, original)
    conn.execute("UPDATE memories SET active = false, valid_to = %s WHERE tenant_id = %s AND id = ANY(%s)",
                 (at, tenant_id, originals))


def summaries_citing(conn: psycopg.Connection, tenant_id: str, ids: list[str]) -> list[str]:
    """The summaries that cite any of these memories as a source."""
    rows = conn.execute(
        """SELECT DISTINCT l.memory_id FROM memory_links l
           JOIN memories s ON s.tenant_id = l.tenant_id AND s.id = l.memory_id AND s.type = %s
           WHERE l.tenant_id = %s AND l.replaced_id = ANY(%s)""",
        (SUMMARY_TYPE, tenant_id, ids),
    ).fetchall()
    return [r["memory_id"] for r in rows]
