"""Past the question's own words in hybrid search: pseudo-relevance feedback (retrieval/feedback.py:
the best hits' distinctive words as one more keyword query, off by default) and the question
without the participants it names on the vector channel (search.py). Feedback's choice of words is
checked on its own; both through the HTTP API and the embedded Postgres against the same history
with the lever off."""

from __future__ import annotations

import dataclasses

from memex.retrieval import feedback
from memex_edge.context import build_context
from tests.conftest import api_client


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


# --- through the service ----------------------------------------------------------------------

def _app(ctx, **changes):
    app_ctx = build_context(dataclasses.replace(ctx.settings, **changes))
    return api_client(app_ctx)


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
    # the learned order off (learned.py): the lever seen alone
    off = {"offline_expansion": False, "search_feedback_terms": 0, "search_learned": False}
    with _app(ctx, **off) as plain, \
            _app(ctx, **{**off, "search_feedback_terms": 8, "search_feedback_hits": 1,
                             "search_feedback_weight": 1.0}) as fed:
        without, with_feedback = _ranked(plain, tenant, question), _ranked(fed, tenant, question)
    assert with_feedback[0] == without[0] == first
    assert _rank(with_feedback, bridge) < _rank(without, bridge)


def _say_as(tenant, session: str, when: str, *lines: tuple[str, str]):
    body = {"user_id": tenant.user, "session_id": session, "timestamp": when, "user_name": "Caroline",
            "messages": [{"role": "user", "name": name, "content": text} for name, text in lines]}
    assert tenant.post("/v1/turns?wait=true", body).status_code == 201


def test_the_question_without_the_name_it_names_runs_on_the_vector_channel(ctx, tenant):
    """A participant's name pulls the question's embedding toward every line that names them; the
    question without it finds the line by its meaning."""
    answer = "Melanie: I have been practising the clarinet every evening."
    for i, (name, text) in enumerate((
            ("Caroline", "Melanie, thanks so much for the birthday card, Melanie!"),
            ("Caroline", "Melanie, how are the kids doing, Melanie?"),
            ("Melanie", "Caroline, you are the best, Caroline, truly."),
            ("Caroline", "Good morning Melanie! Melanie, did you sleep well?"),
            ("Melanie", "Haha Caroline, same old Melanie here."),
            ("Caroline", "Melanie, I saw your sister Melanie Jones at the market."))):
        _say_as(tenant, f"s{i}", "2025-09-01T10:00:00Z", (name, text))
    _say_as(tenant, "music", "2025-09-02T10:00:00Z", ("Melanie", answer[len("Melanie: "):]))
    question = "Which musical instrument does Melanie play?"
    # the learned order off (learned.py): the lever seen alone
    with _app(ctx, search_unnamed_vector_weight=0.0, search_learned=False) as plain, \
            _app(ctx, search_unnamed_vector_weight=0.5, search_learned=False) as unnamed:
        without, with_unnamed = _ranked(plain, tenant, question), _ranked(unnamed, tenant, question)
    assert _rank(with_unnamed, answer) < _rank(without, answer)
