"""One tenant can never read, count, find or delete another tenant's data."""

from __future__ import annotations


def test_tenants_are_isolated(tenant, other_tenant):
    # Same user id in both tenants: only the key decides whose data it is.
    other_tenant.user = tenant.user
    turn_id = tenant.turn("I work at Stripe. My dog is called Biscuit.").json()["turn_id"]
    mine = tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
    assert len(mine) == 3
    memory_id = mine[0]["id"]

    assert other_tenant.get(f"/v1/memories/{memory_id}").status_code == 404
    assert other_tenant.get(f"/v1/memories/{memory_id}/history").status_code == 404
    assert other_tenant.get(f"/v1/turns/{turn_id}").status_code == 404
    assert other_tenant.get("/v1/memories/count", params={"user_id": tenant.user}).json()["count"] == 0
    assert other_tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"] == []
    assert other_tenant.get("/v1/sessions/s1/messages", params={"user_id": tenant.user}).status_code == 404
    assert other_tenant.get(f"/v1/users/{tenant.user}/sessions").json()["sessions"] == []
    assert other_tenant.search("Stripe Biscuit") == []
    recall = other_tenant.post("/v1/recall", {"user_id": tenant.user, "query": "where does the user work?"}).json()
    assert recall["citations"] == [] and recall["context"] == ""

    assert other_tenant.delete(f"/v1/memories/{memory_id}").status_code == 404
    assert other_tenant.delete(f"/v1/users/{tenant.user}").json()["deleted"] == {"turns": 0, "memories": 0}
    assert other_tenant.delete(f"/v1/sessions/s1?user_id={tenant.user}").json()["deleted"] == {"turns": 0, "memories": 0}

    assert tenant.get("/v1/memories/count", params={"user_id": tenant.user}).json()["count"] == 3
    assert tenant.get(f"/v1/turns/{turn_id}").json()["status"] == "processed"
    said = tenant.get("/v1/sessions/s1/messages", params={"user_id": tenant.user}).json()["messages"]
    assert [m["content"] for m in said] == ["I work at Stripe. My dog is called Biscuit."]
    assert [s["session_id"] for s in tenant.get(f"/v1/users/{tenant.user}/sessions").json()["sessions"]] == ["s1"]


def test_users_of_one_tenant_are_separate(tenant):
    tenant.turn("I work at Stripe.", user="alice")
    tenant.turn("I work at Notion.", user="bob")
    alice = tenant.post("/v1/search", {"user_id": "alice", "query": "employer"}).json()["results"]
    assert {r["user_id"] for r in alice} == {"alice"}
    assert not [r for r in alice if "Notion" in r["content"]]
    employer = [m for m in tenant.get("/v1/users/alice/memories").json()["memories"] if m["key"] == "employer"]
    assert [m["value"] for m in employer] == ["Stripe"]  # bob's Notion did not supersede alice's Stripe


def test_a_cursor_continues_only_its_own_tenants_listing(tenant, other_tenant):
    """One user id in two tenants: a page's cursor from one tenant is refused by the other's listing
    of that user, by name (it would start the other's listing at this tenant's position)."""
    from memex.db.cursors import OTHER_LISTING

    other_tenant.user = tenant.user
    for n in range(3):
        tenant.turn(f"Note {n} about the garden.", "And the shed.", session=f"s{n}")
        other_tenant.turn(f"Note {n} about the garage.", "And the car.", session=f"s{n}")
    for path, params in ((f"/v1/users/{tenant.user}/memories", {}), (f"/v1/users/{tenant.user}/sessions", {}),
                         ("/v1/sessions/s0/messages", {"user_id": tenant.user})):
        cursor = tenant.get(path, params={**params, "limit": 1}).json()["next_cursor"]
        assert cursor and tenant.get(path, params={**params, "limit": 1, "cursor": cursor}).status_code == 200, path
        refused = other_tenant.get(path, params={**params, "limit": 1, "cursor": cursor})
        assert refused.status_code == 422, path
        assert refused.json()["error"]["message"] == OTHER_LISTING
