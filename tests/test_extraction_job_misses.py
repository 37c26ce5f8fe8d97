"""What the offline rules misread of jobs (extract24): a contract's end was dropped, or made the job a stint that
filed nothing; a last day that is today or gone filed nothing; "I work at Google for 3 years" (a non-native
"have worked") was a stint; a start said after a last day ("My last day at work is Friday, then I start at
Meta") filed nothing; a past perfect ("I'd been working at Google until 2020") filed no past employer. Each
beside sentences that must file what they filed before."""

from datetime import datetime

import pytest

from memex import job_start
from tests.conftest import current_values, offline_facts, offline_found


@pytest.mark.parametrize("text, expected", [
    # the job is the user's, and its end is said as a plan, as a last day is: nothing ends now
    ("I work at Acme on a contract that runs until March.",
     {("employer", "Acme", False), ("plan", "working at Acme on a contract until March", False)}),
    ("I work at Acme on a contract until March.",
     {("employer", "Acme", False), ("plan", "working at Acme on a contract until March", False)}),
    ("I'm working for Acme on a fixed-term contract which lasts until the end of the year.",
     {("employer", "Acme", False),
      ("plan", "working for Acme on a fixed-term contract until the end of the year", False)}),
    ("I work at Acme on a six-month contract that ends in June.",
     {("employer", "Acme", False), ("plan", "working at Acme on a six-month contract ending in June", False)}),
    # no end said: the employer alone; a job for a while, not on a contract, is still a stint, as before
    ("I work at Acme on a contract.", {("employer", "Acme", False)}),
    ("I work at Acme until March.", set()),
    ("I'm working at Acme on a contract for the summer.", set()),
    # someone else's contract is not the user's
    ("My sister works at Acme on a contract that runs until March.", {("sister_employer", "Acme", False)}),
])
def test_a_contracts_end_is_the_employer_and_a_plan(text, expected):
    assert offline_facts(text) == expected


def test_a_contracts_end_leaves_the_employer_current_through_the_pipeline(tenant):
    tenant.turn("I work at Acme Corp on a contract that runs until March.", timestamp="2026-01-05T09:00:00Z")
    assert current_values(tenant, "employer") == ["Acme Corp"]
    assert current_values(tenant, "plan") == ["working at Acme Corp on a contract until March"]


@pytest.mark.parametrize("text, expected", [
    # a lowercase "the" is an article, which every employer rule drops ("I work at the Guardian": Guardian),
    # but a plan is said as it was said, and a capital "The" is part of the name everywhere
    ("My last day at the Guardian is next week.", {("plan", "last day at the Guardian next week", False)}),
    ("Next week is my last day at the Guardian.", {("plan", "last day at the Guardian next week", False)}),
    ("My last day at The Guardian is next week.", {("plan", "last day at The Guardian next week", False)}),
    ("I work at the Guardian.", {("employer", "Guardian", False)}),
    ("I work at The Guardian.", {("employer", "The Guardian", False)}),
])
def test_a_last_days_plan_keeps_the_article_as_said(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    # a last day that is today or gone is the job's end, as "I left Google" is
    ("My last day at the Guardian is today.", {("employer", "Guardian", True)}),
    ("Today is my last day at Google.", {("employer", "Google", True)}),
    ("Today's my last day at Google!", {("employer", "Google", True)}),
    ("It's my last day at Google today.", {("employer", "Google", True)}),
    ("My last day at Google was yesterday.", {("employer", "Google", True)}),
    ("My last day at Google was Friday.", {("employer", "Google", True)}),
    ("Friday was my last day at Acme Corp.", {("employer", "Acme Corp", True)}),
    ("My last day at The Guardian was last week.", {("employer", "The Guardian", True)}),
    # someone else's, a question, a hedge, or ahead: no end
    ("My sister's last day at Google is today.", set()),
    ("Is today my last day at Google?", set()),
    ("I think my last day at Google is today.", set()),
    ("My last day at Google was supposed to be Friday.", set()),
    ("My last day at Google is Friday.", {("plan", "last day at Google on Friday", False)}),
])
def test_a_last_day_today_or_gone_ends_the_job(text, expected):
    assert offline_facts(text) == expected


def test_a_last_day_at_a_name_alone_ends_only_the_current_employer():
    """A last day at a name that is no organisation may be a visit's ("My last day at Yosemite is today"): it
    ends the employer only if that is the current one, as "I left Feedzai." does."""
    (guardian,) = offline_found("My last day at the Guardian is today.")
    assert guardian.ends_only
    (google,) = offline_found("Today is my last day at Google.")
    assert not google.ends_only
    (acme,) = offline_found("My last day at Acme Corp is today.")
    assert not acme.ends_only


def test_a_last_day_today_ends_the_employer_through_the_pipeline(tenant):
    tenant.turn("I work at the Guardian.", timestamp="2026-03-02T09:00:00Z")
    tenant.turn("My last day at the Guardian is today.", timestamp="2026-03-06T09:00:00Z")
    assert current_values(tenant, "employer") == []
    tenant.turn("My last day at Yosemite is today.", timestamp="2026-03-07T09:00:00Z")
    assert current_values(tenant, "employer") == []
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    assert "Yosemite" not in {m["value"] for m in listed.json()["memories"]}


@pytest.mark.parametrize("text, expected", [
    # a non-native "have worked": how long so far, the job held
    ("I work at Google for 3 years and I love it.", {("employer", "Google", False)}),
    ("I work for Google for three years.", {("employer", "Google", False)}),
    ("I work as a nurse for 10 years.", {("role", "nurse", False)}),
    ("I live in Berlin for 5 years.", {("city", "Berlin", False)}),
    # a stint ahead, as before: a summer, months, or a move for years
    ("I work at Google for the summer.", set()),
    ("I work at Google for six months.", set()),
    ("I'm working at Google for two years.", set()),
    ("I moved to Oslo for two years.", set()),
    ("I work at Google for two years and then I'm off to Meta.", set()),
    ("I live in Berlin for three years before I move back home.", set()),
])
def test_present_simple_for_years_is_how_long_so_far(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    # working from home is where, not whom for: no employer "home", no move, no home
    ("I'm working from home for the week.", set()),
    ("I'm working from home today.", set()),
    ("I work from home.", set()),
    ("I've been working from home for a year.", set()),
    ("I'm working from home until Friday.", set()),
])
def test_working_from_home_is_no_employer_nor_a_move(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    # a start said after a last day starts the day after it; "work" is no employer, the last day at it a plan
    ("My last day at work is Friday, then I start at Meta.",
     {("plan", "last day at work on Friday", False), ("next_job", "starting at Meta after Friday", False)}),
    # (at work, or at a new job: a last day alone may be a trip's, test_extraction_misses27)
    ("My last day at work is Friday and then I'm starting at Meta.",
     {("plan", "last day at work on Friday", False), ("next_job", "starting at Meta after Friday", False)}),
    ("My last day at my job is tomorrow, then I'll start at Meta.",
     {("plan", "last day at work tomorrow", False), ("next_job", "starting at Meta after tomorrow", False)}),
    ("My last day at Google is Friday, then I start at Meta.",
     {("plan", "last day at Google on Friday", False), ("next_job", "starting at Meta after Friday", False)}),
    ("My last day at work is the 15th, then I join Meta.",
     {("plan", "last day at work on the 15th", False), ("next_job", "joining Meta after the 15th", False)}),
    # no start said: no job to come, the last day a plan (test_extraction_misses25)
    ("My last day at work is Friday.", {("plan", "last day at work on Friday", False)}),
])
def test_a_start_after_a_last_day_is_a_job_to_come(text, expected):
    assert offline_facts(text) == expected


def test_a_start_after_a_last_day_is_the_employer_from_the_next_day_through_the_pipeline(tenant):
    tenant.turn("I work at Google.", timestamp="2026-03-02T09:00:00Z")
    tenant.turn("My last day at Google is Friday, then I start at Meta.", timestamp="2026-03-04T10:00:00Z")
    assert current_values(tenant, "employer") == ["Google"]
    assert current_values(tenant, "next_job") == ["starting at Meta after Friday"]
    tenant.turn("The weather was lovely this afternoon.", timestamp="2026-03-08T18:00:00Z")
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    (meta,) = [m for m in listed.json()["memories"] if m["key"] == "employer" and m["active"]]
    assert meta["value"] == "Meta" and meta["valid_from"].startswith("2026-03-07T00:00:00")


@pytest.mark.parametrize("value, said, start", [
    # said on a Wednesday: the Saturday after Friday; the day after tomorrow; after the 15th, the 16th
    ("starting at Meta after Friday", "2026-03-04T10:00:00+00:00", "2026-03-07T00:00:00+00:00"),
    ("starting at Meta after tomorrow", "2026-03-04T10:00:00+00:00", "2026-03-06T00:00:00+00:00"),
    ("joining Meta after the 15th", "2026-03-04T10:00:00+00:00", "2026-03-16T00:00:00+00:00"),
    # after a week or a month: no day
    ("starting at Meta after next week", "2026-03-04T10:00:00+00:00", None),
])
def test_a_start_after_a_day_is_the_next_day(value, said, start):
    assert job_start.starts(value, datetime.fromisoformat(said)) == (datetime.fromisoformat(start) if start else None)
    assert job_start.employer(value) == "Meta"


@pytest.mark.parametrize("text, expected", [
    # the past perfect is a past job
    ("I'd been working at Google until 2020.", {("employer", "Google", True)}),
    ("I had been working at Google for five years.", {("employer", "Google", True)}),
    ("I'd worked at Google for five years.", {("employer", "Google", True)}),
    ("I had worked at Google until 2020, then I joined Meta.", {("employer", "Google", True),
                                                                ("employer", "Meta", False)}),
    ("I was working at Google until 2020.", {("employer", "Google", True)}),
    # a shift of a day in the past is no job
    ("I was working at Starbucks yesterday.", set()),
    ("I worked at Google until 2020.", {("employer", "Google", True)}),
])
def test_the_past_perfect_is_a_past_employer(text, expected):
    assert offline_facts(text) == expected
