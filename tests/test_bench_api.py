"""bench/api.py: the reads several benchmarks share, against the suite's app."""

from __future__ import annotations

import time

from bench import api


def test_memories_follow_the_cursor_to_every_memory_history_included(tenant):
    for i in range(4):
        assert tenant.post("/v1/memories", {"user_id": tenant.user, "content": f"Note {i} about the garden."}
                           ).status_code == 201
    assert tenant.turn("I live in Porto.").status_code == 201
    assert tenant.turn("I moved to Lisbon.").status_code == 201  # Porto becomes history
    every = api.memories(tenant.get, tenant.user, limit=500)
    assert [m["value"] for m in every if m.get("key") == "city" and not m["active"]] == ["Porto"]
    paged = api.memories(tenant.get, tenant.user, limit=2)
    assert len(paged) > 4 and sorted(m["id"] for m in paged) == sorted(m["id"] for m in every)
    active = api.memories(tenant.get, tenant.user, include_inactive=False, limit=2)
    assert sorted(m["id"] for m in active) == sorted(m["id"] for m in every if m["active"])


def test_the_wait_ends_at_its_timeout_with_each_turns_last_status(tenant):
    done = tenant.turn("I live in Porto.").json()["turn_id"]
    queued = tenant.turn("I work at Stripe.", wait=False).json()["turn_id"]  # no worker drains it here
    started = time.monotonic()
    statuses = api.wait_processed(tenant.get, [done, queued, "no-such-turn"], timeout=0.5, interval=0.1)
    assert statuses == {done: "processed", queued: "queued", "no-such-turn": "http 404"}
    assert time.monotonic() - started < 5
    assert api.wait_processed(tenant.get, [done], timeout=60, interval=30) == {done: "processed"}
