"""Index again the memories whose keyword words a new memex_text reads otherwise: their stored words (0027's
generated column) are not recomputed when the function changes. Migrations 0057 (the emoji 0054 made words:
db/emoji_words.py) and 0058 (the emoji VS16 or a keycap make, and the memories holding Hangul or a character
that shows nothing that 0043 missed). Their keyword statistics follow through their trigger (0005, 0038); their
vectors stay as they were (`memex backfill --reembed` embeds every memory of a tenant or user again, an
emoji's with its names).

The migration's functions are committed before this runs (0054 before 0057, 0058's own file first), so every
memory another session writes from then on is indexed with the new reading. A writer whose statement ran
before that commit indexed its rows with the old one and may commit them later: this first waits for the
transactions holding a write on memories in its database when it starts to end (as CREATE INDEX CONCURRENTLY
waits for them), then reads
which users hold a memory whose stored words are not what the column's expression gives now, and writes those
memories again, each user's in a transaction of its own under their lock (db/locks.py), so that none of their
writes interleaves. The words of a memory holding none of the characters whose reading changed are not
computed: the class is tested first. Safe to run again after a failure half-way: a memory written again has
the words of today's reading and is not found by the next run.
"""

from __future__ import annotations

import time

import psycopg
from psycopg.rows import tuple_row

from memex.db import locks

# Migration 0058: Hangul and the characters that show nothing (0043's), VS16 and the keycap's U+20E3 (0058's).
READ_ANEW = "[\u200b\u200c\u200d\u2060\ufeff\u00ad가-힣\ufe0f\u20e3]"

# 0027's generated column, whose stored value is not today's for the rows indexed with a function replaced since.
_STALE = """(content ~ %(characters)s OR context ~ %(characters)s)
            AND content_tsv IS DISTINCT FROM (
                setweight(to_tsvector('english', memex_text(left(content, 65536))), 'A')
                || setweight(to_tsvector('english', memex_text(left(coalesce(context, ''), 16384))), 'D'))"""


_WRITERS = """SELECT DISTINCT virtualtransaction FROM pg_locks
               WHERE locktype = 'relation' AND relation = 'memories'::regclass AND mode = 'RowExclusiveLock'
                 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                 AND pid <> pg_backend_pid()"""
# A transaction holds the lock on its own virtual id until it ends.
_RUNNING = "SELECT EXISTS (SELECT FROM pg_locks WHERE locktype = 'virtualxid' AND virtualxid = ANY(%s))"


def migrate(cur: psycopg.Cursor, until: float | None = None) -> bool:
    """Migration 0058's: `reindex` of the memories holding a character of READ_ANEW."""
    return reindex(cur, READ_ANEW, until)


def reindex(cur: psycopg.Cursor, characters: str, until: float | None = None) -> bool:
    """Index again the memories holding one of `characters` (a regular expression's class) whose words are
    not today's; `cur`'s connection is in autocommit. With `until` (a time.monotonic() deadline), no user's
    transaction begins after it (the first always does, once the older writers have ended): False then, with
    what is done committed."""
    conn = cur.connection
    reading = conn.cursor(row_factory=tuple_row)
    # The transactions holding a write on memories in this database now; none other is waited for (a session
    # idle in a transaction elsewhere on the server, or reading, never wrote a row with the old function).
    writers = [row[0] for row in reading.execute(_WRITERS).fetchall()]
    while writers and reading.execute(_RUNNING, (writers,)).fetchone()[0]:
        if until is not None and time.monotonic() >= until:
            return False
        time.sleep(0.2)
    stale = {"characters": characters}
    users = reading.execute(f"SELECT DISTINCT tenant_id, user_id FROM memories WHERE {_STALE} ORDER BY 1, 2",
                            stale).fetchall()

    def write_again(tenant_id: str, user_id: str) -> None:
        conn.execute(f"UPDATE memories SET content = content WHERE tenant_id = %(tenant)s AND user_id = %(user)s "
                     f"AND {_STALE}", {"tenant": tenant_id, "user": user_id, **stale})

    return locks.each_user(conn, users, until, write_again)
