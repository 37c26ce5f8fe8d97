"""A user's sessions (GET /v1/users/{id}/sessions), and what an operator answering "what does your
agent remember about me?" reads: the sessions, each session's messages, each turn as it was sent."""

from __future__ import annotations

import pytest

from memex.db import sessions
from memex.db.cursors import OTHER_LISTING


def sent(tenant, session: str, timestamp: str, *contents: str, user: str | None = None, **extra):
    response = tenant.turn(*contents, session=session, user=user, timestamp=timestamp, **extra)
    assert response.status_code == 201, response.text
    return response.json()["turn_id"]


def test_a_users_sessions_are_listed_latest_begun_first_with_their_turns_and_times(tenant):
    sent(tenant, "trip", "2026-03-01T10:00:00Z", "I live in Porto.", "I have a dog.")
    sent(tenant, "work", "2026-03-03T09:00:00Z", "I work at Stripe.")
    sent(tenant, "trip", "2026-03-05T08:00:00Z", "I moved to Lisbon.")  # later in an older session
    sent(tenant, "elsewhere", "2026-03-09T08:00:00Z", "Another user's.", user=f"{tenant.user}-x")

    listed = tenant.get(f"/v1/users/{tenant.user}/sessions")
    assert listed.status_code == 200, listed.text
    assert listed.json() == {"user_id": tenant.user, "next_cursor": None, "sessions": [
        {"session_id": "work", "turns": 1, "messages": 1, "started_at": "2026-03-03T09:00:00Z",
         "last_at": "2026-03-03T09:00:00Z"},
        {"session_id": "trip", "turns": 2, "messages": 3, "started_at": "2026-03-01T10:00:00Z",
         "last_at": "2026-03-05T08:00:00Z"}]}


def test_the_sessions_listing_pages_through_every_session_once(tenant):
    for day in range(1, 6):
        sent(tenant, f"s{day}", f"2026-03-0{day}T10:00:00Z", f"Day {day}.")
    seen, cursor = [], None
    while True:
        page = tenant.get(f"/v1/users/{tenant.user}/sessions", params={"limit": 2, **({"cursor": cursor} if cursor else {})})
        assert page.status_code == 200, page.text
        assert len(page.json()["sessions"]) <= 2
        seen += [s["session_id"] for s in page.json()["sessions"]]
        cursor = page.json()["next_cursor"]
        if cursor is None:
            break
    assert seen == ["s5", "s4", "s3", "s2", "s1"]


def test_a_user_without_sessions_has_none_and_another_tenants_same_user_is_not_listed(tenant, other_tenant):
    other_tenant.user = tenant.user
    sent(other_tenant, "theirs", "2026-03-01T10:00:00Z", "I live in Oslo.")
    assert tenant.get(f"/v1/users/{tenant.user}/sessions").json() == {
        "user_id": tenant.user, "sessions": [], "next_cursor": None}
    assert [s["session_id"] for s in other_tenant.get(f"/v1/users/{tenant.user}/sessions").json()["sessions"]] \
        == ["theirs"]


def test_erasing_the_user_leaves_no_session_and_spares_another_tenants_same_user(tenant, other_tenant):
    other_tenant.user = tenant.user
    sent(tenant, "s1", "2026-03-01T10:00:00Z", "I live in Porto.")
    sent(other_tenant, "s1", "2026-03-01T10:00:00Z", "I live in Oslo.")
    assert tenant.delete(f"/v1/users/{tenant.user}").json()["deleted"]["turns"] == 1
    assert tenant.get(f"/v1/users/{tenant.user}/sessions").json()["sessions"] == []
    assert tenant.get("/v1/sessions/s1/messages", params={"user_id": tenant.user}).status_code == 404
    kept = other_tenant.get("/v1/sessions/s1/messages", params={"user_id": tenant.user}).json()["messages"]
    assert [m["content"] for m in kept] == ["I live in Oslo."]


# --- a cursor continues only the listing that returned it --------------------------------------

def next_cursor(tenant, path: str, **params) -> str:
    page = tenant.get(path, params={"limit": 1, **params})
    assert page.status_code == 200, page.text
    assert page.json()["next_cursor"], page.text
    return page.json()["next_cursor"]


def refused_as_another_listings(response) -> None:
    assert response.status_code == 422, response.text
    assert response.json() == {"error": {"code": "validation_error", "message": OTHER_LISTING}}


def test_a_cursor_is_refused_by_another_session_and_another_user(tenant):
    """Keyset cursors of one shape were taken by any listing of that shape: s1's position, given to
    s2, started s2 past wherever s1 had got to, and answered a short page without a word."""
    sent(tenant, "s1", "2026-03-05T10:00:00Z", "Late one.", "Late two.")
    sent(tenant, "s2", "2026-03-01T10:00:00Z", "Early one.", "Early two.")
    sent(tenant, "s1", "2026-03-05T10:00:00Z", "Bob's one.", "Bob's two.", user="bob")
    s1 = next_cursor(tenant, "/v1/sessions/s1/messages", user_id=tenant.user)
    refused_as_another_listings(tenant.get("/v1/sessions/s2/messages", params={"user_id": tenant.user, "cursor": s1}))
    refused_as_another_listings(tenant.get("/v1/sessions/s1/messages", params={"user_id": "bob", "cursor": s1}))
    assert tenant.get("/v1/sessions/s1/messages", params={"user_id": tenant.user, "cursor": s1}).json()["messages"]


@pytest.mark.parametrize("issued_by,given_to", [
    ("/v1/users/{user}/memories", "/v1/users/{user}/sessions"),
    ("/v1/users/{user}/sessions", "/v1/users/{user}/memories"),
    ("/v1/users/{user}/memories", "/v1/users/{user}/memories?include_inactive=true"),
    ("/v1/users/{user}/memories", "/v1/users/bob/memories"),
    ("/v1/sessions/s1/messages?user_id={user}", "/v1/users/{user}/memories"),
])
def test_a_cursor_from_another_listing_is_named_as_such(tenant, issued_by, given_to):
    sent(tenant, "s1", "2026-03-01T10:00:00Z", "I live in Porto.", "I work at Stripe.")
    sent(tenant, "s2", "2026-03-02T10:00:00Z", "I have a dog.")
    sent(tenant, "s1", "2026-03-01T10:00:00Z", "I live in Oslo.", user="bob")
    path, _, query = issued_by.format(user=tenant.user).partition("?")
    cursor = next_cursor(tenant, path, **dict(p.split("=") for p in query.split("&") if p))
    path, _, query = given_to.format(user=tenant.user).partition("?")
    refused_as_another_listings(tenant.get(path, params={**dict(p.split("=") for p in query.split("&") if p),
                                                         "cursor": cursor}))


# --- a turn as it was sent --------------------------------------------------------------------

def test_a_turns_metadata_comes_back_with_the_turn(tenant, other_tenant):
    """A turn's `metadata` was stored, and matched by `filters.metadata`, but returned by no route."""
    turn_id = sent(tenant, "s1", "2026-03-01T10:00:00Z", "I live in Porto.", agent_id="helper",
                   metadata={"channel": "web", "ticket": {"id": "T-1", "tags": ["billing"]}})
    turn = tenant.get(f"/v1/turns/{turn_id}").json()
    assert {k: turn[k] for k in ("user_id", "session_id", "agent_id", "occurred_at", "metadata")} == {
        "user_id": tenant.user, "session_id": "s1", "agent_id": "helper", "occurred_at": "2026-03-01T10:00:00Z",
        "metadata": {"channel": "web", "ticket": {"id": "T-1", "tags": ["billing"]}}}
    assert tenant.get(f"/v1/turns/{sent(tenant, 's1', '2026-03-02T10:00:00Z', 'Hi.')}").json()["metadata"] == {}
    assert other_tenant.get(f"/v1/turns/{turn_id}").status_code == 404
    queued = tenant.turn("I work at Stripe.", wait=False, metadata={"channel": "app"}).json()
    assert set(queued) == {"turn_id", "status"}  # the 202 is unchanged: an id to read it back by


@pytest.mark.parametrize("walk", [40, 1])
def test_long_sessions_and_short_ones_list_the_same_pages_however_they_are_found(tenant, monkeypatch, walk):
    """A page is found by walking the user's turns from the latest back, or, when its sessions hold
    many turns each (WALK_TURNS_PER_SESSION; 1 here forces it), by enumerating the user's sessions:
    the same sessions, in the same order, with the same counts, page after page."""
    monkeypatch.setattr(sessions, "WALK_TURNS_PER_SESSION", walk)
    sent(tenant, "long", "2026-03-01T10:00:00Z", "I live in Porto.")
    sent(tenant, "a", "2026-03-02T10:00:00Z", "One.")
    sent(tenant, "b", "2026-03-02T10:00:00Z", "Two.")  # begun at the same instant as a: by id, b first
    sent(tenant, "long", "2026-03-02T10:00:00Z", "Still here.")
    sent(tenant, "c", "2026-03-03T10:00:00Z", "Three.", "And more.")
    sent(tenant, "c", "2026-03-03T10:00:00Z", "Same instant.")  # two turns of c at its first instant
    for day in range(4, 9):
        sent(tenant, "long", f"2026-03-0{day}T10:00:00Z", f"Day {day}.")
    seen, cursor = [], None
    while True:
        page = tenant.get(f"/v1/users/{tenant.user}/sessions", params={"limit": 2, **({"cursor": cursor} if cursor else {})})
        assert page.status_code == 200, page.text
        seen += [(s["session_id"], s["turns"], s["messages"], s["started_at"][:10], s["last_at"][:10])
                 for s in page.json()["sessions"]]
        cursor = page.json()["next_cursor"]
        if cursor is None:
            break
    assert seen == [("c", 2, 3, "2026-03-03", "2026-03-03"), ("b", 1, 1, "2026-03-02", "2026-03-02"),
                    ("a", 1, 1, "2026-03-02", "2026-03-02"), ("long", 7, 7, "2026-03-01", "2026-03-08")]
