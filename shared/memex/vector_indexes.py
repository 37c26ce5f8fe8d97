"""The index job (scheduled, never inside a request): an HNSW index of their own for each user with
at least `user_vector_index_min` active memories, dropped when they fall under half of that
(erasure drops it at once: memories.erase_user), and any leftover of a failed build or drop.

A large user's vector search walks the shared HNSW index filtered by user: it passes over every
other user's nodes and reads their rows to reject them. A partial index over the user's rows
alone is the remedy pgvector documents for filtered search on a few large values (README, Search
at a million memories, for what it changes).
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass

from memex.config import Settings
from memex.context import Context
from memex.db import vector_indexes as rows

log = logging.getLogger(__name__)


@dataclass
class IndexResult:
    built: int = 0
    dropped: int = 0
    build_seconds: float = 0.0
    # another run held the maintenance lock: this one did nothing
    skipped: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


def maintain(ctx: Context, tenant_id: str | None = None) -> IndexResult:
    """Drop what is no longer wanted, then build what is missing, largest users first; every
    tenant's users (the scheduled job) or one tenant's. Idempotent: a user is listed once their
    index is valid; a run that dies half way leaves an unlisted index, which the next run drops
    and builds again."""
    s = ctx.settings
    result = IndexResult()
    with ctx.db.maintenance(maintenance_work_mem=s.user_vector_index_build_memory) as conn:
        if not rows.try_lock(conn):
            result.skipped = True
            return result
        try:
            _drop_and_build(conn, s, tenant_id, result)
        finally:
            if not conn.closed:
                rows.unlock(conn)
    if result.built or result.dropped:
        log.info("user vector indexes: %d built in %.1f s, %d dropped", result.built, result.build_seconds,
                 result.dropped)
    return result


def _drop_and_build(conn, s: Settings, tenant_id: str | None, result: IndexResult) -> None:
    keep_from = s.user_vector_index_min // 2 if s.user_vector_index_min > 0 else 2**62
    for listed in rows.to_drop(conn, keep_from, tenant_id):
        rows.unlist(conn, listed.tenant_id, listed.user_id)
        rows.drop(conn, listed.index_name)
        result.dropped += 1
    for name in rows.leftovers(conn):
        rows.drop(conn, name)
        result.dropped += 1
    if s.user_vector_index_min > 0:
        for tenant, user_id in rows.to_build(conn, s.user_vector_index_min, tenant_id):
            started = time.perf_counter()
            rows.build(conn, tenant, user_id)
            result.build_seconds += time.perf_counter() - started
            result.built += 1
