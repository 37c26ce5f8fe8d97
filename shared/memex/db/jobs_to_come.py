"""The jobs to come (`next_job`) still current: one user's, read under their lock by the write path
(pipeline.start_jobs), and everyone's, read by the sweep to tell whose day has come. A user being erased has none:
nothing is written for them (db/erasing.py)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import psycopg

from memex.db import erasing

# Every subject's job to come: the user's `next_job`, a participant's `melanie_next_job`. As the
# partial index of migration 0039 says it, so that the sweep's read is an index scan.
_CURRENT = "memories.active AND memories.memory_type = 'semantic' AND memories.key LIKE '%%next_job'"
# Not one whose start failed for its own within the back-off (migration 0046): told against the clock that wrote
# start_failed_at (start_failed), not the application's, which may be off by minutes from the database's.
_NOT_BACKED_OFF = "(memories.start_failed_at IS NULL OR memories.start_failed_at <= now() - %(backoff)s)"


def of_user(conn: psycopg.Connection, tenant_id: str, user_id: str, backoff: timedelta) -> list[dict[str, Any]]:
    """The user's current jobs to come, oldest first, but those whose start failed for its own within `backoff`,
    each with the offset its turn was sent with (`utc_offset`, minutes; None when sent without one) and the
    turn's candidates."""
    return conn.execute(
        f"""SELECT memories.id, memories.subject, memories.key, memories.value, memories.content,
                   memories.confidence, memories.valid_from, memories.source_message_id, memories.metadata,
                   turns.id AS turn_id, turns.agent_id, turns.session_id, turns.utc_offset, turns.candidates
            FROM memories JOIN turns ON turns.tenant_id = memories.tenant_id AND turns.id = memories.source_turn_id
            WHERE memories.tenant_id = %(tenant_id)s AND memories.user_id = %(user_id)s AND {_CURRENT}
              AND {_NOT_BACKED_OFF} AND {erasing.unmarked("memories")}
            ORDER BY memories.valid_from, memories.id""",
        {"tenant_id": tenant_id, "user_id": user_id, "backoff": backoff},
    ).fetchall()


def everyones(conn: psycopg.Connection, backoff: timedelta) -> list[dict[str, Any]]:
    """Every current job to come but those whose start failed for its own within `backoff`, with what tells when
    it starts (`value`, `valid_from` and the offset its turn was sent with, `utc_offset`) and whose it is
    (`tenant_id`, `user_id`): one statement."""
    return conn.execute(
        f"""SELECT memories.tenant_id, memories.user_id, memories.value, memories.valid_from,
                   turns.utc_offset
            FROM memories JOIN turns ON turns.tenant_id = memories.tenant_id AND turns.id = memories.source_turn_id
            WHERE {_CURRENT} AND {_NOT_BACKED_OFF} AND {erasing.unmarked("memories")}""",
        {"backoff": backoff}).fetchall()


def start_failed(conn: psycopg.Connection, tenant_id: str, job_ids: list[str]) -> None:
    """A start of each of these jobs to come failed for a failure of its own, the sweep's or a turn's (migration
    0046)."""
    conn.execute("UPDATE memories SET start_failed_at = now() WHERE tenant_id = %s AND id = ANY(%s)",
                 (tenant_id, job_ids))


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
