"""Multi-hop search through the HTTP API: offline entity expansion, and sub-queries split by the LLM
(the loopback double, through the real openai client)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from memex.retrieval.multihop import entity_names
from memex_edge.context import build_context
from tests.conftest import Tenant, api_client

WHEN = "2026-01-10T00:00:00Z"
DOG = "My dog is called Biscuit."
WALKS = "Biscuit and I love our walks along the river in Lisbon."  # no word of the question
DISTRACTORS = (
    "My neighbour's cat sleeps all day on the balcony.",
    "Paris is the most beautiful city I have visited.",
    "I work at Stripe as an engineer.",
    "My sister adopted a kitten last spring.",
    "The new office has a great coffee machine.",
    "I am learning to play the guitar.",
)
# asks for no type of thing (retrieval/answer_type.py), so that only the expansion reaches WALKS
QUESTION = "When is my dog happiest?"


def _app(ctx, **changes):
    app_ctx = build_context(dataclasses.replace(ctx.settings, **changes))
    return api_client(app_ctx)


# The lines said next to the first hit (small talk here) would take places of the top 3 that these
# tests give to what the expansion reaches: the neighbour cue is measured on its own (test_search_cues).
@pytest.fixture(scope="module")
def expanding(ctx):
    with _app(ctx, offline_expansion=True, llm_model="", search_neighbour_share=0.0) as client:
        yield client


@pytest.fixture(scope="module")
def plain(ctx):
    with _app(ctx, offline_expansion=False, llm_model="", search_neighbour_share=0.0) as client:
        yield client


@pytest.fixture(scope="module")
def splitting(ctx, llm):
    with _app(ctx, llm_base_url=llm.base_url, llm_model="test-model", llm_api_key="k", llm_multihop=True,
              offline_expansion=False, search_neighbour_share=0.0) as client:
        yield client


@pytest.fixture
def user(ctx, http):
    """Written through the plain app (offline extraction), searched through the others."""
    tenant = Tenant(ctx, http)
    assert tenant.turn(DOG, *DISTRACTORS, timestamp="2026-01-01T00:00:00Z").status_code == 201
    # another day: WALKS is not indexed after the line that names the dog
    assert tenant.turn(WALKS, session="s2", timestamp="2026-01-02T00:00:00Z").status_code == 201
    return tenant


def _search(client, tenant: Tenant, query: str, **extra) -> list[dict]:
    body = {"user_id": tenant.user, "query": query, "reference_time": WHEN, **extra}
    response = client.post("/v1/search", json=body, headers=tenant.headers)
    assert response.status_code == 200, response.text
    return response.json()["results"]


def _rank(results: list[dict], content: str) -> int | None:
    return next((i for i, r in enumerate(results, start=1) if r["content"] == content), None)


def test_entity_names_skip_the_speaker_openers_and_what_was_asked():
    hits = ["Caroline: Biscuit and I love our walks in Lisbon on Saturday.", "Yes! My sister Ana lives in Porto."]
    assert entity_names(hits, "where does Caroline walk in Lisbon?") == ["Biscuit", "Ana", "Porto"]
    assert entity_names(["Melanie: Thanks, that's great!"], "how is Melanie?") == []


def test_a_sentence_s_first_word_is_a_name_unless_the_ranking_writes_it_lower_case():
    hits = ["Recently I took Biscuit to Porto.", "Honestly, Pepper and I love it there!", "Seeing Ana was fun."]
    elsewhere = ["I moved here recently", "Honestly we had no plan", "We honestly had no plan.",
                 "The dog sits beside my cat Pepper.", "Add salt and pepper.", "I was seeing a lot of him."]
    # Recently, Honestly and Seeing open sentences and are written lower-case further down;
    # Pepper is too, but also capitalised inside a sentence; Biscuit and Ana are names anywhere.
    # "Honestly" opens a memory after one without a full stop: still a sentence's first word.
    assert entity_names([*hits, *elsewhere], "where do we go?") == ["Biscuit", "Porto", "Pepper"]
    assert entity_names([hits[2], *elsewhere], "where do we go?") == ["Ana"]
    # with nothing further down to read them by, a sentence's first word counts (as Biscuit above)
    assert entity_names(hits, "where do we go?") == ["Recently", "Biscuit", "Porto"]


def test_a_name_inside_a_sentence_counts_however_the_ranking_writes_it():
    ranked = ["My sister Rose grows roses.", "We met at the rose garden in Kew.", "Wow! Yep, lovely."]
    assert entity_names(ranked, "who grows flowers?") == ["Rose", "Kew"]


def test_offline_expansion_reaches_the_fact_the_first_hit_names(user, expanding, plain):
    without = _search(plain, user, QUESTION, top_k=3)
    assert _rank(without, DOG) is not None and _rank(without, WALKS) is None
    with_expansion = _search(expanding, user, QUESTION, top_k=3)
    assert _rank(with_expansion, WALKS) is not None, [r["content"] for r in with_expansion]
    assert _rank(with_expansion, DOG) is not None


def test_a_second_hop_that_names_the_place_asked_for_is_reached_without_the_expansion(user, plain):
    # "where" asks for a place, and WALKS names one (the river, Lisbon) though it says no word of the question
    assert _rank(_search(plain, user, "Where is my dog happiest?", top_k=3), WALKS) is not None


def test_offline_expansion_leaves_a_single_hop_answer_first(user, expanding, plain):
    # Not "what is the name of my neighbour's cat?": "Biscuit", named by the dog fact among the
    # first hits, lifts that fact above the cat's line (the expansion adds to the hits it read its
    # names from; left as it is, since current-first relies on it: docs/retrieval.md).
    for query in ("where does the user work?", "Stripe engineer"):
        before, after = _search(plain, user, query), _search(expanding, user, query)
        assert before and after[0]["id"] == before[0]["id"], query


def test_offline_expansion_does_not_open_the_floor(user, expanding):
    assert _search(expanding, user, "What is the boiling point of mercury?") == []


def test_the_llm_splits_the_question_into_sub_queries(user, llm, splitting, plain):
    llm.requests.clear()
    llm.script_chat(json.dumps({"queries": ["What is the name of the user's dog?",
                                            "Which city does Biscuit walk in?"]}))
    results = _search(splitting, user, QUESTION, top_k=5)
    contents = [r["content"] for r in results]
    assert DOG in contents and WALKS in contents, contents
    [prompt] = llm.chat_prompts()
    assert QUESTION in prompt

    # a question that needs no split comes back as itself: the ranking is the plain one
    llm.script_chat('```json\n{"queries": ["where does the user work?"]}\n```')
    same = _search(splitting, user, "where does the user work?")
    assert [r["id"] for r in same] == [r["id"] for r in _search(plain, user, "where does the user work?")]


def test_search_answers_when_the_llm_is_down(user, llm, splitting, plain):
    llm.scripts.clear()  # nothing scripted: the double answers 500
    results = _search(splitting, user, "where does the user work?")
    assert [r["id"] for r in results] == [r["id"] for r in _search(plain, user, "where does the user work?")]


def test_the_split_counts_its_calls_and_the_offline_fallback(user, llm, ctx):
    from memex.models import SearchIn
    from memex.retrieval.search import search

    recorded = []

    class Recorder:
        def record(self, metric, value=1, **labels):
            recorded.append((metric.name, labels.get("purpose")))

    settings = dataclasses.replace(ctx.settings, llm_base_url=llm.base_url, llm_model="test-model", llm_api_key="k",
                                   llm_multihop=True, offline_expansion=False)
    split_ctx = dataclasses.replace(build_context(settings), metrics=Recorder())
    llm.scripts.clear()  # nothing scripted: the double answers 500
    search(split_ctx, user.id, SearchIn(user_id=user.user, query="where does the user work?"))
    assert {("LlmCalls", "split"), ("LlmFailures", "split"), ("LlmFallbacks", "split")} <= set(recorded)


def test_a_hung_split_costs_a_search_one_wait_not_one_per_attempt(llm, ctx, monkeypatch):
    """A model that hangs at search time: the split's two attempts share one budget, so the search
    waits it once and expands offline; each attempt waited its own timeout (20 s a search)."""
    from memex.retrieval import multihop

    monkeypatch.setattr(multihop, "SPLIT_BUDGET_SECONDS", 0.5, raising=False)
    settings = dataclasses.replace(ctx.settings, llm_base_url=llm.base_url, llm_model="hung-model", llm_api_key="k",
                                   llm_multihop=True)
    llm.requests.clear()
    llm.scripts.clear()
    llm.script_chat(json.dumps({"queries": ["late"]}), json.dumps({"queries": ["late again"]}), delay=2.0)
    assert multihop.split(settings, "Where do I walk my dog?") is None
    assert len(llm.chat_requests) == 1
    llm.scripts.clear()


def test_a_split_the_endpoint_failed_is_not_asked_again_until_its_back_off_is_over(user, llm, ctx, plain, monkeypatch):
    """A model that hangs: the first search waits the split's budget, the next ones (within the back-off)
    ask nothing and answer at once; once the back-off is over one search asks again, and a failure then
    doubles the back-off, a success ends it."""
    from types import SimpleNamespace

    from bench.openai_double import CHAT
    from memex.retrieval import multihop

    clock = [1000.0]
    monkeypatch.setattr(multihop, "SPLIT_BUDGET_SECONDS", 0.5)
    monkeypatch.setattr(multihop, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    backoff = multihop.SPLIT_BACKOFF_SECONDS
    query = "where does the user work?"
    expected = [r["id"] for r in _search(plain, user, query)]
    llm.requests.clear()
    llm.scripts.clear()
    llm.hang_seconds = 2.0
    llm.fail(CHAT, "hang")

    def searched(client) -> tuple[int, list[str]]:
        """The chat requests one search made, and what it found and named degraded."""
        before = len(llm.chat_requests)
        body = {"user_id": user.user, "query": query, "reference_time": WHEN}
        response = client.post("/v1/search", json=body, headers=user.headers)
        assert response.status_code == 200, response.text
        assert [r["id"] for r in response.json()["results"]] == expected
        return len(llm.chat_requests) - before, response.json().get("degraded", [])

    def health(client) -> tuple[str, str, list[str], str]:
        body = client.get("/health").json()
        return body["status"], body["llm"], body["degraded"], body["split"]

    try:
        with _app(ctx, llm_base_url=llm.base_url, llm_model="down-model", llm_api_key="k", llm_multihop=True,
                  offline_expansion=False, search_neighbour_share=0.0) as client:
            assert health(client) == ("ok", "ok", ["rerank"], "ok")  # no reranker configured
            assert searched(client) == (1, ["llm"])
            # /health said the LLM was fine while every search skipped its split: the extraction's calls
            # and the models list are, the split is not, and /health says so without turning red
            assert health(client) == ("ok", "ok", ["rerank", "split"], f"error: APITimeoutError, back-off {backoff:.0f}s left")
            assert searched(client) == (0, ["llm"])  # within the back-off: no request, an answer
            clock[0] += backoff + 1
            assert searched(client) == (1, ["llm"])  # tried again, and still hung: twice as long
            assert health(client)[3] == f"error: APITimeoutError, back-off {2 * backoff:.0f}s left"
            clock[0] += backoff + 1
            assert searched(client) == (0, ["llm"])
            assert health(client)[3] == f"error: APITimeoutError, back-off {backoff - 1:.0f}s left"
            clock[0] += backoff
            llm.heal(CHAT)
            llm.script_chat(json.dumps({"queries": [query]}))
            assert searched(client) == (1, [])  # back: the split answers, the back-off is over
            assert health(client) == ("ok", "ok", ["rerank"], "ok")
            llm.fail(CHAT, "500")
            assert searched(client)[0] == 2  # failing again: its retry included
            clock[0] += backoff + 1  # the first back-off again, not the doubled one
            assert searched(client)[0] == 2
    finally:
        llm.heal(CHAT)
        llm.scripts.clear()
