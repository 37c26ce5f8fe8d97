"""Two ways past the question's own words in hybrid search, each off by default: pseudo-relevance
feedback (retrieval/feedback.py: the best hits' distinctive words as one more keyword query) and
the session cue (retrieval/sessions.py: the lines of a session holding many of the best hits gain).
Each is checked on its own, then through the HTTP API and the embedded Postgres against the same
history with the lever off."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone

import pytest

from infra.local.runtime import HTTP_FUNCTIONS, function_module
from memex.db.memories import Found
from memex.retrieval import feedback, multihop, sessions
from memex_edge.context import build_context
from memex_edge.http import create_app

NOW = datetime(2025, 10, 20, 15, 0, tzinfo=timezone.utc)


def test_feedback_takes_the_hits_distinctive_words_not_the_questions():
    hits = ["Melanie: We went camping by the lake, the kids loved the campfire.",
            "Melanie: Camping again next month, the kids insist."]
    pool = hits + ["Caroline: It was a really nice day today."] * 20 + ["Melanie: The lake was cold today."]
    words = feedback.terms(hits, pool, "What does Melanie do with her kids?", {"melanie", "caroline"}, 3)
    # "camping" is in both hits and nowhere else; "kids" is the question's; the names are excluded
    assert words[0] == "camping"
    assert not {"kids", "melanie", "caroline", "today"} & set(words)
    assert len(words) == 3
    assert feedback.terms([], pool, "anything", (), 3) == []


def test_the_session_cue_lifts_the_lines_of_the_session_holding_the_best_hits():
    def found(session):
        return Found(NOW, 0.3, "line", None, "user", session)

    rows = {"a1": found("a"), "a2": found("a"), "a3": found("a"), "b1": found("b"), "a-late": found("a"),
            "b-late": found("b"), "none": found(None)}
    relevance = {"a1": 0.9, "a2": 0.8, "b1": 0.85, "a3": 0.7, "a-late": 0.3, "b-late": 0.3, "none": 0.3}
    lifted = sessions.lift(relevance, list(relevance), rows, hits=4, boost=1.0)
    # session a holds 3 of the 4 best, b one: a's late line now outranks b's, which was its equal
    assert lifted["a-late"] > lifted["b-late"] > lifted["none"]
    assert max(lifted.values()) <= 1.0
    assert lifted["a1"] == pytest.approx(0.9)  # the largest factor divides: the best of a keep theirs
    assert sessions.lift(relevance, list(relevance), rows, hits=4, boost=0.0) == relevance


# --- through the service ----------------------------------------------------------------------

def _app(ctx, **changes):
    from fastapi.testclient import TestClient

    app_ctx = build_context(dataclasses.replace(ctx.settings, **changes))
    routers = [function_module(name).router for name in HTTP_FUNCTIONS]
    return TestClient(create_app(*routers, provide=lambda: app_ctx), raise_server_exceptions=False)


def _ranked(client, tenant, query: str) -> list[str]:
    body = {"user_id": tenant.user, "query": query, "reference_time": "2025-10-20T15:00:00Z", "top_k": 20}
    response = client.post("/v1/search", json=body, headers=tenant.headers)
    assert response.status_code == 200, response.text
    return [r["content"] for r in response.json()["results"]]


def _say(tenant, session: str, when: str, *lines: str):
    body = {"user_id": tenant.user, "session_id": session, "timestamp": when,
            "messages": [{"role": "user", "content": text} for text in lines]}
    assert tenant.post("/v1/turns?wait=true", body).status_code == 201


FILLER = ("My neighbour's cat sleeps all day on the balcony.", "Paris is the most beautiful city I have visited.",
          "The new office has a great coffee machine.", "I am learning to play the guitar.",
          "My sister adopted a kitten last spring.", "The bakery on our street sells great bread.",
          "I finally fixed the leaking kitchen tap.", "We watched a documentary about octopuses.")


def _rank(ranked: list[str], line: str) -> int:
    return ranked.index(line) if line in ranked else len(ranked)


def test_feedback_reaches_a_line_through_the_words_of_the_first_hits(ctx, tenant):
    first = "Our family holiday this year was a week of canoeing in the mountains."
    _say(tenant, "s1", "2025-07-01T10:00:00Z", first)
    for i, line in enumerate(FILLER + ("My holiday photos are still on the old laptop.",
                                       "The family dog hates the vacuum cleaner.")):
        _say(tenant, f"f{i}", "2025-07-02T10:00:00Z", line)
    # shares no word with the question, only the sport the first hit names
    bridge = "The canoeing was exhausting but the twins adored it."
    _say(tenant, "s2", "2025-07-03T10:00:00Z", bridge)
    question = "Where did the family go on holiday?"
    off = {"offline_expansion": False, "search_feedback_terms": 0}
    with _app(ctx, **off) as plain, \
            _app(ctx, **{**off, "search_feedback_terms": 8, "search_feedback_hits": 1,
                             "search_feedback_weight": 1.0}) as fed:
        without, with_feedback = _ranked(plain, tenant, question), _ranked(fed, tenant, question)
    assert with_feedback[0] == without[0] == first
    assert _rank(with_feedback, bridge) < _rank(without, bridge)


def test_the_session_cue_ranks_the_rest_of_the_busy_session_higher(ctx, tenant):
    # one session talks about the marathon at length; another mentions it once
    _say(tenant, "race", "2025-09-01T10:00:00Z",
         "I ran my first marathon in Berlin on Sunday.", "The marathon was hard after kilometre thirty.",
         "My marathon time was four hours and ten minutes.", "Afterwards we celebrated with a huge plate of pasta.",
         "I am taking the whole week off to recover.")
    _say(tenant, "other", "2025-09-05T10:00:00Z",
         "A colleague asked about the marathon.", "Afterwards we celebrated her promotion with cake.")
    for i, line in enumerate(FILLER):
        _say(tenant, f"f{i}", "2025-09-06T10:00:00Z", line)
    question = "How did my marathon go?"
    off = {"search_neighbour_share": 0.0, "search_session_boost": 0.0}
    with _app(ctx, **off) as plain, _app(ctx, **{**off, "search_session_boost": 1.0}) as cued:
        without, with_sessions = _ranked(plain, tenant, question), _ranked(cued, tenant, question)
    busy, other = "Afterwards we celebrated with a huge plate of pasta.", "Afterwards we celebrated her promotion with cake."
    assert _rank(with_sessions, busy) < _rank(with_sessions, other)
    assert _rank(with_sessions, busy) <= _rank(without, busy)


def test_a_question_of_two_clauses_joined_by_and_is_split():
    assert multihop.clauses("Where did she move and what job did she take?") == \
        ["Where did she move", "what job did she take"]
    assert multihop.clauses("Which city did Jon visit, and when did he come back?") == \
        ["Which city did Jon visit", "when did he come back"]
    assert multihop.clauses("What do cats and dogs eat?") == []  # one clause of two subjects
    assert multihop.clauses("What does Melanie like?") == []
