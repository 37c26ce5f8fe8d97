"""Migration 0033: the facts an earlier version stored under a key of a model's own words filed under
their family's key, as extraction/aliases.py files them since, their history kept.

A fact stored as `current_city` (or `location`, `job_title`, "melanie_job") before the aliases were
read is one the families' keys never meet: "I moved to Porto", filed as `city`, did not replace the
stored `current_city` Lisbon, both stayed current, and the topics' and current-first reads, which
follow the family's key, found the old city beside or before the new one. Re-keying the rows once
serves every path that reads a key (supersession, history, search, erasure's statements of an end,
consolidation); a look-up of the aliases at read time would have to be taught to each of them.

Each user's facts change in a transaction of their own, under the user's lock (db/locks.py), so no
decision of the workers interleaves with theirs; a failure half-way leaves users done and others not,
and running it again does the rest (a family's key is its own canonical key: nothing is re-keyed
twice). Nothing is written for a user being erased (db/erasing.py): as 0033 it meets none, the mark's
table coming with migration 0034, which waits until it has finished, and no erasure begins without it;
as 0049 (below) it reads each user's mark once it holds their lock and leaves a marked user's rows to
their erasure. For each user, the values of one key then current together are resolved as supersession
decides them: of a key that holds one value, the latest said replaces the others; of a key that holds
several, a value said twice replaces its earlier copy. Each replaced value is linked to what replaced
it and ends when that was said: history, not a loss.

What a tombstone keeps (db/erasure.py) is a digest salted with the key it was erased under, and the
value is gone, so a tombstone cannot be re-keyed: the supersession path reads its key as the family's
(pipeline._erased). The candidates of turns extracted but not yet decided are re-keyed here too.

Migration 0049 runs it again for what the aliases re-file since 0033: a favourite whose last word the
offline rules read as a "-y" noun's before they knew the "-ie" nouns (favorite_movy: favorite_movie);
migration 0050 for one whose last word they read by its ending alone before they knew the other nouns
plurals.py names (favorite_lense: favorite_lens, favorite_quizz: favorite_quiz). On a database an earlier
of them re-keyed, what it re-keyed is its family's key already and is left as it is.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from memex.db import erasing, locks
from memex.db import history as history_rows
from memex.extraction.aliases import family_key
from memex.jobs import own_key
from memex.supersession import folded_value, holds_several


def migrate(cur: psycopg.Cursor, until: float | None = None) -> bool:
    """Re-key every user's facts and pending candidates; `cur`'s connection is in autocommit. With
    `until` (a time.monotonic() deadline), no user's or turn's transaction begins after it (the first
    always does, so each run makes progress): False then, with what is done committed. The next run
    continues from what is left, since what is re-keyed has no alias left for it to find; True when
    nothing is left."""
    conn = cur.connection
    begun = 0
    marks = conn.cursor(row_factory=dict_row).execute(
        "SELECT to_regclass('user_erasures') IS NOT NULL AS marks").fetchone()["marks"]

    def may_begin() -> bool:
        nonlocal begun
        begun += 1
        return begun == 1 or until is None or time.monotonic() < until

    # One read of the facts' keys, each user's (subject, key) pairs once: the users to re-key are those
    # holding a pair the aliases re-file, and the pairs re-filed are every user's.
    families: dict[tuple[str, str], str] = {}
    users: dict[tuple[str, str], None] = {}  # in the order read, tenant and user
    for fact in conn.cursor(row_factory=dict_row).execute(
            """SELECT DISTINCT tenant_id, user_id, subject, key FROM memories
               WHERE memory_type = 'semantic' AND key IS NOT NULL ORDER BY 1, 2""").fetchall():
        pair = (fact["subject"], fact["key"])
        if pair not in families:
            families[pair] = family_key(*pair)
        if families[pair] != fact["key"]:
            users[(fact["tenant_id"], fact["user_id"])] = None
    renamed = sorted((subject, key, family) for (subject, key), family in families.items() if family != key)
    if renamed:
        subjects, keys, filed_as = (list(column) for column in zip(*renamed))
        for tenant_id, user_id in users:
            if not may_begin():
                return False
            with conn.transaction():
                rekey_user(conn.cursor(row_factory=dict_row), tenant_id, user_id, subjects, keys, filed_as, marks)
    # The undecided turns read with their candidates: a transaction only for a turn with one under an alias.
    for turn in conn.cursor(row_factory=dict_row).execute(
            "SELECT tenant_id, id, user_id, candidates FROM turns WHERE candidates IS NOT NULL ORDER BY 1, 2").fetchall():
        if _family_keyed(turn["candidates"]) == turn["candidates"]:
            continue
        if not may_begin():
            return False
        with conn.transaction():
            _rekey_candidates(conn.cursor(row_factory=dict_row), turn, marks)
    return True


def rekey_user(cur: psycopg.Cursor, tenant_id: str, user_id: str, subjects: list[str], keys: list[str],
               families: list[str], marks: bool) -> None:
    """One user's facts under (subjects[i], keys[i]) filed under families[i], in the caller's
    transaction, then the values of those family keys current together resolved (the module's rules);
    nothing if the user is being erased (`marks`: the database has the marks' table)."""
    if not _locked_unless_erasing(cur, tenant_id, user_id, marks):
        return
    args = {"t": tenant_id, "u": user_id, "s": subjects, "k": keys, "f": families}
    renamed = """unnest(%(s)s::text[], %(k)s::text[], %(f)s::text[]) AS r(subject, key, family)"""
    # A fact's dedupe key names its key (pipeline._with_dedupe_keys): re-keyed with it, a turn extracted again
    # finds what it wrote. One row per new dedupe key, none taken already (two aliases of one turn and value).
    cur.execute(
        f"""WITH moved AS (
                SELECT m.id, 'candidate:' || m.source_turn_id || ':' || r.family
                             || substr(m.dedupe_key, length('candidate:' || m.source_turn_id || ':' || r.key) + 1) AS dedupe
                FROM memories m JOIN {renamed} ON r.subject = m.subject AND r.key = m.key
                WHERE m.tenant_id = %(t)s AND m.user_id = %(u)s AND m.memory_type = 'semantic'
                  AND starts_with(m.dedupe_key, 'candidate:' || m.source_turn_id || ':' || r.key || ':')
            ), first AS (
                SELECT DISTINCT ON (dedupe) id, dedupe FROM moved ORDER BY dedupe, id
            )
            UPDATE memories m SET dedupe_key = first.dedupe FROM first
            WHERE m.tenant_id = %(t)s AND m.id = first.id
              AND NOT EXISTS (SELECT 1 FROM memories o WHERE o.tenant_id = %(t)s AND o.dedupe_key = first.dedupe)""",
        args)
    groups = cur.execute(
        f"""UPDATE memories m SET key = r.family FROM {renamed}
            WHERE m.tenant_id = %(t)s AND m.user_id = %(u)s AND m.memory_type = 'semantic'
              AND m.subject = r.subject AND m.key = r.key
            RETURNING m.subject, m.key""", args).fetchall()
    # The links that cross keys (migration 0021) name the key of the value taken back; one whose two
    # facts now share their key is a link within the key's history.
    cur.execute(
        f"""UPDATE keys_taken_back x SET key = r.family FROM {renamed}
            WHERE x.tenant_id = %(t)s AND x.user_id = %(u)s AND x.subject = r.subject AND x.key = r.key""", args)
    cur.execute(
        """DELETE FROM keys_taken_back x USING memories t
           WHERE x.tenant_id = %(t)s AND x.user_id = %(u)s AND t.tenant_id = x.tenant_id AND t.id = x.memory_id
             AND t.subject = x.subject AND t.key = x.key""", args)
    _resolve(cur, tenant_id, user_id, sorted({(g["subject"], g["key"]) for g in groups}))


def _resolve(cur: psycopg.Cursor, tenant_id: str, user_id: str, groups: list[tuple[str, str]]) -> None:
    """The values current together under each (subject, key) of `groups`, resolved as supersession
    would have: each replaced by the latest said of its key (of a key that holds several, of its value)."""
    if not groups:
        return
    current = cur.execute(
        """SELECT m.id, m.subject, m.key, m.value, m.valid_from FROM memories m
           JOIN unnest(%s::text[], %s::text[]) AS g(subject, key) ON g.subject = m.subject AND g.key = m.key
           WHERE m.tenant_id = %s AND m.user_id = %s AND m.memory_type = 'semantic' AND m.active
           ORDER BY m.valid_from, m.created_at, m.id""",
        ([s for s, _ in groups], [k for _, k in groups], tenant_id, user_id)).fetchall()
    together: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for memory in current:
        base = own_key(memory["subject"], memory["key"])
        value = folded_value(memory["value"] or "") if holds_several(base) else None
        together[(memory["subject"], memory["key"], value)].append(memory)
    for said in together.values():
        latest = said[-1]
        for older in said[:-1]:
            history_rows.link(cur.connection, tenant_id, latest["id"], older["id"])
            # when the latest was said is when it began: the migrations that resolve (0033, 0049, 0050) run
            # before 0055, so no fact has a time of its own (`holds_from`) yet
            history_rows.end(cur.connection, tenant_id, older["id"], latest["valid_from"])


def _rekey_candidates(cur: psycopg.Cursor, turn: dict[str, Any], marks: bool) -> None:
    """A turn's candidates, extracted by an earlier version and not yet decided, under their family keys."""
    if not _locked_unless_erasing(cur, turn["tenant_id"], turn["user_id"], marks):
        return
    row = cur.execute("SELECT candidates FROM turns WHERE tenant_id = %s AND id = %s FOR UPDATE",
                      (turn["tenant_id"], turn["id"])).fetchone()
    if row is None or row["candidates"] is None:
        return  # decided (or erased) meanwhile
    candidates = _family_keyed(row["candidates"])
    if candidates != row["candidates"]:
        cur.execute("UPDATE turns SET candidates = %s WHERE tenant_id = %s AND id = %s",
                    (Jsonb(candidates), turn["tenant_id"], turn["id"]))


def _locked_unless_erasing(cur: psycopg.Cursor, tenant_id: str, user_id: str, marks: bool) -> bool:
    """The user's lock (db/locks.py), then whether they are not being erased, read by a statement of its own
    once the lock is held (db/erasing.py); `marks`: the database has the marks' table (not yet as 0033)."""
    locks.lock_user(cur.connection, tenant_id, user_id)
    return not marks or not cur.execute(f"SELECT {erasing.MARKED} AS erasing",
                                        {"t": tenant_id, "u": user_id}).fetchone()["erasing"]


def _family_keyed(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**c, "key": family_key(c.get("subject") or "user", c["key"])} for c in candidates]
