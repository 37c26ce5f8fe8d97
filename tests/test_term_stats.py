"""The per-user BM25 statistics of migration 0005 stay equal to a recomputation from the memories
themselves, whatever path writes them, and the keyword channel's scores equal a BM25 computed
from scratch here in Python."""

from __future__ import annotations

import json
import math
import random
import threading
import uuid
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg.rows import dict_row

from memex import memories as memory_service
from memex.db import history, locks
from memex.db import memories as memory_rows
from memex.models import MemoryIn, SearchFilters

NO_CAP = 10**9


def _stored(conn, tenant_id: str, user_id: str) -> dict:
    """What the statistics tables say about one user."""
    stats = conn.execute("SELECT docs, length, active_docs, active_length FROM memory_stats "
                         "WHERE tenant_id = %s AND user_id = %s", (tenant_id, user_id)).fetchone()
    terms = conn.execute("SELECT lexeme, df, active_df FROM memory_terms WHERE tenant_id = %s AND user_id = %s",
                         (tenant_id, user_id)).fetchall()
    postings = conn.execute(
        """SELECT lexeme, memory_id, occurrences, context_occurrences FROM memory_postings
           WHERE tenant_id = %s AND user_id = %s""", (tenant_id, user_id)).fetchall()
    return {
        "stats": dict(stats) if stats else None,
        "terms": {r["lexeme"]: (r["df"], r["active_df"]) for r in terms},
        "postings": {(r["lexeme"], r["memory_id"]): (r["occurrences"], r["context_occurrences"]) for r in postings},
    }


def _documents(conn, tenant_id: str, user_id: str) -> dict[str, dict]:
    """id -> {active, terms: lexeme -> [weights]} of the user's memories, read from content_tsv."""
    docs: dict[str, dict] = {}
    for r in conn.execute(
        """SELECT m.id, m.active, u.lexeme, u.weights FROM memories m LEFT JOIN LATERAL unnest(m.content_tsv) u ON true
           WHERE m.tenant_id = %s AND m.user_id = %s""", (tenant_id, user_id)).fetchall():
        doc = docs.setdefault(r["id"], {"active": r["active"], "terms": {}})
        if r["lexeme"] is not None:
            doc["terms"][r["lexeme"]] = list(r["weights"])
    return docs


def _recomputed(conn, tenant_id: str, user_id: str) -> dict:
    docs = _documents(conn, tenant_id, user_id)
    if not docs:
        return {"stats": None, "terms": {}, "postings": {}}
    active = [d for d in docs.values() if d["active"]]
    df, active_df = Counter(), Counter()
    for d in docs.values():
        df.update(d["terms"].keys())
        if d["active"]:
            active_df.update(d["terms"].keys())
    return {
        "stats": {"docs": len(docs), "length": sum(len(d["terms"]) for d in docs.values()),
                  "active_docs": len(active), "active_length": sum(len(d["terms"]) for d in active)},
        "terms": {lexeme: (df[lexeme], active_df[lexeme]) for lexeme in df},
        "postings": {(lexeme, memory_id): (sum(w != "D" for w in weights), sum(w == "D" for w in weights))
                     for memory_id, d in docs.items() for lexeme, weights in d["terms"].items()},
    }


def _assert_consistent(ctx, tenant_id: str, user_id: str) -> dict:
    conn = ctx.db.connection()
    stored = _stored(conn, tenant_id, user_id)
    assert stored == _recomputed(conn, tenant_id, user_id)
    return stored


def _bm25(ctx, tenant_id: str, user_id: str, query: str, include_inactive: bool = False,
          only: set[str] | None = None) -> dict[str, float]:
    """Okapi BM25 of every memory of the user holding a query term, from scratch; `only` keeps
    the scores of these memories (a filtered search), statistics staying the user's."""
    conn = ctx.db.connection()
    terms = {r["lexeme"] for r in conn.execute("SELECT lexeme FROM unnest(to_tsvector('english', %s))",
                                               (query,)).fetchall()}
    docs = {i: d for i, d in _documents(conn, tenant_id, user_id).items() if include_inactive or d["active"]}
    n = len(docs)
    avgdl = max(sum(len(d["terms"]) for d in docs.values()) / n, 1) if n else 1
    df = Counter(lexeme for d in docs.values() for lexeme in d["terms"] if lexeme in terms)
    k1, b = memory_rows.BM25_K1, memory_rows.BM25_B
    scores = {}
    for memory_id, d in docs.items():
        if only is not None and memory_id not in only:
            continue
        score, dl = 0.0, len(d["terms"])
        for lexeme in terms & d["terms"].keys():
            tf = sum(1.0 if w != "D" else memory_rows.CONTEXT_TF for w in d["terms"][lexeme])
            idf = math.log(1 + (n - df[lexeme] + 0.5) / (df[lexeme] + 0.5))
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
        if score:
            scores[memory_id] = score
    return scores


def _keyword(ctx, tenant_id, user_id, query, include_inactive=False, filters=None, max_postings=NO_CAP, limit=500):
    ranked, n = memory_rows.keyword_ranked(ctx.db.connection(), tenant_id, user_id, None, filters or SearchFilters(),
                                           include_inactive, query, limit, max_postings)
    return dict(ranked), n


def _assert_scores(ctx, tenant, query: str, include_inactive: bool = False) -> dict[str, float]:
    got, _ = _keyword(ctx, tenant.id, tenant.user, query, include_inactive)
    expected = _bm25(ctx, tenant.id, tenant.user, query, include_inactive)
    assert expected, query
    assert got.keys() == expected.keys()
    for memory_id, score in expected.items():
        assert got[memory_id] == pytest.approx(score, rel=1e-9)
    return got


def _add(ctx, tenant_id: str, user_id: str, content: str, **extra) -> str:
    return memory_service.add(ctx, tenant_id, MemoryIn(user_id=user_id, content=content, **extra))["id"]


def test_statistics_follow_inserts_supersession_and_reactivation(ctx, tenant):
    tenant.turn("I live in Porto and walk by the river.", session="a", timestamp="2026-01-01T00:00:00Z")
    first = _assert_consistent(ctx, tenant.id, tenant.user)
    assert first["stats"]["docs"] == first["stats"]["active_docs"] > 0
    _assert_scores(ctx, tenant, "where do I live? Porto river")

    tenant.turn("I moved to Lisbon last week.", session="b", timestamp="2026-02-01T00:00:00Z")
    after = _assert_consistent(ctx, tenant.id, tenant.user)
    assert after["stats"]["active_docs"] < after["stats"]["docs"]  # Porto was superseded
    _assert_scores(ctx, tenant, "live Porto Lisbon")
    _assert_scores(ctx, tenant, "live Porto Lisbon", include_inactive=True)

    # erasing the session of the newer memory makes the older one current again
    assert tenant.delete(f"/v1/sessions/b?user_id={tenant.user}").status_code == 200
    again = _assert_consistent(ctx, tenant.id, tenant.user)
    assert again["stats"] == first["stats"] and again["terms"] == first["terms"]
    _assert_scores(ctx, tenant, "live Porto")


def test_statistics_follow_erasure_of_a_memory_and_its_context(ctx, tenant):
    tenant.turn("Did you ever go to Japan?", "Yes, Kyoto in April, the cherry blossoms were unreal.",
                "We should plan another trip soon.")
    _assert_consistent(ctx, tenant.id, tenant.user)
    _assert_scores(ctx, tenant, "Kyoto cherry blossoms trip")
    memories = tenant.get(f"/v1/users/{tenant.user}/memories", params={"limit": 100}).json()["memories"]
    kyoto = next(m for m in memories if m["memory_type"] == "episodic" and "Kyoto" in m["content"])
    # the next message was indexed with this one as its context: erasing it rewrites that one too
    assert tenant.delete(f"/v1/memories/{kyoto['id']}").status_code == 200
    stored = _assert_consistent(ctx, tenant.id, tenant.user)
    assert "kyoto" not in stored["terms"] and not any(lexeme == "kyoto" for lexeme, _ in stored["postings"])
    _assert_scores(ctx, tenant, "plan another trip")


def test_statistics_follow_a_memory_with_an_emoji_and_its_erasure(ctx, tenant):
    """An emoji is a word of the keyword channel (migration 0054): counted as any word, in the memory
    that says it and in the next one indexed with it as its context, and gone with the memory."""
    tenant.turn("Had the best 🍣 tonight!", "Twice 👍🏽", "We should go back soon.")
    stored = _assert_consistent(ctx, tenant.id, tenant.user)
    assert {lexeme for lexeme, _ in stored["postings"]} >= {"emoji1f363", "emoji1f44d"}
    memories = tenant.get(f"/v1/users/{tenant.user}/memories", params={"limit": 100}).json()["memories"]
    for memory in memories:
        if memory["memory_type"] == "episodic" and ("🍣" in memory["content"] or "👍" in memory["content"]):
            assert tenant.delete(f"/v1/memories/{memory['id']}").status_code == 200
    stored = _assert_consistent(ctx, tenant.id, tenant.user)
    assert not any(lexeme.startswith("emoji") for lexeme in stored["terms"]), stored["terms"]
    assert not any(lexeme.startswith("emoji") for lexeme, _ in stored["postings"]), stored["postings"]
    assert tenant.search("🍣", mode="bm25") == [] and tenant.search("👍", mode="bm25") == []


def test_statistics_follow_a_turn_deleted_by_cascade_and_a_user_erased(ctx, tenant):
    tenant.turn("My cat Miso sleeps on the piano.", session="a")
    tenant.turn("I practise the cello every evening.", session="b")
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        turn_id = conn.execute("SELECT id FROM turns WHERE tenant_id = %s AND user_id = %s AND session_id = 'a'",
                               (tenant.id, tenant.user)).fetchone()[0]
        conn.execute("DELETE FROM turns WHERE tenant_id = %s AND id = %s", (tenant.id, turn_id))
    stored = _assert_consistent(ctx, tenant.id, tenant.user)
    assert "miso" not in stored["terms"] and "cello" in stored["terms"]
    _assert_scores(ctx, tenant, "cello evening")

    assert tenant.delete(f"/v1/users/{tenant.user}").status_code == 200
    assert _assert_consistent(ctx, tenant.id, tenant.user) == {"stats": None, "terms": {}, "postings": {}}


def test_statistics_of_a_user_erased_across_transactions_go_whole_with_their_last_rows(ctx, tenant):
    """One row a transaction: the memories deleted while the user is marked leave the statistics as they
    were (no work a memory: migration 0038; nothing reads them, the user's searches get 409), the last
    transaction deletes the user's statistics and postings whole, and another user's sharing every
    word stay equal to a computation from scratch throughout."""
    import dataclasses

    from memex_edge.context import build_context
    from tests.conftest import Tenant, api_client

    built = build_context(dataclasses.replace(ctx.settings, erasure_chunk_rows=1, erasure_request_seconds=1e-9))
    with api_client(built) as client:
        erased = Tenant(ctx, client)
        other = f"k-{uuid.uuid4().hex[:8]}"
        for user in (erased.user, other):
            erased.turn("My cat Miso sleeps on the piano.", session="a", user=user)
            erased.turn("I practise the cello every evening.", session="b", user=user)
        kept = _assert_consistent(ctx, erased.id, other)
        with psycopg.connect(ctx.db.dsn, autocommit=True, row_factory=dict_row) as conn:
            before = _stored(conn, erased.id, erased.user)
        assert erased.delete(f"/v1/users/{erased.user}").status_code == 202  # one memory gone
        with psycopg.connect(ctx.db.dsn, autocommit=True, row_factory=dict_row) as conn:
            marked = _stored(conn, erased.id, erased.user)
        assert (marked["stats"], marked["terms"]) == (before["stats"], before["terms"])
        assert len(marked["postings"]) < len(before["postings"])  # a memory's postings go with it
        assert _assert_consistent(ctx, erased.id, other) == kept
        memory_service.finish_erasures(built, 60)
        with psycopg.connect(ctx.db.dsn, autocommit=True, row_factory=dict_row) as conn:
            assert _stored(conn, erased.id, erased.user) == {"stats": None, "terms": {}, "postings": {}}
        assert _assert_consistent(ctx, erased.id, other) == kept


def test_statistics_go_with_their_tenant(ctx, tenant, other_tenant):
    _add(ctx, tenant.id, tenant.user, "I keep bees on the roof.")
    _add(ctx, other_tenant.id, other_tenant.user, "I keep bees too.")
    before = _assert_consistent(ctx, other_tenant.id, other_tenant.user)
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        conn.execute("DELETE FROM tenants WHERE id = %s", (tenant.id,))
        left = conn.execute("SELECT (SELECT count(*) FROM memory_stats WHERE tenant_id = %(t)s)"
                            " + (SELECT count(*) FROM memory_terms WHERE tenant_id = %(t)s)"
                            " + (SELECT count(*) FROM memory_postings WHERE tenant_id = %(t)s)",
                            {"t": tenant.id}).fetchone()[0]
    assert left == 0
    assert _assert_consistent(ctx, other_tenant.id, other_tenant.user) == before


def test_copy_keeps_the_statistics(ctx, tenant):
    """Bulk loads use COPY; the statement-level triggers see its rows too."""
    rows = [(tenant.id, str(uuid.uuid4()), tenant.user, "episodic", "message", f"line {i} about the garden shed",
             "the line before" if i % 2 else None, np.ones(ctx.settings.embedding_dim, dtype=np.float32),
             datetime.now(timezone.utc)) for i in range(50)]
    conn = ctx.db.connection()
    with conn.transaction():
        conn.execute("INSERT INTO tenants (id) VALUES (%s) ON CONFLICT DO NOTHING", (tenant.id,))
        with conn.cursor().copy("COPY memories (tenant_id, id, user_id, memory_type, type, content, context,"
                                " embedding, valid_from) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    stored = _assert_consistent(ctx, tenant.id, tenant.user)
    assert stored["stats"]["docs"] == 50 and stored["terms"]["garden"] == (50, 50)
    _assert_scores(ctx, tenant, "garden line before")


def test_scores_equal_bm25_from_scratch_and_ignore_other_users(ctx, tenant, other_tenant):
    lines = ["I went hiking near the lake with my sister.", "The lake was frozen in January.",
             "My sister moved to Lisbon for work.", "We cooked ramen after the hike.",
             "Work has been busy; the lake trip helped.", "I bought new hiking boots."]
    for line in lines:
        _add(ctx, tenant.id, tenant.user, line)
    tenant.turn("Did you see the lake?", "Yes, the lake at sunrise, and my sister took photos.")
    query = "hiking the lake with my sister"
    own = _assert_scores(ctx, tenant, query)
    own_stats = _assert_consistent(ctx, tenant.id, tenant.user)

    for i in range(30):  # the same words, elsewhere: another user of the tenant, another tenant
        _add(ctx, tenant.id, f"{tenant.user}-other", f"Lake {i}: hiking with my sister again.")
        _add(ctx, other_tenant.id, tenant.user, f"Lake {i}: hiking with my sister again.")
    assert _keyword(ctx, tenant.id, tenant.user, query)[0] == own
    assert _assert_consistent(ctx, tenant.id, tenant.user) == own_stats


def test_filters_narrow_candidates_not_statistics(ctx, tenant):
    for i in range(5):
        _add(ctx, tenant.id, tenant.user, f"Notes on the lake trail, part {i}.", session_id="walks")
        _add(ctx, tenant.id, tenant.user, f"The office lake view, day {i}.", session_id="work")
    filtered, n = _keyword(ctx, tenant.id, tenant.user, "lake trail", filters=SearchFilters(session_id="walks"))
    walks = {r["id"] for r in ctx.db.connection().execute(
        "SELECT id FROM memories WHERE tenant_id = %s AND user_id = %s AND session_id = 'walks'",
        (tenant.id, tenant.user)).fetchall()}
    expected = _bm25(ctx, tenant.id, tenant.user, "lake trail", only=walks)
    assert n == 10 and filtered.keys() == expected.keys() == walks
    assert all(filtered[i] == pytest.approx(expected[i], rel=1e-9) for i in walks)
    # the user's size comes back when nothing matches (the vector channel's path depends on it)
    assert _keyword(ctx, tenant.id, tenant.user, "xylophone") == ({}, 10)
    assert _keyword(ctx, tenant.id, f"{tenant.user}-nobody", "lake") == ({}, 0)


def test_a_common_term_scores_but_generates_no_candidates_past_the_cap(ctx, tenant):
    for i in range(40):
        _add(ctx, tenant.id, tenant.user, f"Coffee number {i} this week.")
    for i in range(3):
        _add(ctx, tenant.id, tenant.user, f"A zebra crossing and coffee, take {i}.")
    _add(ctx, tenant.id, tenant.user, "The zebra at the zoo.")
    query = "zebra coffee"
    everything = _bm25(ctx, tenant.id, tenant.user, query)
    assert len(everything) == 44
    capped, _ = _keyword(ctx, tenant.id, tenant.user, query, max_postings=10)
    zebras = {i for i in everything if i in capped}
    assert len(capped) == 4 and len(zebras) == 4  # only the zebra memories are candidates...
    for memory_id, score in capped.items():  # ...and coffee still counts in their scores
        assert score == pytest.approx(everything[memory_id], rel=1e-9)
    uncapped, _ = _keyword(ctx, tenant.id, tenant.user, query)
    assert uncapped.keys() == everything.keys()


def test_common_terms_score_each_candidate_holding_any_of_them(ctx, tenant):
    """Two common words past the cap: a candidate holding either, both or neither is scored for
    exactly the ones it holds (the statement reads them only from the candidates holding one)."""
    for i in range(30):
        _add(ctx, tenant.id, tenant.user, f"Coffee number {i} this week.")
    zebras = [_add(ctx, tenant.id, tenant.user, content) for content in (
        "A zebra and coffee.", "A zebra all week.", "A zebra with coffee all week.", "The zebra at the zoo.")]
    query = "zebra coffee week"
    everything = _bm25(ctx, tenant.id, tenant.user, query)
    capped, _ = _keyword(ctx, tenant.id, tenant.user, query, max_postings=10)
    assert capped.keys() == set(zebras)
    for memory_id, score in capped.items():
        assert score == pytest.approx(everything[memory_id], rel=1e-9)


def test_a_rarest_term_over_the_cap_generates_the_memories_that_use_it_most(ctx, tenant):
    """Only common words: the rarest still generates, but no more than the cap's memories, those
    where it occurs most; their scores stay exact."""
    for i in range(12):
        _add(ctx, tenant.id, tenant.user, f"Coffee number {i} this week.")
    for i in range(5):
        _add(ctx, tenant.id, tenant.user, f"A zebra crossing and coffee, take {i}.")
    most = _add(ctx, tenant.id, tenant.user, "A zebra, then another zebra, near the coffee cart.")
    query = "zebra coffee"
    everything = _bm25(ctx, tenant.id, tenant.user, query)
    # zebra (6 memories) is the rarest term; over a cap of 3 it generates three memories
    capped, _ = _keyword(ctx, tenant.id, tenant.user, query, max_postings=3)
    assert len(capped) == 3 and most in capped
    assert all("zebra" in _content(ctx, tenant.id, memory_id) for memory_id in capped)
    for memory_id, score in capped.items():
        assert score == pytest.approx(everything[memory_id], rel=1e-9)
    assert list(_keyword(ctx, tenant.id, tenant.user, query, max_postings=1)[0]) == [most]
    assert len(_keyword(ctx, tenant.id, tenant.user, query, max_postings=6)[0]) == 6
    # read in that order from index memory_postings_by_tf (migration 0023), the cap's worth, unsorted
    conn = ctx.db.connection()
    with conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_bitmapscan = off")
        plan = memory_rows.keyword_statement(tenant.id, tenant.user, None, SearchFilters(), False, query, 500, 3) \
            .explain(conn)
    assert "memory_postings_by_tf" in plan


def test_several_queries_in_one_statement_rank_as_each_alone(ctx, tenant):
    """keyword_statements folds a search's extra queries into one statement: each query's ranking,
    scores, terms, matched words and memories read whole are those of its own statement, whatever
    path its candidates take (under the cap, the rarest term over it, common words, no match)."""
    for i in range(12):
        _add(ctx, tenant.id, tenant.user, f"Coffee number {i} this week.", session_id="cafe")
    for i in range(5):
        _add(ctx, tenant.id, tenant.user, f"A zebra crossing and coffee, take {i}.", session_id="street")
    gone = _add(ctx, tenant.id, tenant.user, "The zebra at the zoo drank coffee.")
    conn = ctx.db.connection()
    history.end(conn, tenant.id, gone, datetime(2026, 1, 1, tzinfo=timezone.utc))  # as a supersession does
    queries = [("zebra coffee", 100, NO_CAP, 3), ("zebra coffee", 30, 3, 0), ("coffee week", 30, 4, 2),
               ("xylophone", 30, 600, 0), ("Zebras, crossing!", 30, 600, 5)]
    for user, include_inactive, filters in ((tenant.user, False, SearchFilters()),
                                            (tenant.user, True, SearchFilters(session_id="street")),
                                            (f"{tenant.user}-nobody", False, SearchFilters())):
        scope = (tenant.id, user, None, filters, include_inactive)
        together = memory_rows.keyword_statements(*scope, queries)
        alone = [memory_rows.keyword_statements(*scope, [query]) for query in queries]
        with conn.pipeline():
            for statement in [together, *alone]:
                statement.send(conn)
        assert together.results() == [ranking for statement in alone for ranking in statement.results()]
    folded = memory_rows.keyword_statements(tenant.id, tenant.user, None, SearchFilters(), True, queries)
    with conn.pipeline():
        folded.send(conn)
    rankings = folded.results()
    assert [len(r.ranked) for r in rankings] == [18, 3, 4, 0, 6]
    assert [len(r.memories) for r in rankings] == [3, 0, 2, 0, 5]
    assert gone in dict(rankings[0].ranked) and rankings[3].scope_size == 18


def _content(ctx, tenant_id: str, memory_id: str) -> str:
    return ctx.db.connection().execute("SELECT content FROM memories WHERE tenant_id = %s AND id = %s",
                                       (tenant_id, memory_id)).fetchone()["content"]


def test_concurrent_writers_for_one_user_neither_deadlock_nor_drift(ctx, tenant):
    """Writers in transactions of several statements, some with the user's lock and some without
    (as a plain insert runs), inserting words in different orders and deactivating each other's
    memories."""
    words = "apple banana cherry damson elder fig grape hazel iris juniper kale lemon".split()
    errors: list[BaseException] = []
    inserted: list[str] = []
    _add(ctx, tenant.id, tenant.user, "seed memory")

    def writer(seed: int) -> None:
        rng = random.Random(seed)
        try:
            with psycopg.connect(ctx.db.dsn, autocommit=True, row_factory=dict_row) as conn:
                register_vector(conn)
                for _ in range(8):
                    with conn.transaction():
                        if seed % 2:
                            locks.lock_user(conn, tenant.id, tenant.user)
                        for _ in range(3):
                            memory_id = str(uuid.uuid4())
                            memory_rows.insert(conn, tenant.id, {
                                "id": memory_id, "user_id": tenant.user, "memory_type": "episodic",
                                "type": "message", "content": " ".join(rng.sample(words, 4)),
                                "context": " ".join(rng.sample(words, 2)),
                                "embedding": np.ones(ctx.settings.embedding_dim, dtype=np.float32),
                                "valid_from": datetime.now(timezone.utc)})
                            inserted.append(memory_id)
                        if inserted:
                            conn.execute("UPDATE memories SET active = NOT active WHERE tenant_id = %s AND id = %s",
                                         (tenant.id, rng.choice(inserted)))
        except BaseException as exc:  # noqa: BLE001 - reported by the test below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(seed,)) for seed in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    stored = _assert_consistent(ctx, tenant.id, tenant.user)
    assert stored["stats"]["docs"] == 1 + 6 * 8 * 3


def test_the_migration_counts_the_memories_already_there(ctx):
    """0005 on a database written before it: the statistics start from the existing rows."""
    schema = f"m{uuid.uuid4().hex[:8]}"
    files = sorted(Path(memory_rows.__file__).with_name("migrations").glob("*.sql"))
    assert files[4].name.startswith("0005")
    with psycopg.connect(ctx.db.dsn, autocommit=True, row_factory=dict_row) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        try:
            conn.execute(f"SET search_path = {schema}, public")
            for path in files[:4]:
                conn.execute(path.read_text().replace("{embedding_dim}", "3"))
            conn.execute("INSERT INTO tenants (id) VALUES ('t'), ('t2')")
            for i, (tenant_id, user_id, content, context, active) in enumerate([
                ("t", "u", "Kyoto in April", "Did you go to Japan?", True),
                ("t", "u", "We lived in Porto", None, False),
                ("t", "u", "Porto again, April", "Kyoto?", True),
                ("t", "v", "Another user's April", None, True),
                ("t2", "u", "Another tenant's Kyoto", None, True),
            ]):
                conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, context,
                                                      embedding, active, valid_from)
                                VALUES (%s, %s, %s, 'episodic', 'message', %s, %s, '[1,0,0]', %s, now())""",
                             (tenant_id, f"m{i}", user_id, content, context, active))
            conn.execute(files[4].read_text())
            for tenant_id, user_id in (("t", "u"), ("t", "v"), ("t2", "u")):
                assert _stored(conn, tenant_id, user_id) == _recomputed(conn, tenant_id, user_id)
            assert _stored(conn, "t", "u")["stats"] == {"docs": 3, "length": 9, "active_docs": 2, "active_length": 7}
        finally:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def test_statistics_follow_a_bulk_import(ctx, tenant, runtime, tmp_path, monkeypatch):
    """An import writes each chunk's episodic memories in one statement and supersedes as it
    decides, in transactions of several turns: the statistics still count every memory once."""
    import json

    from bench.writes.corpus import synthetic_lines
    from memex import backfill

    monkeypatch.setattr(backfill, "LINES_PER_CHUNK", 30)
    path = tmp_path / "history.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in synthetic_lines(90, tenant.user)), encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path))
    ctx.publisher.publish_backfill(job)
    runtime.drain(timeout=300)
    assert backfill.status(ctx, tenant.id, job.backfill_id)["done"] == 90
    stored = _assert_consistent(ctx, tenant.id, tenant.user)
    assert stored["stats"]["docs"] > stored["stats"]["active_docs"] > 90  # superseded values are not active
    _assert_scores(ctx, tenant, "I live in Lisbon, my sister and my dog")
    _assert_scores(ctx, tenant, "I live in Lisbon, my sister and my dog", include_inactive=True)


def _joined_in_vain(plan: dict) -> int:
    """The rows a plan's joins compared and dropped (EXPLAIN shows a node's per loop)."""
    own = round(plan.get("Rows Removed by Join Filter", 0) * plan.get("Actual Loops", 1))
    return own + sum(_joined_in_vain(child) for child in plan.get("Plans", ()))


def test_the_keyword_statement_reads_by_key_when_the_planner_expects_no_rows(ctx, tenant):
    """A planner whose statistics predate a user's rows counts one row for them and joins in
    nested loops: the statement then still reads each term's postings, each candidate and each
    ranked memory by key, and joins no two CTEs (they have no index), so its work grows with the
    candidates, not with their square (1.6 s for 700 candidates of a LoCoMo user on main at
    77fe942: docs/measurements/performance.md). Nested loops forced here stand in for that count."""
    memories = 60
    for i in range(memories):
        _add(ctx, tenant.id, tenant.user, f"Tim: coffee number {i} this week.")
    query, terms = "Tim coffee week", 3
    expected, _ = _keyword(ctx, tenant.id, tenant.user, query)
    assert len(expected) == memories
    statement = memory_rows.keyword_statement(tenant.id, tenant.user, None, SearchFilters(), False, query, 500,
                                              NO_CAP)
    conn = ctx.db.connection()
    with conn.transaction():
        conn.execute("SET LOCAL enable_hashjoin = off")
        conn.execute("SET LOCAL enable_mergejoin = off")
        [explained] = json.loads(statement.explain(conn, "ANALYZE, FORMAT JSON"))
        assert dict(statement.run(conn).ranked) == expected  # the same ranking by either plan
    # each hit compared with each of the query's terms at most: main compared every candidate
    # with every posting (60 x 180)
    assert _joined_in_vain(explained["Plan"]) <= memories * terms * terms
