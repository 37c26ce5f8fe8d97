"""A large user's HNSW index of their own (memex/vector_indexes.py, db/vector_indexes.py): the
scheduled job builds it past the threshold and for no one else, once; searches of that user walk
it and find what the exact ranking finds; erasure and shrinking drop it; another tenant's user of
the same id is not served by it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memex.db import memories as memory_rows
from memex.db import vector_indexes as index_rows
from memex.models import SearchFilters, SearchIn
from memex.retrieval import search
from memex.vector_indexes import maintain
from tests.test_vector_paths import OWN, QUERIES

THRESHOLD = 10  # OWN's 12 memories are past it; 3 are not


def _with_threshold(ctx, threshold: int = THRESHOLD):
    return replace(ctx, settings=replace(ctx.settings, user_vector_index_min=threshold))


def _add(tenant, user: str, contents: list[str]) -> None:
    for content in contents:
        assert tenant.post("/v1/memories", {"user_id": user, "content": content}).status_code == 201


@pytest.fixture
def large(tenant, other_tenant, ctx):
    """The tenant's user with OWN (past the threshold), a small user of the same tenant, and the
    same user id in another tenant with a few memories; the test's indexes dropped afterwards."""
    _add(tenant, tenant.user, OWN)
    _add(tenant, f"{tenant.user}-small", OWN[:3])
    other_tenant.user = tenant.user
    _add(other_tenant, tenant.user, OWN[3:6])
    yield tenant
    for t in (tenant, other_tenant):
        maintain(_with_threshold(ctx, 0), t.id)


def _indexes(ctx) -> dict[str, str]:
    """Per-user indexes on memories: name -> predicate."""
    rows = ctx.db.connection().execute(
        r"""SELECT i.relname AS name, pg_get_expr(x.indpred, x.indrelid) AS predicate
            FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
            WHERE x.indrelid = 'memories'::regclass AND i.relname LIKE 'memories\_user\_vectors\_%'""").fetchall()
    return {r["name"]: r["predicate"] for r in rows}


def _listed(ctx, tenant_id: str) -> list[str]:
    return [r["user_id"] for r in ctx.db.connection().execute(
        "SELECT user_id FROM user_vector_indexes WHERE tenant_id = %s ORDER BY user_id", (tenant_id,))]


def _search(ctx, tenant_id: str, user: str, query: str, **extra) -> tuple[list[str], int]:
    """The ids a vector search returns, and how many scans of the user's own index it made.
    Sorts and sequential scans off: a table this small is otherwise sorted, never walked."""
    conn = ctx.db.connection()
    name = index_rows.index_name(tenant_id, user)
    with conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_sort = off")
        answer = search.search(ctx, tenant_id, SearchIn(user_id=user, query=query, mode="vector", top_k=10, **extra))
        scans = conn.execute("SELECT coalesce(pg_stat_get_xact_numscans(to_regclass(%s)), 0) AS n",
                             (name,)).fetchone()["n"]
    return [r["id"] for r in answer["results"]], scans


def test_the_job_indexes_only_the_users_past_the_threshold_once(ctx, large, other_tenant):
    before = set(_indexes(ctx))
    first = maintain(_with_threshold(ctx), large.id)
    assert (first.built, first.dropped) == (1, 0)
    assert _listed(ctx, large.id) == [large.user]
    name = index_rows.index_name(large.id, large.user)
    new = {n: p for n, p in _indexes(ctx).items() if n not in before}
    assert list(new) == [name]
    # the name is a hash, the ids are in the predicate only, as literals
    assert large.user not in name and large.id not in name and len(name) <= 63
    assert f"'{large.id}'" in new[name] and f"'{large.user}'" in new[name]
    again = maintain(_with_threshold(ctx), large.id)
    assert (again.built, again.dropped) == (0, 0)
    assert [n for n in _indexes(ctx) if n not in before] == [name]
    # the other tenant's user of the same id is under the threshold: no index, not listed
    maintain(_with_threshold(ctx), other_tenant.id)
    assert _listed(ctx, other_tenant.id) == []


@pytest.mark.parametrize("query", QUERIES)
def test_the_users_searches_walk_their_index_and_find_the_same_memories(ctx, large, query):
    # exact: ranked from the user's rows (the threshold is far above 12 memories)
    exact, _ = _search(replace(ctx, settings=replace(ctx.settings, vector_exact_max=10**6)), large.id, large.user, query)
    maintain(_with_threshold(ctx), large.id)
    walked, scans = _search(ctx, large.id, large.user, query)
    assert scans > 0
    assert sorted(walked) == sorted(exact)  # empty for a question the relevance floor turns away
    # the channel's whole ranking: every memory of the user, in the exact order
    vector = ctx.embedder.embed([query])[0]
    conn = ctx.db.connection()
    with conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_sort = off")
        own = memory_rows.vector_ranked(conn, large.id, large.user, None, SearchFilters(), False, vector,
                                        len(OWN), 10**6, 400, own_ef_search=400)
    ranked = memory_rows.vector_ranked(conn, large.id, large.user, None, SearchFilters(), False, vector,
                                       len(OWN), None)
    assert [item for item, _ in own] == [item for item, _ in ranked] and len(ranked) == len(OWN)


def test_a_message_without_its_vector_is_left_out_of_the_users_index_and_its_walk(ctx, large):
    """A message stored while the embedder failed (migration 0040) is in no path of the vector channel
    (tests/test_vector_paths.py); here the one those tests leave out: the user's own index, built
    with the vectorless row among the user's (pgvector indexes no NULL vector), walked."""
    from datetime import datetime, timezone

    conn = ctx.db.connection()
    vector = ctx.embedder.embed([QUERIES[0]])[0]
    exact = memory_rows.vector_ranked(conn, large.id, large.user, None, SearchFilters(), False, vector, len(OWN) + 1, None)
    with conn.transaction():
        memory_rows.insert(conn, large.id, {
            "id": f"{large.user}-vectorless", "user_id": large.user, "memory_type": "episodic", "type": "message",
            "content": OWN[0], "embedding": None, "valid_from": datetime.now(timezone.utc),
            "dedupe_key": f"message:{large.user}-vectorless"})
    assert maintain(_with_threshold(ctx), large.id).built == 1
    with conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_sort = off")
        own = memory_rows.vector_ranked(conn, large.id, large.user, None, SearchFilters(), False, vector,
                                        len(OWN) + 1, 10**6, 400, own_ef_search=400)
        scans = conn.execute("SELECT coalesce(pg_stat_get_xact_numscans(to_regclass(%s)), 0) AS n",
                             (index_rows.index_name(large.id, large.user),)).fetchone()["n"]
    assert scans > 0
    assert [item for item, _ in own] == [item for item, _ in exact] and len(own) == len(OWN)


def test_the_index_serves_no_other_scope(ctx, large, other_tenant):
    maintain(_with_threshold(ctx), large.id)
    mine = {r["id"] for r in ctx.db.connection().execute(
        "SELECT id FROM memories WHERE tenant_id = %s AND user_id = %s", (other_tenant.id, large.user))}
    found, scans = _search(ctx, other_tenant.id, large.user, "what pets do I have")  # Miso is theirs too
    assert scans == 0 and found and set(found) <= mine
    # the same tenant's smaller user
    _, scans = _search(ctx, large.id, f"{large.user}-small", QUERIES[0])
    assert scans == 0
    # a filtered scope of the indexed user keeps the paths a filter cannot starve
    _, scans = _search(ctx, large.id, large.user, QUERIES[0], filters={"memory_type": "episodic"})
    assert scans == 0


def test_the_walk_statement_reads_the_users_index(ctx, large):
    """The planner proves the index's predicate from the statement's bound values (no prepared
    statements): EXPLAIN of the walk names the user's index, not the shared one."""
    maintain(_with_threshold(ctx), large.id)
    vector = ctx.embedder.embed([QUERIES[0]])[0]
    conn = ctx.db.connection()
    size = memory_rows.ahead(conn, large.id, large.user, 8).size
    assert size.listed
    for known in (None, size):  # the statement that chooses its path, and the one with the path read ahead
        statement = memory_rows.vector_statement(large.id, large.user, None, SearchFilters(), False, vector, 10,
                                                 10**6, 400, own_ef_search=400, size=known)
        with conn.transaction():
            conn.execute("SET LOCAL enable_seqscan = off")
            conn.execute("SET LOCAL enable_sort = off")
            plan = statement.explain(conn)
        assert index_rows.index_name(large.id, large.user) in plan and "memories_embedding" not in plan


def test_erasure_drops_the_index(ctx, large):
    maintain(_with_threshold(ctx), large.id)
    name = index_rows.index_name(large.id, large.user)
    assert name in _indexes(ctx)
    assert large.delete(f"/v1/users/{large.user}").status_code == 200
    assert name not in _indexes(ctx) and _listed(ctx, large.id) == []


def test_a_user_far_under_the_threshold_loses_the_index(ctx, large):
    maintain(_with_threshold(ctx), large.id)
    # 12 memories: kept at a threshold of 20 (under half of it: 10), dropped at 30
    assert maintain(_with_threshold(ctx, 20), large.id).dropped == 0
    assert maintain(_with_threshold(ctx, 30), large.id).dropped == 1
    assert index_rows.index_name(large.id, large.user) not in _indexes(ctx)
    assert _listed(ctx, large.id) == []


def test_a_leftover_of_a_failed_build_is_dropped_and_built_again(ctx, large):
    """An index the job built but did not list (it died in between) is taken for a leftover."""
    maintain(_with_threshold(ctx), large.id)
    with ctx.db.transaction() as conn:
        index_rows.unlist(conn, large.id, large.user)
    result = maintain(_with_threshold(ctx), large.id)
    assert (result.built, result.dropped) == (1, 1)
    assert _listed(ctx, large.id) == [large.user]
