"""Degraded, not down: search and recall answer when the embedder or the reranker fails or hangs
(the loopback OpenAI double, scripted), and say so in `degraded`; /health names each dependency's
state, and answers 503 only when Postgres is down."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from bench.openai_double import CHAT, RERANK, OpenAIDouble
from memex_edge.context import build_context
from tests.conftest import Tenant, api_client, refused_port

EMBEDDINGS = "/v1/embeddings"
FACTS = ("I work at Stripe as an engineer.", "My dog is called Biscuit.", "I live in Lisbon.")
QUERY = "where does the user work?"
KEYWORDS = "Stripe engineer"  # without vectors, the words must match
WHEN = "2026-01-10T00:00:00Z"
DEADLINE = 1.0  # the embedder's query deadline and the reranker's, in these tests
HANG = 4.0  # a scripted answer this late is past every deadline


@pytest.fixture(scope="module")
def double():
    with OpenAIDouble(dim=384) as server:
        yield server


@pytest.fixture
def remote(double):
    double.reset()
    return double


def _client(settings):
    built = build_context(settings)
    return api_client(built)


@pytest.fixture(scope="module")
def embed_http(ctx, double):
    """The service with its embedder at the double (and no reranker)."""
    settings = dataclasses.replace(ctx.settings, embeddings_provider="openai", embeddings_base_url=double.base_url,
                                   embeddings_model="embed-test", embedding_dim=384,
                                   embeddings_query_timeout_seconds=DEADLINE)
    with _client(settings) as client:
        yield client


@pytest.fixture(scope="module")
def rerank_http(ctx, double):
    """The service with the local embedder and the double as its reranker."""
    settings = dataclasses.replace(ctx.settings, rerank_base_url=double.base_url, rerank_model="rerank-test",
                                   rerank_timeout_seconds=DEADLINE)
    with _client(settings) as client:
        yield client


@pytest.fixture
def user(ctx, http):
    tenant = Tenant(ctx, http)
    assert tenant.turn(*FACTS, timestamp="2026-01-01T00:00:00Z").status_code == 201
    return tenant


def _search(tenant: Tenant, query: str = QUERY, **extra) -> dict:
    response = tenant.post("/v1/search", {"user_id": tenant.user, "query": query, "reference_time": WHEN, **extra})
    assert response.status_code == 200, response.text
    return response.json()


def _embedding_requests(double: OpenAIDouble) -> int:
    return sum(1 for path, _ in double.requests if path == EMBEDDINGS)


# ---------------------------------------------------------------- search and recall

def test_nothing_degraded_is_said_so(user, remote, embed_http, rerank_http):
    assert _search(user)["degraded"] == []
    assert _search(user.through(embed_http))["degraded"] == []
    assert _search(user.through(rerank_http))["degraded"] == []
    recalled = user.post("/v1/recall", {"user_id": user.user, "query": QUERY}).json()
    assert recalled["degraded"] == [] and recalled["citations"]


@pytest.mark.parametrize("failure", [{"status": 500}, {"delay": HANG}], ids=["error", "timeout"])
@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_an_embedder_that_fails_leaves_keyword_results(user, remote, embed_http, failure, mode):
    for _ in range(2):  # the query's attempt and its one retry
        remote.script(EMBEDDINGS, **failure)
    body = _search(user.through(embed_http), KEYWORDS, mode=mode)
    assert body["degraded"] == ["embed"]
    assert any("Stripe" in r["content"] for r in body["results"][:2])
    assert all(r["score_parts"]["similarity"] is None for r in body["results"])
    assert _embedding_requests(remote) == 2


def test_recall_with_the_embedder_down_asks_it_once_and_says_so(user, remote, embed_http):
    for _ in range(2):
        remote.script(EMBEDDINGS, status=503)
    through = user.through(embed_http)
    body = through.post("/v1/recall", {"user_id": user.user, "query": KEYWORDS, "session_id": "s1"}).json()
    assert body["degraded"] == ["embed"]
    assert any("Stripe" in c["snippet"] for c in body["citations"])
    # three searches, one query: after its attempt and retry failed, the request stopped asking
    assert _embedding_requests(remote) == 2


@pytest.mark.parametrize("failure", [{"status": 500}, {"delay": HANG}], ids=["error", "timeout"])
def test_a_reranker_that_fails_leaves_the_fused_order(user, remote, rerank_http, failure):
    fused = _search(user)  # the plain service: no reranker
    for _ in range(2):
        remote.script(RERANK, **failure)
    body = _search(user.through(rerank_http))
    assert body["degraded"] == ["rerank"]
    assert [r["id"] for r in body["results"]] == [r["id"] for r in fused["results"]]
    assert len(remote.rerank_requests) == 2


def test_recall_with_the_reranker_down_asks_it_once(user, remote, rerank_http):
    for _ in range(2):
        remote.script(RERANK, status=502)
    body = user.through(rerank_http).post("/v1/recall", {"user_id": user.user, "query": QUERY}).json()
    assert body["degraded"] == ["rerank"] and body["citations"]
    assert len(remote.rerank_requests) == 2


@pytest.fixture(scope="module")
def split_http(ctx, double):
    """The service with the double as its LLM, which splits questions at search time."""
    settings = dataclasses.replace(ctx.settings, llm_base_url=double.base_url, llm_model="split-test",
                                   llm_api_key="k", llm_multihop=True)
    with _client(settings) as client:
        yield client


def test_an_llm_that_cannot_split_the_question_leaves_the_offline_expansion(user, remote, split_http, monkeypatch):
    from memex.retrieval import multihop

    # each request asks here: the back-off across requests is test_multihop's
    monkeypatch.setattr(multihop, "SPLIT_BACKOFF_SECONDS", 0.0)
    # nothing scripted: the double answers every chat request 500
    body = _search(user.through(split_http))
    assert body["degraded"] == ["llm"]
    assert any("Stripe" in r["content"] for r in body["results"][:2])
    assert len(remote.chat_requests) == 2  # the attempt and its one retry

    remote.requests.clear()
    recalled = user.through(split_http).post("/v1/recall", {"user_id": user.user, "query": QUERY}).json()
    assert recalled["degraded"] == ["llm"] and recalled["citations"]
    assert len(remote.chat_requests) == 2  # three searches, asked once


def test_recall_splits_its_question_once(user, remote, split_http):
    remote.script_chat(json.dumps({"queries": [QUERY]}))
    recalled = user.through(split_http).post("/v1/recall", {"user_id": user.user, "query": QUERY}).json()
    assert recalled["degraded"] == [] and recalled["citations"]
    assert len(remote.chat_requests) == 1


def test_a_memory_written_while_the_embedder_fails_is_a_503_that_says_so_and_stores_nothing(user, remote, embed_http):
    """The trial of a builder's first hour (trial 15): `POST /v1/memories` embeds before it stores, and
    an embedder that failed answered 500 `internal_error`, which says neither what broke nor whether to
    send it again. It is 503 `embedder_unavailable` with `Retry-After`: nothing was stored, and the
    same request sent again once the embedder answers stores it once."""
    from memex.embeddings.openai_compat import DOCUMENT_ATTEMPTS

    for _ in range(DOCUMENT_ATTEMPTS):
        remote.script(EMBEDDINGS, status=500)
    client = user.through(embed_http)
    body = {"user_id": user.user, "content": "Prefers short answers", "memory_type": "procedural"}
    count = user.get(f"/v1/memories/count?user_id={user.user}").json()["count"]
    refused = client.post("/v1/memories", body)
    assert refused.status_code == 503, refused.text
    assert refused.json()["error"]["code"] == "embedder_unavailable"
    assert "InternalServerError" in refused.json()["error"]["message"] and "nothing was stored" in refused.json()["error"]["message"]
    assert int(refused.headers["Retry-After"]) > 0
    assert user.get(f"/v1/memories/count?user_id={user.user}").json()["count"] == count
    stored = client.post("/v1/memories", body)  # the double answers again
    assert stored.status_code == 201, stored.text
    assert user.get(f"/v1/memories/count?user_id={user.user}").json()["count"] == count + 1


# ---------------------------------------------------------------- a turn while the embedder is down

NEWS = "I adopted a ferret called Noodle."


@pytest.fixture(scope="module")
def embed_ctx(ctx, double):
    """A worker's context with its embedder at the double, and the service over it."""
    built = build_context(dataclasses.replace(ctx.settings, embeddings_provider="openai", embedding_dim=384,
                                              embeddings_base_url=double.base_url, embeddings_model="embed-worker"))
    with _client(built.settings) as client:
        yield built, client


@pytest.fixture
def outage(remote, embed_ctx, monkeypatch):
    """The double's embeddings endpoint failing every call until `remote.heal(EMBEDDINGS)`."""
    from memex.embeddings import openai_compat

    monkeypatch.setattr(openai_compat, "RETRY_PAUSE_SECONDS", 0.0)  # the client's retries, at once
    remote.fail(EMBEDDINGS, "500")
    yield embed_ctx
    remote.heal(EMBEDDINGS)


def _deliver(worker, tenant: Tenant, turn_id: str):
    """One delivery of the turn's extraction job, and of the supersession job it sends, as the workers run them."""
    from memex import pipeline
    from memex.jobs import ExtractionJob

    follow_up = pipeline.extract(worker, ExtractionJob(tenant.id, turn_id))
    if follow_up is not None:
        pipeline.resolve(worker, follow_up)
    return follow_up


def _messages_stored(ctx, tenant: Tenant) -> tuple[int, int]:
    """The tenant's episodic memories, and how many of them have their vector."""
    row = ctx.db.connection().execute(
        "SELECT count(*) AS stored, count(embedding) AS vectored FROM memories WHERE tenant_id = %s "
        "AND memory_type = 'episodic'", (tenant.id,)).fetchone()
    return row["stored"], row["vectored"]


def _vector_channel(ctx, tenant: Tenant) -> list[float]:
    """The similarities the vector channel ranks the user's memories by, for a query whose vector is the
    message's own (the double's vector of its embedded text): 1.0 once the message has its vector."""
    from bench.openai_double import fake_embedding
    from memex import embedded_text
    from memex.db import memories as memory_rows
    from memex.models import SearchFilters

    query = np.asarray(fake_embedding(embedded_text.of(NEWS, None, memory_type="episodic", subject="user"), 384))
    ranked = memory_rows.vector_ranked(ctx.db.connection(), tenant.id, tenant.user, None,
                                       SearchFilters(memory_type="episodic"), False,
                                       query / np.linalg.norm(query), 10, None)
    return [round(similarity, 4) for _, similarity in ranked]


def _found(tenant: Tenant, mode: str) -> list[str]:
    return [r["content"] for r in _search(tenant, "ferret Noodle", mode=mode)["results"]]


def test_a_turn_said_while_the_embedder_fails_is_searchable_by_its_words_and_gets_its_vectors_on_the_retry(ctx, outage, remote):
    """An embedder down at the worker kept the turn's messages out of search until a delivery found
    it up again (an outage of an hour hid the hour). They are stored without their vectors, found by
    their words in every mode but the vector channel's, and the retry fills the vectors in, once."""
    import openai

    worker, client = outage
    tenant = Tenant(ctx, client)
    turn = tenant.turn(NEWS, wait=False)
    assert turn.status_code == 202, turn.text
    turn_id = turn.json()["turn_id"]
    for _ in range(2):  # the job's first delivery and its retry, the embedder still down: stored once
        with pytest.raises(openai.InternalServerError):
            _deliver(worker, tenant, turn_id)
        assert _messages_stored(ctx, tenant) == (1, 0)
    for mode in ("bm25", "hybrid", "vector"):  # the query unembedded too: keyword-only in every mode
        assert _found(tenant, mode) == [NEWS], mode

    assert _vector_channel(ctx, tenant) == []  # the message has no vector yet

    remote.heal(EMBEDDINGS)
    assert _found(tenant, "hybrid") == [NEWS]  # the query has its vector now; the message not yet
    _deliver(worker, tenant, turn_id)
    assert _messages_stored(ctx, tenant) == (1, 1)
    assert _vector_channel(ctx, tenant) == [1.0]
    assert tenant.get(f"/v1/turns/{turn_id}").json()["status"] == "processed"
    _deliver(worker, tenant, turn_id)  # delivered again: nothing twice
    assert _messages_stored(ctx, tenant) == (1, 1)
    assert _found(tenant, "hybrid").count(NEWS) == 1  # beside the fact the retry drew from it


def test_a_turn_failed_for_the_outage_is_read_again_by_a_reextraction(ctx, outage, remote):
    """Every delivery failed (an outage past the job's last retry): the messages stay keyword-searchable
    and `memex backfill --reextract` (its chunk: extract_many again) fills their vectors in."""
    import openai

    from memex import pipeline

    worker, client = outage
    tenant = Tenant(ctx, client)
    turn_id = tenant.turn(NEWS, wait=False).json()["turn_id"]
    with pytest.raises(openai.InternalServerError):
        _deliver(worker, tenant, turn_id)
    pipeline.mark_failed(worker, tenant.id, turn_id, "InternalServerError")
    remote.heal(EMBEDDINGS)
    assert _found(tenant, "bm25") == [NEWS]
    pipeline.extract_many(worker, tenant.id, [turn_id], again=True)
    assert _messages_stored(ctx, tenant) == (1, 1)
    assert _vector_channel(ctx, tenant) == [1.0]


def test_a_user_erased_while_the_embedder_fails_leaves_nothing_for_the_retry(ctx, outage, remote):
    import openai

    worker, client = outage
    tenant = Tenant(ctx, client)
    turn_id = tenant.turn(NEWS, wait=False).json()["turn_id"]
    with pytest.raises(openai.InternalServerError):
        _deliver(worker, tenant, turn_id)
    assert _found(tenant, "bm25") == [NEWS]
    assert tenant.delete(f"/v1/users/{tenant.user}").status_code in (200, 202, 204)
    remote.heal(EMBEDDINGS)
    assert _deliver(worker, tenant, turn_id) is None
    assert _messages_stored(ctx, tenant) == (0, 0)
    assert ctx.db.connection().execute("SELECT count(*) AS n FROM memories WHERE tenant_id = %s",
                                       (tenant.id,)).fetchone()["n"] == 0
    assert _found(tenant, "bm25") == []


NEWS_AGAIN = "I adopted a ferret: called Noodle!"


def _vectorless(ctx, tenant: Tenant) -> list[str]:
    return [r["id"] for r in ctx.db.connection().execute(
        "SELECT id FROM memories WHERE tenant_id = %s AND embedding IS NULL", (tenant.id,)).fetchall()]


def test_a_message_without_its_vector_on_every_path_that_reads_vectors(ctx, outage, remote):
    """The audit of the readers of memories.embedding (docs/measurements/quality.md, branch nullvec), end to
    end: a message stored without its vector, the embedder up again for the query (the vector channel
    runs) but its job not yet retried. Recall, an `as_of` search and a period's question find it by its
    words; consolidation passes it over (its grouping compares vectors) without failing; `memex backfill
    --reembed` fills its vector in, after which the retry writes nothing twice and consolidation takes it."""
    import openai

    from bench.openai_double import fake_embedding
    from memex import backfill, embedded_text
    from memex.consolidation.grouping import Rules
    from memex.consolidation.job import Options, consolidate

    worker, client = outage
    tenant = Tenant(ctx, client)
    remote.heal(EMBEDDINGS)
    said = tenant.turn(NEWS, wait=False, timestamp="2026-01-02T09:00:00Z").json()["turn_id"]
    _deliver(worker, tenant, said)
    remote.fail(EMBEDDINGS, "500")
    # said again in other words' order (the same words: consolidation's rule groups the two lines), so
    # that its vector is not the one the worker embedded a moment ago (embeddings/recent.py)
    again = tenant.turn(NEWS_AGAIN, wait=False, timestamp="2026-01-05T09:00:00Z", session="s2").json()["turn_id"]
    with pytest.raises(openai.InternalServerError):
        _deliver(worker, tenant, again)
    remote.heal(EMBEDDINGS)
    [vectorless] = _vectorless(ctx, tenant)
    assert _messages_stored(ctx, tenant) == (2, 1)

    recalled = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "ferret Noodle", "session_id": "s2",
                                          "reference_time": WHEN}).json()
    assert "degraded" not in recalled or recalled["degraded"] == []
    assert vectorless in [c["memory_id"] for c in recalled["citations"]]
    def as_of(when: str) -> list[str]:
        return [r["id"] for r in _search(tenant, "ferret Noodle", top_k=20, as_of=when)["results"]]

    assert vectorless in as_of("2026-01-06T00:00:00Z")
    earlier = as_of("2026-01-03T00:00:00Z")
    assert earlier and vectorless not in earlier
    period = [r["id"] for r in _search(tenant, "what did I tell you this week?", top_k=20)["results"]]
    assert vectorless in period

    rules = Options(threshold=0, min_age_days=0, batch_size=ctx.settings.consolidation_batch_size,
                    rules=Rules(jaccard=0.7, similarity=0.5, max_group=8))
    assert consolidate(worker, tenant.id, options=rules).summaries == 0  # the line said once with a vector
    assert _messages_stored(ctx, tenant) == (2, 1)
    # nor does it count toward the threshold: one line to group is not over 1
    assert consolidate(worker, tenant.id, options=dataclasses.replace(rules, threshold=1)).users == 0

    job = backfill.new_job("reembed", tenant.id, user_id=tenant.user)
    backfill.run_chunk(worker, job)
    assert _vectorless(ctx, tenant) == []
    filled = ctx.db.connection().execute("SELECT embedding FROM memories WHERE id = %s", (vectorless,)).fetchone()
    expected = np.asarray(fake_embedding(embedded_text.of(NEWS_AGAIN, None, memory_type="episodic", subject="user"), 384))
    assert np.allclose(filled["embedding"].to_numpy(), expected / np.linalg.norm(expected), atol=1e-5)  # the retry's vector
    _deliver(worker, tenant, again)  # the retry finds the vector there: nothing written twice
    assert _messages_stored(ctx, tenant) == (2, 2)
    assert tenant.get(f"/v1/turns/{again}").json()["status"] == "processed"
    assert consolidate(worker, tenant.id, options=dataclasses.replace(rules, threshold=1)).merged == 2


QUESTION = "Which city should I visit for the jacarandas?"
ANSWER = "Lisbon, in late May."


def _said_and_answered(ctx, worker, remote, tenant: Tenant) -> tuple[str, str]:
    """A question and its answer delivered with the embedder up: the answer indexed with the question as its
    context. Returns the question's memory id and the answer's."""
    remote.heal(EMBEDDINGS)
    turn = tenant.post("/v1/turns", {"user_id": tenant.user, "session_id": "s1", "messages": [
        {"role": "user", "content": QUESTION}, {"role": "assistant", "content": ANSWER}]})
    _deliver(worker, tenant, turn.json()["turn_id"])
    rows = {r["content"]: r for r in ctx.db.connection().execute(
        "SELECT id, content, context, embedding IS NOT NULL AS vectored FROM memories WHERE tenant_id = %s "
        "AND memory_type = 'episodic'", (tenant.id,)).fetchall()}
    assert rows[ANSWER]["context"] == QUESTION and rows[ANSWER]["vectored"] and rows[QUESTION]["vectored"]
    return rows[QUESTION]["id"], rows[ANSWER]["id"]


def _answer_row(ctx, memory_id: str) -> dict:
    return ctx.db.connection().execute("SELECT context, embedding FROM memories WHERE id = %s",
                                       (memory_id,)).fetchone()


def _double_vector(text: str) -> np.ndarray:
    from bench.openai_double import fake_embedding
    from memex import embedded_text

    vector = np.asarray(fake_embedding(embedded_text.of(text, None, memory_type="episodic", subject="user"), 384))
    return vector / np.linalg.norm(vector)


def test_erasing_the_line_another_was_indexed_with_embeds_that_one_again_without_it(ctx, outage, remote):
    """The answer's vector was made from the question too: erased, the question goes, and the answer gets
    a vector of its own words (embedded after the erasure's commit, the embedder up)."""
    worker, client = outage
    tenant = Tenant(ctx, client)
    question, answer = _said_and_answered(ctx, worker, remote, tenant)
    erased = tenant.delete(f"/v1/memories/{question}")
    assert erased.status_code == 200, erased.text
    row = _answer_row(ctx, answer)
    assert row["context"] is None
    assert np.allclose(row["embedding"].to_numpy(), _double_vector(ANSWER), atol=1e-5)


def test_erasing_while_the_embedder_fails_erases_at_once_and_the_sweep_embeds_what_is_left(ctx, outage, remote, http):
    """Erasing the question re-embeds its answer. With the embedder down that failed the erasure (500, nothing
    erased): a user asking for their words to go got an error and their words kept. Now the words go at once,
    and so does the answer's vector (made from them too); the answer stays found by its words, and the
    sweep embeds it once the embedder is back, counted meanwhile in memex_memories_without_vector."""
    from infra.local.lambda_context import LocalLambdaContext
    from infra.local.runtime import function_module
    from tests.test_metrics import scrape

    def waiting() -> float:
        return scrape(http)[("memex_memories_without_vector", ())]

    worker, client = outage
    tenant = Tenant(ctx, client)
    question, answer = _said_and_answered(ctx, worker, remote, tenant)
    before = waiting()
    remote.fail(EMBEDDINGS, "500")
    erased = tenant.delete(f"/v1/memories/{question}")
    assert erased.status_code == 200, erased.text
    assert erased.json()["deleted"]["memories"] == 1
    assert tenant.get(f"/v1/memories/{question}").status_code == 404
    left = ctx.db.connection().execute(
        "SELECT (SELECT count(*) FROM memories WHERE tenant_id = %(t)s AND content = %(q)s) AS memories,"
        " (SELECT count(*) FROM messages WHERE tenant_id = %(t)s AND content = %(q)s) AS messages",
        {"t": tenant.id, "q": QUESTION}).fetchone()
    assert (left["memories"], left["messages"]) == (0, 0)
    row = _answer_row(ctx, answer)
    assert row["context"] is None and row["embedding"] is None  # no vector made from the erased words
    assert _search(tenant, "jacarandas", mode="bm25")["results"] == []  # the question's own word went
    assert [r["id"] for r in _search(tenant, "Lisbon May", mode="bm25")["results"]] == [answer]
    assert waiting() == before + 1

    sweep = function_module("sweep")
    assert sweep.run(worker, LocalLambdaContext("sweep", timeout_seconds=60))["vectors_filled"] == 0  # still down
    assert _answer_row(ctx, answer)["embedding"] is None
    remote.heal(EMBEDDINGS)
    assert sweep.run(worker, LocalLambdaContext("sweep", timeout_seconds=60))["vectors_filled"] >= 1
    assert np.allclose(_answer_row(ctx, answer)["embedding"].to_numpy(), _double_vector(ANSWER), atol=1e-5)
    # the gauge counts every tenant's, and the sweep also fills what earlier tests left without a vector
    assert waiting() <= before


# ---------------------------------------------------------------- /health

def _everything_at(ctx, double: OpenAIDouble, name: str):
    """The service with every remote dependency at the double; `name` makes its configuration (and
    so its cached probe states) its own."""
    return _client(dataclasses.replace(
        ctx.settings, embeddings_provider="openai", embeddings_base_url=double.base_url, embedding_dim=384,
        embeddings_model=f"embed-{name}", llm_base_url=double.base_url, llm_model=f"llm-{name}", llm_api_key="k",
        rerank_base_url=double.base_url, rerank_model=f"rerank-{name}"))


def test_health_by_default_names_the_offline_parts_degraded(http):
    response = http.get("/health")
    body = response.json()
    assert response.status_code == 200 and body["status"] == "ok"
    assert {name: body[name] for name in ("db", "queue", "embed", "llm", "rerank")} == {
        "db": "ok", "queue": "ok", "embed": "ok", "llm": "unconfigured", "rerank": "unconfigured"}
    assert body["degraded"] == ["llm", "rerank"]


def test_health_with_every_dependency_up(ctx, remote):
    with _everything_at(ctx, remote, "up") as client:
        first, again = client.get("/health"), client.get("/health")
    assert first.status_code == 200 and first.json()["degraded"] == []
    assert {first.json()[name] for name in ("db", "queue", "embed", "llm", "rerank")} == {"ok"}
    # the second answer came from the cache: each remote dependency was asked once
    assert sorted(path for path, _ in remote.requests) == [EMBEDDINGS, "/v1/models", RERANK]
    assert again.json() == first.json()


def test_health_names_each_failing_dependency_without_saying_where_it_is(ctx, remote):
    remote.script(EMBEDDINGS, status=500)
    remote.script("/v1/models", status=401, body={"error": {"message": f"bad key for {remote.base_url}"}})
    remote.script(RERANK, delay=HANG)  # past the probe's deadline
    with _everything_at(ctx, remote, "down") as client:
        response = client.get("/health")
    body = response.json()
    assert response.status_code == 200 and body["status"] == "ok" and body["db"] == "ok"
    assert body["embed"] == "error: InternalServerError"
    assert body["llm"] == "error: AuthenticationError"
    assert body["rerank"] in ("error: ReadTimeout", "error: Timeout")  # its own deadline, or the wait's
    assert body["degraded"] == ["embed", "llm", "rerank"]
    assert "127.0.0.1" not in response.text and "bad key" not in response.text


def test_make_dev_says_at_start_that_the_embedder_does_not_answer(ctx):
    """It said nothing of it: /health's `embed` was the only place it showed, while searches ran
    keyword-only (trial 15)."""
    from infra.local.__main__ import embedder_note

    with refused_port() as nowhere:
        down = build_context(dataclasses.replace(
            ctx.settings, embeddings_provider="openai", embeddings_base_url=f"http://127.0.0.1:{nowhere}/v1",
            embeddings_model="embed-nowhere", embedding_dim=384))
        note = embedder_note(down)
    assert note is not None and note.startswith("the embedder openai:embed-nowhere does not answer "
                                                "(APIConnectionError; check MEMEX_EMBEDDINGS_BASE_URL)")
    assert "searches are keyword-only" in note and "127.0.0.1" not in note
    assert embedder_note(ctx) is None  # the built-in model, installed


def test_health_is_503_only_when_postgres_is_down(ctx):
    with refused_port() as nowhere:
        unreachable = f"postgresql://memex:secret@127.0.0.1:{nowhere}/memex"
        with _client(dataclasses.replace(ctx.settings, database_url=unreachable)) as client:
            response = client.get("/health")
    body = response.json()
    assert response.status_code == 503 and body["status"] == "error"
    assert body["db"] == "error: OperationalError" and body["queue"] == "ok"
    assert "127.0.0.1" not in response.text and "secret" not in response.text


def test_health_with_the_queue_unreachable_is_degraded_not_down(ctx):
    missing = ctx.settings.extraction_queue_url.rsplit("/", 1)[0] + "/no-such-queue"
    with _client(dataclasses.replace(ctx.settings, extraction_queue_url=missing)) as client:
        response = client.get("/health")
    body = response.json()
    assert response.status_code == 200 and body["status"] == "ok"
    assert body["queue"].startswith("error: ") and "queue" in body["degraded"]


def test_health_reports_what_memex_own_calls_met_since_its_last_probe(ctx, remote):
    """A provider that lists its models and embeds a probe word but fails real work is not "ok":
    the outcome of the calls memex makes, when newer than the cached probe, is what health says."""
    with _everything_at(ctx, remote, "flaky") as client:
        assert client.get("/health").json()["degraded"] == []
        for _ in range(4):  # the first try and the client's three retries
            remote.script(EMBEDDINGS, status=500)
        tenant = Tenant(ctx, client)
        turn = tenant.turn("My name is Ada.")  # the embedder fails; the LLM is not reached
        assert turn.status_code == 202
        body = client.get("/health").json()
        assert body["embed"] == "error: InternalServerError" and body["llm"] == "ok"
        for _ in range(3):
            remote.script(CHAT, status=500)
        tenant.turn("My name is Bo.")  # now the embedder works and the LLM fails three times
        body = client.get("/health").json()
    # named by the endpoint's failure, as the probe names it, not by memex's wrapper (LLMError)
    assert body["embed"] == "ok" and body["llm"] == "error: InternalServerError"
    assert body["degraded"] == ["llm"]


def test_health_names_a_model_the_endpoint_does_not_serve_though_it_lists_its_models(ctx, remote):
    """MEMEX_LLM_MODEL misspelt, or a model not pulled (ollama): every chat call is refused 404 while
    the endpoint's models list, which /health probes, answers fine. Probed after the refusal, health
    said "ok"; the refusal stands until a call of memex's succeeds."""
    with _everything_at(ctx, remote, "unserved") as client:
        remote.script(CHAT, status=404, body={"error": {"message": "model 'llm-unserved' not found, try pulling it"}})
        tenant = Tenant(ctx, client)
        assert tenant.turn("My name is Ada.").status_code == 202  # queued, the LLM gave no answer
        body = client.get("/health").json()  # its probe runs now, after the refusal
        assert body["llm"] == "error: NotFoundError" and body["degraded"] == ["llm"]
        remote.script_chat('{"memories": []}')
        assert tenant.turn("My name is Bo.").status_code == 201
        assert client.get("/health").json()["llm"] == "ok"


def test_health_names_an_llm_whose_chat_calls_fail_though_it_lists_its_models(ctx, remote):
    """An overloaded server (Ollama, vLLM) still lists its models while its chat calls fail or hang:
    a probe run after the failure said "ok", and /health flipped between the two. The failure stands
    until a call of memex's succeeds."""
    with _everything_at(ctx, remote, "overloaded") as client:
        for _ in range(3):  # every attempt of the turn's extraction
            remote.script(CHAT, status=503)
        tenant = Tenant(ctx, client)
        assert tenant.turn("My name is Ada.").status_code == 202  # queued, the LLM gave no answer
        body = client.get("/health").json()  # its probe runs now, after the failure, and the models list answers
        assert body["llm"] == "error: InternalServerError" and body["degraded"] == ["llm"]
        remote.script_chat('{"memories": []}')
        assert tenant.turn("My name is Bo.").status_code == 201
        body = client.get("/health").json()
    assert body["llm"] == "ok" and body["degraded"] == []
