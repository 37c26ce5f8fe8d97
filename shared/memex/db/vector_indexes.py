"""Per-user HNSW indexes: a partial index over one large user's memories, listed in
user_vector_indexes (migration 0012), which the vector statement walks instead of the shared index
(db/memories.py). The shared index's walk, filtered by user, visits every other user's nodes on
its way and reads their heap pages to reject them; a user's own index holds only that user's.

Built and dropped CONCURRENTLY, so writers of memories are never blocked: that cannot run inside
a transaction, hence on a connection of its own in autocommit. Index names are a hash of the
user, so the catalog's names carry no id and two users' never collide; the ids are in the
predicate, as quoted literals.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import tuple_row

log = logging.getLogger(__name__)

PREFIX = "memories_user_vectors_"
# The vector statement's test for "this user has an index of their own" (its scope's parameters).
LISTED = ("EXISTS (SELECT 1 FROM user_vector_indexes "
          "WHERE tenant_id = %(scope_tenant)s AND user_id = %(scope_user)s)")
# One maintenance run at a time (an arbitrary constant, like the migrations' lock): a second run
# would otherwise take the first one's index, still being built and not yet listed, for a leftover.
_LOCK_ID = 7_316_002


@dataclass(frozen=True)
class Listed:
    tenant_id: str
    user_id: str
    index_name: str


def _rows(conn: psycopg.Connection, query: str, params: Any = None) -> list[tuple]:
    """Rows as tuples, whatever the connection's row factory (erasure's has dicts)."""
    with conn.cursor(row_factory=tuple_row) as cur:
        return cur.execute(query, params).fetchall()


def index_name(tenant_id: str, user_id: str) -> str:
    digest = hashlib.sha256(json.dumps([tenant_id, user_id]).encode()).hexdigest()[:40]
    return PREFIX + digest  # 62 characters: under Postgres's 63


def try_lock(conn: psycopg.Connection) -> bool:
    """The maintenance lock, for this session; False if another holds it."""
    return bool(_rows(conn, "SELECT pg_try_advisory_lock(%s)", (_LOCK_ID,))[0][0])


def unlock(conn: psycopg.Connection) -> None:
    """Give the maintenance lock back. Closing the session would too, but the server ends a session
    after its client has gone: a run that starts right after another could still find it held."""
    _rows(conn, "SELECT pg_advisory_unlock(%s)", (_LOCK_ID,))


def to_build(conn: psycopg.Connection, min_memories: int, tenant_id: str | None = None) -> list[tuple[str, str]]:
    """(tenant, user) of the users (of every tenant, or of one) with at least `min_memories`
    active memories and no index yet, largest first."""
    rows = _rows(
        conn, """SELECT s.tenant_id, s.user_id FROM memory_stats s
           WHERE s.active_docs >= %(min)s AND (s.tenant_id = %(tenant)s OR %(tenant)s IS NULL) AND NOT EXISTS (
               SELECT 1 FROM user_vector_indexes r WHERE r.tenant_id = s.tenant_id AND r.user_id = s.user_id)
           ORDER BY s.active_docs DESC, s.tenant_id, s.user_id""", {"min": min_memories, "tenant": tenant_id})
    return [(r[0], r[1]) for r in rows]


def to_drop(conn: psycopg.Connection, keep_from: int, tenant_id: str | None = None) -> list[Listed]:
    """The listed users (of every tenant, or of one) now under `keep_from` active memories (or
    with none left)."""
    rows = _rows(
        conn, """SELECT r.tenant_id, r.user_id, r.index_name FROM user_vector_indexes r
           LEFT JOIN memory_stats s ON s.tenant_id = r.tenant_id AND s.user_id = r.user_id
           WHERE coalesce(s.active_docs, 0) < %(keep)s AND (r.tenant_id = %(tenant)s OR %(tenant)s IS NULL)
           ORDER BY r.tenant_id, r.user_id""", {"keep": keep_from, "tenant": tenant_id})
    return [Listed(*r) for r in rows]


def leftovers(conn: psycopg.Connection) -> list[str]:
    """Per-user indexes listed nowhere: a build that failed half way (an invalid index) or a drop
    that did not happen (erasure unlists first, then drops)."""
    rows = _rows(
        conn, r"""SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
            WHERE x.indrelid = 'memories'::regclass AND i.relname LIKE 'memories\_user\_vectors\_%'
              AND NOT EXISTS (SELECT 1 FROM user_vector_indexes r WHERE r.index_name = i.relname)
            ORDER BY i.relname""")
    return [r[0] for r in rows]


def build(conn: psycopg.Connection, tenant_id: str, user_id: str) -> None:
    """Build the user's index (on an autocommit connection, CONCURRENTLY) and list it: listed only
    once it is valid, so no search walks an index still being built."""
    name = index_name(tenant_id, user_id)
    conn.execute(sql.SQL(
        "CREATE INDEX CONCURRENTLY {} ON memories USING hnsw (embedding vector_cosine_ops) "
        "WHERE tenant_id = {} AND user_id = {}").format(sql.Identifier(name), sql.Literal(tenant_id),
                                                        sql.Literal(user_id)))
    relist(conn, tenant_id, user_id)


def relist(conn: psycopg.Connection, tenant_id: str, user_id: str) -> None:
    """List the user's built index (again: bench/scale searches a user with it and without)."""
    name = index_name(tenant_id, user_id)
    conn.execute(
        """INSERT INTO user_vector_indexes (tenant_id, user_id, index_name, memories)
           SELECT %(t)s, %(u)s, %(name)s, coalesce((SELECT active_docs FROM memory_stats
                                                    WHERE tenant_id = %(t)s AND user_id = %(u)s), 0)
           ON CONFLICT DO NOTHING""", {"t": tenant_id, "u": user_id, "name": name})


def unlist(conn: psycopg.Connection, tenant_id: str, user_id: str) -> str | None:
    """Take the user off the list (searches stop walking the index at once); the index to drop."""
    rows = _rows(conn, "DELETE FROM user_vector_indexes WHERE tenant_id = %s AND user_id = %s RETURNING index_name",
                 (tenant_id, user_id))
    return rows[0][0] if rows else None


def drop(conn: psycopg.Connection, name: str) -> None:
    """Drop an unlisted index, CONCURRENTLY (autocommit connection)."""
    conn.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(name)))


def drop_after_erasure(conn: psycopg.Connection, name: str) -> None:
    """`drop`, for an erasure that has already committed: a failure (a lock wait past the
    statement timeout) leaves the index, unlisted and empty of live rows, to the index job's
    sweep of leftovers rather than failing the erasure."""
    try:
        drop(conn, name)
    except psycopg.Error as error:
        log.warning("a user's vector index was left to the next index job: %s", type(error).__name__)


def size_bytes(conn: psycopg.Connection, name: str) -> int:
    return int(_rows(conn, "SELECT pg_relation_size(%s::regclass)", (name,))[0][0])
