"""Rows of memories: writes, reads with their sources, the two retrieval channels, erasure."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from operator import itemgetter
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
import psycopg
from psycopg.rows import tuple_row
from psycopg.types.json import Jsonb

from memex import folding, literal
from memex.db import erasing, history, validity, vector_indexes
from memex.models import SearchFilters, wire_time

_READ = """
SELECT m.id, m.user_id, m.agent_id, m.session_id, m.content, m.memory_type, m.type, m.key, m.value,
       m.subject, m.importance, m.confidence, m.active, m.valid_from, m.holds_from, m.valid_to,
       link.replaced_id AS supersedes,
       m.created_at, m.metadata, m.source_turn_id, m.source_message_id, msg.metadata AS source_metadata,
       cited.sources AS cited_sources
"""
_FROM = f"""FROM memories m
LEFT JOIN messages msg ON msg.tenant_id = m.tenant_id AND msg.id = m.source_message_id
-- `supersedes` on the wire: the latest of the memories this one replaced (history lists them all).
LEFT JOIN LATERAL (
    SELECT l.replaced_id FROM memory_links l
    JOIN memories o ON o.tenant_id = l.tenant_id AND o.id = l.replaced_id
    WHERE l.tenant_id = m.tenant_id AND l.memory_id = m.id
    ORDER BY o.valid_from DESC, o.id DESC LIMIT 1
) link ON true
-- A summary's sources are those of the lines it summarises (consolidation/job.py; history.SUMMARY_LINES).
LEFT JOIN LATERAL (
    SELECT jsonb_agg(jsonb_build_object('turn_id', o.source_turn_id, 'message_id', o.source_message_id,
                                        'session_id', o.session_id, 'metadata', coalesce(om.metadata, '{{}}'))
                     ORDER BY o.valid_from, o.id) AS sources
    FROM {history.SUMMARY_LINES}
    LEFT JOIN messages om ON om.tenant_id = o.tenant_id AND om.id = o.source_message_id
    WHERE m.type = 'summary' AND l.tenant_id = m.tenant_id AND l.memory_id = m.id
) cited ON true
"""
_SELECT = _READ + _FROM


def to_wire(row: dict[str, Any]) -> dict[str, Any]:
    """A memory as the wire contract shows it, its source message metadata included."""
    sources = list(row["cited_sources"] or [])
    if row["source_turn_id"] or row["source_message_id"]:
        sources.append({
            "turn_id": row["source_turn_id"],
            "message_id": row["source_message_id"],
            "session_id": row["session_id"],
            "metadata": row["source_metadata"] or {},
        })
    return {
        "id": row["id"],
        "user_id": row["user_id"],
        "agent_id": row["agent_id"],
        "session_id": row["session_id"],
        "content": row["content"],
        "memory_type": row["memory_type"],
        "type": row["type"],
        "key": row["key"],
        "value": row["value"],
        "subject": row["subject"],
        "importance": round(float(row["importance"]), 4),
        "confidence": round(float(row["confidence"]), 4),
        "active": row["active"],
        # when it was said, as everything that orders a key's history reads it; `holds_from`, when its words
        # said an earlier time it began (migration 0055), is the answer's `valid_from` (memex_edge/answers.py)
        "valid_from": _iso(row["valid_from"]),
        "holds_from": _iso(row["holds_from"]),
        "valid_to": _iso(row["valid_to"]),
        "supersedes": row["supersedes"],
        "created_at": _iso(row["created_at"]),
        "metadata": row["metadata"] or {},
        "sources": sources,
    }


def _iso(value: datetime | None) -> str | None:
    return wire_time(value) if value else None


_INSERT = """INSERT INTO memories (tenant_id, id, user_id, agent_id, session_id, memory_type, type, key, value,
                                   content, context, importance, confidence, embedding, active, valid_from,
                                   holds_from, valid_to, source_turn_id, source_message_id, dedupe_key, metadata, subject)
             VALUES (%(tenant_id)s, %(id)s, %(user_id)s, %(agent_id)s, %(session_id)s, %(memory_type)s,
                     %(type)s, %(key)s, %(value)s, %(content)s, %(context)s, %(importance)s, %(confidence)s,
                     %(embedding)s, %(active)s, %(valid_from)s, %(holds_from)s, %(valid_to)s, %(source_turn_id)s,
                     %(source_message_id)s, %(dedupe_key)s, %(metadata)s, %(subject)s)
             ON CONFLICT (tenant_id, dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING"""


def _row(tenant_id: str, memory: dict[str, Any]) -> dict[str, Any]:
    row = {
        "tenant_id": tenant_id,
        "agent_id": None, "session_id": None, "key": None, "value": None, "context": None,
        "source_turn_id": None, "source_message_id": None, "dedupe_key": None,
        "confidence": 1.0, "importance": 0.5, "active": True, "holds_from": None, "valid_to": None, "subject": "user",
        **memory,
        # None: a message stored while the embedder failed (pipeline._store_episodic)
        "embedding": None if memory["embedding"] is None else np.asarray(memory["embedding"], dtype=np.float32),
        "metadata": Jsonb(memory.get("metadata") or {}),
    }
    for column in ("confidence", "importance"):
        row[column] = _real(row[column])
    return row


_SMALLEST_REAL = float(np.finfo(np.float32).tiny)


def _real(value: float) -> float:
    """`value` as a `real` column holds it: a number under float4's smallest normal (5e-324 is a
    valid importance in JSON) is 0, where Postgres would refuse it as an underflow."""
    return 0.0 if abs(value) < _SMALLEST_REAL else value


def insert(conn: psycopg.Connection, tenant_id: str, memory: dict[str, Any]) -> str | None:
    """Insert one memory; None when its dedupe_key was already written (a redelivery)."""
    row = conn.execute(_INSERT + " RETURNING id", _row(tenant_id, memory)).fetchone()
    return row["id"] if row else None


_COLUMNS = ("tenant_id", "id", "user_id", "agent_id", "session_id", "memory_type", "type", "key", "value", "content",
            "context", "importance", "confidence", "embedding", "active", "valid_from", "holds_from", "valid_to",
            "source_turn_id", "source_message_id", "dedupe_key", "metadata", "subject")
# Rows per statement in `insert_many`: Postgres takes at most 65,535 parameters in one.
_ROWS_PER_INSERT = 1000


def insert_many(conn: psycopg.Connection, tenant_id: str, memories: list[dict[str, Any]]) -> None:
    """`insert` for many memories, in one statement per thousand; those whose dedupe_key was
    already written are skipped. One statement, not one per memory: the BM25 statistics'
    triggers (migration 0005) then run once for all of them."""
    for start in range(0, len(memories), _ROWS_PER_INSERT):
        rows = [_row(tenant_id, m) for m in memories[start:start + _ROWS_PER_INSERT]]
        values = ", ".join(["(" + ", ".join(["%s"] * len(_COLUMNS)) + ")"] * len(rows))
        conn.execute(f"""INSERT INTO memories ({", ".join(_COLUMNS)}) VALUES {values}
                         ON CONFLICT (tenant_id, dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING""",
                     [row[c] for row in rows for c in _COLUMNS])


def get(conn: psycopg.Connection, tenant_id: str, memory_id: str) -> dict[str, Any] | None:
    """The memory, None when there is none; UserBeingErased, read in the same statement, when its user is
    being erased (db/erasing.py)."""
    row = conn.execute(_READ + f", {erasing.marked('m')} AS erasing " + _FROM + "WHERE m.tenant_id = %s AND m.id = %s",
                       (tenant_id, memory_id)).fetchone()
    if row is None:
        return None
    erasing.refuse(row, row["user_id"])
    return to_wire(row)


def get_many(conn: psycopg.Connection, tenant_id: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    return send_get_many(conn, tenant_id, ids)()


def send_get_many(conn: psycopg.Connection, tenant_id: str,
                  ids: Sequence[str]) -> Callable[[], dict[str, dict[str, Any]]]:
    """`get_many` sent now and read by calling what it returns: in a pipeline, after its sync,
    so that it shares a round trip with the statements sent beside it."""
    cursor = conn.execute(_SELECT + "WHERE m.tenant_id = %s AND m.id = ANY(%s)", (tenant_id, list(ids)))
    return lambda: {r["id"]: to_wire(r) for r in cursor.fetchall()}


def said_within(conn: psycopg.Connection, tenant_id: str, user_id: str, agent_id: str | None,
                filters: SearchFilters, include_inactive: bool, periods: Sequence[tuple[datetime, datetime]],
                limit: int, offset: int = 0) -> tuple[list[dict[str, Any]], int | None]:
    """The messages of the scope said within any of `periods` ([start, end)), newest turn first and
    a turn's in the order said, at most `limit` after the first `offset` (index memories_user_said); a
    scope filtered to another memory type, its memories. With the first page (`offset` 0), how many
    the periods hold, counted in the same statement (of the period's rows alone: none is joined for
    it); None with the others."""
    where, params = _scope(tenant_id, user_id, agent_id, filters, include_inactive, alias="m")
    if filters.memory_type is None:
        where += " AND m.memory_type = 'episodic'"
    within = " OR ".join(f"(m.valid_from >= %(start{i})s AND m.valid_from < %(end{i})s)" for i in range(len(periods)))
    for i, (start, end) in enumerate(periods):
        params[f"start{i}"], params[f"end{i}"] = start, end
    counted = f"(SELECT count(*) FROM memories m WHERE {where} AND ({within}))" if offset == 0 else "NULL::bigint"
    rows = conn.execute(_READ + f", {counted} AS said " + _FROM
                        + f"WHERE {where} AND ({within}) ORDER BY m.valid_from DESC, m.created_at, m.id "
                        "LIMIT %(limit)s OFFSET %(offset)s",
                        {**params, "limit": limit, "offset": offset}).fetchall()
    return [to_wire(row) for row in rows], (rows[0]["said"] if rows else 0) if offset == 0 else None


def already_written(conn: psycopg.Connection, tenant_id: str, dedupe_key: str) -> bool:
    """Whether a worker already wrote the memory with this dedupe key (a redelivered job)."""
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM memories WHERE tenant_id = %s AND dedupe_key = %s) AS written",
        (tenant_id, dedupe_key),
    ).fetchone()
    return row["written"]


def written(conn: psycopg.Connection, tenant_id: str, dedupe_keys: list[str],
            since: datetime | None = None) -> dict[str, bool]:
    """Which of these dedupe keys a worker already wrote (`already_written` for many), each with whether its
    memory has its vector (a message stored while the embedder failed has none until a later delivery fills
    it in: fill_vectors); `since`: only memories written from then on."""
    rows = conn.execute("""SELECT dedupe_key, embedding IS NOT NULL AS vectored FROM memories
                           WHERE tenant_id = %(tenant)s AND dedupe_key = ANY(%(keys)s)"""
                        + (" AND created_at >= %(since)s" if since is not None else ""),
                        {"tenant": tenant_id, "keys": dedupe_keys, "since": since}).fetchall()
    return {r["dedupe_key"]: r["vectored"] for r in rows}


def fill_vectors(conn: psycopg.Connection, tenant_id: str, filled: list[tuple[str, str | None, Any]]) -> None:
    """The vectors of memories written without one, by dedupe key, each made with the context given beside
    it; a memory that has one (filled by another delivery, from the same text) keeps it, one erased meanwhile
    has no row to fill, and one whose context is no longer that one (an erasure took it after the texts were
    read: db/erasure.py) is left for memex/vectorless.py to fill: its vector would be made from erased words."""
    with conn.cursor() as cur:
        cur.executemany("""UPDATE memories SET embedding = %s, vector_failed_at = NULL
                           WHERE tenant_id = %s AND dedupe_key = %s AND embedding IS NULL
                             AND context IS NOT DISTINCT FROM %s""",
                        [(np.asarray(vector, dtype=np.float32), tenant_id, key, context)
                         for key, context, vector in filled])


def of_turn(conn: psycopg.Connection, tenant_id: str, turn_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        _SELECT + "WHERE m.tenant_id = %s AND m.source_turn_id = %s ORDER BY m.created_at, m.id",
        (tenant_id, turn_id),
    ).fetchall()
    return [to_wire(r) for r in rows]


def list_for_user(
    conn: psycopg.Connection, tenant_id: str, user_id: str, include_inactive: bool, limit: int,
    after: tuple[datetime, str] | None, agent_id: str | None = None, order: str = "written",
) -> tuple[list[dict[str, Any]], tuple[datetime, str] | None]:
    """The latest written first, or with `order` "valid_from" the earliest valid first (only
    `agent_id`'s memories when given), keyset-paginated so pages stay stable while memories are
    added; with the key of the page's last row when more follow. UserBeingErased, read in the same
    statement, when the user is being erased (db/erasing.py)."""
    column, before = ("valid_from", ">") if order == "valid_from" else ("created_at", "<")
    clauses = ["m.tenant_id = %(t)s", "m.user_id = %(u)s"]
    params: dict[str, Any] = {"t": tenant_id, "u": user_id, "limit": limit + 1}
    if not include_inactive:
        clauses.append("m.active")
    if agent_id is not None:
        clauses.append("m.agent_id = %(agent)s")
        params["agent"] = agent_id
    if after is not None:
        clauses.append(f"(m.{column}, m.id) {before} (%(at)s, %(id)s)")
        params["at"], params["id"] = after
    direction = "" if order == "valid_from" else " DESC"
    page = (_SELECT + "WHERE " + " AND ".join(clauses)
            + f" ORDER BY m.{column}{direction}, m.id{direction} LIMIT %(limit)s")
    rows = erasing.rows(conn.execute(erasing.with_mark(page, f"{column}{direction}, id{direction}"), params).fetchall(),
                        user_id)
    next_key = (rows[limit - 1][column], rows[limit - 1]["id"]) if len(rows) > limit else None
    return [to_wire(r) for r in rows[:limit]], next_key


def count(conn: psycopg.Connection, tenant_id: str, user_id: str, agent_id: str | None,
          include_inactive: bool = False) -> int:
    """The user's current memories, or with `include_inactive` all of them (as the listing counts them).
    UserBeingErased, read in the same statement, when the user is being erased (db/erasing.py): part of
    them may be gone."""
    row = conn.execute(
        f"""SELECT count(*) AS n, {erasing.MARKED} AS erasing FROM memories
            WHERE tenant_id = %(t)s AND user_id = %(u)s AND (active OR %(all)s)
              AND (%(agent)s::text IS NULL OR agent_id = %(agent)s)""",
        {"t": tenant_id, "u": user_id, "all": include_inactive, "agent": agent_id},
    ).fetchone()
    erasing.refuse(row, user_id)
    return row["n"]


def chain(conn: psycopg.Connection, tenant_id: str, memory_id: str) -> list[dict[str, Any]]:
    """Every memory linked to this one by supersession, either way and transitively, oldest first;
    UserBeingErased, read in the same statement as the links, when its user is being erased (a chain
    never crosses users)."""
    rows = conn.execute(
        f"""WITH RECURSIVE linked(id) AS (
               SELECT id FROM memories WHERE tenant_id = %(t)s AND id = %(id)s
               UNION
               SELECT CASE WHEN l.memory_id = k.id THEN l.replaced_id ELSE l.memory_id END
               FROM memory_links l JOIN linked k ON k.id IN (l.memory_id, l.replaced_id)
               WHERE l.tenant_id = %(t)s
           )
           SELECT k.id, m.user_id, {erasing.marked("m")} AS erasing
           FROM linked k JOIN memories m ON m.tenant_id = %(t)s AND m.id = %(id)s""",
        {"t": tenant_id, "id": memory_id},
    ).fetchall()
    if rows:
        erasing.refuse(rows[0], rows[0]["user_id"])
    found = get_many(conn, tenant_id, [r["id"] for r in rows])
    # By where each stands in its key's history (validity.stands); a statement about the past ends where it
    # starts, and sorts before what was current then.
    return sorted(found.values(), key=lambda m: (validity.stands_at(m), m["valid_to"] or "~", m["created_at"], m["id"]))


def _scope(tenant_id: str, user_id: str, agent_id: str | None, filters: SearchFilters,
           include_inactive: bool, alias: str = "") -> tuple[str, dict[str, Any]]:
    """The scope's WHERE clause over memories (as `alias`, if given) and its named parameters."""
    col = f"{alias}." if alias else ""
    clauses = [f"{col}tenant_id = %(scope_tenant)s", f"{col}user_id = %(scope_user)s"]
    params: dict[str, Any] = {"scope_tenant": tenant_id, "scope_user": user_id}
    if filters.as_of is not None:
        # what held then, whether it holds now or not (validity.py)
        clauses.append(validity.held(alias or "memories", "scope_as_of"))
        params["scope_as_of"] = filters.as_of
    elif not include_inactive:
        clauses.append(f"{col}active")
    if agent_id is not None:
        clauses.append(f"{col}agent_id = %(scope_agent)s")
        params["scope_agent"] = agent_id
    if filters.memory_type is not None:
        clauses.append(f"{col}memory_type = %(scope_memory_type)s")
        params["scope_memory_type"] = filters.memory_type
    if filters.session_id is not None:
        clauses.append(f"{col}session_id = %(scope_session)s")
        params["scope_session"] = filters.session_id
    if filters.subject is not None:
        clauses.append(f"lower({col}subject) = lower(%(scope_subject)s)")
        params["scope_subject"] = filters.subject
    if filters.metadata:
        # The client's metadata, sent with a message or its turn, holds for what was drawn from them
        # as a memory's own does (POST /v1/memories's, memex's `decision` or `extractor`): a turn's
        # {"category": "travel"} filters the facts of that turn. One primary-key probe each.
        row = alias or "memories"
        clauses.append(f"""({row}.metadata @> %(scope_metadata)s
            OR EXISTS (SELECT 1 FROM messages fm WHERE fm.tenant_id = {row}.tenant_id
                       AND fm.id = {row}.source_message_id AND fm.metadata @> %(scope_metadata)s)
            OR EXISTS (SELECT 1 FROM turns ft WHERE ft.tenant_id = {row}.tenant_id
                       AND ft.id = {row}.source_turn_id AND ft.metadata @> %(scope_metadata)s))""")
        params["scope_metadata"] = Jsonb(filters.metadata)
    return " AND ".join(clauses), params


def _vectored_scope(tenant_id: str, user_id: str, agent_id: str | None, filters: SearchFilters,
                    include_inactive: bool) -> tuple[str, dict[str, Any]]:
    """`_scope` of the vector channel: its memories with a vector. A message stored while the embedder
    failed has none yet (migration 0040), and its NULL similarity would sort first. By embedding_bits,
    NULL exactly when the vector is: the pre-selection reads it from memories_user_bits alone."""
    where, params = _scope(tenant_id, user_id, agent_id, filters, include_inactive)
    return where + " AND embedding_bits IS NOT NULL", params


# Okapi BM25 parameters (the usual defaults); Postgres's own ts_rank has no IDF, which lets
# common words drown the rare ones a question hinges on.
BM25_K1 = 1.2
BM25_B = 0.75
# An occurrence in a memory's context (the line before it) counts for this much of one in its content.
# Index memory_postings_by_tf (migration 0023) orders the postings by it: a change needs a new index.
CONTEXT_TF = 0.5


# A memory's speaker: the name of who said it (an episodic memory's message name), else the
# participant a fact is about; NULL for the user's facts and unnamed messages. With its subject
# ("user", or a participant's name), the speaker cue's columns.
SPEAKER_NAME = "coalesce({m}.metadata->>'name', nullif({m}.subject, 'user'))"  # indexed (0019): ahead
# Whether a memory with a SPEAKER_NAME is the user's own message said under that name (a role-user
# message of the user's, not another participant's, nor the assistant's); indexed with it (0019).
USER_SAID = "({m}.subject = 'user' AND coalesce({m}.metadata->>'role', '') = 'user')"
# The speaker cue's columns: who said it and whom it is about.
SPEAKER = SPEAKER_NAME + " AS speaker, {m}.subject AS subject"
# Where a memory was said: the turn and the message it came from (a fact's, those it was drawn
# from), and whether it is the message itself or a fact, read with the speaker's columns
# (Found.turn_id, Found.message_id, Found.memory_type).
SAID = SPEAKER + ", {m}.source_turn_id AS turn_id, {m}.source_message_id AS message_id, {m}.memory_type"


@dataclass(frozen=True)
class Size:
    """What the vector statement's path turns on, read before it is built: the user's memories
    (active, all: memory_stats, migration 0005, per user whatever the scope's agent or filters, as
    the statement itself reads it) and whether they have an HNSW index of their own."""

    active_docs: int
    docs: int
    listed: bool


@dataclass(frozen=True)
class Ahead:
    """What a search learns of its user before its first round, in one query: the participants'
    names (None: more than asked), the names the user is called by that no one else is (`user_names`:
    the value of the user's current `name` fact, the names the user's own messages are said under
    and the names the caller knows the user by (`also_called`: the user's id when it reads as a name,
    retrieval/named.a_name);
    none when the participants are more than asked, as another might bear one of them), the
    user's `Size`; and two things a later round trip would find nothing without, which a search
    then does not make: whether any of the user's facts has stopped being current (`replaced`:
    without one, no message's fact is stale, history.send_replacements), and whether the user has
    any news of a key (`news`: a statement that ended a key's value, or a key taken back by a fact
    under another, history.send_ended)."""

    names: list[str] | None
    size: Size
    user_names: list[str] = field(default_factory=list)
    replaced: bool = True
    news: bool = True


def ahead(conn: psycopg.Connection, tenant_id: str, user_id: str, most: int, also_called: Sequence[str] = ()) -> Ahead:
    """`send_ahead`'s Ahead, in a round trip of its own."""
    return send_ahead(conn, tenant_id, user_id, most, also_called)()


def send_ahead(conn: psycopg.Connection, tenant_id: str, user_id: str, most: int,
               also_called: Sequence[str] = ()) -> Callable[[], Ahead]:
    """Sent now and read by calling what it returns: in a pipeline, after its sync, so that it shares
    a round trip with the statements sent beside it (search.read_now). The distinct names the user's
    memories are said by or about (SPEAKER), whichever memories they are (inactive, another
    agent's), each with whether the user's own messages are said under it (USER_SAID); the user's
    current name; the user's Size. The names: a skip scan of index
    memories_user_speaker_kinds, one probe per name and kind, whatever the number of memories; the
    name: one probe of memories_user_current_semantic."""
    name, own = SPEAKER_NAME.format(m="m"), USER_SAID.format(m="m")
    scope = "m.tenant_id = %(scope_tenant)s AND m.user_id = %(scope_user)s"
    cursor = conn.execute(
        f"""WITH RECURSIVE kinds AS (
                (SELECT {name} AS name, {own} AS own FROM memories m
                 WHERE {scope} AND {name} IS NOT NULL
                 ORDER BY {name}, {own} LIMIT 1)
                UNION ALL
                SELECT following.name, following.own FROM kinds, LATERAL (
                    SELECT {name} AS name, {own} AS own FROM memories m
                    WHERE {scope} AND {name} IS NOT NULL AND ({name}, {own}) > (kinds.name, kinds.own)
                    ORDER BY {name}, {own} LIMIT 1) following
            ), found AS MATERIALIZED (SELECT name, own FROM kinds LIMIT %(limit)s)
            SELECT coalesce((SELECT array_agg(name ORDER BY name, own) FROM found), '{{}}') AS names,
                   coalesce((SELECT array_agg(own ORDER BY name, own) FROM found), '{{}}') AS own,
                   coalesce((SELECT array_agg(m.value) FROM memories m
                             WHERE {scope} AND m.active AND m.memory_type = 'semantic' AND m.subject = 'user'
                               AND m.key = 'name' AND m.value IS NOT NULL), '{{}}') AS named,
                   coalesce(s.active_docs, 0) AS active_docs, coalesce(s.docs, 0) AS docs,
                   {vector_indexes.LISTED} AS listed,
                   -- one descent of index memories_user_replaced_facts, whatever the number of
                   -- inactive messages (a consolidation ends them by the hundred)
                   EXISTS (SELECT 1 FROM memories m WHERE {scope} AND NOT m.active
                                                      AND m.memory_type = 'semantic') AS replaced,
                   -- one probe each: indexes memories_user_ended_facts, keys_taken_back_user
                   EXISTS (SELECT 1 FROM memories m WHERE {scope} AND m.memory_type = 'semantic'
                                                      AND m.metadata->>'decision' = 'end')
                   OR EXISTS (SELECT 1 FROM keys_taken_back x WHERE x.tenant_id = %(scope_tenant)s
                                                                AND x.user_id = %(scope_user)s) AS news
            FROM (SELECT 1) one
            LEFT JOIN memory_stats s ON s.tenant_id = %(scope_tenant)s AND s.user_id = %(scope_user)s""",
        # a name has two kinds at most: 2 (most + 1) rows tell whether there are more than `most` names
        {"scope_tenant": tenant_id, "scope_user": user_id, "limit": 2 * (most + 1)})

    def read() -> Ahead:
        row = cursor.fetchone()
        size = Size(row["active_docs"], row["docs"], row["listed"])
        names = list(dict.fromkeys(row["names"]))
        if len(names) > most:
            return Ahead(None, size, replaced=row["replaced"], news=row["news"])
        others = {n.casefold() for n, user_said in zip(row["names"], row["own"]) if not user_said}
        called = [n for n, user_said in zip(row["names"], row["own"]) if user_said] + list(row["named"]) \
            + list(also_called)
        user_names = {n.strip().casefold(): n.strip() for n in called if n.strip()}
        return Ahead(names, size, sorted(n for key, n in user_names.items() if key not in others),
                     row["replaced"], row["news"])
    return read


class Found(NamedTuple):
    """What scoring and the offline expansion need of a ranked memory, read with its ranking so
    that neither costs another round trip. A named tuple, not a frozen dataclass: as immutable,
    and built in a third of the time (a search builds hundreds)."""

    valid_from: datetime
    importance: float
    content: str
    # Who said it or whom it is about, by name (None: the user, unnamed); see SPEAKER.
    speaker: str | None = None
    subject: str = "user"
    # The turn and message it was said in or drawn from (None: written directly); see SAID.
    turn_id: str | None = None
    message_id: str | None = None
    memory_type: str = "semantic"
    # The key it is filed under, read by the ranking of the kinds of fact a question names only
    # (topic_statement: the kinds' order goes by key); None elsewhere.
    key: str | None = None


def _found(row: dict[str, Any]) -> Found:
    return Found(row["valid_from"], float(row["importance"]), row["content"], row["speaker"], row["subject"],
                 row["turn_id"], row["message_id"], row["memory_type"], row.get("key"))


def message_last(memory_type: str) -> bool:
    """The tie-break between equal scores: a message (episodic) after a fact."""
    return memory_type == "episodic"


@dataclass
class Ranking:
    """One channel's answer: (id, score) best first, what each found memory holds, how many
    memories the user holds (active, or all; the keyword channel reads it, 0 where unknown), and
    the best ones as their rows' JSON text, when the statement was asked for them (`with_memories`;
    `wire` turns one into the wire form).
    The keyword channel also says each query term's document frequency (`terms`) and, per memory,
    the terms it matched and those its content says word for word (`matched`), and each of the
    query's words as written with the term it stems to (`words`): the floor's signals."""

    ranked: list[tuple[str, float]]
    found: dict[str, Found]
    scope_size: int = 0
    memories: dict[str, str] = field(default_factory=dict)
    terms: dict[str, int] = field(default_factory=dict)
    matched: dict[str, tuple[frozenset[str], frozenset[str]]] = field(default_factory=dict)
    words: dict[str, str] = field(default_factory=dict)


class Statement:
    """A ranking query to send now and read later: several go in one pipeline, one round trip,
    and Postgres works on them while the caller does something else (embeds the query)."""

    def __init__(self, sql: str, params: dict[str, Any], score: str, before: tuple[str, dict[str, Any]] | None = None):
        self._sql, self._params, self._score, self._before = sql, params, score, before
        self._cursor: psycopg.Cursor | None = None

    def with_memories(self, tenant_id: str, best: int) -> Statement:
        """Also read the `best` first memories whole, as `get_many` would: a search that returns
        them then needs no round trip of its own to fetch them."""
        self._sql = _with_memories(self._sql, self._score, "%(memories_best)s")
        self._params = {**self._params, "memories_tenant": tenant_id, "memories_best": best}
        return self

    def send(self, conn: psycopg.Connection) -> None:
        """Send the query; in pipeline mode its answer is read after the pipeline's sync."""
        if self._before is not None:
            conn.execute(*self._before)
        sql, names = _numbered(self._sql)
        # tuples, not the connection's dicts: a search reads ~400 ranked rows, and a dict a row was
        # a quarter of reading them (docs/measurements/performance.md)
        self._cursor = psycopg.RawCursor(conn, row_factory=tuple_row).execute(
            sql, [self._params[name] for name in names])

    def result(self) -> Ranking:
        return _ranking(self._cursor.fetchall(), _places(self._cursor), self._score)

    def results(self) -> list[Ranking]:
        """The rankings of the queries the statement was made for, in their order (here one)."""
        return [self.result()]

    def explain(self, conn: psycopg.Connection, options: str = "") -> str:
        """The plan Postgres makes of the statement, with its values and its settings (which
        index a walk reads: bench/scale checks the per-user indexes' with it); `options` as
        EXPLAIN takes them ("ANALYZE, FORMAT JSON": what it did, tests/test_term_stats.py)."""
        with conn.transaction(), conn.cursor(row_factory=tuple_row) as cur:
            if self._before is not None:
                cur.execute(*self._before)
            explain = f"EXPLAIN ({options}) " if options else "EXPLAIN "
            # FORMAT JSON's one row comes back parsed
            return "\n".join(row[0] if isinstance(row[0], str) else json.dumps(row[0])
                             for row in cur.execute(explain + self._sql, self._params).fetchall())

    def run(self, conn: psycopg.Connection) -> Ranking:
        """Send and read in one go, in one pipeline: what it sends before its sync runs in one
        implicit transaction, which holds the settings that go before the statement."""
        with conn.pipeline():
            self.send(conn)
        return self.result()


_PLACEHOLDER = re.compile(r"%\((\w+)\)s|%%")


@lru_cache(maxsize=128)
def _numbered(sql: str) -> tuple[str, tuple[str, ...]]:
    """`sql` with Postgres's own placeholders ($1, $2, ... one per name, as psycopg numbers them)
    and the names in their order. psycopg parses a statement's placeholders at every execution
    when its text is longer than it caches (4 KB); a ranking's is 6-9 KB: 60-90 us a statement
    parsed, 4-5 us numbered here, about four such statements a search (docs/measurements/
    performance.md). The texts hold placeholders, never values: one per scope's shape."""
    names: dict[str, str] = {}

    def placeholder(match: re.Match) -> str:
        if match.group(1) is None:
            return "%"
        return names.setdefault(match.group(1), f"${len(names) + 1}")

    return _PLACEHOLDER.sub(placeholder, sql), tuple(names)


def _with_memories(sql: str, score: str, best: str) -> str:
    """`sql`'s ranking with its `best` (an SQL expression) first memories read whole (Statement.with_memories)."""
    return f"""WITH ranking AS ({sql})
            SELECT ranking.*, CASE WHEN w.id IS NOT NULL THEN to_jsonb(w)::text END AS memory
            FROM (SELECT *, row_number() OVER (ORDER BY {score} DESC NULLS LAST, id) AS position
                  FROM ranking) ranking
            -- the position inside a subquery kept whole (OFFSET 0), not in ON, which the planner
            -- would check after the join: read only the best, not every row ranked
            LEFT JOIN LATERAL ({_SELECT} WHERE m.tenant_id = %(memories_tenant)s AND m.id = ranking.id
                                         AND ranking.position <= {best} OFFSET 0) w ON true
            ORDER BY ranking.position"""


def _places(cursor: psycopg.Cursor) -> dict[str, int]:
    """Each column of the cursor's rows by name, its place in a row."""
    return {column.name: i for i, column in enumerate(cursor.description)}


_FOUND = ("valid_from", "importance", "content", "speaker", "subject", "turn_id", "message_id", "memory_type")


def _ranking(rows: list[tuple], at: dict[str, int], score: str) -> Ranking:
    """A ranking statement's rows (tuples, each column at its place `at`) as its Ranking."""
    # Equal scores are common: a fact and the message it was drawn from ("I think Python is great."
    # and "The user thinks Python is great." are embedded alike), two lines that match the same
    # words and are as long (BM25 gives "I live in Leeds and I work at Acme." and "I moved to
    # Manchester and I work at Globex now." the same score for "work"). The fact first, then the
    # later said, not whichever random id sorts first: what was said last is the likelier to hold.
    # Two facts of one message tie on both ("The user's partner is named Sam." and "The user's
    # partner Sam is a nurse." for "Sam"): then their text, an arbitrary order but the same for every
    # user told the same history.
    item, scored, kind, said, content = at["id"], at[score], at["memory_type"], at["valid_from"], at["content"]
    hits = sorted((r for r in rows if r[item] is not None),
                  key=lambda r: (-r[scored], message_last(r[kind]), -r[said].timestamp(), r[content]))
    found = itemgetter(*(at[name] for name in _FOUND + (("key",) if "key" in at else ())))
    first = rows[0] if rows else None
    # the query's terms and words are on the statement's first row, not on the best hit as sorted
    # here (a tie at the top puts a fact before the message the statement put first)
    words = first[at["words"]] if first and "words" in at else None
    memory = at.get("memory")
    return Ranking(
        [(r[item], r[scored]) for r in hits],
        {r[item]: Found(*found(r)) for r in hits},
        first[at["n"]] if first and "n" in at else 0,
        {r[item]: r[memory] for r in hits if r[memory] is not None} if memory is not None else {},
        {term: int(df) for term, df in (first[at["terms"]] or {}).items()} if first and "terms" in at else {},
        _matched(hits, at, words or ()),
        {word: term for word, term in words or ()},
    )


def _matched(hits: list[tuple], at: dict[str, int],
             words: Sequence[Sequence[str]]) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """id -> (terms the memory matched, those its content says as the query writes them), for
    the keyword channel's rows (columns at their places `at`); `words` pairs each query word
    with its term, both folded as the keyword channel reads text. Read here from the content the ranking returns anyway (a few microseconds a
    memory); Postgres parsing each candidate again cost milliseconds per search."""
    if not hits or "matched" not in at:
        return {}
    item, content, terms = at["id"], at["content"], at["matched"]
    # a content's Korean stems only for a question with a Korean word, the one kind they can hold
    stemmed = any(folding.hangul(word) for word, _ in words)
    found = {}
    for r in hits:
        matched, lowered = frozenset(r[terms]), folding.fold(r[content][:INDEXED_CHARACTERS], stemmed=stemmed).lower()
        # a word the content does not hold at all (its term matched in another form) needs no more
        found[r[item]] = matched, frozenset(term for word, term in words
                                            if term in matched and word in lowered and _said(word, lowered))
    return found


def _said(word: str, text: str) -> bool:
    r"""Whether `text` says `word` as `\bword\b` would find it (a Han or Kana character is a word wherever
    it stands: folding.APART), found as a substring and its ends read, not compiled into a pattern: re's
    cache is process-wide and keyed by a pattern's text, and would keep the words of an erased user's
    questions until 512 others pushed them out."""
    if folding.APART.fullmatch(word):
        return word in text
    return any(literal.boundary(text, at) and literal.boundary(text, at + len(word))
               for at in literal.places(text, word))


# The characters of a memory's content its keyword column reads (migration 0004); only these are
# folded to find a word said: a memory of 300,000 CJK characters folded whole took 45 ms, this 5.
INDEXED_CHARACTERS = 65536


def wire(text: str) -> dict[str, Any]:
    """A memory read whole with a ranking (`Ranking.memories`), as the wire shows it. Parsed only
    for the memories a search returns: a ranking reads its best top_k whole, and the question's
    three or four rankings mostly read the same ones, of which only top_k are returned (parsing
    them all was 8-10% of a LoCoMo search's Python CPU: docs/measurements/performance.md)."""
    row = json.loads(text)
    return to_wire({**row, **{key: datetime.fromisoformat(row[key]) if row[key] else None
                              for key in ("valid_from", "holds_from", "valid_to", "created_at")}})


def _keyword_sql(where: str, include_inactive: bool, query: str, max_postings: str, limit: str) -> str:
    """keyword_statement's SQL over the scope `where`; the query text, the cap and the limit are SQL
    expressions: parameters for one query, a row's columns for several (keyword_statements)."""
    prefix = "" if include_inactive else "active_"
    tf = f"(p.occurrences + {CONTEXT_TF}::float8 * p.context_occurrences)"
    common = f"SELECT lexeme FROM df WHERE NOT (rarity = 1 OR cost <= {max_postings})"  # over the cap
    return f"""WITH terms AS (
                -- read as content_tsv reads the memories (migration 0027)
                SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', memex_text({query})))
            ), words AS (
                -- the query's words as written (lower case, folded), each with the term it stems to
                SELECT DISTINCT w.lexeme AS word, e.lexeme
                FROM unnest(to_tsvector('simple', memex_text({query}))) w, unnest(to_tsvector('english', w.lexeme)) e
            ), stats AS (
                SELECT {prefix}docs AS docs, {prefix}docs::float8 AS n,
                       greatest({prefix}length::float8 / greatest({prefix}docs, 1), 1) AS avgdl
                FROM memory_stats WHERE tenant_id = %(tenant)s AND user_id = %(user)s
            ), df AS MATERIALIZED (
                SELECT s.lexeme, s.{prefix}df::float8 AS df,
                       row_number() OVER w AS rarity, sum(s.df) OVER w AS cost
                -- each term's statistics read by its key (OFFSET 0 keeps that order: see candidates)
                FROM terms t CROSS JOIN LATERAL (
                    SELECT s.* FROM memory_terms s
                    WHERE s.tenant_id = %(tenant)s AND s.user_id = %(user)s AND s.lexeme = t.lexeme OFFSET 0) s
                WHERE s.{prefix}df > 0
                WINDOW w AS (ORDER BY s.df, s.lexeme)
            ), generating AS MATERIALIZED (
                -- each term's postings read by its key (OFFSET 0 keeps that order: see candidates)
                SELECT p.memory_id, p.lexeme, {tf} AS tf, df.rarity
                FROM df CROSS JOIN LATERAL (
                    SELECT p.* FROM memory_postings p
                    WHERE p.tenant_id = %(tenant)s AND p.user_id = %(user)s AND p.lexeme = df.lexeme OFFSET 0) p
                WHERE df.cost <= {max_postings}
                UNION ALL
                -- the rarest term alone over the cap: the memories that use it most, read in that
                -- order from index memory_postings_by_tf (migration 0023) and no further than the cap
                SELECT p.memory_id, p.lexeme, {tf} AS tf, df.rarity
                FROM df CROSS JOIN LATERAL (
                    SELECT p.* FROM memory_postings p
                    WHERE p.tenant_id = %(tenant)s AND p.user_id = %(user)s AND p.lexeme = df.lexeme
                    ORDER BY p.occurrences + {CONTEXT_TF}::float8 * p.context_occurrences DESC, p.memory_id
                    LIMIT {max_postings}) p
                WHERE df.rarity = 1 AND df.cost > {max_postings}
            ), candidates AS MATERIALIZED (
                -- Each memory generated read by its primary key, with the terms that generated it,
                -- rarest first (the order its term scores were summed in before this statement read by
                -- key: a float sum in another order can differ in its last bits and turn a tie). Every read here goes by key, in an order OFFSET 0 fixes, and no
                -- two CTEs (which have no index) are joined: a planner whose statistics predate
                -- the user's rows counts one row for them, and walked all the user's postings per
                -- term, the user's memories per candidate and the candidates per posting, 1.6 s
                -- for 700 candidates (docs/measurements/performance.md, sixteenth stop).
                SELECT m.id, length(m.content_tsv)::float8 AS dl, m.content_tsv, g.lexemes, g.tfs
                FROM (SELECT memory_id, array_agg(lexeme ORDER BY rarity) AS lexemes,
                             array_agg(tf ORDER BY rarity) AS tfs
                      FROM generating GROUP BY memory_id) g
                CROSS JOIN LATERAL (SELECT * FROM memories m
                                    WHERE m.tenant_id = %(tenant)s AND m.id = g.memory_id OFFSET 0) m
                WHERE {where}
            ), hits AS (
                SELECT c.id, c.dl, u.lexeme, u.tf FROM candidates c, unnest(c.lexemes, c.tfs) u(lexeme, tf)
                UNION ALL
                -- the common terms, read from the candidates themselves rather than from their postings
                SELECT c.id, c.dl, u.lexeme,
                       (SELECT (count(*) FILTER (WHERE w <> 'D') + {CONTEXT_TF} * count(*) FILTER (WHERE w = 'D'))::float8
                        FROM unnest(u.weights) w)
                FROM candidates c, unnest(c.content_tsv) u
                WHERE EXISTS ({common})
                  -- only the candidates holding one: unnesting every candidate's lexemes to find
                  -- the few that do was a fifth of the statement's time at 100k memories
                  AND tsvector_to_array(c.content_tsv) && ARRAY({common})
                  AND u.lexeme IN ({common})
            )
            -- one row with a null id when nothing matched: the user's size comes back anyway
            SELECT st.docs AS n, ranked.id, ranked.score, c.valid_from, c.importance, c.content, c.speaker, c.subject,
                   c.turn_id, c.message_id, c.memory_type,
                   -- the query's terms and words, on the first row only: each row's copy would be parsed
                   CASE WHEN row_number() OVER (ORDER BY ranked.score DESC, ranked.id) = 1 THEN
                       (SELECT jsonb_object_agg(t.lexeme, coalesce(df.df, 0)) FROM terms t LEFT JOIN df USING (lexeme))
                   END AS terms,
                   CASE WHEN row_number() OVER (ORDER BY ranked.score DESC, ranked.id) = 1 THEN
                       (SELECT jsonb_agg(jsonb_build_array(word, lexeme)) FROM words)
                   END AS words,
                   ranked.matched
            FROM stats st LEFT JOIN LATERAL (
                SELECT h.id, array_agg(h.lexeme) AS matched, sum(
                    ln(1 + (st.n - df.df + 0.5) / (df.df + 0.5))
                    * h.tf * ({BM25_K1} + 1) / (h.tf + {BM25_K1} * (1 - {BM25_B} + {BM25_B} * h.dl / st.avgdl))
                ) AS score
                FROM hits h JOIN df USING (lexeme)
                GROUP BY h.id ORDER BY score DESC, h.id LIMIT {limit}
            ) ranked ON true
            -- the ranked memories' own columns, by key too
            LEFT JOIN LATERAL (SELECT m.valid_from, m.importance, m.content, {SAID.format(m="m")}
                               FROM memories m WHERE m.tenant_id = %(tenant)s AND m.id = ranked.id OFFSET 0) c ON true
            ORDER BY ranked.score DESC, ranked.id"""


def keyword_statement(tenant_id: str, user_id: str, agent_id: str | None, filters: SearchFilters,
                      include_inactive: bool, query: str, limit: int, max_postings: int) -> Statement:
    """The keyword channel: (id, BM25 score) over the scope's memories, best first, and how many
    memories the user holds (active, or all), found or not: BM25 scores grow with it, so a floor
    on them must scale. One statement, whose work is bounded whatever the user's history
    (migration 0005 keeps what it reads):

    - Terms are the query's lexemes under the same text search configuration as content_tsv.
    - Statistics (N, average length, document frequencies) are the user's: over the active
      memories, or over all of them with `include_inactive`. Filters (agent, type, session,
      metadata) narrow the candidates, not the statistics: a word is as rare as it is in the
      user's whole history.
    - Candidates come from the user's postings of the rarest terms, taken rarest first while
      their postings add up to at most `max_postings`. A word most memories share would make
      thousands of candidates that score almost nothing for it; it still scores every candidate
      the rarer terms found. When even the rarest term is in more memories than that, the
      candidates are the `max_postings` of them that use it most: a query made only of common
      words costs no more than one with a rare word (at 100,000 memories such a query read
      every memory holding its rarest word, the keyword channel's tail: bench/scale).
    - Scores are Okapi BM25 over every query term, with dl = length(content_tsv).
    - For the relevance floor, the answer also says each query term's document frequency (0 for
      a word the user never used) and, per memory, which terms it matched and which of them its
      content says word for word: "Noted" matches the query "notes" only through the stem.
    """
    where, params = _scope(tenant_id, user_id, agent_id, filters, include_inactive, alias="m")
    sql = _keyword_sql(where, include_inactive, "%(query)s", "%(max_postings)s", "%(limit)s")
    return Statement(sql, {"query": query, "tenant": tenant_id, "user": user_id, "max_postings": max_postings,
                           "limit": limit, **params}, "score")


class _Folded(Statement):
    """Several queries' rankings in one statement, each row tagged with its query's position."""

    def __init__(self, sql: str, params: dict[str, Any], score: str, count: int,
                 before: tuple[str, dict[str, Any]] | None = None):
        super().__init__(sql, params, score, before)
        self._count = count

    def results(self) -> list[Ranking]:
        rows: list[list[tuple]] = [[] for _ in range(self._count)]
        at = _places(self._cursor)
        query = at["query_index"]
        for row in self._cursor.fetchall():
            rows[row[query] - 1].append(row)
        return [_ranking(group, at, self._score) for group in rows]


def keyword_statements(tenant_id: str, user_id: str, agent_id: str | None, filters: SearchFilters,
                       include_inactive: bool, queries: Sequence[tuple[str, int, int, int]]) -> Statement:
    """The keyword channel of each (query, limit, max_postings, best) as `keyword_statement` ranks
    it, read with its `best` first memories whole when best > 0 (`Statement.with_memories`); the
    answer's `results()` in the order of `queries`. Several queries go as one statement, a LATERAL
    over their list: Postgres plans the long statement once, not once per query (12-15% less
    backend CPU for a LoCoMo search's second round of three queries: README, Under load)."""
    if len(queries) == 1:
        [(query, limit, max_postings, best)] = queries
        statement = keyword_statement(tenant_id, user_id, agent_id, filters, include_inactive, query, limit,
                                      max_postings)
        return statement.with_memories(tenant_id, best) if best > 0 else statement
    where, params = _scope(tenant_id, user_id, agent_id, filters, include_inactive, alias="m")
    ranking = _with_memories(_keyword_sql(where, include_inactive, "q.query", "q.max_postings", "q.lim"),
                             "score", "q.best")
    sql = f"""SELECT q.i AS query_index, r.*
              FROM unnest(%(queries)s::text[], %(limits)s::int[], %(caps)s::int[], %(bests)s::int[])
                   WITH ORDINALITY AS q(query, lim, max_postings, best, i)
              CROSS JOIN LATERAL ({ranking}) r
              ORDER BY q.i, r.position"""
    return _Folded(sql, {"queries": [q[0] for q in queries], "limits": [q[1] for q in queries],
                         "caps": [q[2] for q in queries], "bests": [q[3] for q in queries],
                         "tenant": tenant_id, "user": user_id, "memories_tenant": tenant_id, **params},
                   "score", len(queries))


def keyword_ranked(conn: psycopg.Connection, tenant_id: str, user_id: str, agent_id: str | None,
                   filters: SearchFilters, include_inactive: bool, query: str,
                   limit: int, max_postings: int) -> tuple[list[tuple[str, float]], int]:
    """`keyword_statement` run at once: (id, BM25 score) best first, and the user's size."""
    ranking = keyword_statement(tenant_id, user_id, agent_id, filters, include_inactive, query, limit,
                                max_postings).run(conn)
    return ranking.ranked, ranking.scope_size


def topic_statement(tenant_id: str, user_id: str, agent_id: str | None, filters: SearchFilters,
                    include_inactive: bool, keys: str, limit: int) -> Statement:
    """The scope's facts filed under a key that matches the regular expression `keys` (the kinds of
    fact a question names: retrieval/topics.py), the most important first, then the latest, each
    read whole, with its key; a fact's score is minus its place (-1 the first), as nothing else orders them.
    The user's distinct keys are matched (a skip scan of index memories_user_key_order, migration
    0048: one probe a key), then each matching key's first `limit` facts read in that index's order:
    the first `limit` of all are among them. The keys matched on every keyed fact's row read all of
    those rows, whichever kinds were named (17,400 heap pages at a 100k-memory user:
    docs/measurements/performance.md). An agent's scope holds here the facts that replaced one of
    its own too, whichever agent heard them (history.replaces_heard): what the question asks of a
    kind, the user's current fact answers."""
    where, params = _scope(tenant_id, user_id, None, filters, include_inactive, alias="m")
    if agent_id is not None:
        successor = history.replaces_heard("m", "scope_tenant", "scope_user", "scope_agent",
                                           "scope_as_of" if filters.as_of is not None else None)
        where += f" AND (m.agent_id = %(scope_agent)s OR {successor})"
        params["scope_agent"] = agent_id
    sql = f"""WITH RECURSIVE {history.user_keys("m.tenant_id = %(scope_tenant)s AND m.user_id = %(scope_user)s")}
            SELECT m.id, m.valid_from, m.importance, m.content, {SAID.format(m='m')}, m.key,
                   -(row_number() OVER (ORDER BY m.importance DESC, m.valid_from DESC, m.id))::float8 AS place
            FROM keys k CROSS JOIN LATERAL (
                SELECT * FROM memories m
                WHERE {where} AND m.key = k.key AND m.memory_type <> 'episodic'
                ORDER BY m.importance DESC, m.valid_from DESC, m.id LIMIT %(topic_limit)s) m
            WHERE k.key ~ %(topic_keys)s
            ORDER BY place DESC LIMIT %(topic_limit)s"""
    return Statement(sql, {**params, "topic_keys": keys, "topic_limit": limit}, "place") \
        .with_memories(tenant_id, limit)


# What a vector ranking reads of each memory it ranks (Found), besides its similarity.
_VECTOR_COLUMNS = f"id, valid_from, importance, content, {SAID.format(m='memories')}"


def vector_statement(tenant_id: str, user_id: str, agent_id: str | None, filters: SearchFilters,
                     include_inactive: bool, embedding: np.ndarray, limit: int,
                     walk_above: int | None, ef_search: int, preselect: int = 0,
                     preselect_above: int = 0, own_ef_search: int | None = None,
                     size: Size | None = None) -> Statement:
    """The vector channel: (id, cosine similarity) over the scope's memories, best first.

    By the user's size in scope (active memories, or all, from the statistics of migration 0005):
    - at most `walk_above` (any size when None, an older pgvector): ranked exactly. Past
      `preselect_above` (with `preselect` > 0) only the `preselect` memories nearest by Hamming
      distance between binary-quantised vectors are ranked: they come from an index-only scan of
      memories_user_bits (migration 0010, ~100 bytes a memory), and only their full vectors are
      read from the heap. Up to it, every vector of the scope is read: the planner reads the user's
      rows through their b-tree and keeps the best in a top-N sort.
    - above `walk_above`: through the HNSW index with iterative scan (pgvector >= 0.8), walked
      until the tenant and user filter is satisfied: a walk filtered afterwards can return fewer
      rows than asked when the nearest neighbours belong to other users; `ef_search`, the walk's
      candidate list, sets its recall.
    - with `own_ef_search` (and `walk_above` given), a user listed in user_vector_indexes whatever
      their size, when nothing but `active` narrows the scope: through the user's own partial HNSW
      index (db/vector_indexes.py), the same walk but over the user's memories alone, so that it
      skips no other user's nodes. The planner picks it because the statement's parameters are
      bound as values (no prepared statements), which imply the index's predicate. A narrower scope
      keeps the paths above: a walk filtered by a session or a type may starve. `own_ef_search`
      is that walk's candidate list.
    Unless `size` is given, the statement chooses its path itself (the branches not taken are
    never executed), so the user's size costs no round trip of its own. With the `size` a search
    read ahead (`ahead`), it holds only the path that size calls for: the same rows, but Postgres
    plans one branch, not three (planning was most of the statement's CPU: docs/measurements/
    performance.md). The pre-selection of a scope narrowed by nothing but `active` then sorts
    only the rows within a bound (`_bounded_preselection`): the same candidates.
    """
    where, params = _vectored_scope(tenant_id, user_id, agent_id, filters, include_inactive)
    args = {"vector": np.asarray(embedding, dtype=np.float32), "limit": limit, **params}
    picked = "id, valid_from, importance, content, speaker, subject, turn_id, message_id, memory_type"
    exact = f"""SELECT {_VECTOR_COLUMNS}, 1 - (embedding <=> %(vector)s) AS similarity FROM memories
                WHERE {where} {{gate}}
                -- ordered by similarity, which the HNSW index cannot give: never a walk that may starve
                ORDER BY similarity DESC, id LIMIT %(limit)s"""
    if walk_above is None and not preselect:
        return Statement(exact.format(gate=""), args, "similarity")
    # the PRESELECT nearest by Hamming distance between the sign bits, re-ranked by cosine
    preselected = f"""SELECT {_VECTOR_COLUMNS}, 1 - (embedding <=> %(vector)s) AS similarity FROM memories
                      WHERE tenant_id = %(scope_tenant)s AND id IN (
                          SELECT id FROM memories WHERE {where} {{gate}}
                          ORDER BY embedding_bits <~> binary_quantize(%(vector)s::vector), id
                          LIMIT %(preselect)s)
                      ORDER BY similarity DESC, id LIMIT %(limit)s"""
    nearest = f"""SELECT {picked}, 1 - distance AS similarity FROM (
                      SELECT {_VECTOR_COLUMNS}, embedding <=> %(vector)s AS distance FROM memories
                      WHERE {where} {{gate}}
                      ORDER BY embedding <=> %(vector)s LIMIT %(limit)s) nearest"""
    args["preselect"] = max(preselect, limit)
    unfiltered = agent_id is None and filters == SearchFilters()
    if size is not None:
        path = _path(size, include_inactive, unfiltered, walk_above, preselect, preselect_above, own_ef_search)
        if path in ("own", "walk"):
            # the walk's order is relaxed (iterative scan): not quite by distance
            sql = nearest.format(gate="") + " ORDER BY similarity DESC, id"
        elif path == "bounded":
            sql = _bounded_preselection(_VECTOR_COLUMNS, where)
            args.update(_bound_args(size, include_inactive, args["preselect"]))
        elif path == "preselected":
            sql = preselected.format(gate="")
        else:
            sql = exact.format(gate="")
        return Statement(sql, args, "similarity",
                         before=_walk_settings("%(ef)s", {"ef": str(own_ef_search if path == "own" else ef_search)}))
    counted = (f"coalesce((SELECT {'docs' if include_inactive else 'active_docs'} FROM memory_stats "
               "WHERE tenant_id = %(scope_tenant)s AND user_id = %(scope_user)s), 0)")
    own = (vector_indexes.LISTED if own_ef_search is not None and walk_above is not None and unfiltered
           else "false")
    walked = "" if walk_above is None else f"AND {counted} <= %(walk_above)s AND NOT {own}"
    if preselect:
        branches = [exact.format(gate=f"AND {counted} <= %(preselect_above)s {walked}"),
                    preselected.format(gate=f"AND {counted} > %(preselect_above)s {walked}")]
        args["preselect_above"] = preselect_above
    else:
        branches = [exact.format(gate=walked)]
    if walk_above is not None:
        branches.append(nearest.format(gate=f"AND ({counted} > %(walk_above)s OR {own})"))
        args["walk_above"] = walk_above
    sql = " UNION ALL ".join(f"({branch})" for branch in branches) + " ORDER BY similarity DESC, id"
    return Statement(sql, args, "similarity", before=_walk_settings(
        f"CASE WHEN {own} THEN %(own_ef)s ELSE %(ef)s END",
        {"ef": str(ef_search), "own_ef": str(own_ef_search or ef_search), **params}))


def _path(size: Size, include_inactive: bool, unfiltered: bool, walk_above: int | None, preselect: int,
          preselect_above: int, own_ef_search: int | None) -> str:
    """The one path the user's size read ahead calls for (vector_statement): "own" (their own
    index), "walk", "bounded" (the pre-selection of a whole scope), "preselected" or "exact"."""
    scoped = size.docs if include_inactive else size.active_docs
    if size.listed and own_ef_search is not None and walk_above is not None and unfiltered:
        return "own"
    if walk_above is not None and scoped > walk_above:
        return "walk"
    if preselect and scoped > preselect_above:
        return "bounded" if unfiltered else "preselected"
    return "exact"


def vector_statements(tenant_id: str, user_id: str, agent_id: str | None, filters: SearchFilters,
                      include_inactive: bool, embeddings: Sequence[np.ndarray], limit: int,
                      walk_above: int | None, ef_search: int, preselect: int, preselect_above: int,
                      own_ef_search: int | None, size: Size | None, best: int) -> Statement | _Several:
    """The vector channel of each embedding as `vector_statement` ranks it, each read with its
    `best` first memories whole when best > 0; `results()` in the order of `embeddings`. When the
    size read ahead calls for the bounded pre-selection, several embeddings (a question in the
    user's voice and as asked) go as one statement that scans the user's quantised vectors once
    (`_bounded_preselections`): the same rankings as the statements one by one, which scanned
    them once each (the 100k user's p95 tail: docs/measurements/performance.md)."""
    unfiltered = agent_id is None and filters == SearchFilters()
    if len(embeddings) > 1 and size is not None and _path(
            size, include_inactive, unfiltered, walk_above, preselect, preselect_above, own_ef_search) == "bounded":
        where, params = _vectored_scope(tenant_id, user_id, agent_id, filters, include_inactive)
        args = {**{f"vector_{i}": np.asarray(embedding, dtype=np.float32) for i, embedding in enumerate(embeddings)},
                "limit": limit, "preselect": max(preselect, limit), "memories_tenant": tenant_id,
                "memories_best": best, **params}
        args.update(_bound_args(size, include_inactive, args["preselect"]))
        return _Folded(_bounded_preselections(_VECTOR_COLUMNS, where, len(embeddings)), args, "similarity", len(embeddings),
                       before=_walk_settings("%(ef)s", {"ef": str(ef_search)}))
    statements = [vector_statement(tenant_id, user_id, agent_id, filters, include_inactive, embedding, limit,
                                   walk_above, ef_search, preselect, preselect_above, own_ef_search, size)
                  for embedding in embeddings]
    if best > 0:
        statements = [statement.with_memories(tenant_id, best) for statement in statements]
    return statements[0] if len(statements) == 1 else _Several(statements)


class _Several:
    """Statements sent one after the other in the same pipeline, read as one."""

    def __init__(self, statements: list[Statement]):
        self._statements = statements

    def send(self, conn: psycopg.Connection) -> None:
        for statement in self._statements:
            statement.send(conn)

    def results(self) -> list[Ranking]:
        return [statement.result() for statement in self._statements]


# The pre-selection's Hamming bound (_bounded_preselection): the BOUND_RANK-th smallest distance of
# a sample sized so that about BOUND_MARGIN times the pre-selection's candidates fall within it. With
# 80 the sample's estimate of that share varies by about a ninth, so fewer than the candidates
# asked for (the one case that costs the whole scan again) is many deviations away.
BOUND_RANK = 80
BOUND_MARGIN = 2.5


def _bound_sample(scoped: int, candidates: int) -> int:
    """How many of the user's quantised vectors the bound is estimated from."""
    return max(BOUND_RANK, math.ceil(scoped * BOUND_RANK / (BOUND_MARGIN * candidates)))


def _bound_args(size: Size, include_inactive: bool, candidates: int) -> dict[str, int]:
    scoped = size.docs if include_inactive else size.active_docs
    return {"bound_sample": _bound_sample(scoped, candidates), "bound_rank": BOUND_RANK}


def _bounded_preselection(columns: str, where: str) -> str:
    """The pre-selection of a whole scope (no filter but `active`) as `vector_statement` ranks it,
    the same candidates, with less sorting: the top-N sort of the `preselect` nearest by Hamming
    distance took every one of the user's rows (a third of the statement at 100,000 memories:
    docs/measurements/performance.md). Here only those within a bound go to the sort: the
    distance that a small sample of the user's vectors (the first `bound_sample` the index gives)
    puts about BOUND_MARGIN times the candidates under. When at least `preselect` rows are within
    it, the nearest `preselect` all are, and they are the candidates, ties ordered by id as
    before; when fewer (the sample misjudged), the whole scan runs again unbounded. Either way
    the same ranking."""
    return f"WITH {_bounded_picks(where, ['vector'])}\n{_bounded_ranking(columns, 'vector', 0)}"


def _bounded_preselections(columns: str, where: str, count: int) -> str:
    """`_bounded_preselection` of `count` vectors (vector_0, ...) in one statement, each row
    tagged with its vector's position from 1: one scan of the user's quantised vectors computes
    every vector's Hamming distance and keeps the rows within any vector's bound (a few thousand);
    each vector's candidates are its own nearest among those within its own bound, or, when fewer
    than the candidates are, its own whole scan again. The bounds come from one sample. So each
    ranking is the one its own statement gives (one scan computing the distances for two sorts of
    every row over a materialised CTE cost 1.23x the two scans: the record)."""
    rankings = [f"""(SELECT {i + 1} AS query_index, r.* FROM ({_with_memories(
                    _bounded_ranking(columns, f'vector_{i}', i), 'similarity', '%(memories_best)s')}) r)"""
                for i in range(count)]
    return (f"WITH {_bounded_picks(where, [f'vector_{i}' for i in range(count)])}\n"
            + " UNION ALL ".join(rankings) + " ORDER BY query_index, position")


def _bounded_picks(where: str, vectors: list[str]) -> str:
    """The CTEs of the bounded pre-selection of each of `vectors` (parameter names): picked0, ...
    hold each one's candidates. One sample sets every bound, one scan computes every distance."""
    distance = [f"embedding_bits <~> binary_quantize(%({vector})s::vector)" for vector in vectors]
    distances = ", ".join(f"{d} AS d{i}" for i, d in enumerate(distance))
    within = [f"d{i} <= (SELECT b{i} FROM bound)" for i in range(len(vectors))]
    ctes = [f"sample AS MATERIALIZED (SELECT {distances} FROM memories WHERE {where} LIMIT %(bound_sample)s)",
            "bound AS MATERIALIZED (SELECT " + ", ".join(
                f"(SELECT d{i} FROM sample ORDER BY d{i} OFFSET %(bound_rank)s - 1 LIMIT 1) AS b{i}"
                for i in range(len(vectors))) + ")",
            # the distances computed once a row (OFFSET 0 keeps the subquery whole), then compared
            f"""within_any AS MATERIALIZED (
                    SELECT * FROM (SELECT id, {distances} FROM memories WHERE {where} OFFSET 0) d
                    WHERE {" OR ".join(within)})"""]
    for i, d in enumerate(distance):
        ctes += [f"""near{i} AS MATERIALIZED (
                         SELECT id FROM within_any WHERE {within[i]} ORDER BY d{i}, id LIMIT %(preselect)s)""",
                 f"""picked{i} AS (
                         SELECT id FROM near{i} WHERE (SELECT count(*) FROM near{i}) >= %(preselect)s
                         UNION ALL
                         (SELECT id FROM memories WHERE {where} AND (SELECT count(*) FROM near{i}) < %(preselect)s
                          ORDER BY {d}, id LIMIT %(preselect)s))"""]
    return ",\n".join(ctes)


def _bounded_ranking(columns: str, vector: str, index: int) -> str:
    """The cosine ranking of the candidates `_bounded_picks` put in picked{index}."""
    return f"""SELECT {columns}, 1 - (embedding <=> %({vector})s) AS similarity FROM memories
               WHERE tenant_id = %(scope_tenant)s AND id IN (SELECT id FROM picked{index})
               ORDER BY similarity DESC, id LIMIT %(limit)s"""


def _walk_settings(ef_search: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """What the vector statement runs before it, `ef_search` an SQL expression over `args`. The
    settings hold only within the transaction the statement runs in (the pipeline's implicit one,
    up to its sync: Statement.run, search.py). No parallel workers: the planner would start them
    for the exact branch of a large user even though its gate keeps it from running (~30 ms
    measured at 100k memories), and two cores have none to spare."""
    return ("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),"
            f" set_config('hnsw.ef_search', {ef_search}, true),"
            " set_config('max_parallel_workers_per_gather', '0', true)", args)


def vector_ranked(conn: psycopg.Connection, tenant_id: str, user_id: str, agent_id: str | None,
                  filters: SearchFilters, include_inactive: bool, embedding: np.ndarray,
                  limit: int, walk_above: int | None, ef_search: int = 200,
                  preselect: int = 0, preselect_above: int = 0,
                  own_ef_search: int | None = None) -> list[tuple[str, float]]:
    """`vector_statement` run at once: (id, cosine similarity) best first."""
    return vector_statement(tenant_id, user_id, agent_id, filters, include_inactive, embedding, limit,
                            walk_above, ef_search, preselect, preselect_above, own_ef_search).run(conn).ranked


def neighbours(conn: psycopg.Connection, tenant_id: str, user_id: str, agent_id: str | None,
               filters: SearchFilters, include_inactive: bool, anchors: Sequence[str],
               reach: int) -> list[tuple[str, str, Found, int]]:
    """(anchor, neighbour, what search needs of it, its position less the anchor's message's: 1 for
    the next line) for the episodic memories of the messages said within `reach` positions of each
    anchor's message (a fact's: its own message too, at 0), in the same turn, and in the scope,
    when no line between them starts a thread of its own: a line its speaker said after their own
    previous one, indexed without it because it stands alone (pipeline.py, memex/standalone.py). An
    episodic memory's dedupe key names its message, so each lookup is one index probe."""
    sql, params = neighbours_query(tenant_id, user_id, agent_id, filters, include_inactive, anchors, reach)
    return [(r["anchor"], r["id"], _found(r), r["step"]) for r in conn.execute(sql, params).fetchall()]


def neighbours_query(tenant_id: str, user_id: str, agent_id: str | None, filters: SearchFilters,
                     include_inactive: bool, anchors: Sequence[str], reach: int) -> tuple[str, dict[str, Any]]:
    """neighbours' statement and its parameters (tests/test_search.py explains it)."""
    where, params = _scope(tenant_id, user_id, agent_id, filters, include_inactive, alias="n")
    # Every read goes by key, in an order OFFSET 0 fixes (it keeps a subquery from being pulled
    # up or its conditions from being pushed in): a planner whose statistics predate the user's
    # rows counts one row for them and walked the user's memories through memories_user_bits
    # once per anchor, 2.5-3.0 s for a LoCoMo user's 30 searches against 15-75 ms analysed
    # (docs/measurements/performance.md, sixteenth stop, branches stats and nbr).
    return (
        f"""SELECT a.id AS anchor, n.id, nm.position - am.position AS step, n.valid_from, n.importance, n.content,
                   {SAID.format(m="n")}
            FROM (SELECT DISTINCT id FROM unnest(%(anchors)s::text[]) id) anchor
            CROSS JOIN LATERAL (SELECT * FROM memories a
                                WHERE a.tenant_id = %(scope_tenant)s AND a.id = anchor.id OFFSET 0) a
            CROSS JOIN LATERAL (SELECT * FROM messages am
                                WHERE am.tenant_id = a.tenant_id AND am.id = a.source_message_id OFFSET 0) am
            -- a fact's own message is its neighbour too; a message is not its own
            CROSS JOIN LATERAL (SELECT * FROM messages nm
                                WHERE nm.tenant_id = am.tenant_id AND nm.turn_id = am.turn_id
                                  AND nm.position BETWEEN am.position - %(reach)s AND am.position + %(reach)s
                                OFFSET 0) nm
            CROSS JOIN LATERAL (SELECT * FROM memories n
                                WHERE n.tenant_id = nm.tenant_id AND n.dedupe_key = 'message:' || nm.id OFFSET 0) n
            WHERE (nm.id <> am.id OR a.memory_type <> 'episodic') AND {where}
              AND NOT EXISTS (
                  SELECT 1 FROM messages bm
                  CROSS JOIN LATERAL (SELECT * FROM messages pm
                                      WHERE pm.tenant_id = bm.tenant_id AND pm.turn_id = bm.turn_id
                                        AND pm.position = bm.position - 1 OFFSET 0) pm
                  CROSS JOIN LATERAL (SELECT * FROM memories b
                                      WHERE b.tenant_id = bm.tenant_id AND b.dedupe_key = 'message:' || bm.id
                                      OFFSET 0) b
                  WHERE bm.tenant_id = am.tenant_id AND bm.turn_id = am.turn_id
                    AND bm.position > least(am.position, nm.position)
                    AND bm.position <= greatest(am.position, nm.position)
                    AND b.context IS NULL AND bm.role = pm.role AND bm.name IS NOT DISTINCT FROM pm.name
                  -- a subplan per pair, its positions in messages_turn's key, not an anti join
                  OFFSET 0)
            ORDER BY a.id, abs(nm.position - am.position), nm.position""",
        {**params, "anchors": list(anchors), "reach": reach})


def pgvector_supports_iterative_scan(conn: psycopg.Connection) -> bool:
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    major, minor = (int(part) for part in row["extversion"].split(".")[:2])
    return (major, minor) >= (0, 8)


def participants(conn: psycopg.Connection, tenant_id: str, user_id: str) -> list[str]:
    """Every participant the user's current semantic memories are about: their subjects other than
    the user. A skip scan of memories_user_current_semantic (subject is its third column), one probe
    per subject, whatever the number of memories: a cap would leave whoever sorts after it
    unplaced."""
    scope = "tenant_id = %(t)s AND user_id = %(u)s AND active AND memory_type = 'semantic'"
    rows = conn.execute(
        f"""WITH RECURSIVE subjects AS (
                (SELECT subject FROM memories WHERE {scope} ORDER BY subject LIMIT 1)
                UNION ALL
                SELECT following.subject FROM subjects, LATERAL (
                    SELECT subject FROM memories WHERE {scope} AND subject > subjects.subject
                    ORDER BY subject LIMIT 1) following
            )
            SELECT subject FROM subjects WHERE subject <> 'user'""",
        {"t": tenant_id, "u": user_id}).fetchall()
    return [r["subject"] for r in rows]


def related_active(conn: psycopg.Connection, tenant_id: str, user_id: str, keys: list[str], embedding: np.ndarray,
                   min_similarity: float, limit: int, subject: str = "user") -> list[dict[str, Any]]:
    """The user's active semantic memories about `subject` (the user, or a participant) a candidate
    may contradict: under one of `keys`, or a value close in meaning under another key; those under
    `keys` first, then by distance. Another subject's memories are never among them: Melanie's new
    job does not replace the user's. Callers
    that write what they decide hold the user's lock (db/locks.py), so what is read here cannot
    change before the write.

    It reads memories_user_current_semantic, which holds only the user's current semantic memories,
    always by a plain index scan (current_semantic_memories, migration 0011), which stops visiting a
    superseded fact's row once it has found it gone: the cost follows what the user knows now, not
    how long their history is."""
    vector = np.asarray(embedding, dtype=np.float32)
    rows = conn.execute(
        # Ranked exactly, never through the HNSW index: a filtered index walk may return fewer rows.
        """WITH current AS MATERIALIZED (
               SELECT id, coalesce(key = ANY(%(keys)s), false) AS by_key, embedding <=> %(v)s AS distance
               FROM current_semantic_memories(%(t)s, %(u)s, %(s)s)
           ), near AS (
               SELECT id, by_key, distance FROM current WHERE by_key OR 1 - distance >= %(min)s
               ORDER BY by_key DESC, distance, id LIMIT %(limit)s
           )
        """ + _SELECT + """JOIN near ON near.id = m.id
        -- the ids as an index condition too: without statistics (a new database, a new tenant) the
        -- planner otherwise joins by scanning the tenant's memories, thinking them a handful
        WHERE m.tenant_id = %(t)s AND m.id = ANY(ARRAY(SELECT id FROM near))
        ORDER BY near.by_key DESC, near.distance, m.id""",
        {"t": tenant_id, "u": user_id, "keys": keys, "v": vector, "min": min_similarity, "limit": limit,
         "s": subject},
    ).fetchall()
    return [to_wire(r) for r in rows]


def set_embeddings(conn: psycopg.Connection, tenant_id: str, embedded: list[tuple[dict[str, Any], Any]]) -> None:
    """The memories' new vectors, each beside its row as it was read and embedded (its id and context). Those
    of a user being erased are left as they are (a re-embedding that read them before the erasure began writes
    nothing of theirs), and so is one whose context an erasure took after the read (db/erasure.py): its vector
    would be made from the erased words; the erasure left it without one, for memex/vectorless.py to fill."""
    with conn.cursor() as cur:
        cur.executemany(f"""UPDATE memories SET embedding = %s, vector_failed_at = NULL
                            WHERE tenant_id = %s AND id = %s
                            AND context IS NOT DISTINCT FROM %s AND {erasing.unmarked("memories")}""",
                        [(np.asarray(vector, dtype=np.float32), tenant_id, row["id"], row["context"])
                         for row, vector in embedded])
