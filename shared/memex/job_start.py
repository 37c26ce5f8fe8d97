"""When a job to come starts, and the employer it names: a `next_job` becomes the `employer` on its day.

"I start at Twilio next Monday." said on a Wednesday files `next_job` "starting at Twilio next Monday"
(extraction/offline/rules/plans.py's job-ahead rule; the LLM extractor writes the same family, "with when"). From
that Monday the user works at Twilio: pipeline.start_jobs writes the employer with `valid_from` the
Monday, replacing the old one in its chain, at the user's first turn on or after it, or at the sweep.

The day is read from the value against the moment the job was said, in the offset it was said in (the
turn's `timestamp`: a Wednesday evening in New York is Thursday in UTC, and "tomorrow" is Thursday
there); the job starts at that day's midnight there. Only a day is read: "tomorrow", a weekday
("next Monday", "on Monday": the first one after the day it was said), "next week" (its Monday), "next
month" or a month ("in April": the first of the next April), a date ("on March 16th", "on the 2nd": the
next such day), "in two weeks"; after a day ("after Friday": a last day said before the start), the day
after it. A season, a year, "this week" or "soon" says no day: the job stays a job to come
until the user says it started (the employer named ends it, supersession.py).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from memex import literal, time_phrases

_MONTH = "|".join(sorted(time_phrases.MONTH_NUMBER, key=len, reverse=True))
_WEEKDAY = "|".join(time_phrases.WEEKDAYS)
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a few": 3,
           "a couple of": 2}
_UNIT_DAYS = {"day": 1, "week": 7}

# The time words a job to come ends with, as the job-ahead rule writes them ("on Monday", "next
# month", "in April", "on March 16th", "on the 2nd", "in two weeks"), and those it has no day for; after "after",
# a month or a year is said bare ("after March", "after 2027").
_AFTER = r"(?<=\bafter\s)"
_WHEN = re.compile(
    rf"(?:,?\s*(?:starting|from)\s+|\s+)(?P<after>after\s+)?(?P<when>tomorrow|(?:(?:next|this|on)\s+)?(?P<weekday>{_WEEKDAY})"
    rf"|next\s+(?P<next>week|month|year|weekend|summer|spring|fall|autumn|winter)"
    rf"|this\s+(?:week|weekend|summer|spring|fall|autumn|winter|year|month)"
    rf"|(?:(?:in|next|on)\s+|{_AFTER})(?P<month>{_MONTH})\.?(?:\s+(?P<month_day>\d{{1,2}})(?:st|nd|rd|th)?)?"
    rf"|(?:on\s+)?(?P<day_first>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<day_month>{_MONTH})\.?"
    rf"|(?:on\s+)?the\s+(?P<nth>\d{{1,2}})(?:st|nd|rd|th)(?:\s+of\s+(?P<nth_month>{_MONTH})\.?)?"
    rf"|in\s+(?P<count>{'|'.join(sorted(_COUNTS, key=len, reverse=True))})\s+(?P<unit>days?|weeks?|months?)"
    rf"|in\s+the\s+(?:spring|summer|fall|autumn|winter)|(?:in\s+|{_AFTER})\d{{4}}|soon)\s*[.!]?$",
    re.IGNORECASE)
_OPENING = re.compile(r"^(?:starting at|starting with|joining|first day at|start date at|start at)\s+", re.IGNORECASE)
# A lowercase "the" before the name is an article, which the employer rules drop ("I work at the Red Cross": Red
# Cross): the job to come becomes the employer the user names once there, and a capital "The" stays ("The Guardian").
_ARTICLE = re.compile(r"^the\s+")


# A job to come called off without its employer's name ("The new job got cancelled.", "Decided to stay at
# Canva."): the value it is filed under, which ends the only job to come (`called_off`).
UNNAMED = "the new job"
_UNNAMED = re.compile(r"^(?:the |my |a )?(?:new |next )?(?:job|role|position|offer|job offer)$", re.IGNORECASE)


def called_off(said: str, jobs: list[str]) -> list[int]:
    """Which of the current jobs to come (their values) a job said to be over ends, by their indexes:
    those whose employer it names ("Twilio", "the Twilio offer" of "starting at Twilio next Monday"), or,
    said without one ("the new job"), the only one. Two jobs to come and no name: neither."""
    named = [i for i, job in enumerate(jobs)
             if (name := employer(job)) and literal.says(name, said, ignore_case=True)]
    if named:
        return named
    return [0] if len(jobs) == 1 and _UNNAMED.match(" ".join(said.split())) else []


def employer(value: str) -> str:
    """The employer a job to come names: its value without how it starts and when ("starting at
    Twilio next Monday": Twilio; "Notion, starting in April": Notion), nor its article ("joining the Red Cross
    next month": Red Cross)."""
    match = _WHEN.search(value)
    name = value[:match.start()] if match else value
    return _ARTICLE.sub("", _OPENING.sub("", name)).strip(" ,;:.-")


def starts(value: str, said: datetime) -> datetime | None:
    """The moment a job to come starts (the midnight of its day, in `said`'s offset), read against
    `said`, the moment it was said; None when its value names no day."""
    match = _WHEN.search(value)
    if match is None:
        return None
    today = said.replace(hour=0, minute=0, second=0, microsecond=0)
    found = match.groupdict()
    day = _day(found, today)
    if found["after"]:
        # a start after a last day ("starting at Meta after Friday"): the next day; after a week or a month, no day
        a_day = literal.caseless(found["when"]) == "tomorrow" or found["weekday"] or found["month_day"] or found["day_first"] \
            or found["nth"]
        return day + timedelta(days=1) if day and a_day else None
    return day


def _day(found: dict[str, str | None], today: datetime) -> datetime | None:
    """The day a time said names, read against `today` (its midnight)."""
    when = literal.caseless(found["when"] or "")
    if when == "tomorrow":
        return today + timedelta(days=1)
    if found["weekday"]:
        ahead = (time_phrases.WEEKDAYS.index(literal.caseless(found["weekday"])) - today.weekday() - 1) % 7 + 1
        return today + timedelta(days=ahead)
    if found["next"] == "week":
        return today + timedelta(days=7 - today.weekday())
    if found["next"] == "month":
        return _first_of(today, today.month % 12 + 1, after=today)
    if found["month"] or found["day_month"]:
        month = time_phrases.MONTH_NUMBER[literal.caseless(found["month"] or found["day_month"])]
        day = int(found["month_day"] or found["day_first"] or 1)
        return _next_date(today, month, day)
    if found["nth"]:
        day = int(found["nth"])
        if found["nth_month"]:
            return _next_date(today, time_phrases.MONTH_NUMBER[literal.caseless(found["nth_month"])], day)
        for month_ahead in range(0, 3):  # the next such day: this month's, else the next month that has it
            month = (today.month - 1 + month_ahead) % 12 + 1
            year = today.year + (today.month - 1 + month_ahead) // 12
            moment = _date(today, year, month, day)
            if moment is not None and moment > today:
                return moment
        return None
    if found["count"]:
        count, unit = _COUNTS[literal.caseless(found["count"])], literal.caseless(found["unit"]).rstrip("s")
        if unit == "month":
            month = (today.month - 1 + count) % 12 + 1
            return _date(today, today.year + (today.month - 1 + count) // 12, month, min(today.day, 28))
        return today + timedelta(days=count * _UNIT_DAYS[unit])
    return None  # a season, a year, a weekend, "soon": no day


def _date(today: datetime, year: int, month: int, day: int) -> datetime | None:
    try:
        return today.replace(year=year, month=month, day=day)
    except ValueError:
        return None  # "the 31st" of a month without one


def _next_date(today: datetime, month: int, day: int) -> datetime | None:
    """The next `day` of `month` after today ("in April" said in May: next year's)."""
    moment = _date(today, today.year, month, day)
    if moment is not None and moment > today:
        return moment
    return _date(today, today.year + 1, month, day)


def _first_of(today: datetime, month: int, after: datetime) -> datetime:
    return today.replace(year=today.year + (1 if month <= after.month else 0), month=month, day=1)
