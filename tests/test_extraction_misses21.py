"""What the offline rules misread (extract21): a move "for years" is a home and a job, not a stay; a job or a
school for a while (a summer, a semester) is no employer nor school, as a stay is no home; a day somewhere is a
stay; and a date written with an abbreviated month and its dot ("Sept. 4") is one date, not the end of a
sentence. Each beside sentences that must file what they filed before."""

from datetime import datetime, timezone

import pytest

from memex import job_start
from memex.extraction.offline import OfflineExtractor


def _facts(content: str, *history: str) -> set[tuple[str, str, bool]]:
    earlier = [{"id": f"h{i}", "role": "user", "content": said} for i, said in enumerate(history)]
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": content}], earlier)
    return {(c.key, c.value, c.historical) for c in found}


@pytest.mark.parametrize("text, expected", [
    # "for years" says how long, not a stay: as "I moved to Berlin." and "I work at Zalando." would
    ("I moved to Berlin to work at Zalando for years.", {("city", "Berlin", False), ("employer", "Zalando", False)}),
    ("I moved to Berlin for years.", {("city", "Berlin", False)}),
    ("I moved to Berlin to work at Zalando.", {("city", "Berlin", False), ("employer", "Zalando", False)}),
    # a span with its count is still a stay
    ("I moved to Oslo to work at Equinor for two years.", set()),
    ("I moved to Oslo for a few years.", set()),
    ("I moved to Oslo to work at Equinor for the summer.", set()),
])
def test_a_move_for_years_is_a_home(text, expected):
    assert {f for f in _facts(text) if f[0] in ("city", "employer")} == expected


@pytest.mark.parametrize("text, key, expected", [
    # a job or a school for a while: no employer, no school (a summer job is not the job the user has)
    ("I'm working at Google for the summer.", "employer", set()),
    ("I work at Starbucks for the summer, then back to uni.", "employer", set()),
    ("I got a job at Deloitte for six months.", "employer", set()),
    ("I'm an intern at Spotify for the summer.", "employer", set()),
    ("I'm studying at MIT for a semester.", "school", set()),
    ("I'm a student at UCL for a year.", "school", set()),
    ("My sister works at Google for the summer.", "sister_employer", set()),
    ("My brother is studying at MIT for a semester.", "brother_school", set()),
    # a job and a school with how long they have been held, or for how long without a count, stay filed
    ("I'm working at Google.", "employer", {("employer", "Google", False)}),
    ("I've been working at Google for three years.", "employer", {("employer", "Google", False)}),
    ("I work at Google for years now.", "employer", {("employer", "Google", False)}),
    ("I'm studying at MIT.", "school", {("school", "MIT", False)}),
    ("I've been studying at MIT for two years.", "school", {("school", "MIT", False)}),
    ("My sister works at Google.", "sister_employer", {("sister_employer", "Google", False)}),
])
def test_a_job_or_a_school_for_a_while_is_no_employer_nor_school(text, key, expected):
    assert {f for f in _facts(text) if f[0] == key} == expected


def test_a_summer_job_files_nothing_that_could_end_the_employer():
    """The permanent employer said before is all the extractor knows of the user's work: nothing of the
    summer job is filed to supersede it."""
    assert _facts("I'm working at Google for the summer.", "I work at Acme.") == set()


@pytest.mark.parametrize("text, expected", [
    # a day somewhere is a stay: it moves no one
    ("I'm based in Lisbon for the day.", set()),
    ("I'm living in Lisbon for the day.", set()),
    ("I moved to Lisbon for a day.", set()),
    ("My sister moved to Lisbon for the day.", set()),
    # a home is still one
    ("I'm based in Lisbon.", {("city", "Lisbon", False)}),
    ("I moved to Lisbon today.", {("city", "Lisbon", False)}),
])
def test_a_day_somewhere_is_a_stay(text, expected):
    assert {f for f in _facts(text) if f[0].endswith("city")} == expected


@pytest.mark.parametrize("text, expected", [
    ("My birthday is Sept. 4.", {("birthday", "Sept. 4", False)}),
    ("My birthday is Dec. 3rd.", {("birthday", "Dec. 3rd", False)}),
    ("My birthday is September 4.", {("birthday", "September 4", False)}),
    # the dot of an abbreviation that ends a sentence still ends it
    ("My birthday is in Sept. 4 of us are going out.", set()),
])
def test_a_date_with_an_abbreviated_month_is_one_date(text, expected):
    assert {f for f in _facts(text) if f[0] == "birthday"} == expected


def test_a_job_to_come_on_an_abbreviated_date_starts_that_day():
    """"Sept. 4" was two sentences: the employer was filed at once, and no job to come with its day."""
    found = _facts("I signed with Netflix, starting Sept. 4.")
    assert found == {("next_job", "starting at Netflix on Sept. 4", False)}
    said = datetime(2026, 8, 20, 15, tzinfo=timezone.utc)
    assert job_start.starts("starting at Netflix on Sept. 4", said) == datetime(2026, 9, 4, tzinfo=timezone.utc)
    assert job_start.employer("starting at Netflix on Sept. 4") == "Netflix"


@pytest.mark.parametrize("text", ["I'm flying to Tokyo on Sept. 4.", "I'm flying to Tokyo on Oct. 12th."])
def test_a_plan_on_an_abbreviated_date_is_filed(text):
    assert [f for f in _facts(text) if f[0] == "plan"] != []


def test_a_summer_job_leaves_the_employer_current_through_the_pipeline(tenant):
    """Two turns: the employer, then a summer job elsewhere; the employer is still the only current one."""
    tenant.turn("I work at Acme Corp.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I'm working at Google for the summer.", timestamp="2026-06-01T00:00:00Z")
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    employers = [(m["value"], m["active"]) for m in listed.json()["memories"] if m["key"] == "employer"]
    assert employers == [("Acme Corp", True)]
