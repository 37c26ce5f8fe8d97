"""What the offline rules misread of job sentences (extract28): "I'd worked at Google before." filed no past employer;
"I worked at Google all morning when the alarm went off." filed one; "I'm working from home for Q3." made Q3 the
employer; "…then I start at Harvard in the fall." after a job finished made Harvard the job to come; "I work at Acme
on a contract until 2020." filed a plan that may be gone when said; "'til" after years counted made them a stint
where "until" did. Each beside sentences that must file what they filed before."""

import pytest

from tests.conftest import current_values, offline_facts

_GOOGLE_BEFORE = {("employer", "Google", True)}
_FRIDAY = ("plan", "last day at work on Friday", False)


@pytest.mark.parametrize("text, expected", [
    # the past perfect said alone or "before" is a past employer, with how long as before
    ("I'd worked at Google before.", _GOOGLE_BEFORE),
    ("I'd worked at Google before that.", _GOOGLE_BEFORE),
    ("I'd worked at Google as an engineer before.", {*_GOOGLE_BEFORE, ("role", "engineer", True)}),
    ("I'd worked at Google for three years.", _GOOGLE_BEFORE),
    ("I'd worked at Google.", _GOOGLE_BEFORE),
    # but a day's work, as before
    ("I'd been working at Google all morning when the fire alarm went off.", set()),
])
def test_a_past_perfect_before_is_a_past_employer(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    # a simple past within one day is a visit or a day's work
    ("I worked at Google all morning when the alarm went off.", set()),
    ("I worked at Google all day.", set()),
    ("I worked at Google this morning.", set()),
    ("I worked at Starbucks yesterday.", set()),
    ("I worked at Google tonight.", set()),
    ("I worked at Google on Sunday.", set()),
    ("I worked at Bank of America yesterday.", set()),
    ("I worked at Google as an engineer all day.", set()),
    # a job's time still files the past employer: how long, until a year, a day said again, a year, nothing
    ("I worked at Google for ten years.", _GOOGLE_BEFORE),
    ("I worked at Google until 2019.", _GOOGLE_BEFORE),
    ("I worked at Google on Saturdays.", _GOOGLE_BEFORE),
    ("I worked at Google last year.", _GOOGLE_BEFORE),
    ("I worked at Google.", _GOOGLE_BEFORE),
    # a day said again, or one the job's length follows, is the job's
    ("I worked at Google on Sunday mornings for years.", _GOOGLE_BEFORE),
    ("I worked at Google on Saturday and Sunday for two years.", _GOOGLE_BEFORE),
    # a day's time that opens a clause of its own is not the job's (review of extract28)
    ("I worked at Google, today I quit.", _GOOGLE_BEFORE),
    ("I worked at Google, today I'm at Meta.", {*_GOOGLE_BEFORE, ("employer", "Meta", False)}),
    ("I worked at Google as an engineer, today I'm a manager at Meta.",
     {*_GOOGLE_BEFORE, ("role", "engineer", True), ("employer", "Meta", False), ("role", "manager", False)}),
    ("I worked at Google, yesterday.", set()),
])
def test_a_simple_past_within_one_day_is_no_job(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    # a quarter, a half, a fiscal year is when, not for whom
    ("I'm working from home for Q3.", set()),
    ("I'm working from home for H1.", set()),
    ("I'm working from home for FY24.", set()),
    ("I'm working from home for Q3 2025.", set()),
    ("I'm working from home for the summer.", set()),
    ("I'm working from home for now.", set()),
    ("I'm working from home for a while.", set()),
    ("I'm working from home for the holidays.", set()),
    # an organisation by its shape still is one, digits and all
    ("I'm working from home for Acme Corp.", {("employer", "Acme Corp", False)}),
    ("I work at 3M.", {("employer", "3M", False)}),
    ("I work for H&M.", {("employer", "H&M", False)}),
])
def test_a_quarter_is_no_employer(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    # after "then", a class or a school is started as often as a job: a pastime, a subject or a school is none
    ("I finish at Google on Friday, then I start at Harvard in the fall.", set()),
    ("I finish at Google on Friday, then I start at MIT in the fall.", set()),
    ("I finish at Google on Friday, then I start at Denver East High School.", set()),
    ("I finish at Google on Friday, then I start at Yoga on Monday.", set()),
    ("I finish at Google on Friday, then I start at Yoga.", set()),
    ("My last day at work is Friday, then I start at Yoga.", {_FRIDAY}),
    ("My last day at work is Friday, then I start at Harvard in the fall.", {_FRIDAY}),
    # any other name is the next job's, well known or not (review of extract28), and a start said to be a job's
    ("My last day at Google is Friday, then I start at Figma on Monday.",
     {("plan", "last day at Google on Friday", False), ("next_job", "starting at Figma on Monday", False)}),
    ("I graduate in May, then I start at Canva in June.", {("next_job", "starting at Canva in June", False)}),
    ("I finish at Google on Friday, then I start at Figma in June as a designer.",
     {("next_job", "starting at Figma in June", False)}),
    ("I finish at Google on Friday, then I start at Meta on Monday.", {("next_job", "starting at Meta on Monday", False)}),
    ("I finish at Google on Friday, then I start at Acme Corp in April.",
     {("next_job", "starting at Acme Corp in April", False)}),
    ("I finish at Google on Friday, then I start my new job at Notion on Monday.",
     {("next_job", "starting at Notion on Monday", False)}),
    ("My last day at work is Friday, then I start at Meta.", {_FRIDAY, ("next_job", "starting at Meta after Friday", False)}),
    ("My last day at work is Friday, then I start my new job at Notion.",
     {_FRIDAY, ("next_job", "starting at Notion after Friday", False)}),
    ("My last day at work is Friday, then I join Notion as an engineer.",
     {_FRIDAY, ("next_job", "joining Notion after Friday", False)}),
    # without "then", as before
    ("I start at Notion next month.", {("next_job", "starting at Notion next month", False)}),
])
def test_a_start_after_then_names_no_pastime_nor_school(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    # a contract's end by a year may be gone when said: the employer as said, no plan
    ("I work at Acme on a contract until 2020.", {("employer", "Acme", False)}),
    ("I work at Acme on a contract that runs until 2027.", {("employer", "Acme", False)}),
    # as a contract that "ends in" a year, and a last day in one, were
    ("I work at Acme on a contract that ends in 2027.", {("employer", "Acme", False)}),
    ("My last day at Acme is in 2020.", set()),
    ("My contract at Acme runs until 2020.", set()),
    # a time ahead whenever said is still the plan
    ("I work at Acme on a contract until March.",
     {("employer", "Acme", False), ("plan", "working at Acme on a contract until March", False)}),
    # said in the past, a past employer
    ("I worked at Acme on a contract until 2020.", {("employer", "Acme", True)}),
])
def test_a_contracts_end_by_a_year_is_no_plan(text, expected):
    assert offline_facts(text) == expected


def test_a_contract_ended_before_the_turn_files_no_plan_through_the_pipeline(tenant):
    tenant.turn("I work at Acme Corp on a contract until 2020.", timestamp="2026-01-05T09:00:00Z")
    assert current_values(tenant, "employer") == ["Acme Corp"]
    assert current_values(tenant, "plan") == []


@pytest.mark.parametrize("text, expected", [
    # years counted after the present simple are how long so far, unless an end follows, however "until" is spelt
    ("I work at Google for 3 years, 'til 2028.", set()),
    ("I work at Google for 3 years, till 2028.", set()),
    ("I work at Google for 3 years, until 2028.", set()),
    ("I work at Google for 3 years.", {("employer", "Google", False)}),
])
def test_til_after_years_counted_is_an_end(text, expected):
    assert offline_facts(text) == expected
