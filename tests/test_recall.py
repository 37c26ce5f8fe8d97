"""POST /v1/recall: cited bullets, whole, never over the token budget."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from memex.budget import count_tokens

FACTS = [
    "I work at Notion as a product manager.",
    "My dog is called Biscuit and he loves the beach 🏖️.",
    "I live in Lisbon, near the river.",
    "My partner is Sam; we met in Porto in 2019.",
    "I'm allergic to peanuts, so please keep that in mind when suggesting recipes.",
    "Lately I've been reading a lot about distributed databases and consensus protocols " * 3,
]


@pytest.fixture(scope="module")
def stocked(ctx, http):
    from tests.conftest import Tenant

    tenant = Tenant(ctx, http)
    for fact in FACTS:
        tenant.turn(fact, session="s-old")
    tenant.turn("Can you plan a weekend trip for us?", session="s-now")
    return tenant


def test_recall_cites_every_bullet(stocked):
    body = stocked.post("/v1/recall", {"user_id": stocked.user, "query": "where does the user work and live?",
                                       "session_id": "s-now", "max_tokens": 2000}).json()
    bullets = [line for line in body["context"].splitlines() if line.startswith("- ")]
    assert len(bullets) == len(body["citations"]) > 0
    assert "- The user's employer is Notion." in bullets
    for bullet, citation in zip(bullets, body["citations"]):
        assert bullet[2:].startswith(citation["snippet"][:50])
        assert citation["memory_id"] and citation["turn_id"] and citation["message_id"]
    assert body["token_count"] == count_tokens(body["context"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(min_value=64, max_value=32_000))
def test_recall_never_exceeds_the_budget_and_never_cuts_a_bullet(stocked, budget):
    body = stocked.post("/v1/recall", {"user_id": stocked.user, "query": "tell me about the user",
                                       "session_id": "s-now", "max_tokens": budget}).json()
    assert body["token_count"] == count_tokens(body["context"]) <= budget
    stored = {c["snippet"] for c in body["citations"]}
    for line in body["context"].splitlines()[1:]:
        assert line.startswith("- ") and any(line[2:].startswith(s[:50]) for s in stored)


def test_budget_out_of_range_is_422(stocked):
    response = stocked.post("/v1/recall", {"user_id": stocked.user, "query": "x", "max_tokens": 10})
    assert response.status_code == 422 and "body.max_tokens" in response.json()["error"]["message"]


def test_a_broad_question_gets_the_users_facts_and_the_sessions_latest_messages(tenant):
    """The README's example: a question that matches no memory in particular still gets who the
    user is and what was just said, in that order, each bullet cited with its bucket."""
    tenant.turn("I work at Stripe. My dog is called Biscuit.", session="s0", timestamp="2026-01-05T09:00:00Z")
    tenant.post("/v1/turns?wait=true", {"user_id": tenant.user, "session_id": "s1", "timestamp": "2026-03-02T09:00:00Z",
                                        "messages": [{"role": "user", "content": "I just started at Notion, left Stripe."},
                                                     {"role": "assistant", "content": "Congratulations on the new job!"}]})
    query = "what should I know before planning her week?"
    assert tenant.search(query) == []  # nothing matches it in particular
    body = tenant.post("/v1/recall", {"user_id": tenant.user, "session_id": "s1", "query": query,
                                      "max_tokens": 500}).json()
    assert body["context"].splitlines() == [
        "Relevant memories about the user:",
        "- The user's employer is Notion.",  # the current facts, the most important first
        "- The user's dog is named Biscuit.",
        "- I just started at Notion, left Stripe.",  # the session's messages, in the order said
        "- Congratulations on the new job!",
    ], body["context"]
    assert [c["bucket"] for c in body["citations"]] == ["facts", "facts", "recent", "recent"]
    assert all(c["score"] == 0.0 for c in body["citations"]) and body["token_count"] == count_tokens(body["context"])
    # how the user wants to be answered is standing context too
    tenant.post("/v1/memories", {"user_id": tenant.user, "content": "Prefers answers in bullet points",
                                 "memory_type": "procedural", "importance": 0.8})
    body = tenant.post("/v1/recall", {"user_id": tenant.user, "query": query, "max_tokens": 500}).json()
    assert [c["snippet"] for c in body["citations"]] == [
        "Prefers answers in bullet points", "The user's employer is Notion.", "The user's dog is named Biscuit."]
    # and, asked to, nothing for it: the README's second answer
    body = tenant.post("/v1/recall", {"user_id": tenant.user, "query": query, "max_tokens": 500,
                                      "require_relevant": True}).json()
    assert body == {"context": "", "citations": [], "token_count": 0, "degraded": []}


def test_recall_fills_the_budget_facts_first_then_relevant_then_recent(tenant):
    for i, fact in enumerate(["I work at Notion.", "I live in Lisbon.", "My dog is called Biscuit."]):
        tenant.turn(fact, session="s-old", timestamp=f"2026-01-0{i + 1}T09:00:00Z")
    tenant.turn("We chatted about the garden project and the tomato seedlings.", session="s-old",
                timestamp="2026-01-09T09:00:00Z")
    tenant.turn("Can you plan a weekend trip for us?", session="s-now", timestamp="2026-02-01T09:00:00Z")
    ask = {"user_id": tenant.user, "session_id": "s-now", "query": "how are the tomato seedlings doing?"}
    full = tenant.post("/v1/recall", {**ask, "max_tokens": 2000}).json()
    buckets = [c["bucket"] for c in full["citations"]]
    assert buckets == sorted(buckets, key=["facts", "relevant", "recent"].index), buckets
    assert buckets.count("facts") == 3 and "relevant" in buckets and buckets[-1] == "recent"
    assert any("tomato" in c["snippet"] and c["bucket"] == "relevant" and c["score"] > 0 for c in full["citations"])
    # a budget that holds the facts and little more: what is dropped is what comes last
    facts_only = count_tokens("\n".join(full["context"].splitlines()[:4])) + 2
    small = tenant.post("/v1/recall", {**ask, "max_tokens": max(64, facts_only)}).json()
    assert [c["bucket"] for c in small["citations"]][:3] == ["facts"] * 3
    assert small["token_count"] <= max(64, facts_only)


def test_recall_keeps_to_the_users_own_facts_and_scope(tenant):
    tenant.post("/v1/turns?wait=true", {"user_id": tenant.user, "session_id": "s1", "user_name": "Caroline",
                                        "messages": [{"role": "user", "name": "Caroline", "content": "I work at Acme."},
                                                     {"role": "user", "name": "Melanie", "content": "I work at Globex."}]})
    tenant.turn("I live in Porto.", user="someone-else")
    body = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "anything to plan for next week?"}).json()
    facts = [c["snippet"] for c in body["citations"] if c["bucket"] == "facts"]
    assert facts == ["The user's employer is Acme."], body
    other_agent = tenant.post("/v1/recall", {"user_id": tenant.user, "agent_id": "a-2",
                                             "query": "anything to plan for next week?"}).json()
    assert other_agent["context"] == ""


def test_a_caller_may_want_nothing_for_a_question_about_nothing_the_user_said(tenant):
    tenant.turn("I work at Notion.", session="s1", timestamp="2026-01-01T09:00:00Z")
    tenant.turn("Can you plan a weekend trip for us?", session="s1", timestamp="2026-02-01T09:00:00Z")
    noise = {"user_id": tenant.user, "session_id": "s1", "query": "What is the capital of Australia?"}
    # by default the user's facts and the session's latest messages still come
    standing = tenant.post("/v1/recall", noise).json()
    assert {c["bucket"] for c in standing["citations"]} == {"facts", "recent"}
    nothing = tenant.post("/v1/recall", {**noise, "require_relevant": True}).json()
    assert (nothing["context"], nothing["citations"], nothing["token_count"]) == ("", [], 0)
    # a question the search answers gets all three buckets either way
    found = tenant.post("/v1/recall", {**noise, "query": "where do I work?", "require_relevant": True}).json()
    assert "relevant" in {c["bucket"] for c in found["citations"]} and "facts" in {c["bucket"] for c in found["citations"]}
