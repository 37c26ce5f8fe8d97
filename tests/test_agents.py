"""Two agents serving one user (a coach and a planner, `agent_id`): each reads back what it was
told when it names itself, in the listing, the count, a search and a recall; without `agent_id`
every agent's memories are the user's; and the user's facts are one set, kept current whichever
agent heard the change: an agent's search is answered by the fact that replaced one of its own,
whoever heard it (current_first.py)."""

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
    # the current fact that replaced one of the coach's stands for it (the next test)
    notion = {m["id"] for m in everything if m["key"] == "employer" and m["active"]}
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
        assert cited and cited <= {m["id"] for m in everything if m["agent_id"] == agent} | notion
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
    Named, the coach lists only what it was told, so its current facts hold no employer."""
    _two_agents(tenant)
    employer = {m["agent_id"]: m for m in _listed(tenant, include_inactive="true") if m["key"] == "employer"}
    assert (employer["coach"]["value"], employer["coach"]["active"]) == ("Stripe", False)
    assert (employer["planner"]["value"], employer["planner"]["active"]) == ("Notion", True)
    assert employer["coach"]["valid_to"] == employer["planner"]["valid_from"] == "2026-11-10T08:00:00Z"
    history = tenant.get(f"/v1/memories/{employer['planner']['id']}/history").json()["history"]
    assert [m["value"] for m in history] == ["Stripe", "Notion"]
    assert [m["key"] for m in _listed(tenant, agent_id="coach") if m["key"]] == ["hobby"]


def test_an_agent_asking_is_answered_by_the_current_fact_another_agent_heard(tenant):
    """Issue 11 item 5: the coach, told "I work at Stripe.", asks as `coach` where she works after
    she told the planner she started at Notion. Notion (the planner's, so saying another agent heard
    it) comes first, in the place of the coach's stale message, which stays below it and is marked
    stale in the recall as it is without `agent_id`; nothing else of the planner's comes in, and the
    coach's listing and count stay its own."""
    _two_agents(tenant)
    for question in ("where does she work?", "Where does the user work?", "what's my job?"):
        found = tenant.search(question, agent_id="coach")
        assert (found[0]["content"], found[0]["agent_id"]) == ("The user's employer is Notion.", "planner"), found
        assert not [m for m in found[:1] if m["content"].startswith("I work at Stripe.")]
        assert [m for m in found if m["agent_id"] != "coach"] == [found[0]]  # no peanuts, no weekly plans
    lines = {}
    for agent in ("coach", None):
        recalled = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "where does she work?",
                                              **({"agent_id": agent} if agent else {})})
        lines[agent] = recalled.json()["context"].splitlines()
    notion = "- The user's employer is Notion."
    [stale] = [line for line in lines["coach"] if line.startswith("- I work at Stripe.")]
    assert stale.endswith("no longer current: Stripe)") and stale in lines[None]
    assert lines["coach"].index(notion) < lines["coach"].index(stale)
    assert not any("peanut" in line or "Sunday" in line for line in lines["coach"])
    # asked nothing in particular, the coach's standing facts hold the employer that replaced its own
    broad = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "what should I plan this week?",
                                       "agent_id": "coach"}).json()
    assert {c["snippet"]: c["bucket"] for c in broad["citations"]}.get("The user's employer is Notion.") == "facts"
    assert not any("peanut" in c["snippet"] or "Sunday" in c["snippet"] for c in broad["citations"])
    coach = _listed(tenant, agent_id="coach")
    assert {m["agent_id"] for m in coach} == {"coach"} and "Notion" not in {m["value"] for m in coach}
    assert tenant.get("/v1/memories/count", params={"user_id": tenant.user, "agent_id": "coach"}).json() \
        == {"count": len(coach)}


def test_a_message_all_of_whose_facts_another_agent_replaced_is_answered_by_the_new_ones(tenant):
    """Every fact of the coach's message replaced by what the planner heard: the planner's current
    fact answers whatever found the message, as an unscoped search's does."""
    for agent, said, timestamp in [("coach", "I live in Leeds.", "2026-11-01T08:00:00Z"),
                                   ("planner", "I moved to York. I'm allergic to peanuts.", "2026-11-10T08:00:00Z")]:
        assert tenant.turn(said, session=agent, agent_id=agent, timestamp=timestamp).status_code == 201
    for agent in ("coach", None):
        found = tenant.search("Leeds", **({"agent_id": agent} if agent else {}))
        leeds = next(m for m in found if m["content"] == "I live in Leeds.")
        york = next(m for m in found if m["key"] == "city" and m["value"] == "York")
        assert found.index(york) < found.index(leeds) and york["agent_id"] == "planner", agent
    assert {m["agent_id"] for m in tenant.search("Leeds", agent_id="coach")} == {"coach", "planner"}
    assert not [m for m in tenant.search("Leeds", agent_id="coach") if "peanut" in m["content"]]


def _sessions(tenant, **params) -> list[dict]:
    pages, cursor = [], None
    while True:
        page = tenant.get(f"/v1/users/{tenant.user}/sessions",
                          params={**params, "limit": 1, **({"cursor": cursor} if cursor else {})})
        assert page.status_code == 200, page.text
        pages += page.json()["sessions"]
        cursor = page.json()["next_cursor"]
        if cursor is None:
            return pages


def test_each_agent_lists_the_sessions_it_sent_a_turn_in(tenant):
    """A session two agents took turns in is listed for each, whole (its counts are the
    conversation's, as its messages are); a listing's cursor continues only that agent's listing."""
    _two_agents(tenant)
    assert tenant.turn("Plan my race week around the knee.", session="c2", agent_id="planner",
                       timestamp="2026-11-12T09:00:00Z").status_code == 201
    everything = _sessions(tenant)
    assert [s["session_id"] for s in everything] == ["c2", "p1", "c1"]
    assert _sessions(tenant, agent_id="coach") == [s for s in everything if s["session_id"] in ("c2", "c1")]
    assert _sessions(tenant, agent_id="planner") == [s for s in everything if s["session_id"] in ("c2", "p1")]
    assert [s["turns"] for s in everything if s["session_id"] == "c2"] == [2]
    assert _sessions(tenant, agent_id="nobody") == []
    listing = f"/v1/users/{tenant.user}/sessions"
    coach = tenant.get(listing, params={"agent_id": "coach", "limit": 1}).json()["next_cursor"]
    unfiltered = tenant.get(listing, params={"limit": 1}).json()["next_cursor"]
    for params in [{"agent_id": "planner", "cursor": coach}, {"cursor": coach}, {"agent_id": "coach", "cursor": unfiltered}]:
        refused = tenant.get(listing, params=params)
        assert refused.status_code == 422 and "another listing" in refused.json()["error"]["message"], params


def test_a_session_id_two_agents_send_to_is_one_session_erased_whole(tenant):
    """docs/api.md's warning (trial 15): a session id names the user's session, not an agent's; the
    erasure of a session two agents sent turns to takes both agents' turns and what was drawn from
    them, and takes no `agent_id` to narrow it. Sessions of their own keep one agent's erasure its own."""
    for agent, said in [("coach", "My favourite colour is green."), ("planner", "My sister Marta visits in May.")]:
        assert tenant.turn(said, session="today", agent_id=agent).status_code == 201
    assert tenant.turn("I live in Lisbon.", session="planner-1", agent_id="planner").status_code == 201
    narrowed = tenant.delete("/v1/sessions/today", params={"user_id": tenant.user, "agent_id": "coach"})
    assert narrowed.status_code == 422 and "query.agent_id" in narrowed.json()["error"]["message"]
    erased = tenant.delete("/v1/sessions/today", params={"user_id": tenant.user})
    assert erased.status_code == 200 and erased.json()["deleted"]["turns"] == 2, erased.text
    left = _listed(tenant)
    assert left and {m["session_id"] for m in left} == {"planner-1"}
    assert not [m for m in left if "Marta" in m["content"] or "green" in m["content"]]
