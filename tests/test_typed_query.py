"""A question typed on a phone (curly apostrophes, a no-break space, a zero-width space) is searched
and recalled as the same question typed in ASCII; the answer's `query` is what was sent."""

from __future__ import annotations

import pytest

NOW = "2026-11-10T12:00:00Z"
QUESTIONS = ["Where's she working now?", "what's my dog's name?", "Where's the user working now?",
             "What did I say last week?", "Who's Biscuit?", "What's the user's job?",
             "What do Maya and Biscuit have in common?", "Where's Maya's dog?", "Is Maya's dog still called Biscuit?",
             "Where does she work, and what's her dog's name?", "Doesn't she work at Stripe anymore?",
             "She's got a dog, what's it called?", "I'm asking where I'm working now"]
TYPED = {
    "curly": lambda q: q.replace("'", "\u2019"),
    "zero-width space": lambda q: q[:-3] + "\u200b" + q[-3:],  # inside the last word, as copied from a page
    "no-break space": lambda q: q.replace(" ", "\u00a0"),
}


@pytest.fixture
def history(tenant):
    tenant.turn("Hi, I'm Maya. I work at Stripe as an engineer.", session="a", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("My dog is called Biscuit.", session="a", timestamp="2026-01-05T09:01:00Z")
    tenant.turn("I left Stripe, I work at Notion now.", session="b", timestamp="2026-11-03T10:00:00Z")
    tenant.turn("Last week I ran my first half marathon.", session="b", timestamp="2026-11-04T10:00:00Z")
    return tenant


def _searched(tenant, query: str) -> dict:
    response = tenant.post("/v1/search", {"user_id": tenant.user, "query": query, "reference_time": NOW})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("typing", TYPED)
def test_a_question_typed_on_a_phone_finds_what_it_finds_in_ascii(history, typing):
    asked = [(question, TYPED[typing](question)) for question in QUESTIONS if TYPED[typing](question) != question]
    assert len(asked) >= 7
    for question, typed in asked:
        straight, phone = _searched(history, question), _searched(history, typed)
        # ids, order, scores and their parts (said_within among them), no_longer_current: all alike
        assert phone["results"] == straight["results"], (typing, question)
        assert phone["query"] == typed


def test_a_question_typed_on_a_phone_recalls_what_it_recalls_in_ascii(history):
    for question in QUESTIONS:
        recalled = [history.post("/v1/recall", {"user_id": history.user, "query": q, "reference_time": NOW}).json()
                    for q in (question, TYPED["curly"](question))]
        assert recalled[1] == recalled[0], question
