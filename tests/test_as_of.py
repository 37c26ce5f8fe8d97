"""Memory read as it stood at a time (`as_of` on search and recall): a fact valid then answers,
current now or not; one said later does not exist yet; what replaced a fact by then is what marks
its message stale; an erased memory never comes back (docs/api.md, "Times")."""

from __future__ import annotations

import pytest

MAY, JULY = "2026-05-01T00:00:00Z", "2026-07-01T00:00:00Z"


def _year(tenant, **extra) -> None:
    """Stripe → Notion in June; Lisbon → Berlin in September; vegan dropped in October."""
    tenant.turn("I work at Stripe.", "I live in Lisbon.", "I'm vegan.", session="s1",
                timestamp="2026-01-10T09:00:00Z", **extra)
    tenant.turn("I work at Notion now.", session="s2", timestamp="2026-06-02T09:00:00Z", **extra)
    tenant.turn("We moved to Berlin.", session="s3", timestamp="2026-09-02T09:00:00Z", **extra)
    tenant.turn("I'm no longer vegan.", session="s4", timestamp="2026-10-02T09:00:00Z", **extra)


def _facts(results: list[dict], key: str) -> list[str]:
    return [r["value"] for r in results if r["key"] == key]


def _contents(results: list[dict]) -> list[str]:
    return [r["content"] for r in results]


def _recall(tenant, query: str, **extra) -> dict:
    response = tenant.post("/v1/recall", {"user_id": tenant.user, "query": query, "max_tokens": 2000, **extra})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "vector"])
def test_a_search_as_of_a_date_answers_with_what_held_then(tenant, mode):
    _year(tenant)
    where, work = "where does the user live? Lisbon Berlin", "where does the user work? Stripe Notion"
    assert "Lisbon" not in _facts(tenant.search(where, mode=mode, top_k=20), "city")
    may = tenant.search(where, mode=mode, top_k=20, as_of=MAY)
    july = tenant.search(work, mode=mode, top_k=20, as_of=JULY)
    assert "Lisbon" in _facts(may, "city") and "Berlin" not in _facts(may, "city"), may
    assert "We moved to Berlin." not in _contents(may)  # said in September: not yet
    assert "Notion" in _facts(july, "employer") and "Stripe" not in _facts(july, "employer"), july
    # the fact superseded since answers as it held then, the message that said it is not stale then
    lisbon = next(r for r in may if r["content"] == "I live in Lisbon.")
    assert lisbon["no_longer_current"] == [], lisbon
    assert all(r["valid_from"] <= MAY for r in may), may
    # the history on request adds nothing to what held then
    with_history = tenant.search(where, mode=mode, top_k=20, as_of=MAY, include_inactive=True)
    assert [r["id"] for r in with_history] == [r["id"] for r in may], with_history


def test_a_message_is_stale_as_of_a_date_for_what_replaced_it_by_then(tenant):
    _year(tenant)
    september = {r["content"]: r["no_longer_current"]
                 for r in tenant.search("Stripe Lisbon vegan", top_k=20, as_of="2026-09-15T00:00:00Z")}
    # by mid-September Stripe and Lisbon had been replaced, the diet not yet
    assert september["I work at Stripe."] == ["Stripe"] and september["I live in Lisbon."] == ["Lisbon"], september
    assert september["I'm vegan."] == [], september
    may = {r["content"]: r["no_longer_current"] for r in tenant.search("Stripe Lisbon vegan", top_k=20, as_of=MAY)}
    assert may and all(marks == [] for marks in may.values()), may
    now = {r["content"]: r["no_longer_current"] for r in tenant.search("Stripe Lisbon vegan", top_k=20)}
    assert now["I'm vegan."] == ["vegan"], now


def test_as_of_before_any_memory_finds_nothing(tenant):
    _year(tenant)
    for mode in ("hybrid", "bm25", "vector"):
        assert tenant.search("where does the user live?", mode=mode, as_of="2025-12-01T00:00:00Z") == []
    assert tenant.search("what did I tell you in January 2026?", as_of="2025-12-01T00:00:00Z") == []
    recalled = _recall(tenant, "what should I know before planning her week?", session_id="s1",
                       as_of="2025-12-01T00:00:00Z")
    assert recalled["citations"] == [] and recalled["context"] == "", recalled


def test_a_period_asked_as_of_a_date_holds_only_what_was_said_by_then(tenant):
    _year(tenant)
    said = _contents(tenant.search("what did I tell you in 2026?", top_k=20, as_of=JULY))
    assert "I work at Notion now." in said and "We moved to Berlin." not in said, said
    assert "We moved to Berlin." in _contents(tenant.search("what did I tell you in 2026?", top_k=20))


def test_a_recall_as_of_a_date_reads_the_facts_and_messages_of_then(tenant):
    _year(tenant)
    july = _recall(tenant, "what should I know before planning her week?", session_id="s3", as_of=JULY)
    context = july["context"]
    assert "Berlin" not in context and "no longer vegan" not in context, context
    assert "Notion" in context and "Lisbon" in context and "The user is vegan." in context, context
    assert "until" not in context, context  # Lisbon held in July: no end yet
    assert all(c["bucket"] != "recent" for c in july["citations"]), july  # s3 was said in September
    now = _recall(tenant, "what should I know before planning her week?", session_id="s3")["context"]
    assert "Berlin" in now, now
    # the message said in January, read in mid-September: Lisbon and Stripe replaced, the diet not yet
    lines = _recall(tenant, "Stripe Lisbon vegan", as_of="2026-09-15T00:00:00Z")["context"].splitlines()
    said = next(line for line in lines if "I live in Lisbon." in line)
    assert "no longer current: " in said and "Lisbon" in said.split("no longer current: ")[1], lines
    assert "vegan" not in said.split("no longer current: ")[1], lines


def test_reference_time_defaults_to_as_of(tenant):
    _year(tenant)
    # "last month" from July 1st is June: the June turn is in it, January's and September's are not
    said = _contents(tenant.search("what did I tell you last month?", top_k=20, as_of=JULY))
    assert said == ["I work at Notion now."], said


def test_a_bad_as_of_is_refused_and_named(tenant):
    for route in ("/v1/search", "/v1/recall", "/recall"):
        for bad in ("not a time", "2999-01-01T00:00:00Z", "1800-01-01T00:00:00Z"):
            response = tenant.post(route, {"user_id": tenant.user, "query": "where do I live?", "as_of": bad})
            assert response.status_code == 422, (route, bad, response.text)
            assert "as_of" in response.text, response.text


def test_an_erased_memory_never_returns_as_of_a_date(tenant):
    _year(tenant)
    lisbon = next(r for r in tenant.search("Lisbon", top_k=20, include_inactive=True) if r["content"] == "I live in Lisbon.")
    assert tenant.delete(f"/v1/memories/{lisbon['id']}").status_code in (200, 204)
    for mode in ("hybrid", "bm25", "vector"):
        found = tenant.search("where does the user live? Lisbon", mode=mode, top_k=20, as_of=MAY)
        assert "I live in Lisbon." not in _contents(found), found
    assert "I live in Lisbon." not in _recall(tenant, "where does she live?", as_of=MAY)["context"]


def test_as_of_keeps_tenants_and_users_apart(tenant, other_tenant):
    _year(tenant)
    other_tenant.user = tenant.user  # the same user id in another tenant
    assert other_tenant.search("where does the user live? Lisbon", as_of=MAY) == []
    other_user = tenant.post("/v1/search", {"user_id": "someone-else", "query": "Lisbon", "as_of": MAY})
    assert other_user.status_code == 200 and other_user.json()["results"] == []


def test_an_agents_scope_as_of_a_date(tenant):
    """The coach heard Lisbon, the planner the move: as of May the coach's Lisbon holds, and nothing of
    the planner's; now, the planner's Berlin stands for the coach's Lisbon (current_first.py)."""
    tenant.turn("I live in Lisbon.", session="s1", timestamp="2026-01-10T09:00:00Z", agent_id="coach")
    tenant.turn("We moved to Berlin.", session="s2", timestamp="2026-09-02T09:00:00Z", agent_id="planner")
    may = tenant.search("where does the user live?", agent_id="coach", top_k=20, as_of=MAY)
    assert "Lisbon" in _facts(may, "city") and "Berlin" not in _facts(may, "city"), may
    assert all(r["agent_id"] == "coach" for r in may), may
    recalled = _recall(tenant, "where does she live?", agent_id="coach", as_of=MAY)["context"]
    assert "Lisbon" in recalled and "Berlin" not in recalled, recalled
    assert "Berlin" in _recall(tenant, "where does she live?", agent_id="coach")["context"]



def test_a_question_about_the_past_as_of_a_date_finds_what_had_ended_by_then(tenant):
    _year(tenant)
    september = tenant.search("where did the user use to work?", top_k=10, as_of="2026-09-15T00:00:00Z")
    assert "Stripe" in _facts(september, "employer"), september
    # in May nothing had been replaced: Stripe is no past employer then, and Notion not yet one
    may = tenant.search("where did the user use to work?", top_k=10, as_of=MAY)
    assert "Notion" not in _facts(may, "employer"), may
    assert all(r["valid_from"] <= MAY for r in may), may


def test_an_event_said_with_its_own_earlier_time_counts_from_then_and_its_message_from_when_said(tenant):
    """The fact stands in history at the time it happened (timeline.times: "back in 2010", the end of
    2010), so it held as of 2012; the message that said it was said in 2026, and not before."""
    tenant.turn("We got divorced back in 2010.", session="s1", timestamp="2026-03-05T09:00:00Z")
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()["memories"]
    event = next(m for m in listed if m["memory_type"] != "episodic" and "divorce" in m["content"].lower())
    assert event["valid_from"] == "2011-01-01T00:00:00Z", event
    found = _contents(tenant.search("divorced", top_k=10, as_of="2012-01-01T00:00:00Z"))
    assert found == [event["content"]], found
    assert tenant.search("divorced", top_k=10, as_of="2010-06-01T00:00:00Z") == []
