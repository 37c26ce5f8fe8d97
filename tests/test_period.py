"""Questions that ask only what was said in a period ("what did I tell you yesterday?",
retrieval/period.py): told apart from questions with a topic, answered with that period's messages
in the request's scope, through the HTTP API and the embedded Postgres."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memex.retrieval import period

NOW = datetime(2026, 11, 3, 9, 0, tzinfo=timezone.utc)  # a Tuesday


@pytest.mark.parametrize("question", [
    "what did I tell you yesterday?", "What did we talk about last week?", "anything new this month?",
    "what happened in September?", "what did I say on 2 November?", "Recap yesterday, please.",
    "What did we discuss three weeks ago?",
    # "she", "he" or "they" naming nobody else ask it of the user
    "what did she do in April?", "What did he do last week?", "What did she tell you yesterday?",
    "what was he doing last weekend?", "What have they been up to this month?",
    # a season
    "what did I do last spring?", "what happened this summer?", "What did we talk about in the winter?",
    # "this past" is "past"
    "what did we do this past weekend?", "What did I tell you this past week?",
    # a weekday
    "what did we talk about last Friday?", "what did I tell you on Monday?",
])
def test_a_question_about_nothing_but_a_period_is_one(question):
    assert period.asked(question, NOW)


@pytest.mark.parametrize("question", [
    "What did I eat yesterday?", "Where was she in May 2023?", "When did I move to Lisbon?", "What's new?",
    "Did I mention anything about work yesterday?", "What did Caroline do last week?",
    "What did Anna and she do in April?",  # someone named: their lines first by the speaker cue
    "What did they eat yesterday?",  # a topic, as "What did I eat yesterday?"
    "What did her sister say last summer?",
    "What am I doing this Friday?", "What's on Friday?",  # a day to come: no period
    "what happened on 8 May 2030?", "what did we talk about in 2030?",  # a period to come: none
])
def test_a_question_with_a_topic_or_without_a_period_is_not(question):
    assert period.asked(question, NOW) == []


def _history(tenant):
    tenant.turn("I moved to Lisbon for a new job.", session="s1", timestamp="2026-09-20T10:00:00Z")
    tenant.turn("Big news: I'm joining Revolut next month.", "We adopted a second cat, Tofu.", session="s2",
                timestamp="2026-11-02T18:00:00Z")
    tenant.post("/v1/turns?wait=true", {"user_id": tenant.user, "session_id": "s2", "agent_id": "other-agent",
                                        "timestamp": "2026-11-02T19:00:00Z",
                                        "messages": [{"role": "user", "content": "Told another agent about my trip."}]})


def test_the_periods_messages_answer_newest_first_and_nothing_else(tenant, other_tenant):
    _history(tenant)
    asked = tenant.post("/v1/search", {"user_id": tenant.user, "query": "what did I tell you yesterday?",
                                       "reference_time": NOW.isoformat()}).json()
    results = asked["results"]
    assert [r["content"] for r in results] == [  # the latest turn first, a turn's messages in the order said
        "Told another agent about my trip.", "Big news: I'm joining Revolut next month.",
        "We adopted a second cat, Tofu."], results
    assert all(r["memory_type"] == "episodic" and r["valid_from"].startswith("2026-11-02") for r in results)
    assert all(r["score_parts"]["said_within"] == "2026-11-02T00:00:00Z/2026-11-03T06:00:00Z"
               and r["score_parts"]["relevance"] == 1.0 for r in results)
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    assert asked["total"] == 3 and asked["degraded"] == []
    # the same question as any other question without the setting: nothing passes the floor's gate
    assert tenant.search("what did I tell you yesterday?", reference_time=NOW.isoformat(), mode="bm25") == []


def test_the_scope_holds_the_agent_the_filters_and_top_k(tenant, other_tenant):
    _history(tenant)
    question = {"query": "what did I tell you yesterday?", "reference_time": NOW.isoformat()}
    mine = tenant.search(**question, agent_id="other-agent")
    assert [r["content"] for r in mine] == ["Told another agent about my trip."]
    facts = tenant.search(**question, filters={"memory_type": "semantic"})
    assert facts and all(r["memory_type"] == "semantic" for r in facts)
    assert {r["value"] for r in facts} >= {"Tofu"}
    assert len(tenant.search(**question, top_k=1)) == 1
    assert tenant.search(**question, filters={"session_id": "s1"}) == []
    september = tenant.search("what happened in September?", reference_time=NOW.isoformat())
    assert [r["content"] for r in september] == ["I moved to Lisbon for a new job."]
    # another tenant's user of the same id has said nothing
    other = other_tenant.post("/v1/search", {"user_id": tenant.user, **question}).json()
    assert other["results"] == []


def test_recall_carries_the_periods_messages(tenant):
    _history(tenant)
    body = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "what did I tell you yesterday?",
                                      "reference_time": NOW.isoformat(), "require_relevant": True}).json()
    lines = body["context"].splitlines()
    assert "- Big news: I'm joining Revolut next month. (said 2026-11-02)" in lines, lines
    assert "- We adopted a second cat, Tofu." in lines, lines


def test_last_month_and_last_week_are_the_calendar_ones_before_this(tenant):
    """"What did I tell you last month?" asked on 6 December listed what was said from 1 November to
    that moment, December's first days too; now November's messages only, and "last week" the
    Monday-to-Sunday week before this one."""
    tenant.turn("I signed up for a pottery class.", session="s1", timestamp="2026-11-25T10:00:00Z")
    tenant.turn("My sister visited from Porto.", session="s2", timestamp="2026-12-01T10:00:00Z")
    tenant.turn("I'm learning German.", session="s3", timestamp="2026-12-04T10:00:00Z")
    when = "2026-12-06T18:00:00Z"  # a Sunday

    def said(question):
        return [(r["content"], r["score_parts"]["said_within"]) for r in tenant.search(question, reference_time=when)
                if r["memory_type"] == "episodic"]

    assert said("what did I tell you last month?") == [
        ("I signed up for a pottery class.", "2026-11-01T00:00:00Z/2026-12-01T00:00:00Z")]
    assert said("what did we talk about last week?") == [
        ("I signed up for a pottery class.", "2026-11-23T00:00:00Z/2026-11-30T00:00:00Z")]
    assert [content for content, _ in said("anything new this month?")] == [
        "I'm learning German.", "My sister visited from Porto."]


def test_last_friday_is_that_days_messages(tenant):
    """"What did we talk about last Friday?" was searched as any question (no period read); now it
    lists what was said that Friday, in the day before it or after it nothing."""
    tenant.turn("I signed up for a pottery class.", session="s1", timestamp="2026-12-03T22:00:00Z")
    tenant.turn("My sister visited from Porto.", session="s2", timestamp="2026-12-04T10:00:00Z")
    tenant.turn("I'm learning German.", session="s3", timestamp="2026-12-05T01:00:00Z")
    when = "2026-12-06T18:00:00Z"  # a Sunday

    def said(question):
        return [(r["content"], r["score_parts"].get("said_within")) for r in tenant.search(question, reference_time=when)
                if r["memory_type"] == "episodic"]

    assert said("what did we talk about last Friday?") == [
        ("My sister visited from Porto.", "2026-12-04T00:00:00Z/2026-12-05T00:00:00Z")]
    assert said("what did I tell you on Friday?") == said("what did we talk about last Friday?")


def test_the_last_friday_of_a_month_is_that_days_messages(tenant):
    """"What did I do on the last Friday in May 2023?" listed every message of May 2023 and those of
    the Friday before the day asked (2026); now only those of 26 May 2023."""
    tenant.turn("I signed up for a pottery class.", session="s1", timestamp="2023-05-19T10:00:00Z")
    tenant.turn("My sister visited from Porto.", session="s2", timestamp="2023-05-26T10:00:00Z")
    tenant.turn("I'm learning German.", session="s3", timestamp="2026-12-04T10:00:00Z")
    when = "2026-12-06T18:00:00Z"  # a Sunday: "last Friday" alone is 4 December

    said = [(r["content"], r["score_parts"].get("said_within"))
            for r in tenant.search("What did I do on the last Friday in May 2023?", reference_time=when)
            if r["memory_type"] == "episodic"]
    assert said == [("My sister visited from Porto.", "2023-05-26T00:00:00Z/2023-05-27T00:00:00Z")]


def test_a_weekend_to_come_is_searched_as_any_question(tenant):
    """"What's going on this weekend?" asked on a Thursday was answered with the coming weekend's
    messages: with a reference time in the past, what was said after it (the hike cancelled on the
    Saturday), and the plan made on Monday was not found. Now a period begun after the moment asked is
    none, and the question is searched as any other. Asked on the Saturday, the weekend is under way,
    and the question is answered with its messages."""
    tenant.turn("This weekend I'm going hiking in Sintra with Marta.", session="s1", timestamp="2026-11-30T10:00:00Z")
    tenant.turn("The hike was cancelled, it's raining.", session="s2", timestamp="2026-12-05T09:00:00Z")
    question = "What's going on this weekend?"
    thursday = tenant.search(question, reference_time="2026-12-03T15:00:00Z")
    assert thursday and thursday[0]["content"] == "This weekend I'm going hiking in Sintra with Marta.", thursday
    assert not any("said_within" in r["score_parts"] for r in thursday)
    saturday = tenant.search(question, reference_time="2026-12-05T18:00:00Z")
    assert [(r["content"], r["score_parts"]["said_within"]) for r in saturday if r["memory_type"] == "episodic"] == [
        ("The hike was cancelled, it's raining.", "2026-12-05T00:00:00Z/2026-12-07T00:00:00Z")]


def test_she_or_a_season_asks_the_period_as_i_do(tenant):
    """"what did she do in April?" (a pronoun naming nobody else) and "what did I do last spring?"
    (a season) are answered with the period's messages, as "what happened in April?" is."""
    tenant.turn("We adopted a dog, Bisquit.", session="s1", timestamp="2026-04-12T10:00:00Z")
    tenant.turn("I ran the Lisbon half marathon.", session="s2", timestamp="2026-05-20T10:00:00Z")
    tenant.turn("Leo and I broke up.", session="s3", timestamp="2026-08-02T10:00:00Z")
    tenant.turn("I'm learning German.", session="s4", timestamp="2026-11-20T10:00:00Z")
    when = "2026-12-01T09:00:00Z"

    def said(question):
        results = tenant.search(question, reference_time=when)
        return [(r["content"], r["score_parts"]["said_within"]) for r in results if r["memory_type"] == "episodic"]

    april = [("We adopted a dog, Bisquit.", "2026-04-01T00:00:00Z/2026-05-01T00:00:00Z")]
    assert said("what happened in April?") == april
    assert said("what did she do in April?") == april
    assert said("What did he do in April?") == april
    spring = [("I ran the Lisbon half marathon.", "2026-03-01T00:00:00Z/2026-06-01T00:00:00Z"),
              ("We adopted a dog, Bisquit.", "2026-03-01T00:00:00Z/2026-06-01T00:00:00Z")]
    assert said("what did I do last spring?") == spring
    assert said("what did she do last spring?") == spring
    assert said("what happened this summer?") == [("Leo and I broke up.",
                                                   "2026-06-01T00:00:00Z/2026-09-01T00:00:00Z")]
