"""Erasure of memories, a session or a user: everything derived, and no copy left behind.

The rules, in the order they apply:
- A memory erased by id goes with its past: every memory it replaced, directly or through others
  (a summary's, the lines it summarises), and the statements of their end ("I left Stripe.",
  decision `end`, of the same key), which say the value they ended. A session erased goes with
  the statements of its memories' end said in other sessions, for the same reason. Never with what replaced it:
  forgetting that the user worked at Stripe must not forget that they work at Notion, which stays
  current.
- An erased link of a supersession chain closes over the gap: what the erased memory replaced
  is linked to what replaced it, so history stays whole and a memory superseded by one that
  still exists never becomes current again. The reason kept with what replaced the erased memory,
  which names the value it replaced, says only that this was erased. What replaced it holds again from
  the time its words said, when the erased memory took that back (history.own_times_back).
- When nothing that replaced a memory is left, that memory becomes current again (what replaced
  it is no longer known), unless it is a statement about the past, which never becomes current.
- What an erased semantic memory said is tombstoned by its turn, subject, key and value (a digest
  of the value folded as supersession compares values, not its words): extracting again a turn
  of the user's received before the erasure (a redelivered job, a re-extraction backfill, a
  replay), this one or another ("I just started at Notion, left Stripe." says Stripe's end), does
  not bring that value back, and brings back the key's other values (Notion). A value worded
  otherwise ("Stripe, Inc.", by an LLM extractor) is another value. What the user says after the
  erasure is new: it is stored. The tombstone names the message the fact was drawn from too, and
  another one each message of the user's that says the value again (an erasure by id), which an
  export leaves out (export.py): imported, they would be said after the erasure.
- An erased episodic memory takes its message with it, and the memory that was indexed with it
  as context ("the line it answers") loses that context and its vector, made from it too: the caller
  embeds it again after the commit, or the sweep does (memex/vectorless.py). The facts
  drawn from the message stay (they are memories of their own) but lose their `raw_quote`, a
  copy of its words.
- A statement that a fact ended with another ("The user's job title used to be support lead.",
  derived when the employer the role was said with was replaced; "The user's former partner Leo was
  a chef.", when Leo stopped being the partner) goes with the fact and with what ended the other: it
  says nothing of its own. The fact then becomes current again by the first rule, as the one it
  ended with does.
- A summary (consolidation) goes with any memory it summarises: its text holds theirs. Its other
  sources, which it replaced, become current again by the first rule, and a later consolidation
  may summarise them anew, without what was erased.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from typing import Any

import psycopg

from memex.db import consolidation as consolidation_rows
from memex.db import history as history_rows
from memex.db import turns as turn_rows
from memex.db import validity
from memex.supersession import folded_value


REPLACED_ERASED = "what it replaced was erased"
ENDED_WITH_ERASED = "it ended with a value that was erased"


def value_digest(tenant_id: str, user_id: str, key: str, subject: str, value: str) -> str:
    """What a tombstone keeps of an erased value: a digest of it folded (folded_value), salted with
    whose it was, so that the tombstone is no copy of the value and two users' tombstones of one
    value differ."""
    said = "\x1f".join((tenant_id, user_id, subject, key, folded_value(value)))
    return hashlib.sha256(said.encode()).hexdigest()


def past_of(conn: psycopg.Connection, tenant_id: str, memory_id: str) -> list[str]:
    """The memory and every memory it replaced (directly or through others: memory_links' key): what
    erasing it by id erases, before what memories() draws with it."""
    rows = conn.execute(
        """WITH RECURSIVE back(id) AS (
               SELECT id FROM memories WHERE tenant_id = %(t)s AND id = %(id)s
               UNION
               SELECT l.replaced_id FROM memory_links l JOIN back b ON l.memory_id = b.id WHERE l.tenant_id = %(t)s
           )
           SELECT id FROM back""",
        {"t": tenant_id, "id": memory_id},
    ).fetchall()
    return [r["id"] for r in rows]


def ends_of(conn: psycopg.Connection, tenant_id: str, ids: list[str]) -> list[str]:
    """The statements that one of these memories ended, of its key and subject (decision `end`,
    index memory_links_replaced: "I quit Stripe." files "The user used to work at Stripe."), which
    name the value they ended, in whichever session they were said. A statement of another key stays
    ("My dog died.", `pet_kind`, which also ended the dog's name: erasing the name keeps it), its
    reason saying only that what it replaced was erased."""
    rows = conn.execute(
        """SELECT e.id FROM memories o
           JOIN memory_links l ON l.tenant_id = o.tenant_id AND l.replaced_id = o.id
           JOIN memories e ON e.tenant_id = l.tenant_id AND e.id = l.memory_id
           WHERE o.tenant_id = %s AND o.id = ANY(%s)
             AND e.metadata->>'decision' = 'end' AND e.key = o.key AND e.subject = o.subject""",
        (tenant_id, ids),
    ).fetchall()
    return [r["id"] for r in rows]


def memories(conn: psycopg.Connection, tenant_id: str, ids: list[str], *, said_again: bool = True) -> dict[str, Any]:
    """Erase these memories. Returns the count and the memories whose context (and vector) was erased
    ({tenant_id, id, content, context, memory_type, subject}: to be embedded again without it). The statements of
    their end go with them (ends_of), in whichever session they were said. With `said_again`, the
    tombstone of an erased fact names every message of the user's that says its value too."""
    ids = sorted(set(ids) | set(ends_of(conn, tenant_id, ids)))
    ids = sorted(set(ids) | set(consolidation_rows.summaries_citing(conn, tenant_id, ids)))
    ids = sorted(set(ids) | set(history_rows.ended_with(conn, tenant_id, ids)))
    rows = conn.execute(
        """SELECT id, user_id, memory_type, key, value, subject, content, source_turn_id, source_message_id
           FROM memories WHERE tenant_id = %s AND id = ANY(%s)""",
        (tenant_id, ids),
    ).fetchall()
    if not rows:
        return {"memories": 0, "recontextualised": []}
    erased = [r["id"] for r in rows]
    _forget_why_ended(conn, tenant_id, erased)
    _close_chains(conn, tenant_id, erased)
    facts = [r for r in rows if r["memory_type"] == "semantic" and r["key"] and r["value"] is not None]
    # Beside its own message, the tombstone of an erased fact names (with `said_again`) every message of
    # the user's turns that says its value: "I live in Porto." said again in a later turn is one memory,
    # drawn from the first; the second exported and imported (or extracted again) would draw the value
    # back. "Says": the value within the message, both folded as the keyword channel folds them
    # (memex_text), lowercased and their spaces collapsed, not within a longer ASCII word ("30" is not
    # said by "300"). A message that says it otherwise is missed; one that holds it otherwise is left
    # out, which errs toward the erasure. Only a value its own message says in words: a value the rules
    # read ("I don't drink coffee.": drinks_coffee "no") is said so by no message, and each that held "no"
    # was left out. One scan of the user's messages per fact: an erasure by id erases a few. The value is
    # matched, never stored: the tombstone keeps its digest.
    conn.execute(
        r"""WITH f AS (SELECT * FROM unnest(%(turns)s::text[], %(messages)s::text[], %(users)s::text[],
                                            %(keys)s::text[], %(subjects)s::text[], %(digests)s::text[],
                                            %(values)s::text[])
                                 AS f(turn_id, message_id, user_id, key, subject, digest, value))
            INSERT INTO tombstones (tenant_id, turn_id, user_id, key, subject, value_digest, message_id)
            SELECT t.tenant_id, t.id, t.user_id, f.key, f.subject, f.digest, f.message_id
            FROM f JOIN turns t ON t.tenant_id = %(t)s AND t.id = f.turn_id
            UNION ALL
            SELECT t.tenant_id, t.id, t.user_id, f.key, f.subject, f.digest, m.id
            FROM f
            CROSS JOIN LATERAL (SELECT btrim(regexp_replace(lower(memex_text(f.value)), '\s+', ' ', 'g'), ' .!')
                                       AS said) v
            CROSS JOIN LATERAL (SELECT '(^|[^a-z0-9])' || regexp_replace(v.said, '([!-/:-@[-`{-~])', '\\\1', 'g')
                                       || '($|[^a-z0-9])' AS pattern) p
            JOIN messages source ON source.tenant_id = %(t)s AND source.id = f.message_id
            JOIN turns t ON t.tenant_id = %(t)s AND t.user_id = f.user_id
            JOIN messages m ON m.tenant_id = t.tenant_id AND m.turn_id = t.id
            WHERE %(said_again)s AND v.said <> ''
              AND regexp_replace(lower(memex_text(source.content)), '\s+', ' ', 'g') ~ p.pattern
              AND regexp_replace(lower(memex_text(m.content)), '\s+', ' ', 'g') ~ p.pattern
            ON CONFLICT DO NOTHING""",
        {"t": tenant_id, "said_again": said_again, "turns": [r["source_turn_id"] for r in facts],
         "messages": [r["source_message_id"] or turn_rows.NO_MESSAGE for r in facts], "users": [r["user_id"] for r in facts],
         "keys": [r["key"] for r in facts], "subjects": [r["subject"] for r in facts],
         "digests": [value_digest(tenant_id, r["user_id"], r["key"], r["subject"], r["value"]) for r in facts],
         "values": [r["value"] for r in facts]},
    )
    episodic = [r for r in rows if r["memory_type"] == "episodic"]
    erased_messages = [r["source_message_id"] for r in episodic if r["source_message_id"]]
    conn.execute("DELETE FROM messages WHERE tenant_id = %s AND id = ANY(%s)", (tenant_id, erased_messages))
    conn.execute(
        """UPDATE memories SET metadata = metadata - 'raw_quote'
           WHERE tenant_id = %s AND memory_type = 'semantic' AND source_message_id = ANY(%s)
             AND metadata ? 'raw_quote'""",
        (tenant_id, erased_messages),
    )
    deleted = conn.execute("DELETE FROM memories WHERE tenant_id = %s AND id = ANY(%s) RETURNING id",
                           (tenant_id, erased)).fetchall()
    # Their vectors were made from the erased line too: they go now, and memex/vectorless.py makes new ones.
    recontextualised = conn.execute(
        """UPDATE memories SET context = NULL, embedding = NULL
           WHERE tenant_id = %s AND user_id = ANY(%s) AND context = ANY(%s)
           RETURNING tenant_id, id, content, context, memory_type, subject""",
        (tenant_id, sorted({r["user_id"] for r in episodic}), [r["content"] for r in episodic]),
    ).fetchall() if episodic else []
    return {"memories": len(deleted), "recontextualised": recontextualised}


def session(conn: psycopg.Connection, tenant_id: str, session_id: str, user_id: str) -> dict[str, Any]:
    """Erase the session's turns and memories, by the rules of memories() (which take the statements
    of their end said in other sessions too). Returns the counts and the memories whose
    context was erased, as memories() does."""
    ids = [r["id"] for r in conn.execute(
        "SELECT id FROM memories WHERE tenant_id = %s AND user_id = %s AND session_id = %s",
        (tenant_id, user_id, session_id),
    ).fetchall()]
    # The tombstones memories() writes for the session's own turns go with them (ON DELETE CASCADE);
    # those of an end statement said in another session keep a re-extraction from bringing it back. A value
    # said again in another session was said there, which this erasure keeps: no tombstone names it.
    erased = memories(conn, tenant_id, ids, said_again=False)
    # Their tombstones going with them, what is kept of the turns' ids (and those they were imported from) and keys
    # is what keeps an export written before, a backfill file read again or a turn sent again with its key from
    # storing them again (migration 0059, turns.erased).
    turns = conn.execute(
        f"""WITH gone AS (DELETE FROM turns WHERE tenant_id = %(t)s AND user_id = %(u)s AND session_id = %(s)s
                          RETURNING {_GONE}),
                 kept AS ({_KEEP})
            SELECT count(*) AS n FROM gone""",
        {"t": tenant_id, "u": user_id, "s": session_id},
    ).fetchone()["n"]
    return {"turns": turns, **erased}


# What a statement erasing turns returns of each (`gone`), and what it keeps of them (_KEEP, of the tenant %(t)s):
# digests of their ids and of their idempotency keys, salted with whose they were (erased_digest, migration 0059),
# as an id or a key may say anything its client put in it, and those of the ids they were imported from
# (`imported_from_digests`, and `imported_from`, in clear, of a turn a version between 0056 and 0058 rolled back
# onto the database stored: docs/operations.md); nothing the turns said.
_GONE = "id, user_id, imported_from_digests, imported_from, idempotency_key"
_KEEP = """INSERT INTO erased_turn_digests (tenant_id, turn_digest, key_digest)
           SELECT %(t)s, named, erased_digest(%(t)s, gone.user_id, gone.idempotency_key)
           FROM gone, unnest(array_remove(array_prepend(erased_digest(%(t)s, gone.user_id, gone.id),
                                                        gone.imported_from_digests
                                                        || erased_digest(%(t)s, gone.user_id, gone.imported_from)),
                                          NULL)) AS named
           ON CONFLICT DO NOTHING"""


def users_of_session(conn: psycopg.Connection, tenant_id: str, session_id: str) -> list[str]:
    """The users with a turn or a memory in a session of this id."""
    rows = conn.execute(
        """SELECT user_id FROM turns WHERE tenant_id = %(t)s AND session_id = %(s)s
           UNION SELECT user_id FROM memories WHERE tenant_id = %(t)s AND session_id = %(s)s
           ORDER BY user_id""", {"t": tenant_id, "s": session_id}).fetchall()
    return [r["user_id"] for r in rows]


def begin_user(conn: psycopg.Connection, tenant_id: str, user_id: str) -> None:
    """Mark the user as being erased: from this transaction's commit until the one that erases their
    last rows, reads and writes naming them are refused (db/erasing.py). Idempotent."""
    conn.execute("INSERT INTO user_erasures (tenant_id, user_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                 (tenant_id, user_id))


def user_chunk(conn: psycopg.Connection, tenant_id: str, user_id: str, rows: int) -> tuple[dict[str, int], bool]:
    """Erase up to `rows` of the user's memories; when none is left, up to `rows` of their turns (their
    messages and tombstones go with them by cascade), keeping the digests of their ids and keys as a
    session's erasure does (session(): an export of theirs written before, or a turn sent again with its
    key, stores nothing of them again; digests alone, so nothing names the user); when neither is left,
    their BM25 statistics, their bulk jobs' rows (whose progress names the user) and their mark
    (begin_user), what a rolled-back version kept in clear moved to digests first: the erasure is finished. Returns
    the counts and whether it finished. No rule of memories() is needed: links, summaries and the
    statements of an end never cross users, so nothing the user said survives to name it.
    Memories go before turns because a turn takes its memories by cascade, as many as it has:
    each transaction stays bounded by `rows` (the statement timeout, the HTTP function's time)."""
    memories_deleted = conn.execute(
        """DELETE FROM memories WHERE tenant_id = %(t)s AND id IN (
               SELECT id FROM memories WHERE tenant_id = %(t)s AND user_id = %(u)s LIMIT %(n)s)
           RETURNING id""", {"t": tenant_id, "u": user_id, "n": rows}).fetchall()
    turns = []
    if len(memories_deleted) < rows:
        turns = conn.execute(
            f"""WITH gone AS (DELETE FROM turns WHERE tenant_id = %(t)s AND id IN (
                                  SELECT id FROM turns WHERE tenant_id = %(t)s AND user_id = %(u)s LIMIT %(n)s)
                              RETURNING {_GONE}),
                     kept AS ({_KEEP})
                SELECT id FROM gone""", {"t": tenant_id, "u": user_id, "n": rows - len(memories_deleted)}).fetchall()
    erased = {"turns": len(turns), "memories": len(memories_deleted)}
    if len(memories_deleted) + len(turns) == rows:
        return erased, False
    # Their BM25 statistics, which the memories' trigger leaves alone while the user is marked (migration
    # 0038): as many rows as the words they used, not a memory's work each; one statement, not chunked, as
    # 101,154 rows (a user of 100,000 memories, each a new word) took ~0.2 s, a third of a 2,000-memory
    # chunk (docs/measurements/erasure.md). What a version between 0056 and 0058 rolled back onto the database kept
    # in clear (docs/operations.md) becomes digests first, as migration 0059 moved it: the ids of erased turns
    # (erased_turns) and those restored turns were imported from (turns.imported_from), the user's own or another
    # user's naming theirs (a turn of theirs given to that user). The tenant's, whoever's: erased_turns, emptied by
    # 0059, holds what a rolled-back version wrote since (its primary key's tenant prefix reads it); the turns
    # holding an imported_from, through 0061's partial index, which holds only them.
    conn.execute("""INSERT INTO erased_turn_digests (tenant_id, turn_digest, key_digest)
                    SELECT tenant_id, erased_digest(tenant_id, user_id, turn_id), key_digest FROM erased_turns
                    WHERE tenant_id = %s
                    ON CONFLICT DO NOTHING""", (tenant_id,))
    conn.execute("DELETE FROM erased_turns WHERE tenant_id = %s", (tenant_id,))
    conn.execute("""UPDATE turns SET imported_from_digests = ARRAY[erased_digest(tenant_id, user_id, imported_from)],
                                     imported_from = NULL
                    WHERE tenant_id = %s AND imported_from IS NOT NULL""", (tenant_id,))
    for table in ("memory_terms", "memory_stats", "backfills", "user_erasures"):
        conn.execute(f"DELETE FROM {table} WHERE tenant_id = %s AND user_id = %s", (tenant_id, user_id))
    return erased, True


def erasures_begun(conn: psycopg.Connection, limit: int) -> list[dict[str, Any]]:
    """The erasures begun and not finished (every tenant's), oldest first: what the sweep finishes."""
    return conn.execute("SELECT tenant_id, user_id FROM user_erasures ORDER BY started_at LIMIT %s",
                        (limit,)).fetchall()


def _forget_why_ended(conn: psycopg.Connection, tenant_id: str, erased_ids: list[str]) -> None:
    """A statement that a fact ended with another ("The user's job title used to be support lead.")
    that a surviving memory made when it replaced an erased one keeps its place in the fact's
    history, but its reason names the erased value ("said with the employer 'Stripe', and 'Notion'
    replaced it"): it then says only that. Found by the message that made it (index
    memories_drawn_facts), as history.ended_with finds them. (A session's erasure takes the fact
    too, said in the same message as the erased value: history.ended_with finds it by its link.)"""
    conn.execute(
        """UPDATE memories f SET metadata = f.metadata || jsonb_build_object('reason', %(why)s::text)
           FROM memory_links l JOIN memories x ON x.tenant_id = l.tenant_id AND x.id = l.memory_id
           WHERE l.tenant_id = %(t)s AND l.replaced_id = ANY(%(ids)s) AND NOT l.memory_id = ANY(%(ids)s)
             AND f.tenant_id = x.tenant_id AND f.source_message_id = x.source_message_id
             AND f.memory_type = 'semantic' AND f.metadata->>'ended_by' = x.id AND NOT f.id = ANY(%(ids)s)""",
        {"why": ENDED_WITH_ERASED, "t": tenant_id, "ids": erased_ids},
    )


def _close_chains(conn: psycopg.Connection, tenant_id: str, erased_ids: list[str]) -> None:
    """Before `erased_ids` go: link each surviving memory they replaced to the surviving memories
    that replaced them, or make it current again when none is left (see the module's rules)."""
    if not erased_ids:
        return
    erased = set(erased_ids)
    newer_of: dict[str, set[str]] = defaultdict(set)
    for row in history_rows.links_around(conn, tenant_id, erased_ids):
        newer_of[row["replaced_id"]].add(row["memory_id"])

    def survivors(memory_id: str, seen: set[str]) -> set[str]:
        found: set[str] = set()
        for newer in newer_of[memory_id] - seen:
            seen.add(newer)
            found |= {newer} if newer not in erased else survivors(newer, seen)
        return found

    # A survivor's reason names the value it replaced ("'Berlin' replaces 'Porto'"): a copy of it.
    replaced_erased = sorted({newer for older in erased for newer in newer_of[older]} - erased)
    conn.execute(
        """UPDATE memories SET metadata = metadata || jsonb_build_object('reason', %s::text)
           WHERE tenant_id = %s AND id = ANY(%s) AND metadata ? 'reason'""",
        (REPLACED_ERASED, tenant_id, replaced_erased),
    )
    closed = {older: survivors(older, set()) for older in newer_of if older not in erased and newer_of[older] & erased}
    for older, successors in closed.items():
        for newer in successors:
            history_rows.link(conn, tenant_id, newer, older)
    # A value said later whose words' time an erased one took back ("I moved to Paris last week." after a
    # late "I live in Lyon.", said in between) holds from that time again, before what it replaced ends then.
    if replaced_erased:
        history_rows.own_times_back(conn, tenant_id, replaced_erased, erased_ids)
    for older, successors in closed.items():
        if successors:
            conn.execute(
                f"""UPDATE memories SET valid_to = (SELECT min({validity.began("s")}) FROM memories s
                                                    WHERE s.tenant_id = %s AND s.id = ANY(%s))
                   WHERE tenant_id = %s AND id = %s""",
                (tenant_id, sorted(successors), tenant_id, older),
            )
        else:
            conn.execute(
                """UPDATE memories SET active = true, valid_to = NULL
                   WHERE tenant_id = %s AND id = %s AND NOT coalesce((metadata->>'historical')::boolean, false)""",
                (tenant_id, older),
            )
