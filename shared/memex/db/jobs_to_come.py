"""The jobs to come (`next_job`) still current: one user's, read under their lock by the write path
(pipeline.start_jobs), and everyone's, read by the sweep to tell whose day has come. A user being erased has none:
nothing is written for them (db/erasing.py)."""

from __future__ import annotations

from typing import Any

import psycopg

from memex.db import erasing

# Every subject's job to come: the user's `next_job`, a participant's `melanie_next_job`. As the
# partial index of migration 0039 says it, so that the sweep's read is an index scan.
_CURRENT = "memories.active AND memories.memory_type = 'semantic' AND memories.key LIKE '%%next_job'"


def of_user(conn: psycopg.Connection, tenant_id: str, user_id: str) -> list[dict[str, Any]]:
    """The user's current jobs to come, oldest first, each with the offset its turn was sent with
    (`utc_offset`, minutes; None when sent without one), the turn's candidates and when a start of it last
    failed (`start_failed_at`)."""
    return conn.execute(
        f"""SELECT memories.id, memories.subject, memories.key, memories.value, memories.content,
                   memories.confidence, memories.valid_from, memories.source_message_id, memories.metadata,
                   memories.start_failed_at,
                   turns.id AS turn_id, turns.agent_id, turns.session_id, turns.utc_offset, turns.candidates
            FROM memories JOIN turns ON turns.tenant_id = memories.tenant_id AND turns.id = memories.source_turn_id
            WHERE memories.tenant_id = %s AND memories.user_id = %s AND {_CURRENT}
              AND {erasing.unmarked("memories")}
            ORDER BY memories.valid_from, memories.id""",
        (tenant_id, user_id),
    ).fetchall()


def everyones(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """Every current job to come, with what tells when it starts (`value`, `valid_from` and the offset
    its turn was sent with, `utc_offset`), whose it is (`tenant_id`, `user_id`) and when the sweep last
    failed to start it (`start_failed_at`, None if it never did): one statement."""
    return conn.execute(
        f"""SELECT memories.tenant_id, memories.id, memories.user_id, memories.value, memories.valid_from,
                   memories.start_failed_at, turns.utc_offset
            FROM memories JOIN turns ON turns.tenant_id = memories.tenant_id AND turns.id = memories.source_turn_id
            WHERE {_CURRENT} AND {erasing.unmarked("memories")}""", {}).fetchall()


def start_failed(conn: psycopg.Connection, tenant_id: str, ids: list[str]) -> None:
    """A start of these jobs to come (of one user) failed for a failure of its own, the sweep's or a turn's
    (migration 0046)."""
    conn.execute("UPDATE memories SET start_failed_at = now() WHERE tenant_id = %s AND id = ANY(%s)", (tenant_id, ids))


def said_until(conn: psycopg.Connection, tenant_id: str, user_id: str,
               deciding: list[str] | tuple = ()) -> tuple[Any, Any]:
    """(the time of the user's earliest turn not yet decided, None when every one is; the time of their
    latest turn): a job is started only as of a time before which everything the user said is decided,
    so that an employer named before its day (decided later, an import's turn) still takes it back.
    `deciding`: the turns the caller is deciding in time order, as undecided as their status says
    until it commits, which it accounts for itself."""
    row = conn.execute(
        """SELECT min(occurred_at) FILTER (WHERE status IN ('queued', 'processing') AND NOT id = ANY(%s))
                      AS undecided,
                  max(occurred_at) AS latest
           FROM turns WHERE tenant_id = %s AND user_id = %s""",
        (list(deciding), tenant_id, user_id),
    ).fetchone()
    return row["undecided"], row["latest"]
