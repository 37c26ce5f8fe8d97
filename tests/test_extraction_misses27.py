"""What the offline rules misread of a start said after a last day (extract27): "My last day is tomorrow, then I'm
joining Mom in Florida." filed a job at Mom, "…then I'm joining Tom for drinks." one at Tom, "…then I start at Easter."
one at Easter; a time said after the employer ("…then I start at Meta two weeks later.") was dropped for "after" the
last day, or ("on Monday") filed a second job to come; a team ("Meta's AI team") filed "Meta's AI". A model's job to
come "this week" kept the time in the employer's name. Each beside sentences that must file what they filed before."""

from datetime import datetime

import pytest

from memex import job_start
from memex.extraction.llm import SYSTEM
from tests.conftest import offline_facts

_FRIDAY = ("plan", "last day at work on Friday", False)


def _employers(tenant) -> list[tuple[str, str]]:
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    return sorted((m["value"], m["valid_from"][:10]) for m in listed.json()["memories"]
                  if m["key"] == "employer" and m["active"])


@pytest.mark.parametrize("text, expected", [
    # joining someone is no job: a person, kin or not, is no organisation, and what follows the name is no end
    ("My last day is tomorrow, then I'm joining Mom in Florida.", set()),
    ("My last day at work is Friday, then I'm joining Tom for drinks.", {_FRIDAY}),
    ("My last day at work is Friday, then I'm joining Tom.", {_FRIDAY}),
    ("My last day at work is Friday, then I'm joining Mom.", {_FRIDAY}),
    ("My last day at work is Friday, then I start at Mom's.", {_FRIDAY}),
    # a holiday, a time of day, a place is no employer, after a last day or not
    ("My last day at work is Friday, then I start at Easter.", {_FRIDAY}),
    ("My last day at work is Friday, then I start at Christmas.", {_FRIDAY}),
    ("My last day at work is Friday, then I start at Noon.", {_FRIDAY}),
    ("My last day at work is Friday, then I start at Paris.", {_FRIDAY}),
    ("I start at Noon tomorrow.", set()),
    ("I start at Easter next week.", set()),
    ("I start at Mom next week.", set()),
    # a last day alone may be a trip's: the start after it is a job's only when one of them says so
    ("My last day is Friday, then I start at Meta.", set()),
    ("My last day is Friday and then I'm starting at Meta.", set()),
    ("My last day is Friday, then I'll start at Meta.", set()),
    ("My last day at Lisbon is Friday, then I start at Meta.", {("plan", "last day at Lisbon on Friday", False)}),
    ("My last day at Grandma's is Friday, then I start at Meta.", {("plan", "last day at Grandma's on Friday", False)}),
    ("My last day is Friday, then I start my new job at Meta.", {("next_job", "starting at Meta after Friday", False)}),
    ("My last day is next month and then I'm joining Meta as an engineer.",
     {("next_job", "joining Meta after next month", False)}),
    # a time said after the employer is the job's start: read as said, else the job to come without a day; one
    # job to come for one sentence
    ("My last day at work is Friday, then I start at Meta on Monday.",
     {_FRIDAY, ("next_job", "starting at Meta on Monday", False)}),
    ("My last day at work is Friday, then I join Meta on Monday.",
     {_FRIDAY, ("next_job", "joining Meta on Monday", False)}),
    ("My last day at work is Friday, then I start at Meta two weeks later.",
     {_FRIDAY, ("next_job", "starting at Meta", False)}),
    ("My last day at work is Friday, then I'll start at Meta two weeks later.",
     {_FRIDAY, ("next_job", "starting at Meta", False)}),
    # a team of an organisation names the organisation
    ("My last day at work is Friday, then I join Meta's AI team.", {_FRIDAY, ("next_job", "joining Meta after Friday", False)}),
    ("My last day at work is Friday, then I'm joining Meta's data science team.",
     {_FRIDAY, ("next_job", "joining Meta after Friday", False)}),
    ("My last day at work is Friday, then I'm joining Tom's team.", {_FRIDAY}),
    # as before
    ("My last day at work is Friday, then I start at Meta.", {_FRIDAY, ("next_job", "starting at Meta after Friday", False)}),
    ("My last day at Google is next week, then I start at Meta.",
     {("plan", "last day at Google next week", False), ("next_job", "starting at Meta after next week", False)}),
    ("My last day at work is Friday, then I'll start at Meta.",
     {_FRIDAY, ("next_job", "starting at Meta after Friday", False)}),
    ("My last day at work is the 15th, then I join Meta.",
     {("plan", "last day at work on the 15th", False), ("next_job", "joining Meta after the 15th", False)}),
    ("I start at Meta next week.", {("next_job", "starting at Meta next week", False)}),
])
def test_a_start_after_a_last_day_is_a_job_to_come_only_at_an_employer(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("said, employers", [
    # the review's: nobody's job begins, Google stays
    ("My last day is tomorrow, then I'm joining Mom in Florida.", [("Google", "2026-03-02")]),
    ("My last day at work is Friday, then I'm joining Tom for drinks.", [("Google", "2026-03-02")]),
    # a start said later than the day after the last day names no day: a job to come still
    ("My last day at work is Friday, then I start at Meta two weeks later.", [("Google", "2026-03-02")]),
    # as before: Meta from the day after Friday, or a job to come after a week, which names no day
    ("My last day at work is Friday, then I start at Meta.", [("Meta", "2026-03-07")]),
    ("My last day at Google is next week, then I start at Meta.", [("Google", "2026-03-02")]),
    # a person's team is no employer (review); for how long one works from home is none either
    ("My last day at work is Friday, then I start at Sarah's team.", [("Google", "2026-03-02")]),
    ("I'm working from home for August.", [("Google", "2026-03-02")]),
])
def test_a_start_after_a_last_day_through_the_pipeline(tenant, said, employers):
    tenant.turn("I work at Google.", timestamp="2026-03-02T09:00:00Z")
    tenant.turn(said, timestamp="2026-03-04T10:00:00Z")
    tenant.turn("The weather was lovely this afternoon.", timestamp="2026-03-10T18:00:00Z")
    assert _employers(tenant) == employers


def test_a_job_to_come_this_week_names_its_employer_alone():
    assert job_start.employer("joining Canva this week") == "Canva"
    assert job_start.starts("joining Canva this week", datetime.fromisoformat("2026-03-04T10:00:00+00:00")) is None


def test_the_prompt_says_an_employers_name_drops_a_lowercase_the():
    assert '"I work at the Red Cross" is employer Red Cross' in SYSTEM


@pytest.mark.parametrize("text, expected", [
    # after when or where one works, "for" is for how long or for whom unless the name is an organisation's
    ("I'm working from home for August.", set()),
    ("I've been working from home for Covid.", set()),
    ("I'm working remotely for Ramadan.", set()),
    ("I work part-time for Mum.", set()),
    ("My dad works weekends for Grandpa.", set()),
    ("I worked from home at Dad's yesterday.", set()),
    ("I work remotely for Google.", {("employer", "Google", False)}),
    ("I work remotely for Acme Corp.", {("employer", "Acme Corp", False)}),
    ("I work part-time at Tesco.", {("employer", "Tesco", False)}),
    ("I work part-time at McDonald's.", {("employer", "McDonald's", False)}),
    ("I work for Acme.", {("employer", "Acme", False)}),
    # a team a person's is no employer; an organisation's is its organisation
    ("My last day at work is Friday, then I start at Sarah's team.", {("plan", "last day at work on Friday", False)}),
    ("My last day is Friday, then I start at Ben's team on Monday.", set()),
    ("My last day at work is Friday, then I join Meta's AI team.",
     {("plan", "last day at work on Friday", False), ("next_job", "joining Meta after Friday", False)}),
])
def test_what_one_works_for_from_home_and_a_persons_team_are_no_employer(text, expected):
    assert offline_facts(text) == expected
