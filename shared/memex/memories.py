"""Reading, adding and erasing memories on behalf of a tenant."""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timezone
from typing import Any, NamedTuple

from memex import embedded_text, vectorless
from memex.context import Context
from memex.db import cursors, erasing, erasure, locks
from memex.db import memories as memory_rows
from memex.db import tenants as tenant_rows
from memex.db import vector_indexes
from memex.embeddings import query_cache
from memex.errors import AmbiguousSession, EmbedderUnavailable, NotFound, UserBeingErased
from memex.models import ListOrder, MemoryIn
from memex.transaction_time import TransactionTime


# Unfinished erasures a sweep reads at once: more than a run's time lets it finish.
ERASURES_PER_SWEEP = 100


def add(ctx: Context, tenant_id: str, memory: MemoryIn) -> dict[str, Any]:
    try:
        vector = ctx.embedder.embed([embedded_text.of(memory.content, memory_type=memory.memory_type, subject="user")])[0]
    except Exception as exc:  # noqa: BLE001 - whatever broke, nothing is written and the caller may retry
        raise EmbedderUnavailable.of(exc) from exc
    memory_id = str(uuid.uuid4())
    with ctx.db.transaction() as conn:
        tenant_rows.ensure_tenant(conn, tenant_id)
        erasing.lock_unless_marked(conn, tenant_id, memory.user_id)
        memory_rows.insert(conn, tenant_id, {
            "id": memory_id,
            "user_id": memory.user_id,
            "agent_id": memory.agent_id,
            "session_id": memory.session_id,
            "memory_type": memory.memory_type,
            "type": "note",
            "content": memory.content,
            "importance": memory.importance,
            "embedding": vector,
            "valid_from": datetime.now(timezone.utc),
            "metadata": memory.metadata,
        })
    return get(ctx, tenant_id, memory_id)


def get(ctx: Context, tenant_id: str, memory_id: str) -> dict[str, Any]:
    found = memory_rows.get(ctx.db.connection(), tenant_id, memory_id)  # its user being erased: 409
    if found is None:
        raise NotFound(f"memory {memory_id} not found")
    return found


def history(ctx: Context, tenant_id: str, memory_id: str) -> list[dict[str, Any]]:
    found = memory_rows.chain(ctx.db.connection(), tenant_id, memory_id)  # its user being erased: 409
    if not found:
        raise NotFound(f"memory {memory_id} not found")
    return found


def list_for_user(ctx: Context, tenant_id: str, user_id: str, include_inactive: bool, limit: int,
                  cursor: str | None, agent_id: str | None = None, order: ListOrder = "written") -> dict[str, Any]:
    # The agent and an order but the default join the listing's digest only when given: the
    # default listing's cursors (and those issued before either existed) stay its own, and a
    # cursor of one order, a key of the other's column, is refused by the other. A user being erased:
    # 409, read with the page.
    of = cursors.listing("memories", tenant_id, user_id, include_inactive, *([agent_id] if agent_id else []),
                         *([f"order={order}"] if order != "written" else []))
    items, next_cursor = cursors.page(of, cursor, lambda after: memory_rows.list_for_user(
        ctx.db.connection(), tenant_id, user_id, include_inactive, limit, after, agent_id, order))
    return {"memories": items, "next_cursor": next_cursor}


def count(ctx: Context, tenant_id: str, user_id: str, agent_id: str | None, include_inactive: bool = False) -> int:
    return memory_rows.count(ctx.db.connection(), tenant_id, user_id, agent_id, include_inactive)


def erase_memory(ctx: Context, tenant_id: str, memory_id: str) -> dict[str, int]:
    """Erase a memory with its past (every memory it replaced, directly or through others), never
    what replaced it, which stays current with its chain closed over the gap. A summary's past is
    what it summarises; a memory a summary cites takes the summary with it, and the summary's other
    sources become current again (db/erasure.py)."""
    with ctx.db.transaction() as conn:
        found = memory_rows.get(conn, tenant_id, memory_id)
        if found is None:
            raise NotFound(f"memory {memory_id} not found")
        erasing.lock_unless_marked(conn, tenant_id, found["user_id"])  # the user's erasure takes it
        result = erasure.memories(conn, tenant_id, erasure.past_of(conn, tenant_id, memory_id))
    forget_recent_texts(ctx, tenant_id)
    # Memories whose context was erased lost their vector with it: a new one, after the commit, so that the
    # erasure neither waits for the embedder nor fails with it (memex/vectorless.py).
    vectorless.embed_after_erasure(ctx, result["recontextualised"])
    return {"memories": result["memories"]}


def erase_session(ctx: Context, tenant_id: str, session_id: str, user_id: str) -> dict[str, int]:
    erased = _erase_session(ctx, tenant_id, session_id, user_id)
    forget_recent_texts(ctx, tenant_id)
    return erased


def erase_session_of_its_user(ctx: Context, tenant_id: str, session_id: str) -> dict[str, int]:
    """The session of this id erased for the one user of the tenant who has one (sessions whose id
    names no user, as the memory-service seed's did); AmbiguousSession when several users have one:
    ids like "s" or "chat" are common, and erasing every user's is not what naming one session meant."""
    users = erasure.users_of_session(ctx.db.connection(), tenant_id, session_id)
    if len(users) > 1:
        raise AmbiguousSession.of(session_id, len(users))
    try:
        # The user read above, not whoever has the id by now: a turn a second user sends meanwhile stays.
        return erase_session(ctx, tenant_id, session_id, users[0]) if users else {"turns": 0, "memories": 0}
    except UserBeingErased:
        return {"turns": 0, "memories": 0}  # the session goes with its user, whose erasure has begun


def _erase_session(ctx: Context, tenant_id: str, session_id: str, user_id: str) -> dict[str, int]:
    with ctx.db.transaction() as conn:
        erasing.lock_unless_marked(conn, tenant_id, user_id)  # part of it may be gone: no count to answer
        erased = erasure.session(conn, tenant_id, session_id, user_id)
    vectorless.embed_after_erasure(ctx, erased.pop("recontextualised"))  # as erase_memory's
    return erased


class UserErased(NamedTuple):
    """What a call erased of a user (turns, memories) and whether their erasure finished."""
    counts: dict[str, int]
    finished: bool


def erase_user(ctx: Context, tenant_id: str, user_id: str) -> UserErased:
    """Erase the user within MEMEX_ERASURE_REQUEST_SECONDS (erase_user_rows): `finished` says whether
    it did, or left the rest to a DELETE sent again or to the sweep."""
    erased = erase_user_rows(ctx, tenant_id, user_id, TransactionTime(ctx.settings.erasure_request_seconds, first=True))
    forget_recent_texts(ctx, tenant_id)
    return erased


def erase_user_rows(ctx: Context, tenant_id: str, user_id: str, within: TransactionTime | None = None) -> UserErased:
    """The user's rows and their own vector index, not this process's copies of the tenant's texts
    (forget_recent_texts: once for a tenant's users, not once a user). In transactions of at most
    MEMEX_ERASURE_CHUNK_ROWS rows each (db/erasure.user_chunk), so that no statement of a user with
    years of history passes the statement timeout; the first marks the user as being erased (reads
    and writes naming them get 409 until the last), so a user that fits one transaction is erased
    in one, as before, and no one sees a half-erased user. Transactions begin while `within` allows
    (None: until finished); one that did not finish is finished by calling this again (a DELETE
    sent again, the sweep: finish_erasures)."""
    within = within or TransactionTime()
    erased, finished = {"turns": 0, "memories": 0}, False
    while not finished and within.allows():
        started = time.monotonic()
        with ctx.db.transaction() as conn:
            locks.lock_user(conn, tenant_id, user_id)
            erasure.begin_user(conn, tenant_id, user_id)  # a no-op after the first
            own_index = vector_indexes.unlist(conn, tenant_id, user_id)  # None after the first
            more, finished = erasure.user_chunk(conn, tenant_id, user_id, ctx.settings.erasure_chunk_rows)
        within.took(time.monotonic() - started)
        if own_index is not None:
            # Its predicate names the user: dropped now, not at the index job's next run. Only after
            # the commit, as a concurrent drop runs outside any transaction.
            vector_indexes.drop_after_erasure(ctx.db.connection(), own_index)
        erased = {kind: erased[kind] + more[kind] for kind in erased}
    return UserErased(erased, finished)


def finish_erasures(ctx: Context, seconds: float) -> int:
    """Go on with the user erasures a request began and left unfinished (the sweep), oldest first,
    beginning no transaction that would end past `seconds` (TransactionTime); returns how many it finished."""
    within, done = TransactionTime(seconds), 0
    for row in erasure.erasures_begun(ctx.db.connection(), ERASURES_PER_SWEEP):
        if not within.allows():
            break
        if erase_user_rows(ctx, row["tenant_id"], row["user_id"], within).finished:
            forget_recent_texts(ctx, row["tenant_id"])
            done += 1
    return done


def forget_recent_texts(ctx: Context, tenant_id: str) -> None:
    """What this process keeps of the tenant's recent texts (the write path's vectors, the query
    cache), keyed by the texts themselves, goes with an erasure: the erased words are not kept in
    memory. Other processes drop theirs within MEMEX_RECENT_TEXTS_MAX_AGE_SECONDS (recent.py)."""
    # Imported here: the search and cleanup functions import this module at their start,
    # and the write path (with extraction and consolidation behind it) is needed only to erase.
    from memex import pipeline

    pipeline.forget_recent(ctx, tenant_id)
    query_cache.forget(ctx.embedder, tenant_id)
