"""Migration 0053: the facts whose dedupe key holds a value longer than dedupe.VALUE_BYTES, written before such a
value was named by its digest, keyed as pipeline._with_dedupe_keys keys them now: a redelivery of their turn, or
its re-extraction (`memex backfill --reextract`), finds them written rather than deciding them again and
writing a second copy. Values up to the b-tree's limit were written so, and longer ones whose index entry
compressed under it.

Only a key whose tail after its turn and key is the value casefolded, with or without `:over`, is rewritten;
any other key (an episodic memory's, a summary's, one a re-keying left under an alias) is left as it is. Each
user's rows change in a transaction of their own under the user's lock (db/locks.py), so that no worker's
decision about them interleaves; a key another row holds already (a delivery of this version wrote the value
meanwhile) is left to the row that has it. Safe to run again after a failure half-way: a key rewritten names
a digest, no longer its value, and is not read again.
"""

from __future__ import annotations

import time
from collections import defaultdict

import psycopg
from psycopg.rows import dict_row

from memex import dedupe
from memex.db import locks


def migrate(cur: psycopg.Cursor, until: float | None = None) -> bool:
    """Rewrite the keys; `cur`'s connection is in autocommit. With `until` (a time.monotonic() deadline), no
    user's transaction begins after it (the first always does): False then, with what is done committed."""
    conn = cur.connection
    rows = conn.cursor(row_factory=dict_row).execute(
        """SELECT tenant_id, user_id, id, value, dedupe_key, 'candidate:' || source_turn_id || ':' || key || ':' AS named
           FROM memories
           WHERE memory_type = 'semantic' AND value IS NOT NULL AND octet_length(dedupe_key) > %s
           ORDER BY tenant_id, user_id, id""", (dedupe.VALUE_BYTES,)).fetchall()
    users: dict[tuple[str, str], list[tuple[str, str, str]]] = defaultdict(list)
    for row in rows:
        folded, named = row["value"].casefold(), dedupe.value_named(row["value"])
        if row["named"] is None or named == folded or not row["dedupe_key"].startswith(row["named"]):
            continue
        tail = row["dedupe_key"][len(row["named"]):]
        if tail in (folded, folded + ":over"):
            users[(row["tenant_id"], row["user_id"])].append(
                (row["id"], row["dedupe_key"], row["named"] + named + tail[len(folded):]))
    for begun, ((tenant_id, user_id), keys) in enumerate(users.items()):
        if begun and until is not None and time.monotonic() >= until:
            return False
        ids, old, new = (list(column) for column in zip(*keys))
        with conn.transaction():
            locks.lock_user(conn, tenant_id, user_id)
            conn.execute(
                """UPDATE memories m SET dedupe_key = r.new
                   FROM unnest(%(ids)s::text[], %(old)s::text[], %(new)s::text[]) AS r(id, old, new)
                   WHERE m.tenant_id = %(t)s AND m.id = r.id AND m.dedupe_key = r.old
                     AND NOT EXISTS (SELECT 1 FROM memories o WHERE o.tenant_id = %(t)s AND o.dedupe_key = r.new)""",
                {"ids": ids, "old": old, "new": new, "t": tenant_id})
    return True
