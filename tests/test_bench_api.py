"""bench/api.py: the reads several benchmarks share, against the suite's app."""

from __future__ import annotations

from collections import Counter

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
    asked = Counter()

    def get(path: str):
        asked[path.rsplit("/", 1)[1]] += 1
        return tenant.get(path)

    statuses = api.wait_processed(get, [done, queued, "no-such-turn"], timeout=0.5, interval=0.1)
    assert statuses == {done: "processed", queued: "queued", "no-such-turn": "http 404"}
    # Counted, not timed (a loaded machine stretches any time): rounds are an interval apart at least
    # and none begins past the timeout, so at most timeout / interval + 2 of them; a turn found
    # processed is not asked again.
    assert asked[done] == 1 and 1 <= asked[queued] == asked["no-such-turn"] <= 0.5 / 0.1 + 2
    asked.clear()
    assert api.wait_processed(get, [done], timeout=60, interval=30) == {done: "processed"}
    assert asked == {done: 1}  # all done at the first round: no sleep of the interval before the answer
