"""Things owned and given up, plans and past roles through the pipeline (issue 11, items 2 and 7): what a
user sees after saying them. A thing sold ends what was owned; a plan or a job to come leaves the current
city and employer current; a role before the current one is history, never the current role."""

from __future__ import annotations


def _memories(tenant, key: str) -> list[dict]:
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    return sorted((m for m in listed.json()["memories"] if m["key"] == key), key=lambda m: m["created_at"])


def _current(tenant, key: str) -> list[str]:
    return [m["value"] for m in _memories(tenant, key) if m["active"]]


def test_a_car_sold_ends_the_car(tenant):
    tenant.turn("I drive a Tesla.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("Finally sold my car!", timestamp="2026-02-01T00:00:00Z")
    assert _current(tenant, "car") == ["none"]
    tesla = next(m for m in _memories(tenant, "car") if m["value"] == "Tesla")
    assert tesla["valid_to"] is not None


def test_a_boat_sold_ends_the_boat_by_its_kind_or_as_none(tenant):
    tenant.turn("We have a sailboat.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I sold my sailboat last summer.", timestamp="2026-02-01T00:00:00Z")
    assert _current(tenant, "boat") == []
    tenant.turn("We bought a speedboat.", timestamp="2026-03-01T00:00:00Z")
    tenant.turn("We sold the boat.", timestamp="2026-04-01T00:00:00Z")
    assert _current(tenant, "boat") == ["none"]


def test_a_past_role_does_not_replace_the_current_one(tenant):
    tenant.turn("I'm a chef.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I used to be a journalist.", timestamp="2026-02-01T00:00:00Z")
    tenant.turn("Before this I worked as a paralegal.", timestamp="2026-02-02T00:00:00Z")
    assert _current(tenant, "role") == ["chef"]
    past = {m["value"] for m in _memories(tenant, "role") if m["value"] != "chef"}
    assert past == {"journalist", "paralegal"}


def test_a_plan_leaves_the_current_city_and_employer_current(tenant):
    tenant.turn("I live in Lisbon. I work at Acme.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("Next month I'm moving to Leeds. I'm starting at Stripe next month.", timestamp="2026-02-01T00:00:00Z")
    tenant.turn("I'll be in Tokyo next week.", timestamp="2026-02-02T00:00:00Z")
    assert _current(tenant, "city") == ["Lisbon"]
    assert _current(tenant, "employer") == ["Acme"]
    assert sorted(_current(tenant, "plan")) == ["in Tokyo next week", "moving to Leeds next month"]
    assert _current(tenant, "next_job") == ["starting at Stripe next month"]


def test_a_fact_said_with_its_time_files_the_fact_alone(tenant):
    tenant.turn("I've worked at Deloitte since 2016. My birthday is 12 May. I was born in 1990.",
                timestamp="2026-01-01T00:00:00Z")
    assert _current(tenant, "employer") == ["Deloitte"]
    assert _current(tenant, "birthday") == ["12 May"]
    assert _current(tenant, "birth_year") == ["1990"]
