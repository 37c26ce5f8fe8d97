"""What the offline rules misread (extract23): a plan of leaving (a last day at a job, a move out of a place, a
home until a time and then a move) filed nothing, not even a plan; a how-long phrasing with an end ahead ("I've
lived in Dublin until March") filed a current home or job; "been a nurse for a while" filed no role. Each beside
sentences that must file what they filed before."""

import pytest

from memex.extraction.offline import OfflineExtractor


def _facts(content: str, *history: str) -> set[tuple[str, str, bool]]:
    earlier = [{"id": f"h{i}", "role": "user", "content": said} for i, said in enumerate(history)]
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": content}], earlier)
    return {(c.key, c.value, c.historical) for c in found}


@pytest.mark.parametrize("text, expected", [
    # a plan of leaving is a plan, in the user's words, and nothing else: no home or job ends or begins
    ("My last day at Google is in March.", {("plan", "last day at Google in March", False)}),
    ("My last day at Google is Friday.", {("plan", "last day at Google on Friday", False)}),
    ("My last day at Google will be next month.", {("plan", "last day at Google next month", False)}),
    ("Friday is my last day at Google.", {("plan", "last day at Google on Friday", False)}),
    ("I'm moving out of Dublin in March.", {("plan", "moving out of Dublin in March", False)}),
    ("We're moving away from London next year.", {("plan", "moving away from London next year", False)}),
    ("I'm moving out next month.", {("plan", "moving out next month", False)}),
    ("In March I'm moving out of Dublin.", {("plan", "moving out of Dublin in March", False)}),
    ("I live in Dublin until March, then I'm moving to Cork.",
     {("plan", "living in Dublin until March, then moving to Cork", False)}),
    ("I'm based in Dublin until Christmas and then moving to Cork.",
     {("plan", "based in Dublin until Christmas, then moving to Cork", False)}),
    # a visit's last day is a plan of leaving too
    ("My last day at Yosemite is Friday.", {("plan", "last day at Yosemite on Friday", False)}),
    # a time said for the move is the plan of the move, as before
    ("I live in Dublin until March, then I'm moving to Cork in April.", {("plan", "moving to Cork in April", False)}),
    # not the user's, not ahead, no move said
    ("My sister's last day at Google is in March.", set()),
    # a last day gone is no plan but the job's end (test_extraction_job_misses.py)
    ("My last day at Google was Friday.", {("employer", "Google", True)}),
    ("My sister is moving out of Dublin in March.", set()),
    ("I live in Dublin until March.", set()),
    # a move out said done is the home left, as before
    ("I moved out of Boston in 2018.", {("city", "Boston", True)}),
])
def test_a_plan_of_leaving_is_a_plan(text, expected):
    assert _facts(text) == expected


def test_a_plan_of_leaving_leaves_the_home_and_the_job_current_through_the_pipeline(tenant):
    """The home and the employer, then the plans of leaving them: both still the only current ones, the plans
    filed beside them."""
    tenant.turn("I live in Dublin and I work at Acme Corp.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("My last day at Acme Corp is in March. I live in Dublin until March, then I'm moving to Cork.",
                timestamp="2026-01-15T00:00:00Z")
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    memories = [(m["key"], m["value"], m["active"]) for m in listed.json()["memories"] if m["key"]]
    assert sorted(memories) == [
        ("city", "Dublin", True), ("employer", "Acme Corp", True),
        ("plan", "last day at Acme Corp in March", True),
        ("plan", "living in Dublin until March, then moving to Cork", True)]


@pytest.mark.parametrize("text, key, expected", [
    # how long so far, and an end ahead: a stay or a job for a while, no current home or employer
    ("I've lived in Dublin until March.", "city", set()),
    ("I have lived in Dublin until March.", "city", set()),
    ("I've been living in Dublin until March.", "city", set()),
    ("I've been working at Google until March.", "employer", set()),
    ("I've been a barista until March.", "role", set()),
    # how long so far, no end: held; a past home or job until a time: the past one
    ("I've lived in Dublin for ten years.", "city", {("city", "Dublin", False)}),
    ("I've been working at Google for three years.", "employer", {("employer", "Google", False)}),
    ("I lived in Dublin until 2020.", "city", {("city", "Dublin", True)}),
    ("I was living in Dublin until 2020.", "city", {("city", "Dublin", True)}),
    ("I used to live in Dublin until 2020.", "city", {("city", "Dublin", True)}),
])
def test_how_long_with_an_end_ahead_is_a_stint(text, key, expected):
    assert {f for f in _facts(text) if f[0] == key} == expected


@pytest.mark.parametrize("text, expected", [
    # "for a while", "for years", "for a long time" after "been a" say how long so far, as a count does
    ("I've been a nurse for a while.", {("role", "nurse", False)}),
    ("I've been a nurse for quite a while now.", {("role", "nurse", False)}),
    ("I've been an electrician for years.", {("role", "electrician", False)}),
    ("I have been a teacher for a long time.", {("role", "teacher", False)}),
    ("I've been a nurse for 15 years.", {("role", "nurse", False)}),
    # a role for a while that is not "been a" is still no job title
    ("I'm a lifeguard for a while.", set()),
    ("I was a barista for a while.", {("role", "barista", True)}),
])
def test_been_a_role_for_a_while_is_the_role(text, expected):
    assert {f for f in _facts(text) if f[0] == "role"} == expected
