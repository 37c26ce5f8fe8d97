"""What the offline rules misread (extract25): a contract's end said with "till" or "'til" filed no plan; a job said
with how it is worked ("I work remotely for Acme", "from home", "part-time") filed no employer; a start after a last
day that is no day ("next week") filed no job to come, and a last day at work alone no plan; the employer of a job to
come kept the article the employer rules drop ("the Red Cross"); a birth said with its date ("born on March 4, 1990")
or with its place and time both filed neither. Each beside sentences that must file what they filed before."""

from datetime import datetime

import pytest

from memex import job_start
from tests.conftest import current_values, offline_facts, offline_found


@pytest.mark.parametrize("text, expected", [
    # "till" and "'til" say what "until" says
    ("I work at Acme on a contract till March.",
     {("employer", "Acme", False), ("plan", "working at Acme on a contract until March", False)}),
    ("I work at Acme on a contract 'til March.",
     {("employer", "Acme", False), ("plan", "working at Acme on a contract until March", False)}),
    ("I'm working for Acme on a fixed-term contract which lasts till the end of the year.",
     {("employer", "Acme", False),
      ("plan", "working for Acme on a fixed-term contract until the end of the year", False)}),
    ("I live in Dublin till March, then I'm moving to Cork.",
     {("plan", "living in Dublin until March, then moving to Cork", False)}),
    ("I was working at Google till 2020.", {("employer", "Google", True)}),
    # a stay till a time is a stay, as one until it is
    ("I work at Acme till March.", set()),
    ("I'm based in Dublin till Christmas.", set()),
    ("I work as a nurse at Mt. Sinai till March.", set()),
    # a till is no time
    ("I work at Acme on a contract.", {("employer", "Acme", False)}),
    ("I work the till at Tesco.", set()),
])
def test_till_is_until(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    # how or when the user works, between the verb and the employer
    # after how one works, "for" names an employer only an organisation's by its shape or as a well-known one
    # ("I'm working from home for August": test_extraction_misses27); "at" any
    ("I work remotely for Stripe.", {("employer", "Stripe", False)}),
    ("I work from home for Stripe.", {("employer", "Stripe", False)}),
    ("I work part-time at Acme.", {("employer", "Acme", False)}),
    ("I work nights at the Royal Infirmary.", {("employer", "Royal Infirmary", False)}),
    ("I'm working remotely for Acme Corp.", {("employer", "Acme Corp", False)}),
    ("I work remotely for Stripe as a designer.", {("employer", "Stripe", False), ("role", "designer", False)}),
    # where, not whom for; nor oneself, nor a time
    ("I work from home.", set()),
    ("I work for myself.", set()),
    ("I work from home for myself.", set()),
    ("I'm working from home today.", set()),
    ("I'm working from home for the week.", set()),
    ("I work part-time at Acme for the summer.", set()),
    ("I'm working from home for Christmas.", set()),
    # the past job and a contract's end alike
    ("I used to work part-time at Tesco.", {("employer", "Tesco", True)}),
    ("I work remotely for Stripe on a contract until March.",
     {("employer", "Stripe", False), ("plan", "working for Stripe on a contract until March", False)}),
    ("My sister works part-time at Acme.", {("sister_employer", "Acme", False)}),
])
def test_how_the_user_works_before_the_employer_is_still_the_employer(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    # a last day that is no day: the job to come without a start day (job_start.starts reads none)
    ("My last day at work is next week, then I start at Meta.",
     {("plan", "last day at work next week", False), ("next_job", "starting at Meta after next week", False)}),
    ("My last day at work is next month and then I'm joining Meta.",
     {("plan", "last day at work next month", False), ("next_job", "joining Meta after next month", False)}),
    # a last day at work is a plan, as one at its employer's name is
    ("My last day at work is Friday.", {("plan", "last day at work on Friday", False)}),
    ("My last day at my job is next Friday.", {("plan", "last day at work next Friday", False)}),
    ("Friday is my last day at work.", {("plan", "last day at work on Friday", False)}),
    ("My last day at Google is Friday.", {("plan", "last day at Google on Friday", False)}),
    ("My last day at Google is the 15th.", {("plan", "last day at Google on the 15th", False)}),
    ("My last day at work is Friday, then I start at Meta.",
     {("plan", "last day at work on Friday", False), ("next_job", "starting at Meta after Friday", False)}),
    # a last day alone may be a trip's, a school's: nothing; someone else's: nothing
    ("My last day is Friday.", set()),
    ("My sister's last day at work is Friday.", set()),
])
def test_a_last_day_that_is_no_day_or_at_work_is_a_plan(text, expected):
    assert offline_facts(text) == expected


def test_a_job_to_come_after_a_last_day_that_is_no_day_starts_on_no_day():
    (job,) = [c for c in offline_found("My last day at work is next week, then I start at Meta.") if c.key == "next_job"]
    assert job_start.employer(job.value) == "Meta"
    assert job_start.starts(job.value, datetime.fromisoformat("2026-03-04T10:00:00+00:00")) is None


@pytest.mark.parametrize("value, employer", [
    # a lowercase "the" is an article, which the employer rules drop ("I work at the Red Cross": Red Cross); a
    # capital "The" is part of the name
    ("joining the Red Cross next month", "Red Cross"),
    ("the Red Cross, starting next Monday", "Red Cross"),
    ("starting at the Guardian on Monday", "Guardian"),
    ("joining The Guardian next month", "The Guardian"),
    ("starting at Theranos on Monday", "Theranos"),
])
def test_the_employer_of_a_job_to_come_drops_the_article_the_employer_rules_drop(value, employer):
    assert job_start.employer(value) == employer


@pytest.mark.parametrize("text, expected", [
    # the job to come is filed as that, not also as a plan that differs from it by its article only
    ("I'm joining the Red Cross next month.", {("next_job", "joining Red Cross next month", False)}),
    ("I'm joining Notion next month.", {("next_job", "joining Notion next month", False)}),
    ("I'm starting the new job next month.", {("plan", "starting the new job next month", False)}),
])
def test_a_job_to_come_at_the_red_cross_is_no_plan_too(text, expected):
    assert offline_facts(text) == expected


def test_a_job_to_come_at_the_red_cross_is_the_employer_the_rules_file_through_the_pipeline(tenant):
    tenant.turn("I start at the Red Cross next Monday.", timestamp="2026-03-04T10:00:00Z")
    tenant.turn("The weather was lovely this afternoon.", timestamp="2026-03-10T18:00:00Z")
    assert current_values(tenant, "employer") == ["Red Cross"]
    tenant.turn("I work at the Red Cross.", timestamp="2026-03-11T09:00:00Z")
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    assert [m["value"] for m in listed.json()["memories"] if m["key"] == "employer"] == ["Red Cross"]
    tenant.turn("I left the Red Cross.", timestamp="2026-03-12T09:00:00Z")
    assert current_values(tenant, "employer") == []


@pytest.mark.parametrize("text, expected", [
    # a birth said with its date: the year, and the day as the birthday
    ("I was born on March 4, 1990.", {("birth_year", "1990", False), ("birthday", "March 4", False)}),
    ("I was born on the 4th of March 1990.", {("birth_year", "1990", False), ("birthday", "4th of March", False)}),
    ("I was born on March 4.", {("birthday", "March 4", False)}),
    # its place and its time, either way round
    ("I was born in Jan. 1990 in Leeds.", {("birth_year", "1990", False), ("birthplace", "Leeds", False)}),
    ("I was born in Leeds in Mar. 1990.", {("birth_year", "1990", False), ("birthplace", "Leeds", False)}),
    ("I was born in Decatur in 1990.", {("birth_year", "1990", False), ("birthplace", "Decatur", False)}),
    ("I was born in 1990 in Leeds.", {("birth_year", "1990", False), ("birthplace", "Leeds", False)}),
    ("I was born in Porto, Portugal in 1985.", {("birth_year", "1985", False), ("birthplace", "Porto", False)}),
    ("I was born in Leeds on March 4, 1990.",
     {("birth_year", "1990", False), ("birthplace", "Leeds", False), ("birthday", "March 4", False)}),
    ("I was born on March 4, 1990 in Leeds.",
     {("birth_year", "1990", False), ("birthplace", "Leeds", False), ("birthday", "March 4", False)}),
    # as before
    ("I was born in Mar. 1990.", {("birth_year", "1990", False)}),
    ("I was born in Marseille.", {("birthplace", "Marseille", False)}),
    ("I was born in March.", set()),
    # someone else's birth, or a day that is no date
    ("My son was born on March 4, 2020.", set()),
    ("I was born on a Tuesday.", set()),
])
def test_a_birth_said_with_its_date_or_its_place_and_time(text, expected):
    assert {f for f in offline_facts(text) if f[0] in ("birth_year", "birthplace", "birthday")} == expected
