"""Two agents serving one user (a coach and a planner, `agent_id`): each reads back what it was
told when it names itself, in the listing, the count, a search and a recall; without `agent_id`
every agent's memories are the user's; and the user's facts are one set, kept current whichever
agent heard the change."""

from __future__ import annotations


def _two_agents(tenant) -> None:
    for agent, session, said, timestamp in [
            ("coach", "c1", "I work at Stripe. I run 5k every morning.", "2026-11-01T08:00:00Z"),
            ("planner", "p1", "I just started at Notion. I'm allergic to peanuts.", "2026-11-10T08:00:00Z"),
            ("coach", "c2", "My knee hurts after long runs.", "2026-11-12T08:00:00Z")]:
        assert tenant.turn(said, session=session, agent_id=agent, timestamp=timestamp).status_code == 201
    for agent, content in [("coach", "Prefers workouts before 7am"), ("planner", "Wants weekly plans on Sunday")]:
        stored = tenant.post("/v1/memories", {"user_id": tenant.user, "agent_id": agent, "content": content,
                                              "memory_type": "procedural"})
        assert stored.status_code == 201, stored.text


def _listed(tenant, **params) -> list[dict]:
    pages, cursor = [], None
    while True:
        page = tenant.get(f"/v1/users/{tenant.user}/memories",
                          params={**params, "limit": 2, **({"cursor": cursor} if cursor else {})})
        assert page.status_code == 200, page.text
        pages += page.json()["memories"]
        cursor = page.json()["next_cursor"]
        if cursor is None:
            return pages


def test_each_agent_lists_counts_searches_and_recalls_what_it_was_told(tenant):
    _two_agents(tenant)
    everything = _listed(tenant, include_inactive="true")
    assert {m["agent_id"] for m in everything} == {"coach", "planner"}
    for agent in ("coach", "planner"):
        own = _listed(tenant, agent_id=agent)
        assert own and [m["id"] for m in own] == [m["id"] for m in everything if m["agent_id"] == agent and m["active"]]
        count = tenant.get("/v1/memories/count", params={"user_id": tenant.user, "agent_id": agent}).json()["count"]
        assert count == len(own)
        found = tenant.search("knee running Notion peanuts weekly plans workouts", agent_id=agent)
        assert found and {m["agent_id"] for m in found} == {agent}
        recalled = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "what should I plan this week?",
                                              "agent_id": agent})
        cited = {c["memory_id"] for c in recalled.json()["citations"]}
        assert cited and cited <= {m["id"] for m in everything if m["agent_id"] == agent}
    assert _listed(tenant, agent_id="nobody") == []


def test_an_agents_listing_cursor_continues_only_that_agents_listing(tenant):
    _two_agents(tenant)
    listing = f"/v1/users/{tenant.user}/memories"
    coach = tenant.get(listing, params={"agent_id": "coach", "limit": 1}).json()["next_cursor"]
    unfiltered = tenant.get(listing, params={"limit": 1}).json()["next_cursor"]
    assert coach and unfiltered
    for params in [{"agent_id": "planner", "cursor": coach}, {"cursor": coach}, {"agent_id": "coach", "cursor": unfiltered}]:
        refused = tenant.get(listing, params=params)
        assert refused.status_code == 422 and "another listing" in refused.json()["error"]["message"], params
    assert tenant.get(listing, params={"agent_id": "coach", "cursor": coach}).status_code == 200


def test_the_users_facts_are_one_set_whichever_agent_heard_the_change(tenant):
    """Told to the coach that she works at Stripe and to the planner that she started at Notion,
    memex holds one current employer: Notion, the planner's; the coach's Stripe is its history.
    Named, the coach reads only what it was told, so its current facts hold no employer."""
    _two_agents(tenant)
    employer = {m["agent_id"]: m for m in _listed(tenant, include_inactive="true") if m["key"] == "employer"}
    assert (employer["coach"]["value"], employer["coach"]["active"]) == ("Stripe", False)
    assert (employer["planner"]["value"], employer["planner"]["active"]) == ("Notion", True)
    assert employer["coach"]["valid_to"] == employer["planner"]["valid_from"] == "2026-11-10T08:00:00Z"
    history = tenant.get(f"/v1/memories/{employer['planner']['id']}/history").json()["history"]
    assert [m["value"] for m in history] == ["Stripe", "Notion"]
    assert [m["key"] for m in _listed(tenant, agent_id="coach") if m["key"]] == ["hobby"]
