"""The two ways the vector channel ranks a user's memories agree: the HNSW walk with iterative
scan (pgvector >= 0.8, the embedded default) and the exact ranking kept for older servers."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from memex.db import memories as memory_rows
from memex.models import SearchFilters
from tests.conftest import api_client, database_of_its_own

OWN = [
    "I hike the ridge trail above the lake most Saturdays.",
    "My sister lives in Lisbon and teaches chemistry.",
    "The best hike I ever did was the lake loop in autumn.",
    "I am allergic to peanuts.",
    "We adopted a grey cat called Miso last spring.",
    "I work as a nurse on night shifts.",
    "My favourite food is ramen with a soft egg.",
    "I am learning to play the cello.",
    "The trail by the lake gets muddy after rain.",
    "I drive an old blue Volvo.",
    "My brother plays bass in a jazz trio.",
    "I take the train to work on Mondays.",
]
QUERIES = ["hiking trails near the lake", "family members", "what pets do I have", "music"]


@pytest.fixture(scope="module")
def ctx(ctx):
    """The session's context on a database of its own. The walks here are forced on a user of 12
    memories, and an HNSW walk is approximate: over the whole suite's shared index (tens of
    thousands of vectors by the time this file runs, many of them erased or replaced, most nearer a
    query than the user's farthest memory) it stopped a memory or two short in CI, even with
    pgvector's scan budget raised. Here the index holds only this file's vectors, so the paths are
    compared, not how the rest of the suite left the graph. A user who walks in service has more
    than vector_exact_max (100,000) memories, a large share of what the walk reads."""
    with database_of_its_own(ctx, "vector_paths") as own:
        yield own


@pytest.fixture(scope="module")
def http(ctx):
    with api_client(ctx) as client:
        yield client


@pytest.fixture
def scoped(tenant, ctx):
    """The tenant's user with OWN, and another user of the same tenant whose memories are all
    nearer the first query than any of OWN: an HNSW walk filtered afterwards would starve."""
    for content in OWN:
        assert tenant.post("/v1/memories", {"user_id": tenant.user, "content": content}).status_code == 201
    for i in range(60):
        body = {"user_id": f"{tenant.user}-other", "content": f"Hiking trails near the lake, route {i}."}
        assert tenant.post("/v1/memories", body).status_code == 201
    return tenant


def _ranked(ctx, tenant, query: str, walk_above: int | None, limit: int = 10) -> list[tuple[str, float]]:
    """walk_above 0: through the HNSW index (the user's 12 memories are more than none); None:
    the exact ranking, the only path for a pgvector without iterative scan."""
    conn = ctx.db.connection()
    embedding = ctx.embedder.embed([query])[0]
    with conn.transaction():
        # Without these the planner sorts a table this small instead of walking the HNSW index.
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_sort = off")
        return memory_rows.vector_ranked(conn, tenant.id, tenant.user, None, SearchFilters(), False,
                                         embedding, limit, walk_above)


def test_the_embedded_pgvector_scans_iteratively(ctx):
    assert memory_rows.pgvector_supports_iterative_scan(ctx.db.connection())


@pytest.mark.parametrize("query", QUERIES)
def test_iterative_and_exact_paths_rank_alike(ctx, scoped, query):
    # All of the user's memories asked for: the walk is approximate, and over the whole suite's
    # index a walk asked for 10 of 12 may stop at another 10th; asked for all, it must find them all.
    iterative = _ranked(ctx, scoped, query, walk_above=0, limit=len(OWN))
    exact = _ranked(ctx, scoped, query, walk_above=None, limit=len(OWN))
    assert len(exact) == len(OWN)
    # the exact path ranks the user's memories by cosine similarity, all of them considered
    vectors = ctx.embedder.embed([query, *OWN])
    by_content = {content: float(vectors[0] @ v) for content, v in zip(OWN, vectors[1:])}
    contents = {r["id"]: r["content"] for r in ctx.db.connection().execute(
        "SELECT id, content FROM memories WHERE tenant_id = %s AND user_id = %s", (scoped.id, scoped.user))}
    assert [contents[item] for item, _ in exact] == sorted(by_content, key=by_content.get, reverse=True)
    assert [score for _, score in exact] == pytest.approx(
        [by_content[contents[item]] for item, _ in exact], abs=1e-5)
    assert [item for item, _ in iterative] == [item for item, _ in exact]
    assert [score for _, score in iterative] == pytest.approx([score for _, score in exact], abs=1e-6)


def _embedding_index_scans(conn) -> int:
    """Scans of the HNSW index so far, this session's included: its pending statistics are
    flushed when it goes idle after the first statement."""
    conn.execute("SELECT pg_stat_force_next_flush()")
    conn.execute("SELECT pg_stat_clear_snapshot()")
    return conn.execute("SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = 'memories_embedding'"
                        ).fetchone()["idx_scan"]


@pytest.mark.parametrize("exact_max, walks_index", [(1_000_000, False), (len(OWN) - 1, True)])
def test_search_walks_the_index_only_past_the_exact_threshold(ctx, scoped, exact_max, walks_index):
    """The scope's size comes from the user's statistics: 12 memories are ranked exactly under a
    threshold of 12 or more, through the HNSW index under a smaller one; both rank alike."""
    from dataclasses import replace

    from memex.models import SearchIn
    from memex.retrieval import search

    request = SearchIn(user_id=scoped.user, query=QUERIES[0], mode="vector", top_k=10)
    exact = search.search(ctx, scoped.id, request)
    chosen = replace(ctx, settings=replace(ctx.settings, vector_exact_max=exact_max))
    conn = ctx.db.connection()
    before = _embedding_index_scans(conn)
    with conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")  # see _ranked
        conn.execute("SET LOCAL enable_sort = off")
        answer = search.search(chosen, scoped.id, request)
    assert (_embedding_index_scans(conn) > before) == walks_index
    assert [r["id"] for r in answer["results"]] == [r["id"] for r in exact["results"]]


@pytest.mark.parametrize("walk_above, walks_index", [(len(OWN), False), (len(OWN) - 1, True)])
def test_the_statement_picks_its_path_from_the_users_statistics(ctx, scoped, walk_above, walks_index):
    """One statement holds both paths and runs only the one the user's size (memory_stats)
    calls for: 12 memories are ranked exactly under a threshold of 12, through the index under 11."""
    conn = ctx.db.connection()
    before = _embedding_index_scans(conn)
    ranked = _ranked(ctx, scoped, QUERIES[1], walk_above)
    assert (_embedding_index_scans(conn) > before) == walks_index
    assert ranked == _ranked(ctx, scoped, QUERIES[1], None)


def test_the_walk_returns_the_depth_asked_for_when_other_users_are_nearer(ctx, scoped):
    """The other user's 60 memories are all nearer the query than any of OWN: the filtered walk
    still finds every one of the user's 12 (iterative scan), at any ef_search."""
    conn = ctx.db.connection()
    embedding = ctx.embedder.embed([QUERIES[0]])[0]
    for ef_search in (10, 200):
        with conn.transaction():
            conn.execute("SET LOCAL enable_seqscan = off")
            conn.execute("SET LOCAL enable_sort = off")
            ranked = memory_rows.vector_ranked(conn, scoped.id, scoped.user, None, SearchFilters(), False,
                                               embedding, 12, 0, ef_search)
        assert len(ranked) == len(OWN)
        # the walk's settings were local to the transaction: the session keeps its own
        settings = conn.execute("SELECT current_setting('hnsw.iterative_scan') AS scan, "
                                "current_setting('hnsw.ef_search') AS ef").fetchone()
        assert (settings["scan"], settings["ef"]) == ("off", "40")
    # the same from a search, whose pipeline has no transaction of its own but its implicit one
    from dataclasses import replace

    from memex.models import SearchIn
    from memex.retrieval import search

    request = SearchIn(user_id=scoped.user, query=QUERIES[0], mode="vector", top_k=12)
    exact = search.search(replace(ctx, settings=replace(ctx.settings, vector_exact_max=10**6)), scoped.id, request)
    walking = replace(ctx, settings=replace(ctx.settings, vector_exact_max=0))
    with conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_sort = off")
        answer = search.search(walking, scoped.id, request)
        walked = "SELECT pg_stat_get_xact_numscans('memories_embedding'::regclass) AS n"
        assert conn.execute(walked).fetchone()["n"] > 0
    assert [r["id"] for r in answer["results"]] == [r["id"] for r in exact["results"]] and exact["results"]
    assert conn.execute("SELECT current_setting('hnsw.iterative_scan') AS scan").fetchone()["scan"] == "off"


def _hamming_nearest(ctx, tenant, query: str, n: int) -> list[str]:
    """The scope's `n` memories nearest the query by Hamming distance between sign bits (what
    pgvector's binary_quantize keeps: 1 for a positive component), ties by id."""
    vector = ctx.embedder.embed([query])[0]
    rows = ctx.db.connection().execute(
        "SELECT id, embedding FROM memories WHERE tenant_id = %s AND user_id = %s AND active",
        (tenant.id, tenant.user)).fetchall()
    distance = {r["id"]: int(np.count_nonzero((r["embedding"].to_numpy() > 0) != (vector > 0))) for r in rows}
    return sorted(distance, key=lambda item: (distance[item], item))[:n]


@pytest.mark.parametrize("query", QUERIES)
def test_a_preselection_as_large_as_the_scope_ranks_exactly(ctx, scoped, query):
    embedding = ctx.embedder.embed([query])[0]
    conn = ctx.db.connection()
    args = (conn, scoped.id, scoped.user, None, SearchFilters(), False, embedding, 10)
    exact = memory_rows.vector_ranked(*args, None)
    for walk_above in (None, len(OWN)):  # alone, and as the statement's branch below the walk
        preselected = memory_rows.vector_ranked(*args, walk_above, preselect=len(OWN))
        assert [item for item, _ in preselected] == [item for item, _ in exact]
        assert [score for _, score in preselected] == pytest.approx([score for _, score in exact], abs=1e-6)


@pytest.mark.parametrize("query", QUERIES)
def test_a_smaller_preselection_reranks_the_nearest_by_hamming_distance(ctx, scoped, query):
    """Five candidates of the twelve: those nearest by Hamming distance between the quantised
    vectors (the stored column agrees with the sign bits of the embedding), ordered by cosine."""
    embedding = ctx.embedder.embed([query])[0]
    conn = ctx.db.connection()
    preselected = memory_rows.vector_ranked(conn, scoped.id, scoped.user, None, SearchFilters(), False,
                                            embedding, 5, None, preselect=5)
    nearest = _hamming_nearest(ctx, scoped, query, 5)
    assert sorted(item for item, _ in preselected) == sorted(nearest)
    assert [score for _, score in preselected] == sorted((score for _, score in preselected), reverse=True)


def _index_only(conn) -> None:
    """A table this small is otherwise read whole, or through the user's b-tree whose heap rows
    (not yet all visible) cost no more to read than the covering index: leave only index-only scans."""
    for method in ("seqscan", "indexscan", "bitmapscan"):
        conn.execute(f"SET LOCAL enable_{method} = off")


def test_the_preselection_reads_the_quantised_vectors_from_their_index(ctx, scoped):
    """The pre-selection ranks the scope by the covering index memories_user_bits (an index-only
    scan once the heap's pages are all visible), not by the full vectors on the heap."""
    embedding = ctx.embedder.embed([QUERIES[0]])[0]
    conn = ctx.db.connection()
    # The heap's pages all visible, as the docstring's index-only scan needs: in the whole suite the
    # table holds every other test's rows too, and with pages not yet vacuumed the planner chose
    # another path (a failure seen once in a full run, never alone).
    conn.execute("VACUUM (ANALYZE) memories")
    scans = "SELECT pg_stat_get_xact_numscans('memories_user_bits'::regclass) AS n"
    with conn.transaction():
        _index_only(conn)
        before = conn.execute(scans).fetchone()["n"]
        memory_rows.vector_ranked(conn, scoped.id, scoped.user, None, SearchFilters(), False,
                                  embedding, 5, None, preselect=5)
        assert conn.execute(scans).fetchone()["n"] > before


def test_the_statement_preselects_only_past_its_threshold(ctx, scoped):
    """The user's 12 memories are ranked from every vector under a threshold of 12, from the
    3 nearest by Hamming distance under 11 (the walk's threshold, 100, above both)."""
    conn = ctx.db.connection()
    differ = 0
    for query in QUERIES:
        embedding = ctx.embedder.embed([query])[0]
        args = (conn, scoped.id, scoped.user, None, SearchFilters(), False, embedding, 3, 100)
        below = memory_rows.vector_ranked(*args, preselect=3, preselect_above=len(OWN))
        past = memory_rows.vector_ranked(*args, preselect=3, preselect_above=len(OWN) - 1)
        assert below == memory_rows.vector_ranked(*args[:-1], None)
        assert sorted(item for item, _ in past) == sorted(_hamming_nearest(ctx, scoped, query, 3))
        differ += [item for item, _ in below] != [item for item, _ in past]
    assert differ  # else this test could not tell the two paths apart


@pytest.mark.parametrize("scope", [(None, SearchFilters(), False), (None, SearchFilters(), True),
                                   ("agent-x", SearchFilters(), False),
                                   (None, SearchFilters(memory_type="semantic"), False)])
def test_the_path_read_ahead_ranks_as_the_statement_that_chooses_it(ctx, scoped, scope):
    """With the user's size read before it (memories.ahead), the vector statement holds only the
    path that size calls for: exact, pre-selected, walked. Each ranks what the statement holding
    all three ranks, with what it reads of each memory, whatever the scope."""
    conn = ctx.db.connection()
    size = memory_rows.ahead(conn, scoped.id, scoped.user, 8).size
    assert size.active_docs == len(OWN)
    # (walk_above, preselect_above): exact; pre-selected (3 of 12); walked
    paths = {"exact": (100, len(OWN)), "preselected": (100, len(OWN) - 1), "walked": (0, 0)}
    rankings = {}
    for query in QUERIES:
        embedding = ctx.embedder.embed([query])[0]
        for path, (walk_above, preselect_above) in paths.items():
            statements = [memory_rows.vector_statement(scoped.id, scoped.user, *scope, embedding, 5, walk_above, 40,
                                                       3, preselect_above, size=known) for known in (None, size)]
            with conn.transaction():
                # Without these the planner sorts a table this small instead of walking the HNSW index.
                conn.execute("SET LOCAL enable_seqscan = off")
                conn.execute("SET LOCAL enable_sort = off")
                chosen, ahead = (statement.run(conn) for statement in statements)
            assert ahead.ranked == chosen.ranked and ahead.found == chosen.found
            rankings[query, path] = chosen.ranked
    # The agent's scope holds none of the memories: its paths are chosen by the user's size all the
    # same (memory_stats, as the statement itself reads it), and find nothing. Elsewhere the paths
    # must differ, else this test could not tell them apart.
    assert scope[0] is not None or any(rankings[q, "exact"] != rankings[q, "preselected"] for q in QUERIES)


@pytest.fixture(params=["loose", "none", "tight"])
def bound(request, monkeypatch):
    """The pre-selection's Hamming bound as its sample sets it: letting every row through ("loose":
    the sample is the whole scope, the bound its farthest row), none (the default sample rank is
    past this user's 12 rows: the whole scan again), or perhaps too few ("tight": the first row's
    distance)."""
    if request.param == "loose":
        monkeypatch.setattr(memory_rows, "BOUND_RANK", len(OWN))
        monkeypatch.setattr(memory_rows, "_bound_sample", lambda scoped, candidates: len(OWN))
    elif request.param == "tight":
        monkeypatch.setattr(memory_rows, "BOUND_RANK", 1)
        monkeypatch.setattr(memory_rows, "_bound_sample", lambda scoped, candidates: 1)
    return request.param


@pytest.mark.parametrize("include_inactive", [False, True])
def test_the_bounded_preselection_ranks_as_the_unbounded_one(ctx, scoped, bound, include_inactive):
    """A search that read the user's size pre-selects only among the rows within a Hamming bound
    estimated from a sample (memories._bounded_preselection): the same ranking as the pre-selection
    of every row (the statement that chooses its path), whatever bound the sample sets."""
    conn = ctx.db.connection()
    size = memory_rows.ahead(conn, scoped.id, scoped.user, 8).size
    for query in QUERIES:
        embedding = ctx.embedder.embed([query])[0]
        unbounded, bounded = (memory_rows.vector_statement(
            scoped.id, scoped.user, None, SearchFilters(), include_inactive, embedding, 5, 100, 40, 3, len(OWN) - 1,
            size=known).run(conn) for known in (None, size))
        assert bounded.ranked == unbounded.ranked and bounded.found == unbounded.found
        assert len(bounded.ranked) == 5  # the pre-selection is at least the depth asked for


@pytest.mark.parametrize("include_inactive", [False, True])
def test_one_scan_for_several_vectors_ranks_as_their_own_statements(ctx, scoped, bound, include_inactive):
    """A question embedded twice (in the user's voice and as asked) has both vectors ranked by one
    statement that scans the user's quantised vectors once (memories._bounded_preselections):
    each ranking, with the memories read whole, is the one its own statement gives, whichever
    bound the sample sets, one vector's bound enough and the other's not."""
    conn = ctx.db.connection()
    size = memory_rows.ahead(conn, scoped.id, scoped.user, 8).size
    scope = (scoped.id, scoped.user, None, SearchFilters(), include_inactive)
    embeddings = ctx.embedder.embed(QUERIES)
    for pair in ([0, 1], [2, 3], [1, 3, 0]):
        together = memory_rows.vector_statements(*scope, [embeddings[i] for i in pair], 5, 100, 40, 3,
                                                 len(OWN) - 1, None, size, 2)
        assert "within_any" in together._sql  # one statement, not one per vector
        with conn.pipeline():
            together.send(conn)
        alone = [memory_rows.vector_statement(*scope, embeddings[i], 5, 100, 40, 3, len(OWN) - 1)
                 .with_memories(scoped.id, 2).run(conn) for i in pair]
        for one, own in zip(together.results(), alone, strict=True):
            assert one.ranked == own.ranked and one.found == own.found and one.memories == own.memories
            assert len(one.ranked) == 5 and len(one.memories) == 2


def test_a_memory_without_its_vector_is_in_no_path_of_the_vector_channel(ctx, scoped):
    """A message stored while the embedder failed has no vector until its job's retry fills it in
    (migration 0040, pipeline._store_episodic). Its similarity is NULL, which sorts first in the exact
    ranking's `ORDER BY similarity DESC`: every path ranks only the memories with a vector, as before it came."""
    conn = ctx.db.connection()
    scope = (scoped.id, scoped.user, None, SearchFilters(), False)
    embeddings = ctx.embedder.embed(QUERIES[:2])
    depth = len(OWN) + 1

    def rankings() -> dict[str, list]:
        size = memory_rows.ahead(conn, scoped.id, scoped.user, 8).size
        with conn.transaction():
            conn.execute("SET LOCAL enable_seqscan = off")  # the walk, on a user this small (_ranked)
            conn.execute("SET LOCAL enable_sort = off")
            walked = memory_rows.vector_ranked(conn, *scope, embeddings[0], depth, 0)
        bounded = memory_rows.vector_statements(*scope, embeddings, depth, 100, 40, depth, 1, None, size, 0)
        with conn.pipeline():
            bounded.send(conn)
        return {"exact": memory_rows.vector_ranked(conn, *scope, embeddings[0], depth, None),
                "preselected": memory_rows.vector_ranked(conn, *scope, embeddings[0], depth, None, preselect=depth),
                "walk": walked, "bounded": [ranking.ranked for ranking in bounded.results()]}

    before = rankings()
    assert len(before["exact"]) == len(OWN)
    with conn.transaction():
        memory_rows.insert(conn, scoped.id, {
            "id": "vectorless", "user_id": scoped.user, "memory_type": "episodic", "type": "message",
            "content": "I hike the ridge trail above the lake.", "embedding": None,
            "valid_from": datetime.now(timezone.utc), "dedupe_key": "message:vectorless"})
    assert rankings() == before
