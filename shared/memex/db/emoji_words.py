"""Migration 0057: the memories written before migration 0054 that hold an emoji, indexed again with its
memex_text (emoji as words), their keyword statistics following through their trigger (0005, 0038). Their
vectors stay as they were: `memex backfill --reembed` embeds them again with the emoji's names.

0054 only replaces the functions and commits; this runs after, so every memory another session writes from
then on is indexed with the new reading. A writer whose statement ran before that commit indexed its rows with
the old one and may commit them later: this first waits for the transactions holding a write when it starts to
end (as CREATE INDEX CONCURRENTLY waits for them), then reads which users hold a memory whose stored words are
not what the column's expression (0027) gives now, and writes those memories again, each user's in a
transaction of its own under their lock (db/locks.py), so that none of their writes interleaves. The words of
a memory without an emoji are not computed: the class of pictographs (memex.emoji) is tested first. Safe to
run again after a failure half-way: a memory written again has the words of today's reading and is not found
by the next run.
"""

from __future__ import annotations

import time

import psycopg
from psycopg.rows import tuple_row

from memex import emoji
from memex.db import locks

# 0027's generated column, whose stored value is not today's for the rows indexed before 0054.
_STALE = f"""(content ~ '[{emoji.PICTOGRAPH}]' OR context ~ '[{emoji.PICTOGRAPH}]')
             AND content_tsv IS DISTINCT FROM (
                 setweight(to_tsvector('english', memex_text(left(content, 65536))), 'A')
                 || setweight(to_tsvector('english', memex_text(left(coalesce(context, ''), 16384))), 'D'))"""


def migrate(cur: psycopg.Cursor, until: float | None = None) -> bool:
    """Index the memories again; `cur`'s connection is in autocommit. With `until` (a time.monotonic()
    deadline), no user's transaction begins after it (the first always does, once the older writers have
    ended): False then, with what is done committed."""
    conn = cur.connection
    reading = conn.cursor(row_factory=tuple_row)
    horizon = reading.execute("SELECT pg_snapshot_xmax(pg_current_snapshot())::text").fetchone()[0]
    while reading.execute("SELECT pg_snapshot_xmin(pg_current_snapshot()) < %s::xid8", (horizon,)).fetchone()[0]:
        if until is not None and time.monotonic() >= until:
            return False
        time.sleep(0.2)
    users = reading.execute(f"SELECT DISTINCT tenant_id, user_id FROM memories WHERE {_STALE} ORDER BY 1, 2").fetchall()
    for begun, (tenant_id, user_id) in enumerate(users):
        if begun and until is not None and time.monotonic() >= until:
            return False
        with conn.transaction():
            locks.lock_user(conn, tenant_id, user_id)
            conn.execute(f"UPDATE memories SET content = content WHERE tenant_id = %s AND user_id = %s AND {_STALE}",
                         (tenant_id, user_id))
    return True
