"""A question about a chain of values ranks the chain's member that answers it first: the value before
a named one, the one before the current one, the first of a kind, the fact that began a named value;
a question not about a chain is answered as it was without the rule."""

from __future__ import annotations

import dataclasses

import pytest

from memex.retrieval import chains
from memex_edge.context import build_context
from tests.conftest import api_client

# Three employers and three cities, each value replacing the one before (the offline rules' phrasings).
LIFE = (("I work at Stripe.", "2026-01-05T09:00:00Z"), ("I live in Paris.", "2026-01-06T09:00:00Z"),
        ("I work at Notion now.", "2026-03-02T09:00:00Z"), ("I moved to Berlin this weekend.", "2026-04-11T09:00:00Z"),
        ("I now work at Figma.", "2026-06-01T09:00:00Z"), ("We just moved to Lisbon.", "2026-08-15T09:00:00Z"))


def _life(tenant) -> None:
    for i, (said, when) in enumerate(LIFE):
        tenant.turn(said, session=f"s{i}", timestamp=when)


@pytest.mark.parametrize("question, key, value, kind", [
    ("where did she work before Notion?", "employer", "Stripe", "before"),
    ("Where did I work before Figma?", "employer", "Notion", "before"),
    ("where did the user work prior to joining Figma?", "employer", "Notion", "before"),
    ("where did I live before moving to Lisbon?", "city", "Berlin", "before"),
    ("Which city did she live in before Berlin?", "city", "Paris", "before"),
    ("What was my first job?", "employer", "Stripe", "first"),
    ("what was the first city she lived in?", "city", "Paris", "first"),
])
def test_a_question_about_a_history_ranks_the_member_that_answers_it_first(tenant, question, key, value, kind):
    _life(tenant)
    results = tenant.search(question)
    first = results[0]
    assert (first["key"], first["value"]) == (key, value), (question, [r["content"] for r in results])
    assert first["score_parts"]["chain"] == kind
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)


@pytest.mark.parametrize("question, key, value, when", [
    ("when did she move to Berlin?", "city", "Berlin", "2026-04-11T09:00:00Z"),
    ("When did I start at Notion?", "employer", "Notion", "2026-03-02T09:00:00Z"),
])
def test_when_a_named_value_began_is_answered_by_the_fact_that_began_it_with_its_date(tenant, question, key, value,
                                                                                      when):
    """Not the current city's fact, which current-first lifts above the move's line that a later move
    made stale."""
    _life(tenant)
    results = tenant.search(question)
    first = results[0]
    assert (first["key"], first["value"], first["valid_from"]) == (key, value, when), [r["content"] for r in results]
    assert first["score_parts"]["chain"] == "began"


def test_a_question_not_about_a_chain_is_answered_as_without_the_rule(ctx, tenant):
    _life(tenant)
    tenant.turn("My dog is called Biscuit.", session="s9", timestamp="2026-09-01T09:00:00Z")

    def ranked(question: str, **changes) -> list[tuple[str, float]]:
        with api_client(build_context(dataclasses.replace(ctx.settings, **changes))) as client:
            response = client.post("/v1/search", json={"user_id": tenant.user, "query": question},
                                   headers=tenant.headers)
        assert response.status_code == 200, response.text
        return [(r["id"], r["score"]) for r in response.json()["results"]]

    for question in ("where does she work?", "Where do I live now?", "what is my dog's name?",
                     "When did I get my dog?", "what happened before the weekend?"):
        assert ranked(question) == ranked(question, search_chains=False), question
    work = tenant.search("where does she work?")
    assert work[0]["value"] == "Figma" and not any("chain" in r["score_parts"] for r in work)


def test_another_user_s_chain_is_never_read(tenant):
    _life(tenant)
    other = f"{tenant.user}-other"
    tenant.turn("I work at Canva.", session="o1", timestamp="2026-01-01T09:00:00Z", user=other)
    tenant.turn("I work at Notion now.", session="o2", timestamp="2026-02-01T09:00:00Z", user=other)
    results = tenant.search("where did she work before Notion?")
    assert results[0]["value"] == "Stripe"
    assert "Canva" not in " ".join(r["content"] for r in results)


def test_as_of_reads_the_chain_as_it_stood(tenant):
    """Before Figma was said, the job before the current one (Notion) was Stripe, and Figma is no answer."""
    _life(tenant)
    results = tenant.search("where did she work before Notion?", as_of="2026-05-01T00:00:00Z")
    assert results[0]["value"] == "Stripe", [r["content"] for r in results]
    assert not any("Figma" in r["content"] for r in results)


@pytest.mark.parametrize("question, kind, value", [
    ("where did she work before Shopify?", "before", "shopify"),
    ("where did I live before moving to Dublin?", "before", "dublin"),
    ("what was my job before I became a nurse?", "before", "nurse"),
    ("Where was she prior to joining Notion?", "before", "notion"),
    ("What was her first job?", "first", None),
    ("what was my very first dog's name?", "first", None),
    ("when did she move to Lyon?", "began", None),
])
def test_what_a_question_asks_of_a_chain(question, kind, value):
    asking = chains.asked(question)
    assert asking is not None and (asking.kind, asking.value) == (kind, value)


@pytest.mark.parametrize("question, asks", [
    ("where does she work?", None), ("what was her previous job?", None), ("What did she do before August 3?", None),
    ("When did she first meet Sam?", ("began", None)), ("Was it the first time she went there?", None),
    ("What did I say yesterday?", None),
])
def test_a_question_that_asks_nothing_of_a_chain_s_order(question, asks):
    """Nothing before a value or first of a kind: a date is no value, and "first" in a question about
    when asks when something began."""
    asking = chains.asked(question)
    assert (None if asking is None else (asking.kind, asking.value)) == asks
