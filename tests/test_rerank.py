"""The optional reranker, through the HTTP API: a Cohere/Jina-compatible `/rerank` endpoint (the
loopback double) orders the fused candidates, its floor drops what it scores low, and a reranker
that is down leaves search answering with the fused ranking."""

from __future__ import annotations

import dataclasses

import pytest

from memex_edge.context import build_context
from tests.conftest import Tenant, api_client
from bench.openai_double import RERANK, OpenAIDouble

FACTS = ("I work at Stripe as an engineer.", "My dog is called Biscuit.", "I live in Lisbon.")
WHEN = "2026-01-10T00:00:00Z"


@pytest.fixture(scope="module")
def reranker():
    with OpenAIDouble() as server:
        yield server


@pytest.fixture
def double(reranker):
    reranker.reset()
    return reranker


@pytest.fixture(scope="module")
def rerank_http(ctx, reranker):
    settings = dataclasses.replace(ctx.settings, rerank_base_url=reranker.base_url, rerank_model="test-rerank",
                                   rerank_api_key="rk", rerank_min_score=0.1)
    rerank_ctx = build_context(settings)
    with api_client(rerank_ctx) as client:
        yield client


@pytest.fixture
def user(ctx, http, rerank_http):
    """A tenant with three facts, written through the plain app; searched through either."""
    tenant = Tenant(ctx, http)
    assert tenant.turn(*FACTS, timestamp="2026-01-01T00:00:00Z").status_code == 201
    return tenant


def _contents(tenant: Tenant) -> list[str]:
    listing = tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
    return [m["content"] for m in listing]


def test_the_order_follows_the_rerankers_scores(user, double, rerank_http):
    scripted = {"Lisbon": 0.95, "Biscuit": 0.6, "Stripe": 0.25}
    double.rerank_scores = {content: next((s for word, s in scripted.items() if word in content), 0.0)
                            for content in _contents(user)}
    results = user.through(rerank_http).search("where does the user work?", reference_time=WHEN)

    # reranked: the scripted order, and what scored under the floor is gone
    groups = [next(word for word in scripted if word in r["content"]) for r in results]
    assert groups == sorted(groups, key=lambda word: -scripted[word]) and groups[0] == "Lisbon"
    assert set(groups) == set(scripted)
    for r in results:
        assert r["score_parts"]["relevance"] == r["score_parts"]["rerank"] == scripted[groups[results.index(r)]]

    [request] = double.rerank_requests
    assert request["query"] == "where does the user work?" and request["model"] == "test-rerank"
    assert 0 < len(request["documents"]) <= 50 and request["top_n"] == len(request["documents"])
    assert sorted(request["documents"]) == sorted(_contents(user))


def test_what_the_reranker_scores_under_the_floor_is_dropped(user, double, rerank_http):
    through = user.through(rerank_http)
    double.rerank_scores = {content: 0.05 for content in _contents(user)}  # all loosely related at best
    assert through.search("Who won the 1998 world cup?") == []

    double.rerank_scores = None  # the double's default: the share of the query's words in the document
    results = through.search("Biscuit")
    assert results and all("Biscuit" in r["content"] for r in results)


def test_a_reranker_that_is_down_leaves_the_fused_ranking(user, double, rerank_http):
    query = "where does the user work?"
    fused = user.search(query, reference_time=WHEN)  # the plain app: no reranker
    double.script(RERANK, status=500)
    double.script(RERANK, status=503)
    results = user.through(rerank_http).search(query, reference_time=WHEN)
    assert len(double.rerank_requests) == 2  # one retry
    assert [r["id"] for r in results] == [r["id"] for r in fused]
    assert any("Stripe" in r["content"] for r in results[:2])
    assert all(r["score_parts"]["rerank"] is None for r in results)


def test_bm25_and_vector_modes_are_not_reranked(user, double, rerank_http):
    through = user.through(rerank_http)
    for mode in ("bm25", "vector"):
        assert through.search("Stripe engineer", mode=mode), mode
    assert double.rerank_requests == []


def test_health_names_the_reranker(http, rerank_http):
    assert rerank_http.get("/health").json()["reranker"] == "test-rerank"
    assert http.get("/health").json()["reranker"] == "none"


def test_a_reranked_answer_holds_no_filler_and_no_one_of_another_kind(ctx, double, rerank_http):
    """The filler and kinds filters are no matter of score: "Got it!" says nothing of its own, and "I
    have a dog named Rex." is not the user's name, however high a reranker puts them. With a reranker
    configured both were skipped, and one that scored every line 0.9 had "What is my name?" answered
    with the dog and "Got it!" beside the name."""
    tenant = Tenant(ctx, rerank_http)
    said = ["My name is Maya.", "I have a dog named Rex.", "Got it!"]
    assert tenant.turn(*said, timestamp="2026-01-01T00:00:00Z").status_code == 201
    double.rerank_scores = {content: 0.9 for content in _contents(tenant)}
    found = [r["content"] for r in tenant.search("What is my name?", reference_time=WHEN)]
    assert "My name is Maya." in found and double.rerank_requests, found
    assert not any("Rex" in content or content == "Got it!" for content in found), found


def test_a_reranked_search_reads_the_question_s_signals_alone(ctx, double, rerank_http, monkeypatch):
    """The floor's signals keep the memories a search without a reranker answers with; a reranked one
    keeps what the reranker scores, and its filler filter reads only whether a query's words found a
    memory: the extra queries' signals (here the offline expansion's "Stripe") are not read."""
    from memex.retrieval import floor

    tenant = Tenant(ctx, rerank_http)
    assert tenant.turn(*FACTS, "Got it!", timestamp="2026-01-01T00:00:00Z").status_code == 201
    double.rerank_scores = {content: 0.9 for content in _contents(tenant)}
    read = []
    signals = floor.signals
    monkeypatch.setattr(floor, "signals", lambda keyword, vector: read.append(keyword) or signals(keyword, vector))
    found = [r["content"] for r in tenant.search("Where do I work and what do I do?", reference_time=WHEN)]
    assert found[0] == "The user's employer is Stripe." and "Got it!" not in found, found
    assert len(read) == 1, [keyword.words if keyword else None for keyword in read]
