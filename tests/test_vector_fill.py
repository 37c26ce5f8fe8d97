"""The writers of a vector made from texts read earlier (a job's retry filling what an earlier delivery
stored without one, the sweep's fill, `memex backfill --reembed`): an erasure between their read and their
write leaves no vector of the erased words, and nothing erased comes back."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone

import numpy as np
import pytest

from tests.conftest import Tenant, WrappedEmbedder

QUESTION = "Which city should I visit for the jacarandas?"
ANSWER = "Lisbon, in late May."


class ErasingEmbedder(WrappedEmbedder):
    """Erases `erase` (a memory id) as an erasure's transaction does, at its first call, before it embeds:
    the erasure commits between the caller's read and its write. The vectors that erasure leaves to be made
    after its commit (vectorless.embed_after_erasure) are not made: they wait, as with the embedder down."""

    def __init__(self, embedder, ctx, tenant_id: str, erase: str):
        super().__init__(embedder)
        self._ctx, self._tenant_id, self._erase = ctx, tenant_id, erase
        self.erased = False

    def embed(self, texts):
        from memex.db import erasure as erasure_rows

        if not self.erased:
            self.erased = True
            with self._ctx.db.transaction() as conn:
                erasure_rows.memories(conn, self._tenant_id, [self._erase])
        return self._embedder.embed(texts)


class FailingEmbedder(WrappedEmbedder):
    def embed(self, texts):
        raise TimeoutError("embedder down")


def _episodic(ctx, tenant: Tenant) -> dict[str, dict]:
    return {r["content"]: r for r in ctx.db.connection().execute(
        "SELECT id, content, context, embedding FROM memories WHERE tenant_id = %s AND memory_type = 'episodic'",
        (tenant.id,)).fetchall()}


def _asked(tenant: Tenant, wait: bool) -> str:
    """The question and its answer, the answer indexed with the question as its context; the turn's id."""
    turn = tenant.post("/v1/turns" + ("?wait=true" if wait else ""), {
        "user_id": tenant.user, "session_id": "s1", "messages": [
            {"role": "user", "content": QUESTION}, {"role": "assistant", "content": ANSWER}]})
    assert turn.status_code in (201, 202), turn.text
    return turn.json()["turn_id"]


def _own_words(ctx) -> np.ndarray:
    from memex import embedded_text

    return ctx.embedder.embed([embedded_text.of(ANSWER, None, memory_type="episodic", subject="user")])[0]


def _nothing_of_the_question(ctx, tenant: Tenant) -> None:
    left = ctx.db.connection().execute(
        "SELECT (SELECT count(*) FROM memories WHERE tenant_id = %(t)s AND (content = %(q)s OR context = %(q)s))"
        " + (SELECT count(*) FROM messages WHERE tenant_id = %(t)s AND content = %(q)s) AS n",
        {"t": tenant.id, "q": QUESTION}).fetchone()
    assert left["n"] == 0


def _left_to_the_sweep(ctx, tenant: Tenant) -> None:
    """The answer is stored with no context and no vector, nothing of the erased question is left, and the
    sweep's fill gives the answer a vector of its own words."""
    from memex import vectorless

    row = _episodic(ctx, tenant)[ANSWER]
    assert row["context"] is None and row["embedding"] is None
    _nothing_of_the_question(ctx, tenant)
    vectorless.fill(ctx, 60)
    assert np.allclose(_episodic(ctx, tenant)[ANSWER]["embedding"].to_numpy(), _own_words(ctx), atol=1e-5)


def _delivered_while_the_question_is_erased(ctx, tenant: Tenant, turn_id: str, question_id: str) -> None:
    """Deliver the turn's extraction with the question erased while its answer is embedded: the answer
    is left to the sweep."""
    from memex import pipeline
    from memex.jobs import ExtractionJob

    erasing = ErasingEmbedder(ctx.embedder, ctx, tenant.id, question_id)
    follow_up = pipeline.extract(dataclasses.replace(ctx, embedder=erasing), ExtractionJob(tenant.id, turn_id))
    if follow_up is not None:
        pipeline.resolve(ctx, follow_up)
    assert erasing.erased
    _left_to_the_sweep(ctx, tenant)


def _answered(ctx, http) -> tuple[Tenant, dict, dict]:
    tenant = Tenant(ctx, http)
    _asked(tenant, wait=True)
    rows = _episodic(ctx, tenant)
    assert rows[ANSWER]["context"] == QUESTION and rows[ANSWER]["embedding"] is not None
    return tenant, rows[QUESTION], rows[ANSWER]


def test_the_sweep_writes_no_vector_of_a_context_erased_after_its_read(ctx, http):
    """The answer waits for its vector (stored while the embedder failed); the sweep reads it with the
    question as its context, and the question is erased before the sweep writes: the sweep writes nothing
    of that reading, reads it again without its context, and fills in a vector of its own words."""
    from memex import vectorless

    tenant, question, answer = _answered(ctx, http)
    ctx.db.connection().execute("UPDATE memories SET embedding = NULL WHERE id = %s", (answer["id"],))
    erasing = ErasingEmbedder(ctx.embedder, ctx, tenant.id, question["id"])
    vectorless.fill(dataclasses.replace(ctx, embedder=erasing), 60)
    assert erasing.erased
    row = _episodic(ctx, tenant)[ANSWER]
    assert row["context"] is None
    assert np.allclose(row["embedding"].to_numpy(), _own_words(ctx), atol=1e-5)
    _nothing_of_the_question(ctx, tenant)


def test_a_reembedding_writes_no_vector_of_a_context_erased_after_its_read(ctx, http):
    """`memex backfill --reembed` reads the answer with the question as its context; the question is erased
    before the chunk writes: the answer is left to the sweep, without the vector the chunk made."""
    from memex import backfill

    tenant, question, answer = _answered(ctx, http)
    erasing = ErasingEmbedder(ctx.embedder, ctx, tenant.id, question["id"])
    backfill.run_chunk(dataclasses.replace(ctx, embedder=erasing), backfill.new_job("reembed", tenant.id,
                                                                                    user_id=tenant.user))
    assert erasing.erased
    _left_to_the_sweep(ctx, tenant)


def test_a_retry_writes_no_vector_of_a_context_erased_after_its_read(ctx, http):
    """The turn's first delivery stored its messages without their vectors (the embedder down); its retry
    reads them, the answer with the question as its context, and the question is erased before it writes."""
    from memex import pipeline
    from memex.jobs import ExtractionJob

    tenant = Tenant(ctx, http)
    turn_id = _asked(tenant, wait=False)
    with pytest.raises(TimeoutError):
        pipeline.extract(dataclasses.replace(ctx, embedder=FailingEmbedder(ctx.embedder)),
                         ExtractionJob(tenant.id, turn_id))
    rows = _episodic(ctx, tenant)
    assert rows[ANSWER]["context"] == QUESTION and rows[ANSWER]["embedding"] is None
    _delivered_while_the_question_is_erased(ctx, tenant, turn_id, rows[QUESTION]["id"])


REFUSED = "a text the embedder refuses"


class RefusingEmbedder(WrappedEmbedder):
    """Fails every call with REFUSED among its texts (as a remote embedder answers 400 to a text too long)."""

    def embed(self, texts):
        if any(REFUSED in text for text in texts):
            raise ValueError("input refused")
        return self._embedder.embed(texts)


def _waiting(ctx, tenant: Tenant, user: str) -> list[str]:
    return sorted(r["content"] for r in ctx.db.connection().execute(
        "SELECT content FROM memories WHERE tenant_id = %s AND user_id = %s AND embedding IS NULL",
        (tenant.id, user)).fetchall())


def test_a_memory_the_embedder_refuses_holds_up_no_other_in_the_sweep(ctx, http):
    """The oldest memory waiting for its vector is one the embedder refuses, among many of its user's, and
    another user's wait behind them. Its batch failed at every run and the run stopped there: no memory after
    it was ever filled. Now the rows of its batch are embedded one a call up to it, it is set back behind
    every other, and the next run fills the rest; it alone waits, counted."""
    from memex import vectorless
    from memex.db import memories as memory_rows
    from memex.db import vectorless as vectorless_rows

    tenant, other = Tenant(ctx, http), f"u-other-{Tenant(ctx, http).user}"
    many = [f"line {i:03d} of a long history" for i in range(vectorless.BATCH + 6)]

    def stored(user: str, contents: list[str], created: str) -> None:
        with ctx.db.transaction() as conn:
            memory_rows.insert_many(conn, tenant.id, [{
                "id": f"{user}-{content}", "user_id": user, "memory_type": "episodic", "type": "message",
                "content": content, "embedding": None, "valid_from": datetime.now(timezone.utc),
                "dedupe_key": f"message:{user}-{content}"} for content in contents])
            conn.execute("UPDATE memories SET created_at = %s WHERE tenant_id = %s AND user_id = %s",
                         (created, tenant.id, user))

    refused = f"line 010 then {REFUSED}"  # read after line 010, before line 011
    stored(tenant.user, [refused, *many], "2000-01-01T00:00:00Z")  # before every other memory waiting
    stored(other, ["the other user's line"], "2000-01-02T00:00:00Z")
    recorded = []

    class Recorder:
        def record(self, metric, value=1, **labels):
            recorded.append((metric.name, value))

    refusing = dataclasses.replace(ctx, embedder=RefusingEmbedder(ctx.embedder), metrics=Recorder())
    assert vectorless.fill(refusing, 60) == 11  # its batch failed: the lines before it, one a call
    assert _waiting(ctx, tenant, tenant.user) == sorted([refused, *many[11:]])
    assert _waiting(ctx, tenant, other) == ["the other user's line"]
    vectorless.fill(refusing, 60)
    assert _waiting(ctx, tenant, tenant.user) == [refused]
    assert _waiting(ctx, tenant, other) == []
    assert recorded[-1] == ("MemoriesWithoutVector", vectorless_rows.count(ctx.db.connection()))
    vectorless.fill(refusing, 60)  # tried again, after the others: still waiting, set back again
    assert _waiting(ctx, tenant, tenant.user) == [refused]
    vectorless.fill(ctx, 60)  # the embedder takes it now
    assert _waiting(ctx, tenant, tenant.user) == []


def test_a_vector_written_clears_the_failure_that_set_its_memory_back(ctx, http):
    """A memory the sweep failed on waits behind the others (vectorless_rows.failed). Once any writer gives it
    its vector (the sweep's fill, a retry's fill_vectors, a re-embedding's set_embeddings), that failure is
    over: were the vector taken again (an erasure of its context), it would wait in its own place, not
    behind every memory that never failed."""
    from memex.db import memories as memory_rows
    from memex.db import vectorless as vectorless_rows

    tenant = Tenant(ctx, http)
    contents = ["filled by the sweep", "filled by a retry", "filled by a re-embedding"]
    with ctx.db.transaction() as conn:
        memory_rows.insert_many(conn, tenant.id, [{
            "id": f"{tenant.user}-{i}", "user_id": tenant.user, "memory_type": "episodic", "type": "message",
            "content": content, "embedding": None, "valid_from": datetime.now(timezone.utc),
            "dedupe_key": f"message:{tenant.user}-{i}"} for i, content in enumerate(contents)])
    rows = {r["content"]: r for r in ctx.db.connection().execute(
        "SELECT tenant_id, id, content, context, dedupe_key FROM memories WHERE tenant_id = %s", (tenant.id,))}
    vector = ctx.embedder.embed(["any words"])[0]
    with ctx.db.transaction() as conn:
        for row in rows.values():
            vectorless_rows.failed(conn, row)
        vectorless_rows.fill(conn, [(rows[contents[0]], vector)])
        memory_rows.fill_vectors(conn, tenant.id, [(rows[contents[1]]["dedupe_key"], None, vector)])
        memory_rows.set_embeddings(conn, tenant.id, [(rows[contents[2]], vector)])
    assert ctx.db.connection().execute(
        "SELECT count(*) AS n, count(embedding) AS vectored, count(vector_failed_at) AS failed"
        " FROM memories WHERE tenant_id = %s", (tenant.id,)).fetchone() == {"n": 3, "vectored": 3, "failed": 0}


def test_a_first_delivery_stores_no_context_erased_after_its_read(ctx, http):
    """The answer comes in a turn of its own after the question's: the worker reads the question as the
    line the answer is indexed with, and the question is erased (by id) while it embeds. The answer is
    stored without that context, nor a vector made from it, and the sweep gives it one of its own words.
    It was stored with the erased question as its context, a copy of the erased words."""
    tenant = Tenant(ctx, http)
    asked = tenant.turn(QUESTION, wait=True)
    assert asked.status_code == 201, asked.text
    question = _episodic(ctx, tenant)[QUESTION]
    answered = tenant.post("/v1/turns", {"user_id": tenant.user, "session_id": "s1",
                                         "messages": [{"role": "assistant", "content": ANSWER}]})
    _delivered_while_the_question_is_erased(ctx, tenant, answered.json()["turn_id"], question["id"])


def test_memories_without_vector_leaves_out_those_of_a_user_being_erased(ctx):
    """A user's erasure begun, their memories waiting for a vector wait for the erasure (the sweep leaves them,
    vectorless_rows.waiting), not for the embedder: MemoriesWithoutVector counted them, above 0 with the
    embedder answering, until the erasure ended."""
    from memex.db import erasure as erasure_rows
    from memex.db import memories as memory_rows
    from memex.db import tenants as tenant_rows
    from memex.db import vectorless as vectorless_rows
    from tests.conftest import database_of_its_own

    with database_of_its_own(ctx, "vectorless_count") as own:  # the count is every tenant's
        with own.db.transaction() as conn:
            tenant_rows.ensure_tenant(conn, "t1")
            memory_rows.insert_many(conn, "t1", [{
                "id": f"{user}-{i}", "user_id": user, "memory_type": "episodic", "type": "message",
                "content": f"line {i}", "embedding": None, "valid_from": datetime.now(timezone.utc),
                "dedupe_key": f"message:{user}-{i}"} for user, n in (("leaving", 3), ("staying", 2)) for i in range(n)])
        assert vectorless_rows.count(own.db.connection()) == 5
        with own.db.transaction() as conn:
            erasure_rows.begin_user(conn, "t1", "leaving")
        assert vectorless_rows.count(own.db.connection()) == 2
        assert len(vectorless_rows.waiting(own.db.connection(), 10)) == 2  # the rows the sweep reads, counted


def _at_the_double(ctx, double):
    """The context with its embedder at the double, through the real `openai` client, its retries at once."""
    from memex.embeddings import measured_embedder

    settings = dataclasses.replace(ctx.settings, embeddings_provider="openai", embeddings_base_url=double.base_url,
                                   embeddings_model="embed-down", embeddings_query_cache=0)
    return dataclasses.replace(ctx, embedder=measured_embedder(settings, ctx.metrics))


def _two_waiting(ctx, tenant: Tenant) -> None:
    """Two memories of the tenant's waiting for their vector: a batch of more than one, which the sweep
    embeds one a call when the batch failed for a reason that may be a row's."""
    from memex.db import memories as memory_rows

    with ctx.db.transaction() as conn:
        memory_rows.insert_many(conn, tenant.id, [{
            "id": f"{tenant.user}-{i}", "user_id": tenant.user, "memory_type": "episodic", "type": "message",
            "content": f"waiting line {i}", "embedding": None, "valid_from": datetime.now(timezone.utc),
            "dedupe_key": f"message:{tenant.user}-{i}"} for i in range(2)])


def _set_back(ctx) -> int:
    return ctx.db.connection().execute(
        "SELECT count(*) AS n FROM memories WHERE vector_failed_at IS NOT NULL").fetchone()["n"]


def _calls(double) -> int:
    from bench.openai_double import EMBEDDINGS

    return sum(1 for path, _ in double.requests if path == EMBEDDINGS)


@pytest.fixture
def quick_retries(monkeypatch):
    from memex.embeddings import openai_compat

    monkeypatch.setattr(openai_compat, "RETRY_PAUSE_SECONDS", 0.0)


@pytest.mark.parametrize("failure", ["500", "400"])
def test_the_fill_asks_a_down_embedder_once_and_one_refusing_a_row_row_by_row(ctx, http, quick_retries, failure):
    """The embedder down (500: the real client's every attempt failing), the fill's batch failed, then its first
    row was asked alone, waiting out the attempts again: the embedder's failure was taken for the row's. Now
    a failure that is the embedder's (embeddings.on_its_side), a probe failing too, is its last call of the run,
    the first row set back without one; one that may be the row's (400, a text refused) is still tried one row a call, so that
    a memory the embedder refuses holds up no other."""
    from bench.openai_double import EMBEDDINGS, OpenAIDouble
    from memex import vectorless
    from memex.embeddings.openai_compat import DOCUMENT_ATTEMPTS

    _two_waiting(ctx, Tenant(ctx, http))
    before = _set_back(ctx)
    with OpenAIDouble(dim=ctx.settings.embedding_dim) as double:
        if failure == "500":
            double.fail(EMBEDDINGS, "500")
        else:
            for _ in range(2):
                double.script(EMBEDDINGS, status=400, body={"error": {"message": "input too long"}})
        assert vectorless.fill(_at_the_double(ctx, double), 60) == 0
        asked = _calls(double)
    if failure == "500":
        # the batch's attempts, then the probe's one (embeddings.down): the embedder is down
        assert (asked, _set_back(ctx)) == (DOCUMENT_ATTEMPTS + 1, before + 1)
    else:
        assert (asked, _set_back(ctx)) == (2, before + 1)  # the batch, then its first row alone


def test_one_sweep_run_asks_a_down_embedder_once(ctx, tenant, quick_retries):
    """A user's job due and memories waiting for their vector, the embedder down: the job's start waited out
    the embedder's attempts and stopped the starts, then the fill asked it again, its batch and then a row
    alone (three times the attempts in one run). Now what the starts learnt is the fill's: one call a run."""
    from bench.openai_double import EMBEDDINGS, OpenAIDouble
    from infra.local.lambda_context import LocalLambdaContext
    from infra.local.runtime import function_module
    from memex.embeddings.openai_compat import DOCUMENT_ATTEMPTS

    # long ago: the earliest due in the database, tried first
    tenant.turn("I work at Canva.", timestamp="1989-01-01T09:00:00Z")
    tenant.turn("I start at Twilio next week.", timestamp="1989-01-02T09:00:00Z")
    _two_waiting(ctx, tenant)
    with OpenAIDouble(dim=ctx.settings.embedding_dim) as double:
        double.fail(EMBEDDINGS, "500")
        answer = function_module("sweep").run(_at_the_double(ctx, double), LocalLambdaContext("sweep", timeout_seconds=60))
        asked = _calls(double)
    assert (answer["jobs_failed"], answer["vectors_filled"]) == (1, 0)
    assert asked == DOCUMENT_ATTEMPTS + 1, f"{asked / DOCUMENT_ATTEMPTS:g} calls of the embedder's attempts"  # and the probe
    assert function_module("sweep").run(ctx, LocalLambdaContext("sweep", timeout_seconds=60))["vectors_filled"] >= 2


def test_a_text_an_endpoint_answers_5xx_to_holds_up_no_other(ctx, quick_retries):
    """An endpoint answering 500 to one text only (some self-hosted servers do, to a text too long) failed every
    batch that text was in, and the fill took that for the embedder down: the batch's first memory was set back
    with no call, the text stayed in every batch, and while every memory waiting fitted in one, no memory was
    filled again. Now a probe tells the two apart: the endpoint answering it, the batch's rows are asked one a
    call, and only that text waits."""
    from bench.openai_double import OpenAIDouble
    from memex import vectorless
    from memex.db import memories as memory_rows
    from tests.conftest import database_of_its_own

    with database_of_its_own(ctx, "fill_5xx") as own, OpenAIDouble(dim=ctx.settings.embedding_dim) as double:
        tenant = Tenant(own, None)
        lines = ["line 0", "line 1 TOO-LONG", "line 2", "line 3"]
        with own.db.transaction() as conn:
            memory_rows.insert_many(conn, tenant.id, [{
                "id": f"{tenant.user}-{i}", "user_id": tenant.user, "memory_type": "episodic", "type": "message",
                "content": line, "embedding": None, "valid_from": datetime.now(timezone.utc),
                "dedupe_key": f"message:{tenant.user}-{i}"} for i, line in enumerate(lines)])
            for i in range(len(lines)):  # waiting in this order
                conn.execute("UPDATE memories SET created_at = %s WHERE tenant_id = %s AND id = %s",
                             (f"2000-01-0{i + 1}T00:00:00Z", tenant.id, f"{tenant.user}-{i}"))
        double.fail_inputs_with("TOO-LONG")
        at_the_double = _at_the_double(own, double)
        for _ in range(3):
            vectorless.fill(at_the_double, 60)
        assert _waiting(own, tenant, tenant.user) == ["line 1 TOO-LONG"]
