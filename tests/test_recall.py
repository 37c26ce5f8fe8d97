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
