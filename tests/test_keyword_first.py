"""Keyword first (retrieval/keyword_first.py): a hybrid search whose keyword channel is decisive
answers without embedding the query, with the fields of any other answer; one that is not takes
the full hybrid path. Through the HTTP API, the embedded Postgres and the local embedder."""

from __future__ import annotations

import dataclasses

import pytest

from memex_edge.context import build_context
from tests.conftest import LoggedEmbedder, api_client

WHEN = "2026-01-10T00:00:00Z"
HISTORY = ["My cat Zanzibar sleeps on the warm radiator every afternoon.", "I work at Stripe as an engineer.",
           "Paris is the most beautiful city I have visited.", "The new office has a great coffee machine.",
           "I am learning to play the guitar.", "My sister adopted a kitten last spring.",
           "We had pasta for dinner with friends.", "The weather was cold and rainy all week."]


@pytest.fixture(scope="module")
def apps(ctx):
    made = {}
    for name, on in (("full", False), ("first", True)):
        app_ctx = build_context(dataclasses.replace(ctx.settings, search_keyword_first=on))
        app_ctx = dataclasses.replace(app_ctx, embedder=LoggedEmbedder(app_ctx.embedder))
        made[name] = (api_client(app_ctx), app_ctx.embedder)
    yield made
    for client, _ in made.values():
        client.close()


def _tell(tenant, *lines):
    for i, line in enumerate(lines):  # one session each: no line shares a neighbour's relevance
        assert tenant.turn(line, session=f"s{i}", timestamp="2026-01-01T00:00:00Z").status_code == 201


def _search(apps, name, tenant, query):
    client, embedder = apps[name]
    embedder.calls.clear()
    response = client.post("/v1/search", json={"user_id": tenant.user, "query": query, "reference_time": WHEN},
                           headers=tenant.headers)
    assert response.status_code == 200, response.text
    return response.json(), [query for call in embedder.calls for query in call]


def test_a_decisive_keyword_answer_skips_the_embedding_and_keeps_the_fields(tenant, apps):
    _tell(tenant, *HISTORY)
    question = "Where does Zanzibar sleep, on the radiator?"
    full, embedded = _search(apps, "full", tenant, question)
    first, not_embedded = _search(apps, "first", tenant, question)
    assert embedded == [question] and not_embedded == []
    assert first["results"][0]["content"] == full["results"][0]["content"] == HISTORY[0]
    assert first["degraded"] == [] and first.keys() == full.keys()
    for answered in first["results"]:
        assert answered.keys() == full["results"][0].keys()
        assert answered["score_parts"].keys() == full["results"][0]["score_parts"].keys()
        assert answered["score_parts"]["similarity"] is None and answered["score_parts"]["vector_rank"] is None


def test_a_question_in_words_of_its_own_takes_the_full_hybrid_path(tenant, apps):
    _tell(tenant, *HISTORY)
    question = "Which pet naps near the heater?"  # no word of it said: the vector channel is needed
    full, embedded = _search(apps, "full", tenant, question)
    first, also_embedded = _search(apps, "first", tenant, question)
    assert embedded == also_embedded == [question]
    assert [(r["id"], r["score"]) for r in first["results"]] == [(r["id"], r["score"]) for r in full["results"]]
    assert first["results"] and first["results"][0]["score_parts"]["similarity"] is not None


def test_a_question_sharing_one_word_with_a_memory_takes_the_full_hybrid_path(tenant, apps):
    _tell(tenant, *HISTORY)
    question = "Does Zanzibar chase mice in the garden?"  # chase, mice, garden: never said
    _, embedded = _search(apps, "first", tenant, question)
    assert embedded == [question]
