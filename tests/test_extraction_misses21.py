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
