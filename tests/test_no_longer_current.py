"""A search result that is a message whose fact has since changed says so (`no_longer_current`), as
recall notes it on the message's line: an agent that searches instead of recalling is not left to
tell the user something stale."""

from __future__ import annotations

import pytest


def _by_content(results: list[dict]) -> dict[str, list[str]]:
    return {r["content"]: r["no_longer_current"] for r in results}


def _moved(tenant, **extra) -> None:
    tenant.turn("I live in Lisbon.", session="s1", timestamp="2026-01-10T09:00:00Z", **extra.get("old", {}))
    tenant.turn("We moved to Berlin.", session="s2", timestamp="2026-05-02T09:00:00Z", **extra.get("new", {}))


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "vector"])
def test_a_message_whose_city_was_replaced_says_which_value_is_no_longer_current(tenant, mode):
    _moved(tenant)
    for query in ("where does she live?", "Lisbon", "Berlin"):
        results = tenant.search(query, mode=mode, top_k=10)
        marks = _by_content(results)
        assert marks.get("I live in Lisbon.", ["Lisbon"]) == ["Lisbon"], (query, marks)
        # the message that said the current city is not stale, nor is any fact
        assert marks.get("We moved to Berlin.", []) == [], (query, marks)
        assert all(r["no_longer_current"] == [] for r in results if r["memory_type"] != "episodic"), marks
    assert "I live in Lisbon." in _by_content(tenant.search("Lisbon", mode=mode, top_k=10))


def test_a_question_about_the_past_marks_the_message_it_returns(tenant):
    _moved(tenant)
    marks = _by_content(tenant.search("where did she live before?", top_k=10))
    assert marks.get("I live in Lisbon.") == ["Lisbon"], marks


def test_a_message_whose_job_was_ended_is_marked_and_the_news_is_not(tenant):
    """Recall's rule: "I left Feedzai." ended the employer with nothing after it; the message that
    named it is stale, the one that ended it is not stale for saying so."""
    tenant.turn("I work at Feedzai.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I left Feedzai.", session="s2", timestamp="2026-03-02T09:00:00Z")
    for query in ("where does she work?", "Feedzai"):
        marks = _by_content(tenant.search(query, top_k=10))
        assert marks["I work at Feedzai."] == ["Feedzai"], (query, marks)
        assert marks["I left Feedzai."] == [], (query, marks)


def test_another_subjects_change_does_not_mark_the_users_message(tenant):
    tenant.turn("I live in Lisbon.", session="s1", timestamp="2026-01-10T09:00:00Z")
    tenant.turn("My brother Tom moved to Berlin.", session="s2", timestamp="2026-05-02T09:00:00Z")
    marks = _by_content(tenant.search("Lisbon", top_k=10))
    assert marks["I live in Lisbon."] == [], marks


def test_a_change_another_agent_heard_marks_the_agents_message(tenant):
    """The user's facts are one set whichever agent heard the change (current_first.py)."""
    _moved(tenant, old={"agent_id": "coach"}, new={"agent_id": "planner"})
    marks = _by_content(tenant.search("Lisbon", agent_id="coach", top_k=10))
    assert marks["I live in Lisbon."] == ["Lisbon"], marks
    assert "We moved to Berlin." not in marks  # the planner's message stays the planner's


def test_a_user_with_nothing_replaced_has_every_result_unmarked(tenant):
    tenant.turn("I live in Lisbon.", "I work at Stripe.", session="s1", timestamp="2026-01-10T09:00:00Z")
    results = tenant.search("Lisbon", top_k=10)
    assert results and all(r["no_longer_current"] == [] for r in results), results


def test_a_question_about_a_period_marks_the_messages_said_in_it(tenant):
    _moved(tenant)
    marks = _by_content(tenant.search("what did I tell you in January 2026?", top_k=10,
                                      reference_time="2026-06-01T00:00:00Z"))
    assert marks == {"I live in Lisbon.": ["Lisbon"]}, marks
