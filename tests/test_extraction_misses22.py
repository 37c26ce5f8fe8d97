"""What the offline rules misread (extract22): a span counted and then "now" says how long a home or a job has
been held, not a stay; a role for a while is no job title, as a job for a while is no employer; a job "until" a
month is a job for a while, as a place until then is a stay. Each beside sentences that must file what they
filed before."""

import pytest

from memex.extraction.offline import OfflineExtractor


def _facts(content: str, *history: str) -> set[tuple[str, str, bool]]:
    earlier = [{"id": f"h{i}", "role": "user", "content": said} for i, said in enumerate(history)]
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": content}], earlier)
    return {(c.key, c.value, c.historical) for c in found}


@pytest.mark.parametrize("text, key, expected", [
    # a span counted, then "now": how long so far, the home, the job or the school still held
    ("I'm living in Lisbon for a year now.", "city", {("city", "Lisbon", False)}),
    ("I live in Lisbon for a few months now.", "city", {("city", "Lisbon", False)}),
    ("I work at Google for two years now.", "employer", {("employer", "Google", False)}),
    ("I've been working at Google for a while now.", "employer", {("employer", "Google", False)}),
    ("I'm studying at MIT for two years now.", "school", {("school", "MIT", False)}),
    ("My sister lives in Paris for two years now.", "sister_city", {("sister_city", "Paris", False)}),
    # "the summer now" is still a stay, and a span without "now" still one
    ("I'm living in Lisbon for the summer now.", "city", set()),
    ("I'm working at Google for the summer now.", "employer", set()),
    ("I'm living in Lisbon for a year.", "city", set()),
    ("I work at Google for two years, then I'm off to Meta.", "employer", set()),
])
def test_a_span_counted_now_is_how_long_so_far(text, key, expected):
    assert {f for f in _facts(text) if f[0] == key} == expected


@pytest.mark.parametrize("text, key, expected", [
    # a role for a while: no job title, as the employer of the same words files none
    ("I work as a barista at Starbucks for the summer.", "role", set()),
    ("I'm working as a barista for the summer.", "role", set()),
    ("I'm a barista for the summer.", "role", set()),
    ("I got a job as a barista at Starbucks for the summer.", "role", set()),
    ("I teach at Lincoln High School for the summer.", "role", set()),
    ("I teach chemistry at Lincoln High for a semester.", "role", set()),
    ("My sister works as a barista for the summer.", "sister_role", set()),
    ("My sister is a lifeguard for the summer.", "sister_role", set()),
    # a role held, or held for how long, stays filed
    ("I work as a barista.", "role", {("role", "barista", False)}),
    ("I'm a barista at Starbucks.", "role", {("role", "barista", False)}),
    ("I teach at Lincoln High School.", "role", {("role", "teacher", False)}),
    ("I've been an electrician for 15 years.", "role", {("role", "electrician", False)}),
    ("I'm a nurse for two years now.", "role", {("role", "nurse", False)}),
    ("My sister is a lifeguard.", "sister_role", {("sister_role", "lifeguard", False)}),
    # a role done for a while in the past is still the past one
    ("I was a barista for the summer.", "role", {("role", "barista", True)}),
])
def test_a_role_for_a_while_is_no_job_title(text, key, expected):
    assert {f for f in _facts(text) if f[0] == key} == expected


def test_a_summer_role_leaves_the_job_title_current_through_the_pipeline(tenant):
    """Two turns: the job title, then a summer job as another; the job title is still the only current one."""
    tenant.turn("I'm a teacher.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I work as a barista at Starbucks for the summer.", timestamp="2026-06-01T00:00:00Z")
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    roles = [(m["value"], m["active"]) for m in listed.json()["memories"] if m["key"] == "role"]
    assert roles == [("teacher", True)]


@pytest.mark.parametrize("text, key, expected", [
    # a job until a time ends then: a job for a while, as a place until then is a stay, whatever the time
    ("I work at Google until March.", "employer", set()),
    ("I work at Google until Christmas.", "employer", set()),
    ("I work at Google until the summer.", "employer", set()),
    ("I work at Google until 2027.", "employer", set()),
    ("I work as a barista until March.", "role", set()),
    ("I'm based in Dublin until March.", "city", set()),
    ("I'm based in Dublin until Christmas.", "city", set()),
    ("I'm living in Dublin until Friday.", "city", set()),
    ("My sister lives in Paris until the summer.", "sister_city", set()),
    # "until" no time is no end said; a past home or job until a time is the past one
    ("I work at Google until I retire.", "employer", {("employer", "Google", False)}),
    ("I lived in Dublin until 2020.", "city", {("city", "Dublin", True)}),
    ("I was living in Dublin until 2020.", "city", {("city", "Dublin", True)}),
    ("I used to work at Google until 2020.", "employer", {("employer", "Google", True)}),
])
def test_a_job_until_a_time_is_a_job_for_a_while(text, key, expected):
    assert {f for f in _facts(text) if f[0] == key} == expected


def test_a_job_until_march_leaves_the_employer_current_through_the_pipeline(tenant):
    """Two turns: the employer, then a job elsewhere until March; the employer is still the only current one."""
    tenant.turn("I work at Acme Corp.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I work at Google until March.", timestamp="2026-01-15T00:00:00Z")
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    employers = [(m["value"], m["active"]) for m in listed.json()["memories"] if m["key"] == "employer"]
    assert employers == [("Acme Corp", True)]
