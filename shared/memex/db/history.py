"""Rows of supersession history: which memory replaced which, and each one's validity interval."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Sequence

import numpy as np
import psycopg

from memex.db import validity


# SQL, FROM items: the lines a summary cites, each `o` through its link `l` (whose memory_id, the
# summary's, and tenant the reader names): what it took in, not a summary alike it replaced
# (db/consolidation.fold_summary), whose lines it cites itself.
SUMMARY_LINES = ("memory_links l JOIN memories o ON o.tenant_id = l.tenant_id AND o.id = l.replaced_id "
                 "AND o.type <> 'summary'")


def link(conn: psycopg.Connection, tenant_id: str, newer_id: str, older_id: str) -> None:
    conn.execute(
        """INSERT INTO memory_links (tenant_id, memory_id, replaced_id) VALUES (%s, %s, %s)
           ON CONFLICT DO NOTHING""",
        (tenant_id, newer_id, older_id),
    )


def unlink(conn: psycopg.Connection, tenant_id: str, newer_id: str, older_id: str) -> None:
    conn.execute(
        "DELETE FROM memory_links WHERE tenant_id = %s AND memory_id = %s AND replaced_id = %s",
        (tenant_id, newer_id, older_id),
    )


def end(conn: psycopg.Connection, tenant_id: str, memory_id: str, valid_to: datetime) -> None:
    """The memory stops being current at `valid_to`. It reads no column but those of `memories` as migration
    0001 made it: the re-keying migrations (db/family_keys.py: 0033, 0049, 0050) end facts through it on
    a database upgraded from before the columns added since."""
    conn.execute(
        "UPDATE memories SET active = false, valid_to = %s WHERE tenant_id = %s AND id = %s",
        (valid_to, tenant_id, memory_id),
    )


# The metadata key that keeps the time a memory's words said it began while a value said before it holds then
# (held_from_said): erasing that value gives the time back (own_times_back).
OWN_TIME = "own_time"


def held_from_said(conn: psycopg.Connection, tenant_id: str, memory_id: str) -> None:
    """The memory holds from when it was said, not from the earlier time its words said (timeline.py), which
    it keeps (`OWN_TIME`)."""
    conn.execute(
        """UPDATE memories SET holds_from = NULL, metadata = metadata || jsonb_build_object(%s::text, holds_from)
           WHERE tenant_id = %s AND id = %s AND holds_from IS NOT NULL""",
        (OWN_TIME, tenant_id, memory_id),
    )


def own_times_back(conn: psycopg.Connection, tenant_id: str, ids: list[str], erased_ids: list[str]) -> None:
    """These memories hold again from the time their words said (`OWN_TIME`) when no memory they replace, but
    the erased ones and those that held at no moment ("I used to live in Madrid."), stands after it: the value
    said before it that took it back is gone (db/erasure.py)."""
    conn.execute(
        f"""UPDATE memories m SET holds_from = (m.metadata->>%(k)s)::timestamptz, metadata = m.metadata - %(k)s
            WHERE m.tenant_id = %(t)s AND m.id = ANY(%(ids)s) AND m.metadata ? %(k)s
              AND NOT EXISTS (SELECT 1 FROM memory_links l
                              JOIN memories o ON o.tenant_id = l.tenant_id AND o.id = l.replaced_id
                              WHERE l.tenant_id = m.tenant_id AND l.memory_id = m.id AND NOT o.id = ANY(%(erased)s)
                                AND {validity.stands("o")} > (m.metadata->>%(k)s)::timestamptz
                                AND NOT o.valid_to <= {validity.began("o")})""",
        {"k": OWN_TIME, "t": tenant_id, "ids": ids, "erased": erased_ids},
    )


def held_with(conn: psycopg.Connection, tenant_id: str, ids: list[str], key: str) -> list[dict[str, Any]]:
    """The current memories under `key` said in the same message as one of these memories, of the
    same subject (a role said with its employer: "I'm a support lead at Zendesk."), each with the
    value of the memory it was said with (index memories_drawn_facts)."""
    return conn.execute(
        """SELECT r.id, r.key, r.value, r.valid_from, r.holds_from, r.valid_to, r.confidence, e.value AS with_value
           FROM memories e
           JOIN memories r ON r.tenant_id = e.tenant_id AND r.source_message_id = e.source_message_id
                          AND r.memory_type = 'semantic' AND r.user_id = e.user_id AND r.subject = e.subject
           WHERE e.tenant_id = %s AND e.id = ANY(%s) AND r.key = %s AND r.active
           ORDER BY r.valid_from, r.id""",
        (tenant_id, ids, key),
    ).fetchall()


def current_under(conn: psycopg.Connection, tenant_id: str, user_id: str, subject: str,
                  keys: list[str]) -> list[dict[str, Any]]:
    """The user's current facts about `subject` under these keys (facts about a partner by name:
    "partner_sam_role"), read through the index of current semantic memories (migration 0011)."""
    return conn.execute(
        """SELECT m.id, m.key, m.value, m.valid_from, m.holds_from, m.valid_to, m.confidence
           FROM current_semantic_memories(%(t)s, %(u)s, %(s)s) c JOIN memories m ON m.tenant_id = %(t)s AND m.id = c.id
           WHERE c.key = ANY(%(keys)s)
           ORDER BY m.valid_from, m.id""",
        {"t": tenant_id, "u": user_id, "s": subject, "keys": keys},
    ).fetchall()


def ended_with(conn: psycopg.Connection, tenant_id: str, ids: list[str]) -> list[str]:
    """The statements that a fact ended with another (a role with its employer, a fact about a
    partner with the partnership: metadata `ended_by`, pipeline) that these memories made: the
    memory that ended the other (said in the same message, index memories_drawn_facts) or the fact
    that ended (memory_links_replaced). Nothing was said of them but what these memories say: they
    go with them."""
    rows = conn.execute(
        """SELECT f.id FROM memories e
           JOIN memories f ON f.tenant_id = e.tenant_id AND f.source_message_id = e.source_message_id
                          AND f.memory_type = 'semantic'
           WHERE e.tenant_id = %(t)s AND e.id = ANY(%(ids)s) AND f.metadata->>'ended_by' = e.id
           UNION
           SELECT f.id FROM memory_links l JOIN memories f ON f.tenant_id = l.tenant_id AND f.id = l.memory_id
           WHERE l.tenant_id = %(t)s AND l.replaced_id = ANY(%(ids)s) AND f.metadata ? 'ended_by'""",
        {"t": tenant_id, "ids": ids},
    ).fetchall()
    return [r["id"] for r in rows]


def ended_head(conn: psycopg.Connection, tenant_id: str, user_id: str, subject: str, key: str,
               by: datetime) -> dict[str, Any] | None:
    """The latest statement that ended the key's value by `by` and that nothing has replaced since
    (index memories_user_ended_facts): the head of a chain left without a current value."""
    return conn.execute(
        """SELECT e.id, e.value, e.valid_from, e.valid_to FROM memories e
           WHERE e.tenant_id = %(t)s AND e.user_id = %(u)s AND e.subject = %(s)s AND e.key = %(k)s
             AND e.memory_type = 'semantic' AND e.metadata->>'decision' = 'end' AND e.valid_to <= %(by)s
             AND NOT EXISTS (SELECT 1 FROM memory_links l WHERE l.tenant_id = e.tenant_id AND l.replaced_id = e.id)
           ORDER BY e.valid_to DESC, e.id DESC LIMIT 1""",
        {"t": tenant_id, "u": user_id, "s": subject, "k": key, "by": by},
    ).fetchone()


def predecessors(conn: psycopg.Connection, tenant_id: str, memory_id: str) -> list[dict[str, Any]]:
    """The memories this one replaced directly, newest first."""
    return conn.execute(
        f"""SELECT o.id, o.value, o.valid_from, o.holds_from, o.valid_to FROM memory_links l
           JOIN memories o ON o.tenant_id = l.tenant_id AND o.id = l.replaced_id
           WHERE l.tenant_id = %s AND l.memory_id = %s ORDER BY {validity.stands("o")} DESC, o.id DESC""",
        (tenant_id, memory_id),
    ).fetchall()


def earlier(conn: psycopg.Connection, tenant_id: str, memory_id: str, limit: int | None = None
            ) -> list[dict[str, Any]]:
    """Every memory this one replaced, directly or through others, in one round trip; with
    `limit`, only the first that many of them met walking back, the nearest first (Postgres
    evaluates a recursive query only as far as it is read, so the walk stops there)."""
    return conn.execute(
        """WITH RECURSIVE back(id) AS (
               SELECT replaced_id FROM memory_links WHERE tenant_id = %(t)s AND memory_id = %(id)s
               UNION
               SELECT l.replaced_id FROM memory_links l JOIN back b ON l.memory_id = b.id WHERE l.tenant_id = %(t)s
           )
           SELECT o.id, o.value, o.valid_from, o.valid_to FROM (SELECT id FROM back LIMIT %(limit)s) b
           JOIN memories o ON o.tenant_id = %(t)s AND o.id = b.id""",
        {"t": tenant_id, "id": memory_id, "limit": limit},
    ).fetchall()


def links_around(conn: psycopg.Connection, tenant_id: str, ids: list[str]) -> list[dict[str, Any]]:
    """Every link of the chains these memories belong to (both directions, transitively)."""
    return conn.execute(
        """WITH RECURSIVE linked(id) AS (
               SELECT unnest(%(ids)s::text[])
               UNION
               SELECT CASE WHEN l.memory_id = k.id THEN l.replaced_id ELSE l.memory_id END
               FROM memory_links l JOIN linked k ON k.id IN (l.memory_id, l.replaced_id)
               WHERE l.tenant_id = %(t)s
           )
           SELECT DISTINCT l.memory_id, l.replaced_id FROM memory_links l JOIN linked k ON k.id = l.memory_id
           WHERE l.tenant_id = %(t)s""",
        {"t": tenant_id, "ids": ids},
    ).fetchall()


def replaces_heard(memory: str, tenant: str, user: str, agent: str, at: str | None = None) -> str:
    """SQL, a condition on the memory `memory` (a table alias) over the named parameters `tenant`,
    `user` and `agent`: it replaced, directly or through others, a semantic fact of the user's that
    the agent heard and that no longer holds; a current one stands for that fact in the agent's scope
    (retrieval/current_first.py). Walked back from the memory (memory_links_pkey, memories_pkey) and
    only as far as the nearest such fact (EXISTS reads the recursion no further than its first row):
    what it costs is the memory's own chain, not the agent's history, which grows by every fact it
    heard that ended (bench.agent_history). Only for an agent that heard any fact that ended (asked
    once a statement, memories_user_replaced_facts): beside another agent's long history, an agent
    that heard none would walk back every chain of the other's for nothing. With `at` (a named
    parameter: as_of), a fact that no longer held then (validity.py)."""
    return f"""(EXISTS (SELECT 1 FROM memories h
                    WHERE h.tenant_id = %({tenant})s AND h.user_id = %({user})s AND h.agent_id = %({agent})s
                      AND {validity.ended('h', at)} AND h.memory_type = 'semantic')
               AND EXISTS (WITH RECURSIVE earlier(id) AS (
                    SELECT l.replaced_id FROM memory_links l
                    WHERE l.tenant_id = %({tenant})s AND l.memory_id = {memory}.id
                    UNION
                    SELECT l.replaced_id FROM earlier
                    JOIN memory_links l ON l.tenant_id = %({tenant})s AND l.memory_id = earlier.id)
                SELECT 1 FROM earlier JOIN memories o ON o.tenant_id = %({tenant})s AND o.id = earlier.id
                WHERE o.user_id = %({user})s AND o.agent_id = %({agent})s AND {validity.ended('o', at)}
                  AND o.memory_type = 'semantic'))"""


def _scoped(alias: str) -> str:
    """SQL: a memory (`alias`) as a JSON object with what scoring and scoping need of it
    (current_first.taken_in, .in_scope), and its key and value (stale.values: a value current again)."""
    return (f"jsonb_build_object('id', {alias}.id, 'valid_from', {alias}.valid_from, 'importance', {alias}.importance, "
            f"'agent_id', {alias}.agent_id, 'session_id', {alias}.session_id, 'subject', {alias}.subject, "
            f"'memory_type', {alias}.memory_type, 'metadata', {alias}.metadata, 'key', {alias}.key, "
            f"'value', {alias}.value)")


def _stated(select: str, at: str | None) -> str:
    """SQL, `select` (over `e`, a message's episodic memory, and `f`, a fact) of each fact that a message
    among the named parameter `ids` of the user `u` (tenant `t`) states: those drawn from it, said by
    `at` (index memories_drawn_facts), and those no longer current it says again (stale.py: a line said
    again while its fact held draws none, nothing new; it states the facts its words quote, of its
    subject, said while they held; a fact ended by `at` no longer holds now either, index
    memories_user_replaced_facts)."""
    return f"""SELECT {select} FROM memories e
               JOIN memories f ON f.tenant_id = e.tenant_id AND f.source_message_id = e.source_message_id
                              AND f.memory_type = 'semantic' AND f.user_id = e.user_id
               WHERE e.tenant_id = %(t)s AND e.user_id = %(u)s AND e.id = ANY(%(ids)s)
                 AND e.memory_type = 'episodic' AND {validity.said_by('f', at)}
               UNION ALL
               SELECT {select} FROM memories e
               JOIN memories f ON f.tenant_id = e.tenant_id AND f.user_id = e.user_id AND NOT f.active
                              AND f.memory_type = 'semantic' AND f.subject = e.subject
                              AND f.source_message_id <> e.source_message_id
                              AND f.valid_from <= e.valid_from AND e.valid_from < f.valid_to
                              AND f.metadata->>'raw_quote' <> ''
                              AND strpos(lower(e.content), lower(f.metadata->>'raw_quote')) > 0
               WHERE e.tenant_id = %(t)s AND e.user_id = %(u)s AND e.id = ANY(%(ids)s)
                 AND e.memory_type = 'episodic' AND e.metadata->>'role' = 'user' AND {validity.ended('f', at)}"""


def send_replacements(conn: psycopg.Connection, tenant_id: str, user_id: str, ids: list[str],
                      as_of: datetime | None = None, words: Sequence[str] = (),
                      vector: Any = None) -> Callable[[], list[dict[str, Any]]]:
    """For each episodic memory among `ids`, the semantic facts its message states, with their value,
    whether each is current and whether its key is one a question names by `words` (`named`, as
    send_asked reads them), the terms of the part of the message it came from (`quoted`: its
    `raw_quote` as the keyword channel reads text; the whole message for a fact with none) and of its
    value (`valued`), how near `vector` it is (`near`, null without one), and the terms of the message without its
    speaker's name (`said`): those drawn from it (index memories_drawn_facts), and those no longer
    current it says again (stale.py: said while they held, by a user's line of their subject, in
    words that hold the words they were drawn from, their `raw_quote`; index
    memories_user_replaced_facts); and for each superseded one the current
    memories that replaced it, however many links later (with what scoring and scoping need of them),
    and the messages that said it had ended ("I left Feedzai.": `ended_by`, whose end memory is in
    its chain), for a chain that ends with no current value. With `as_of`, current means held then,
    and what replaced or ended a fact is what had by then (validity.py).
    Sent now, read by calling what it returns: in a pipeline, after its sync, so that it shares a
    round trip with the statements sent beside it."""
    at = "at" if as_of is not None else None
    near = "1 - (f.embedding <=> %(v)s)" if vector is not None else "NULL::float8"
    # The message's terms are its content_tsv's weight A (migration 0027), read, not parsed again: parsed
    # here once per fact, a long message cost a search ~14 ms a fact. Its own words: not the speaker's
    # name its episodic memory starts with ("Melanie: ...", episodic.py), but that name said again
    # ("Melanie: It's Melanie!"): a term is the message's when the text holds it more often than the
    # name does. Before, every saying of the name was dropped, and a line that said nothing beyond its
    # facts' quotes but its speaker's name read as one that said nothing else.
    message_terms = "tsvector_to_array(ts_filter(e.content_tsv, '{a}'))"
    said = ("ARRAY(SELECT t.lexeme FROM unnest(ts_filter(e.content_tsv, '{a}')) t "
            "WHERE cardinality(t.positions) > coalesce((SELECT cardinality(n.positions) "
            "FROM unnest(to_tsvector('english', memex_text(e.metadata->>'name'))) n WHERE n.lexeme = t.lexeme), 0))")
    quoted = (f"CASE WHEN nullif(f.metadata->>'raw_quote', '') IS NULL THEN {message_terms} ELSE "
              "tsvector_to_array(to_tsvector('english', memex_text(f.metadata->>'raw_quote'))) END")
    valued = "tsvector_to_array(to_tsvector('english', memex_text(coalesce(f.value, ''))))"
    cursor = conn.execute(
        f"""WITH RECURSIVE drawn(message_memory, fact, active, value, key, named, said, quoted, valued, near) AS (
               {_stated(f"e.id, f.id, {validity.held('f', at)}, f.value, f.key, {_by_key(words, 'f')}, "
                        f"{said}, {quoted}, {valued}, {near}", at)}
           ),
           -- what the stale facts lead to, walked forward once for them all (chains share their links: a
           -- walk from each fact read a chain of 200 links once per fact that stated part of it)
           forward(id) AS (
               SELECT fact FROM drawn WHERE NOT active
               UNION
               SELECT l.memory_id FROM forward JOIN memory_links l ON l.tenant_id = %(t)s AND l.replaced_id = forward.id
           ),
           -- of those, the current memories and the statements that ended a value ...
           ends AS (
               SELECT c.id FROM forward JOIN memories c ON c.tenant_id = %(t)s AND c.id = forward.id
               WHERE {validity.held('c', at)} AND c.user_id = %(u)s
                  OR c.metadata->>'decision' = 'end' AND {validity.said_by('c', at)}
           ),
           -- ... each walked back to the facts it follows: a stale fact leads to those that reach it
           back(target, id) AS (
               SELECT id, id FROM ends
               UNION
               SELECT back.target, l.replaced_id FROM back JOIN memory_links l ON l.tenant_id = %(t)s AND l.memory_id = back.id
           ),
           later(origin, id) AS (
               SELECT back.id, back.target FROM back WHERE back.id IN (SELECT fact FROM drawn WHERE NOT active)
           )
           SELECT d.message_memory, d.fact, d.active, d.value, d.key, d.named, d.said, d.quoted, d.valued, d.near,
                  coalesce((SELECT jsonb_agg({_scoped('c')} ORDER BY c.valid_from DESC, c.content, c.id)
                            FROM later JOIN memories c ON c.tenant_id = %(t)s AND c.id = later.id
                            WHERE later.origin = d.fact AND {validity.held('c', at)} AND c.user_id = %(u)s), '[]')
                    AS current,
                  coalesce((SELECT jsonb_agg({_scoped('e')} ORDER BY e.valid_from DESC, e.content, e.id)
                            FROM later JOIN memories c ON c.tenant_id = %(t)s AND c.id = later.id
                            -- a message's episodic memory, by its key (index memories_dedupe)
                            JOIN memories e ON e.tenant_id = %(t)s AND e.dedupe_key = 'message:' || c.source_message_id
                                           AND e.user_id = %(u)s AND {validity.held('e', at)}
                            WHERE later.origin = d.fact AND c.metadata->>'decision' = 'end'
                              AND {validity.said_by('c', at)}), '[]') AS ended_by
           -- in one order for every user told the same history (current_first.lift inserts in it)
           FROM drawn d ORDER BY d.message_memory, d.value, d.fact""",
        {"t": tenant_id, "u": user_id, "ids": ids, "at": as_of, "words": _key_query(words),
         **({"v": np.asarray(vector, dtype=np.float32)} if vector is not None else {})},
    )
    return cursor.fetchall


def _by_key(words: Sequence[str], alias: str = "o") -> str:
    """SQL: whether a fact's (`alias`) key is one a question names by `words`: a word of its key
    (underscores read as spaces, accents folded as the question's words are: memex_text, migration
    0027, so "zoe" names sister_zoë_city) begins with the stem of one of them; a stop word matches
    nothing (to_tsquery drops it). Its parameter `words` is `_key_query(words)`."""
    return (f"{alias}.key IS NOT NULL AND to_tsvector('english', memex_text(replace({alias}.key, '_', ' '))) "
            "@@ to_tsquery('english', %(words)s)" if words else "false")


def _key_query(words: Sequence[str]) -> str:
    return " | ".join(f"{word}:*" for word in words)


def send_earlier(conn: psycopg.Connection, tenant_id: str, user_id: str, ids: list[str], most: int,
                 words: list[str], as_of: datetime | None = None) -> Callable[[], list[dict[str, Any]]]:
    """For each of `ids`, the user's semantic facts that are no longer current and that it leads to
    (with what scoring and scoping need of them): for a fact, those it replaced, directly or through
    others (at most `most` links back, index memory_links' key); for a message, the facts it states
    (drawn from it or said again, as send_replacements reads them) that have since been replaced or
    that spoke of the past, and those each of the facts it states replaced, current or not, as a fact's
    ("We moved to Berlin." leads to Lisbon, which its Berlin replaced; "I moved to Lisbon." to Porto
    through its Lisbon: a message read only its own facts). `step` is how far back each is: 0 stated
    by the message, 1 replaced directly, and so on; `by_key` whether its key is one the question names
    by `words` (as send_asked reads them). An erased memory has no row left, and erasure closes its
    chain over the gap, so none comes back here. With `as_of`, the facts that had stopped holding by
    then (validity.py).
    Sent now, read by calling what it returns (in a pipeline, after its sync)."""
    at = "at" if as_of is not None else None
    cursor = conn.execute(
        f"""WITH RECURSIVE back(anchor, id, step) AS (
               SELECT memory_id, replaced_id, 1 FROM memory_links
               WHERE tenant_id = %(t)s AND memory_id = ANY(%(ids)s)
               UNION ALL
               {_stated("e.id, f.id, 0", at)}
               UNION
               SELECT back.anchor, l.replaced_id, back.step + 1 FROM back
               JOIN memory_links l ON l.tenant_id = %(t)s AND l.memory_id = back.id
               WHERE back.step < %(most)s
           )
           SELECT x.anchor, o.id, min(x.step) AS step, o.valid_from, o.valid_to, o.importance, o.agent_id,
                  o.session_id, o.subject, o.memory_type, o.metadata, {_by_key(words)} AS by_key
           FROM back x
           JOIN memories o ON o.tenant_id = %(t)s AND o.id = x.id
           WHERE o.user_id = %(u)s AND o.memory_type = 'semantic' AND {validity.ended('o', at)}
           GROUP BY x.anchor, o.tenant_id, o.id
           -- facts that ended together (a car replaced, and one that was said to have come before it),
           -- the later begun first, then by their text: not by a random id, which another user told
           -- the same history has the other way round
           ORDER BY x.anchor, step, o.valid_to DESC NULLS LAST, o.valid_from DESC, o.content, o.id""",
        {"t": tenant_id, "u": user_id, "ids": ids, "most": most, "words": _key_query(words), "at": as_of},
    )
    return cursor.fetchall


def send_asked(conn: psycopg.Connection, tenant_id: str, user_id: str, vectors: list[Any], words: list[str],
               min_similarity: float, most: int, as_of: datetime | None = None) -> Callable[[], list[dict[str, Any]]]:
    """The user's semantic facts that are no longer current and that a question about the past asks
    about by itself: near one of its `vectors` (cosine at least `min_similarity`), or under a key
    one of whose words begins with the stem of one of `words` ("diet" for dietary_restriction,
    English stemming, stop words dropped). At most `most`, the nearest in meaning first, then the
    nearest in time. Read from the user's inactive memories (index memories_user); an erased memory
    has no row left; with `as_of`, those that had stopped holding by then (validity.py). Sent now, read by
    calling what it returns (in a pipeline, after its sync)."""
    at = "at" if as_of is not None else None
    vectors = [np.asarray(vector, dtype=np.float32) for vector in vectors if vector is not None]
    similarity = "greatest(" + ", ".join(f"1 - (o.embedding <=> %(v{i})s)" for i in range(len(vectors))) + ")" \
        if vectors else "NULL::float8"
    cursor = conn.execute(
        f"""SELECT * FROM (
                SELECT o.id, o.valid_from, o.valid_to, o.importance, o.agent_id, o.session_id, o.subject,
                       o.memory_type, o.metadata, o.content, {similarity} AS similarity, {_by_key(words)} AS by_key
                FROM memories o
                WHERE o.tenant_id = %(t)s AND o.user_id = %(u)s AND {validity.ended('o', at)}
                  AND o.memory_type = 'semantic'
            ) asked
            WHERE by_key OR similarity >= %(min)s
            ORDER BY similarity DESC NULLS LAST, valid_to DESC NULLS LAST, valid_from DESC, content, id
            LIMIT %(most)s""",
        {"t": tenant_id, "u": user_id, "words": _key_query(words), "min": min_similarity, "at": as_of,
         "most": most, **{f"v{i}": vector for i, vector in enumerate(vectors)}},
    )
    return cursor.fetchall


def send_ended(conn: psycopg.Connection, tenant_id: str, user_id: str, vector: Any, words: list[str],
               most: int, as_of: datetime | None = None) -> Callable[[], list[dict[str, Any]]]:
    """The news about a key a present question names by `words` (as send_asked reads them) that has
    no current value: the message that ended its value with nothing after it (the statement that
    ended it, "I left Feedzai.", decision `end`, index memories_user_ended_facts, replaced by
    nothing, nor, for a fact that ended with another, `ended_by` (pipeline), the end of that other);
    or the current fact under another key that took its value back ("The user is out of work." after
    "I got laid off", which ended the employer and the job title: supersession.related_keys), read
    from the user's links that cross keys (migration 0021): never from the tenant's links, the
    user's current facts nor the history of the keys named, which grow with every user's history
    and every value of a key (docs/measurements/performance.md). A taker since replaced keeps its
    row there, passed over here (`t.active`): erasing what replaced it makes it current again, with
    the same link and no link written to bring the row back. Each row is the key
    named and its subject, and the memory to answer with (`message`: the episodic memory of the
    statement's message, or the current fact, with what scoring and scoping need of it), the nearest
    `vector` in meaning first, then the latest (the keys one fact took back in their order). At most
    `most`; none for a message erased. With `as_of`, the news as it stood then: said by then, with no
    value current then, and nothing said by then replacing it (validity.py).
    Sent now, read by calling what it returns (in a pipeline, after its sync)."""
    at = "at" if as_of is not None else None
    def near(alias: str) -> str:
        return f"1 - ({alias}.embedding <=> %(v)s)" if vector is not None else "NULL::float8"

    def no_current(alias: str) -> str:
        return (f"""NOT EXISTS (SELECT 1 FROM memories c WHERE c.tenant_id = {alias}.tenant_id
                              AND c.user_id = {alias}.user_id AND c.subject = {alias}.subject
                              AND c.key = {alias}.key AND {validity.held('c', at)} AND c.memory_type = 'semantic')""")

    def replaced(memory: str) -> str:
        """SQL: a link replaced `memory` (an id expression), by a memory said by `at`."""
        if at is None:
            return f"EXISTS (SELECT 1 FROM memory_links r WHERE r.tenant_id = e.tenant_id AND r.replaced_id = {memory})"
        return (f"""EXISTS (SELECT 1 FROM memory_links r JOIN memories rn ON rn.tenant_id = r.tenant_id
                                                                      AND rn.id = r.memory_id
                           WHERE r.tenant_id = e.tenant_id AND r.replaced_id = {memory}
                             AND {validity.said_by('rn', at)})""")

    cursor = conn.execute(
        f"""SELECT key, subject, message FROM (
            SELECT e.key, e.subject, {_scoped('s')} AS message, {near('e')} AS near, e.valid_from AS said, e.id
            FROM memories e
            -- a message's episodic memory, by its key (index memories_dedupe)
            JOIN memories s ON s.tenant_id = e.tenant_id AND s.dedupe_key = 'message:' || e.source_message_id
                           AND s.user_id = e.user_id AND {validity.held('s', at)}
            WHERE e.tenant_id = %(t)s AND e.user_id = %(u)s AND e.memory_type = 'semantic'
              AND e.metadata->>'decision' = 'end' AND {_by_key(words, 'e')}
              AND {validity.said_by('e', at)} AND NOT {replaced('e.id')}
              -- a fact that ended with another (`ended_by`: Leo's job with the partnership) is no news
              -- once that one's end was followed by a new value (a new partner)
              AND NOT {replaced("e.metadata->>'ended_by'")}
              AND {no_current('e')}
            UNION ALL
            -- a current fact under another key that took the named key's value back: the user's
            -- links that cross keys (index keys_taken_back_user), a few whatever each key's history
            SELECT x.key, x.subject, {_scoped('t')}, {near('t')}, t.valid_from, t.id
            FROM keys_taken_back x
            JOIN memories t ON t.tenant_id = x.tenant_id AND t.id = x.memory_id
            WHERE x.tenant_id = %(t)s AND x.user_id = %(u)s AND {_by_key(words, 'x')} AND {validity.held('t', at)}
              AND {no_current('x')}
        ) news
        ORDER BY near DESC NULLS LAST, said DESC, id, key LIMIT %(most)s""",
        {"t": tenant_id, "u": user_id, "words": _key_query(words), "most": most, "at": as_of,
         **({"v": np.asarray(vector, dtype=np.float32)} if vector is not None else {})},
    )
    return cursor.fetchall


# A fact value's first letters lower-cased, in byte order: migration 0052's index
# memories_user_value_starts, whose entries this bounds (a b-tree refuses one over 2,704 bytes).
_STARTS = 16
_START = f'left(lower({{v}}.value), {_STARTS}) COLLATE "C"'

# SQL, CTEs `windows` and `held_in` (`part`): the parts of each text of CTE `texts` (`text`, `n`)
# that some of the user's (`t`, `u`) fact values begin with, their first _STARTS letters at most, the
# empty part too (held in any text). A value held in a text begins at one of its places: its first
# _STARTS letters are a beginning of the window of _STARTS letters from there. The windows are
# read from the letters in one pass (substr at each place walks the text from its start: the square
# of its length) and each taken once (a periodic text has few). Of a window, the beginnings some
# value begins with are those that one of its two neighbours in memories_user_value_starts begins
# with (in byte order, whatever lies between two strings sharing a beginning shares it): two probes
# a window, not one for each letter grown; the beginnings are then grown while a neighbour shares
# them, at most _STARTS letters, with no probe.
_HELD_IN = f"""windows AS (
                SELECT DISTINCT string_agg(l.letter, '') OVER (
                    PARTITION BY x.n ORDER BY l.at ROWS BETWEEN CURRENT ROW AND {_STARTS - 1} FOLLOWING) AS span
                FROM texts x, unnest(string_to_array(x.text, NULL)) WITH ORDINALITY l(letter, at)
            ),
            neighbours AS MATERIALIZED (  -- probed once a window, not once a beginning compared
                SELECT w.span,
                       (SELECT {_START.format(v="v")} FROM memories v
                        WHERE v.tenant_id = %(t)s AND v.user_id = %(u)s AND v.memory_type = 'semantic'
                          AND v.value IS NOT NULL AND {_START.format(v="v")} >= w.span
                        ORDER BY {_START.format(v="v")} LIMIT 1) AS above,
                       (SELECT {_START.format(v="v")} FROM memories v
                        WHERE v.tenant_id = %(t)s AND v.user_id = %(u)s AND v.memory_type = 'semantic'
                          AND v.value IS NOT NULL AND {_START.format(v="v")} < w.span
                        ORDER BY {_START.format(v="v")} DESC LIMIT 1) AS below
                FROM windows w
            ),
            beginnings AS (
                SELECT b.span, b.above, b.below, 0 AS j FROM neighbours b
                WHERE b.above IS NOT NULL OR b.below IS NOT NULL
                UNION ALL
                SELECT g.span, g.above, g.below, g.j + 1 FROM beginnings g
                WHERE g.j < length(g.span) AND left(g.span, g.j + 1) IN (left(g.above, g.j + 1), left(g.below, g.j + 1))
            ),
            held_in AS (SELECT DISTINCT left(span, j) AS part FROM beginnings)"""


def send_chain_facts(conn: psycopg.Connection, tenant_id: str, user_id: str, texts: list[str], words: list[str],
                     as_of: datetime | None = None) -> Callable[[], list[dict[str, Any]]]:
    """The user's semantic facts, current or not, that a question about a chain of values reads
    (retrieval/chains.py): those whose value holds one of `texts` or is held in one (lower-cased; the
    caller checks the word boundaries), those under a key one of whose words begins with the stem of
    one of `words` (as send_asked reads them; `by_key`), and the facts the former replaced directly.
    Oldest first, by where each stands in its key's history (validity.stands, `stands`: "I lived in Rome in
    2015." said today comes before the Berlin said in 2024), on a tie the one ended first, then the one said
    first, as the memory's history lists them (db/memories.chain).
    Each with the ids of the facts it replaced directly (`replaced`), whether a later fact replaced it
    (`followed`), its decision (`end` for "The user used to work at Canva.") and what scoring and
    scoping need of it. With `as_of`, those said by then, and followed as they stood then (validity.py).
    Read through indexes, not from each of the user's facts (24,223 heap pages at a 100k-memory user:
    docs/measurements/performance.md): the values holding a text by their three-letter runs
    (migration 0052's memories_user_value_grams), those held in one by their first letters (`_HELD_IN`),
    the keys from the user's distinct keys (`user_keys`).
    Sent now, read by calling what it returns (in a pipeline, after its sync)."""
    at = "at" if as_of is not None else None
    fact = ("o.tenant_id = %(t)s AND o.user_id = %(u)s AND o.memory_type = 'semantic' AND o.value IS NOT NULL "
            f"AND {validity.said_by('o', at)}")
    keyed = f""",
            {user_keys("m.tenant_id = %(t)s AND m.user_id = %(u)s")},
            keyed AS (
                SELECT o.id FROM memories o
                WHERE {fact} AND o.key = ANY (ARRAY(SELECT k.key FROM keys k WHERE {_by_key(words, "k")}))
            )""" if words else ""
    # Each set read as an array, matched by `= ANY`: the planner counts a CTE's rows blindly (the
    # keys' recursive one in hundreds) and would join the user's facts to it by hash, reading each.
    cursor = conn.execute(
        f"""WITH RECURSIVE texts AS (SELECT x.text, x.n FROM unnest(%(texts)s::text[]) WITH ORDINALITY x(text, n)),
            {_HELD_IN}{keyed},
            named AS (
                SELECT o.id FROM memories o
                WHERE {fact} AND {_START.format(v="o")} = ANY (ARRAY(SELECT part FROM held_in))
                  AND EXISTS (SELECT 1 FROM texts x WHERE strpos(x.text, lower(o.value)) > 0)
                UNION
                SELECT o.id FROM texts x JOIN memories o
                  ON memex_value_grams(o.tenant_id, o.user_id, lower(o.value)) @> memex_value_grams(%(t)s, %(u)s, x.text)
                 AND strpos(lower(o.value), x.text) > 0
                WHERE {fact}
            ),
            chosen AS (
                SELECT id FROM named
                {"UNION SELECT id FROM keyed" if words else ""}
                UNION
                SELECT l.replaced_id FROM memory_links l
                WHERE l.tenant_id = %(t)s AND l.memory_id = ANY (ARRAY(SELECT id FROM named))
            )
            SELECT o.id, o.key, o.value, o.content, o.valid_from, {validity.stands("o")} AS stands, o.valid_to,
                   o.importance, o.agent_id,
                   o.session_id, o.subject, o.memory_type, o.metadata, o.metadata->>'decision' AS decision,
                   coalesce((SELECT array_agg(l.replaced_id ORDER BY l.replaced_id) FROM memory_links l
                             WHERE l.tenant_id = o.tenant_id AND l.memory_id = o.id), '{{}}') AS replaced,
                   EXISTS (SELECT 1 FROM memory_links l JOIN memories n ON n.tenant_id = l.tenant_id
                                                                  AND n.id = l.memory_id
                           WHERE l.tenant_id = o.tenant_id AND l.replaced_id = o.id AND {validity.said_by('n', at)})
                     AS followed, {_by_key(words)} AS by_key
            FROM memories o
            WHERE {fact} AND o.id = ANY (ARRAY(SELECT id FROM chosen))
            ORDER BY stands, o.valid_to NULLS LAST, o.created_at, o.id""",
        {"t": tenant_id, "u": user_id, "texts": [text.lower() for text in texts], "words": _key_query(words),
         "at": as_of},
    )
    return cursor.fetchall


def user_keys(user: str) -> str:
    """SQL, a recursive CTE `keys` (`key`): the distinct keys of the memories `user` (a condition on
    alias `m`) selects, one probe a key (a skip scan of index memories_user_key_order, migration 0048),
    not a read of every keyed memory."""
    return f"""keys AS (
                (SELECT m.key FROM memories m WHERE {user} AND m.key IS NOT NULL ORDER BY m.key LIMIT 1)
                UNION ALL
                SELECT following.key FROM keys, LATERAL (
                    SELECT m.key FROM memories m WHERE {user} AND m.key > keys.key ORDER BY m.key LIMIT 1) following
            )"""


def current_valued(conn: psycopg.Connection, tenant_id: str, user_id: str, subject: str,
                   values: list[str]) -> list[dict[str, Any]]:
    """The user's current facts about `subject` that hold one of these values (case ignored), as the
    extractor reads a fact: what a correction said in a later session names as wrong."""
    return conn.execute(
        """SELECT m.id, m.type, m.key, m.value, m.content, m.confidence, m.importance
           FROM current_semantic_memories(%(t)s, %(u)s, %(s)s) c JOIN memories m ON m.tenant_id = %(t)s AND m.id = c.id
           WHERE lower(m.value) = ANY(%(values)s)
           ORDER BY m.valid_from, m.id""",
        {"t": tenant_id, "u": user_id, "s": subject, "values": sorted({v.lower() for v in values})},
    ).fetchall()
