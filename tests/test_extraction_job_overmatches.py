"""What the job and stay rules of tests/test_extraction_job_misses.py over-matched (extract26): a past perfect of a
day's work ("I'd been working at Google all morning when the fire alarm went off") ended the current employer; a
home on a contract until a time was the city ("I'm living in Berlin on a work contract until March"). Each beside
the sentences those rules were added for, which must file what they filed."""

from datetime import datetime

import pytest

from memex import job_start
from tests.conftest import current_values, offline_facts, offline_found


@pytest.mark.parametrize("text, expected", [
    # a day's work in the past perfect, as in the past progressive, is no job left
    ("I'd been working at Google all morning when the fire alarm went off.", set()),
    ("I had been working at Google for a few hours when it happened.", set()),
    ("I had been working at Google late and missed the bus.", set()),
    ("I had been working at Google since 8am.", set()),
    ("I had been working at Google today when the power went out.", set()),
    ("I'd worked at Google all day.", set()),
    ("I'd been working at Google as an engineer all morning when the alarm went off.", set()),
    # how long, until a year, or said alone: a job left
    ("I'd worked at Google.", {("employer", "Google", True)}),
    ("I had worked at Google for years.", {("employer", "Google", True)}),
    ("I'd been working at Google for a couple of months when I got laid off.", {("employer", "Google", True)}),
    ("I was working at Google for years.", {("employer", "Google", True)}),
    ("I'd worked at Google as an engineer for five years.", {("employer", "Google", True),
                                                               ("role", "engineer", True)}),
])
def test_a_days_work_in_the_past_perfect_is_no_job_left(text, expected):
    assert offline_facts(text) == expected


def test_a_days_work_in_the_past_perfect_keeps_the_employer_through_the_pipeline(tenant):
    tenant.turn("I work at Google.", timestamp="2026-03-02T09:00:00Z")
    tenant.turn("I'd been working at Google all morning when the fire alarm went off.",
                timestamp="2026-03-04T12:00:00Z")
    assert current_values(tenant, "employer") == ["Google"]


@pytest.mark.parametrize("text, expected", [
    # a home until a time is a stay, on a contract or not: the home is kept elsewhere
    ("I'm living in Berlin on a work contract until March.", set()),
    ("We live in Oslo on a contract until June.", set()),
    ("I moved to Oslo on a contract until June.", set()),
    ("My sister lives in Oslo on a contract until June.", set()),
    ("I live in Berlin until March.", set()),
    # a job's: the job, role and employer, is held, its contract ending
    ("I'm a teacher on a contract until June.", {("role", "teacher", False)}),
    ("I work as a nurse on a contract until June.", {("role", "nurse", False)}),
    ("My sister is a teacher on a contract until June.", {("sister_role", "teacher", False)}),
    ("My sister works at Acme on a contract until March.", {("sister_employer", "Acme", False)}),
    ("I work at Acme on a contract until March.",
     {("employer", "Acme", False), ("plan", "working at Acme on a contract until March", False)}),
])
def test_a_home_on_a_contract_until_a_time_is_a_stay(text, expected):
    assert offline_facts(text) == expected


def test_a_home_on_a_contract_until_a_time_keeps_the_city_through_the_pipeline(tenant):
    tenant.turn("I live in Dublin.", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I'm living in Berlin on a work contract until March.", timestamp="2026-01-12T09:00:00Z")
    assert current_values(tenant, "city") == ["Dublin"]


@pytest.mark.parametrize("text, expected", [
    # years after the present simple followed by what comes after them, anywhere in the sentence: a stint
    ("I work at Google for two years but then I'm off.", set()),
    ("I work at Google for two years; after that I'll leave.", set()),
    ("I work at Google for two years, until 2028.", set()),
    ("I live in Berlin for three years and afterwards I move home.", set()),
    # the present simple of a time clause is the future: a stint
    ("After I work at Google for 2 years, I'll move.", set()),
    ("Once we live in Oslo for two years, we can apply.", set()),
    # how long so far, as before
    ("I work at Google for 3 years and I love it.", {("employer", "Google", False)}),
    ("I live in Berlin for 5 years and since then I have loved it.", {("city", "Berlin", False)}),
    ("Because I work at Google for 3 years, I know the place.", {("employer", "Google", False)}),
])
def test_present_simple_for_years_followed_by_what_comes_after_is_a_stint(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("value, said, start", [
    # after a month or a year said bare: the employer alone, and no day; after a date, the day after it
    ("starting at Meta after March", "2026-01-14T10:00:00+00:00", None),
    ("starting at Meta after 2027", "2026-01-14T10:00:00+00:00", None),
    ("starting at Meta after March 3rd", "2026-01-14T10:00:00+00:00", "2026-03-04T00:00:00+00:00"),
])
def test_a_start_after_a_month_names_the_employer_alone(value, said, start):
    assert job_start.employer(value) == "Meta"
    assert job_start.starts(value, datetime.fromisoformat(said)) == (datetime.fromisoformat(start) if start else None)


@pytest.mark.parametrize("text, ends_only", [
    # a last day at a school, or at a name that may be one (an acronym), ends only the current employer
    ("Today's my last day at MIT.", True),
    ("My last day at Boston University was yesterday.", True),
    # a company, or work said, is a job's
    ("Today is my last day at Google.", False),
    ("My last day at Acme Corp is today.", False),
    ("Today's my last day at KPMG, I'll miss my colleagues.", False),
])
def test_a_last_day_at_what_may_be_a_school_ends_only_the_current_employer(text, ends_only):
    (left,) = offline_found(text)
    assert (left.key, left.historical, left.ends_only) == ("employer", True, ends_only)


def test_a_students_last_day_at_school_files_no_employer_through_the_pipeline(tenant):
    tenant.turn("I'm a student at MIT.", timestamp="2026-05-04T09:00:00Z")
    tenant.turn("Today's my last day at MIT.", timestamp="2026-05-29T09:00:00Z")
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    assert [m["value"] for m in listed.json()["memories"] if m["key"] == "employer"] == []


@pytest.mark.parametrize("text, expected", [
    # a last day said uncertain is no end
    ("My last day at Google is today or tomorrow.", set()),
    ("It's my last day at Google today or tomorrow.", set()),
    ("My last day at Google was yesterday or the day before.", set()),
    # said sure, as before
    ("My last day at Google is today, or so it seems.", {("employer", "Google", True)}),
])
def test_a_last_day_said_uncertain_is_no_end(text, expected):
    assert offline_facts(text) == expected
