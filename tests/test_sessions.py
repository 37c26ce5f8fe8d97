"""A user's sessions (GET /v1/users/{id}/sessions), and what an operator answering "what does your
agent remember about me?" reads: the sessions, each session's messages, each turn as it was sent."""

from __future__ import annotations

import pytest

from memex import memories
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


def test_long_sessions_and_short_ones_list_in_the_order_they_began(tenant):
    """The same sessions, in the same order, with the same counts, page after page: a tie of two
    sessions begun at the same instant, two turns at a session's first instant, a long session
    begun first and still going."""
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


# --- the sessions' rows (migration 0025) equal a count from the turns themselves -----------------

def stored_sessions(ctx, tenant_id: str) -> dict:
    conn = ctx.db.connection()
    return {(r["user_id"], r["session_id"]): (r["turns"], r["messages"], r["started_at"], r["last_at"])
            for r in conn.execute("SELECT * FROM sessions WHERE tenant_id = %s", (tenant_id,)).fetchall()}


def counted_sessions(ctx, tenant_id: str) -> dict:
    conn = ctx.db.connection()
    turns = conn.execute("SELECT id, user_id, session_id, occurred_at FROM turns WHERE tenant_id = %s",
                         (tenant_id,)).fetchall()
    said = conn.execute("SELECT turn_id FROM messages WHERE tenant_id = %s", (tenant_id,)).fetchall()
    counted: dict = {}
    for t in turns:
        n = sum(m["turn_id"] == t["id"] for m in said)
        turns_, messages, first, last = counted.get((t["user_id"], t["session_id"]), (0, 0, t["occurred_at"], t["occurred_at"]))
        counted[(t["user_id"], t["session_id"])] = (turns_ + 1, messages + n, min(first, t["occurred_at"]),
                                                    max(last, t["occurred_at"]))
    return counted


def assert_counted(ctx, tenant_id: str) -> dict:
    stored = stored_sessions(ctx, tenant_id)
    assert stored == counted_sessions(ctx, tenant_id)
    return stored


def test_the_sessions_rows_follow_every_write_and_erasure_of_turns_and_messages(ctx, tenant, other_tenant):
    from datetime import datetime, timezone

    import psycopg

    from memex.db import backfills
    from memex.models import ImportedTurn

    sent(tenant, "a", "2026-03-02T10:00:00Z", "I live in Porto.", "I have a dog named Rex.")
    sent(tenant, "a", "2026-03-01T10:00:00Z", "Said earlier, sent later.")  # the session begins earlier
    sent(tenant, "b", "2026-03-03T10:00:00Z", "I work at Stripe.", user=f"{tenant.user}-2")
    sent(other_tenant, "a", "2026-03-01T10:00:00Z", "Another tenant's.")
    assert assert_counted(ctx, tenant.id)[(tenant.user, "a")][:2] == (2, 3)

    # delivered again with its idempotency key: stored once, counted once
    for _ in range(2):
        sent(tenant, "c", "2026-03-04T10:00:00Z", "Once only.", idempotency_key="k1")
    assert assert_counted(ctx, tenant.id)[(tenant.user, "c")][:2] == (1, 1)

    # an import's chunk: many sessions and users in one transaction
    lines = [ImportedTurn.model_validate({"user_id": user, "session_id": session,
                                          "timestamp": f"2026-03-0{day}T12:00:00Z",
                                          "messages": [{"role": "user", "content": f"Line {day} {session}."}] * day})
             for day, (user, session) in enumerate([(tenant.user, "d"), (f"{tenant.user}-2", "b"), (tenant.user, "a"),
                                                    (tenant.user, "d")], start=1)]
    with ctx.db.transaction() as conn:
        backfills.insert_turns(conn, tenant.id, lines)
    assert assert_counted(ctx, tenant.id)[(tenant.user, "d")][:2] == (2, 5)

    # an episodic memory erased takes its message
    memories = tenant.get(f"/v1/users/{tenant.user}/memories", params={"limit": 100}).json()["memories"]
    rex = next(m for m in memories if m["memory_type"] == "episodic" and "Rex" in m["content"])
    assert tenant.delete(f"/v1/memories/{rex['id']}").status_code == 200
    assert assert_counted(ctx, tenant.id)[(tenant.user, "a")][:2] == (3, 5)

    # one turn deleted of a session (no route does; its messages go by cascade): counted again
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        conn.execute("""DELETE FROM turns WHERE tenant_id = %s AND user_id = %s AND session_id = 'a'
                        AND occurred_at = '2026-03-01T10:00:00Z'""", (tenant.id, tenant.user))
    assert assert_counted(ctx, tenant.id)[(tenant.user, "a")][2] == datetime(2026, 3, 2, 10, tzinfo=timezone.utc)

    assert tenant.delete(f"/v1/sessions/d?user_id={tenant.user}").status_code == 200
    assert (tenant.user, "d") not in assert_counted(ctx, tenant.id)
    assert tenant.delete(f"/v1/users/{tenant.user}").status_code == 200
    assert set(assert_counted(ctx, tenant.id)) == {(f"{tenant.user}-2", "b")}
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        conn.execute("DELETE FROM tenants WHERE id = %s", (tenant.id,))
    assert assert_counted(ctx, tenant.id) == {}
    assert assert_counted(ctx, other_tenant.id) == {(other_tenant.user, "a"): (
        1, 1, datetime(2026, 3, 1, 10, tzinfo=timezone.utc), datetime(2026, 3, 1, 10, tzinfo=timezone.utc))}


def test_imports_writing_one_users_sessions_in_opposite_orders_neither_deadlock_nor_drift(ctx, tenant):
    """Each import's statement holds its session's row to commit: two chunks writing a user's
    sessions in other orders would wait on each other, but for the user's lock taken first."""
    import threading

    from memex.db import backfills
    from memex.models import ImportedTurn

    def chunk(sessions: list[str]) -> list[ImportedTurn]:
        return [ImportedTurn.model_validate({"user_id": tenant.user, "session_id": s, "timestamp": "2026-03-01T10:00:00Z",
                                             "messages": [{"role": "user", "content": f"In {s}."}]})
                for s in sessions]

    ready, failures = threading.Barrier(2), []

    def run(sessions: list[str]) -> None:
        try:
            with ctx.db.transaction() as conn:
                ready.wait(timeout=30)
                backfills.insert_turns(conn, tenant.id, chunk(sessions))
        except Exception as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    names = [f"s{i:03}" for i in range(300)]
    threads = [threading.Thread(target=run, args=(order,)) for order in (names, names[::-1])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == []
    stored = assert_counted(ctx, tenant.id)
    assert {key: value[:2] for key, value in stored.items()} == {(tenant.user, s): (2, 2) for s in names}
    # Imported, never processed: erased, so that no later test's sweep takes 600 queued turns for lost.
    memories.erase_user(ctx, tenant.id, tenant.user)
    assert assert_counted(ctx, tenant.id) == {}
