"""Questions that ask for many things (retrieval/lists.py): the form that says so, and the spread
of their answers across days, through the HTTP API and the embedded Postgres."""

from __future__ import annotations

import dataclasses

import pytest

from infra.local.runtime import HTTP_FUNCTIONS, function_module
from memex.retrieval.lists import asks_for_many, head
from memex_edge.context import build_context
from memex_edge.http import create_app


@pytest.mark.parametrize("question", [
    "What books has Melanie read?",
    "Which cities has Jon visited?",
    "What activities does Melanie partake in?",
    "What LGBTQ+ events has Caroline participated in?",
    "What musical artists/bands has Melanie seen?",
    "What kind of books does Nate enjoy?",
    "What are Joanna's hobbies?",
    "What are the names of John's children?",
    "What has Melanie painted?",
    "How many times has Joanna found new hiking trails?",
    "How many children does Melanie have?",
    "What do Jon and Gina both have in common?",
])
def test_a_question_that_asks_for_many_things(question):
    assert asks_for_many(question)


@pytest.mark.parametrize("question", [
    "What did Melanie paint recently?",
    "Where does she work?",
    "What is Caroline's relationship status?",
    "What kind of soup did John make recently?",  # one occasion, in the past
    "What special items did Nate get for everyone at his party?",
    "How many people attended the party?",
    "What class is Maria taking?",  # ends in s, not a plural
    "What business does Jon run?",
    "When did Melanie go on a hike after the roadtrip?",
])
def test_a_question_about_one_thing(question):
    assert not asks_for_many(question)


@pytest.mark.parametrize("question, plural", [
    ("What martial arts has John done?", "martial arts"),
    ("Which European countries has Maria been to?", "European countries"),
    ("What kind of books does Nate enjoy?", "books"),
    ("What musical artists/bands has Melanie seen?", "musical artists/bands"),
    ("What are Joanna's hobbies?", "hobbies"),
    ("How many screenplays has Joanna written?", "screenplays"),
    ("How many times has Nate won?", None),  # how often, not of what kind
    ("What has Melanie painted?", None),
    ("What did Melanie paint recently?", None),
])
def test_the_plural_a_question_asks_for(question, plural):
    assert head(question) == plural


def _app(ctx, **changes):
    from fastapi.testclient import TestClient

    app_ctx = build_context(dataclasses.replace(ctx.settings, **changes))
    routers = [function_module(name).router for name in HTTP_FUNCTIONS]
    return TestClient(create_app(*routers, provide=lambda: app_ctx), raise_server_exceptions=False)


# the neighbours cue would add the lines around the first day's hits: measured on its own elsewhere
PLAIN = {"search_neighbour_share": 0.0}


def _say(tenant, session: str, when: str, *lines: str):
    body = {"user_id": tenant.user, "session_id": session, "timestamp": when,
            "messages": [{"role": "user", "content": text} for text in lines]}
    assert tenant.post("/v1/turns?wait=true", body).status_code == 201


def _top(client, tenant, query: str, k: int) -> list[str]:
    body = {"user_id": tenant.user, "query": query, "reference_time": "2025-10-20T15:00:00Z", "top_k": k}
    response = client.post("/v1/search", json=body, headers=tenant.headers)
    assert response.status_code == 200, response.text
    return [r["content"] for r in response.json()["results"]]


BOOK_CLUB = ("I read Dune for the book club and loved the books it led me to.",
             "The book club read another book by Frank Herbert after Dune.",
             "We argued at the book club about which Dune book is best.",
             "I have read every Dune book the book club picked.",
             "The book club will read a third Dune book in spring.")
HOLIDAY = "On holiday I read The Hobbit on the beach."


@pytest.fixture
def reader(tenant):
    _say(tenant, "club", "2025-09-01T10:00:00Z", *BOOK_CLUB)
    _say(tenant, "trip", "2025-07-15T10:00:00Z", HOLIDAY, "The water was warm all week.")
    return tenant


def test_another_days_answer_reaches_the_top_of_a_list_question(ctx, reader):
    question = "What books have I read?"
    with _app(ctx, **PLAIN) as plain, _app(ctx, **PLAIN, search_list_spread=0.7, search_list_free=2) as spread:
        before, after = _top(plain, reader, question, 10), _top(spread, reader, question, 10)
    # without the spread, the book club's day fills the first places; the holiday's line waits below them
    assert before[:len(BOOK_CLUB)] == [line for line in before if line in BOOK_CLUB][:len(BOOK_CLUB)]
    assert before.index(HOLIDAY) >= 3 and set(before[:3]) <= set(BOOK_CLUB)
    assert HOLIDAY in after[:3]
    assert after[0] == before[0]  # the best hit stays first


def test_a_question_about_one_thing_keeps_its_order(ctx, reader):
    question = "What did I read for the book club?"
    with _app(ctx, **PLAIN) as plain, _app(ctx, **PLAIN, search_list_spread=0.7, search_list_free=2) as spread:
        assert _top(spread, reader, question, 10) == _top(plain, reader, question, 10)
