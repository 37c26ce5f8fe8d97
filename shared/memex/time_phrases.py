"""Time phrases: the periods a text's dates and relative expressions point at.

"What did I cook last week?", "where was she in May 2023?", "we got divorced back in 2010" name a
time. `windows` reads such expressions against a moment (a search's reference time, the day a fact
was said) and returns the periods, each [start, end): search favours the memories whose `valid_from`
falls in one, and supersession places a past event in its history by them (timeline.py).
A relative period is the calendar one a user means, in `now`'s days: "last week", "last month", "last
year" (or "previous") the whole calendar week (Monday to Sunday), month or year before the one under
way, and none of it ("what did I do last month?", asked on 6 December, is November, not December's
first days); "this week", "this month", "this year" the one under way, whole. "The past week", "the
past month", "the past year" (or "this past") count back from the day asked instead, that day included
("in the past month", asked on 6 December, is 6 November to the end of 6 December). A weekend is
Saturday and Sunday: "last weekend" (or "past", "this past") the latest one over (asked on a Sunday,
the one before); "this weekend" the one under way, else the nearer of the last one and the next, as a
season is (asked on a Monday, the one just gone). A weekday is one whole day: "last Friday" (or
"previous", "this past") the latest Friday before the day asked (asked on a Saturday, yesterday; on a
Friday, a week ago, not today); "this Friday" the Friday of the week under way, today if asked on one.
"On Friday" is read only in a question of the past ("what did I do on Friday?", with "did", "was",
"were", "had", "went" or "happened"), as "last Friday" is: "what's on Friday?" may ask of the one to
come. A weekday without "last", "this" or "on" ("Friday was fun", "the Sunday before 25 October") names
no period, and nor does one beside a day's date ("last Friday, 23 January", "on 23 January, last
Friday": the date says the day, and the weekday counted from the day asked would be another); a date
elsewhere in the question leaves a weekday its own day ("what did I do last Friday and on 3 March?":
both). A weekday or weekend counted within a month is that month's ("the last Friday in May 2023" is
26 May 2023, "the first weekend of June" the latest June's first Saturday and Sunday), and a week of
one the month ("the second week of November" may begin on any day).
A period begun after the moment asked names none, whatever says it ("this weekend" or "this Friday"
asked on a Wednesday, "on 8 May 2030", "this summer" asked in March): what is remembered at that
moment was said by then, and a memory's time is never after it was said (timeline.times), so
"what am I doing this weekend?" asks of what was said before it (the plan made last week), not of
days no memory is from. "Next week" and "tomorrow" name no period either: they are not read.
In search a question's period is a favour, not a filter; one asked alone (retrieval/period.py) is
answered with what was said in it.

A question also names a season ("what did I do last spring?", "in the winter", "summer 2021"): the
meteorological season of the northern hemisphere, three whole months (spring March to May, summer June
to August, autumn or fall September to November, winter December to February). Read as a month is: "in
the summer" is the latest summer begun by `now`, "last summer" the latest one over (asked in July, the
summer of the year before), "this summer" the one under way, else the nearer of the last one over and
the next one (asked in October, the summer just gone; in March, the one to come, so none: above). A
winter spans the year boundary and is named by the year of its January and February ("winter 2024" is
December 2023 to February 2024; "last winter" asked in February is the one before the one under way).
Seasons are read only for the period a question asks about (`read`, retrieval/period.py: "what did I do
last spring?" is answered with spring's messages). `windows` reads none: what a memory says happened
"last summer" is placed in its history as it was (timeline.py), so that a kept ingest reads the same;
and as a favour in search ("where did I hike last summer?") a season lost on LoCoMo, where a summer is
talked of after it (said in November, below the lines said in the summer;
docs/measurements/quality.md). No setting turns the hemisphere: one service answers users on both, and
memex knows no user's place (a southern "summer" is read as June to August). Days, weeks and months are
those of `now`'s zone: a request's `reference_time` keeps the offset it was sent with (models.py), so a
user in Tokyo who sends one asks of Tokyo's days; without one, those of the offset of the user's latest
turn (user_zone.py), UTC's if none had one.
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import datetime, timedelta, timezone
from typing import NamedTuple

from memex.literal import caseless

# The one spelling of the months' and the weekdays' names, in lower case, that every module's patterns
# and word lists derive theirs from. The months in the calendar's order.
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")
# The days of the week, in datetime.weekday()'s order (Monday 0).
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# A month's name shortened to its first three letters ("may" is whole already), and "sept".
MONTH_ABBREVIATIONS = tuple(name[:3] for name in MONTHS if name != "may") + ("sept",)
# Each month's number (January 1), by its name or its abbreviation.
MONTH_NUMBER = {said: i for i, name in enumerate(MONTHS, start=1)
                for said in (name, *(short for short in MONTH_ABBREVIATIONS if name.startswith(short)))}
_MONTH = "(" + "|".join(sorted(MONTH_NUMBER, key=len, reverse=True)) + r")\.?"
_YEAR = r"((?:19|20)\d{2})"
_UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "few": 3}

_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?\b", re.IGNORECASE)
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+{_YEAR})?", re.IGNORECASE)
# "May" alone is too often a verb: a month without a day needs "in", "during" or "of", or a year.
_MONTH_YEAR = re.compile(rf"\b{_MONTH}\s*,?\s+{_YEAR}\b", re.IGNORECASE)
# "Since" is read in a statement only (`began`): a question's "since May" asks of May to now, which no
# period read here is.
_IN_MONTH = re.compile(rf"\b(?:in|during|of|early|late|mid|mid-|(?P<since>since))\s+{_MONTH}(?!\s*,?\s*\d)\b",
                       re.IGNORECASE)
_YEAR_ALONE = re.compile(rf"\b(?:in|during|of|(?P<since>since))\s+{_YEAR}\b", re.IGNORECASE)
# "Since" before another expression: "since 3 March", "since last week".
_SINCE = re.compile(r"\bsince\s+$", re.IGNORECASE)
_AGO = re.compile(r"\b(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|couple of|few)\s+"
                  r"(day|week|month|year)s?\s+ago\b", re.IGNORECASE)
_WEEKDAY = "|".join(WEEKDAYS)
_RELATIVE = re.compile(r"\b(yesterday|today|tonight|this morning|last night|(?:last|this\s+past|this|past|previous)\s+"
                       r"(?:week|weekend|month|year))\b", re.IGNORECASE)
# "The last Friday in May 2023", "the first weekend of June": the weekday or weekend counted within the
# month, not "last Friday" back from the day asked. A week of a month is no calendar week ("the second
# week of November" may start on any day): the month.
_ORDINAL = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
            "fifth": 5, "5th": 5, "last": -1}
_IN_MONTH_ORDINAL = re.compile(rf"\b({'|'.join(_ORDINAL)})\s+({_WEEKDAY}|weekend|week)\s+(?:in|of)\s+{_MONTH}"
                               rf"(?:\s*,?\s+{_YEAR})?\b", re.IGNORECASE)
_WEEKDAY_RELATIVE = re.compile(rf"\b(this\s+past|last|this|past|previous|on)\s+({_WEEKDAY})\b", re.IGNORECASE)
# What may stand between a weekday and the date beside it that says its day.
_BETWEEN = re.compile(r"[\s,(]*(?:(?:on|the)\s+)?")
# "On Friday" is of the past only in a question of the past: "what's on Friday?" may be the one to come.
_OF_THE_PAST = re.compile(r"\b(?:did|was|were|had|went|happened)\b", re.IGNORECASE)
# The month each season begins in (meteorological, northern hemisphere); each lasts three.
_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_SEASON = r"(spring|summer|autumn|fall|winter)"
_SEASON_YEAR = re.compile(rf"\b(?:(?:in|during|over)\s+(?:the\s+)?)?{_SEASON}\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE)
# "fall" is also a verb: a season without a year needs "in", "during", "over", "last" or "this".
_IN_SEASON = re.compile(rf"\b(?:in|during|over)\s+(?:the\s+)?{_SEASON}\b", re.IGNORECASE)
_SEASON_RELATIVE = re.compile(rf"\b(this\s+past|last|this|past|previous)\s+{_SEASON}\b", re.IGNORECASE)

# Said of the past or the future relative to the day a memory was said (recall dates them).
_COUNT = r"(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few)"
_SAID_WHEN = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|last night|this (?:morning|afternoon|evening)|"
    r"(?:last|this|next|past|previous|coming) (?:week|weekend|month|year|summer|winter|spring|fall|autumn|"
    rf"{_WEEKDAY})|"
    rf"{_COUNT} (?:day|week|month|year)s? ago|in {_COUNT} (?:day|week|month|year)s?)\b", re.IGNORECASE)
_SAID_WHEN_PARTS = ("day", "night", "tomorrow", "morning", "afternoon", "evening", "week", "month", "year",
                    "summer", "winter", "spring", "fall", "autumn")

Window = tuple[datetime, datetime]


def windows(text: str, now: datetime) -> list[Window]:
    """The periods [start, end) the text's time expressions name, read against `now`
    (timezone-aware); [] when it names none. No season: see `read`."""
    return [expression.window for expression in _read(text, now, seasons=False) if expression.window]


# How soon after a statement a day or a month it names without a year may begin and be the one to come
# ("I moved to Paris on 12 March." said on 11 March; "in April" said in March): it names no time then,
# rather than last year's (`began`).
_SOON = timedelta(days=31)
# A moment to read a statement's expressions at, for their places alone (`named`): where each is does not
# depend on the moment it is read against.
_ANY_MOMENT = datetime(2000, 1, 3, tzinfo=timezone.utc)


def named(statement: str) -> str | None:
    """The words of the times a statement names ("last week" of "I moved to Paris last week."), in its
    order and joined by commas; None when it names none. Kept with what was drawn from it (jobs.Candidate.
    happened) and read when it is decided, against when it was said (`began`)."""
    spans = sorted(expression.span for expression in _read(statement, _ANY_MOMENT, seasons=False, statement=True))
    return ", ".join(statement[start:end] for start, end in spans) or None


def began(words: str, said_at: datetime) -> tuple[datetime | None, bool]:
    """When a statement's times (`named`'s words), read against when it was said, say what it states began
    to hold; None when they say no time over by then. Each is read as said, not widened as a question's
    is ("on 3 March" is that day, "two years ago" that day two years back): a day ("on 3 March",
    "yesterday", "3 days ago", "last Monday") from its start, in the days of `said_at`'s zone; a longer
    period ("last week", "in May", "in 2015", "last year") from its end, the first moment it surely held
    (it may have begun on the period's last day); "since" a time from that time's start ("since 2019":
    2019-01-01; "since last week": its Monday). Of several, the latest. And whether one of them is named by
    a year, a month or months or years back, not after "since" (`Expression.far`), which places a story of
    the past in its key's history at its time (timeline.py)."""
    moments = []
    expressions = _read(words, said_at, seasons=False, statement=True)
    for expression in expressions:
        if expression.window is not None:
            start, end = expression.window
            moments.append(start if expression.since or end - start <= timedelta(days=1) else end)
    return (max((moment for moment in moments if moment < said_at), default=None),
            any(expression.far for expression in expressions))


def read(question: str, now: datetime) -> tuple[list[Window], str]:
    """`windows`, a season too, and the question with the expressions they were read from taken out
    ("what did we talk about last week?" -> "what did we talk about ?"): the period a question asks
    about (retrieval/period.py)."""
    expressions = _read(question, now, seasons=True)
    kept, end = [], 0
    for start, stop in sorted(expression.span for expression in expressions):
        kept.append(question[end:start])
        end = stop
    return [expression.window for expression in expressions if expression.window], "".join(kept) + question[end:]


def counts_from_saying(text: str) -> bool:
    """Whether `text` says a time counted from the day it was said ("next month", "yesterday",
    "three weeks ago", "in two days"): read later, it means nothing without that day. A weekday or a
    week counted within a month ("the last Friday in May 2023", "the first week of June") is a date,
    as "8 May" is, though "last Friday" and "first week" say no month."""
    # Every phrase of _SAID_WHEN holds one of _SAID_WHEN_PARTS, and in ASCII text (nearly every line)
    # ignoring case is lowering it: most lines say none, and need not try the phrases at every word.
    if text.isascii():
        lowered = text.lower()
        if not any(part in lowered for part in _SAID_WHEN_PARTS):
            return False
    said = [match.span() for match in _SAID_WHEN.finditer(text)]
    dates = [match.span() for match in _IN_MONTH_ORDINAL.finditer(text)] if said else []
    return any(not any(start <= at and end <= stop for start, stop in dates) for at, end in said)


class Expression(NamedTuple):
    """A time expression read (`_read`)."""
    span: tuple[int, int]
    window: Window | None  # None for none, or one begun after the moment read at
    since: bool  # "since" leads it (read in a statement only)
    # named by a year, a month's name, or months or years back ("in 2010", "in May", "two years ago"), not "since"
    far: bool


def _read(text: str, now: datetime, seasons: bool, statement: bool = False) -> list[Expression]:
    """The time expressions of a question, or of a `statement` (`began`: read as said, not widened, and a
    "since" read), in the order read."""
    read: list[Expression] = []
    taken: list[tuple[int, int]] = []  # spans already read: "8 May 2023" is not also "May 2023"
    day_width = 1 if statement else 3  # a question's day is a day either side: `_day`

    def free(match: re.Match) -> bool:
        return not any(match.start() < end and start < match.end() for start, end in taken)

    def add(match: re.Match, window: Window | None, far: bool = False) -> None:
        start, end = match.span()
        since = statement and bool(match.groupdict().get("since") or _SINCE.search(text, 0, start))
        if since and not match.groupdict().get("since"):
            start = _SINCE.search(text, 0, start).start()
        taken.append(match.span())
        # one begun after `now` holds nothing said by then, which is all a question asked at `now` is of
        # "since" a time says the fact holds now, from then: never a story of the past (timeline.times)
        read.append(Expression((start, end), window if window is not None and window[0] <= now else None, since,
                               far and not since))

    def year_of(month: int, day: int) -> int | None:
        """A date's year, said without one: the latest such date not after `now`; in a statement, none
        for one soon to come (_SOON)."""
        latest = _latest_year(month, day, now)
        if statement and latest < now.year:
            try:
                coming = _midnight(now).replace(month=month, day=day)
            except ValueError:  # 29 February
                return latest
            if coming - now <= _SOON:
                return None
        return latest

    def date(day: int, month: int, year: str | None) -> Window | None:
        said = int(year) if year else year_of(month, day)
        return None if said is None else _day(day, month, said, now, day_width)

    for match in _IN_MONTH_ORDINAL.finditer(text):
        year = match.group(4)
        add(match, _in_month(_ORDINAL[caseless(match.group(1))], caseless(match.group(2)),
                             MONTH_NUMBER[caseless(match.group(3))], int(year) if year else None, now), bool(year))
    for match in filter(free, _DAY_MONTH.finditer(text)):
        add(match, date(int(match.group(1)), MONTH_NUMBER[caseless(match.group(2))], match.group(3)), bool(match.group(3)))
    for match in filter(free, _MONTH_DAY.finditer(text)):
        add(match, date(int(match.group(2)), MONTH_NUMBER[caseless(match.group(1))], match.group(3)), bool(match.group(3)))
    dates = list(taken)  # a weekday beside one of these is that day's, not one counted from now
    for match in filter(free, _MONTH_YEAR.finditer(text)):
        add(match, _month(int(match.group(2)), MONTH_NUMBER[caseless(match.group(1))], now), True)
    for match in filter(free, _IN_MONTH.finditer(text)):
        if match.group("since") and not statement:
            continue
        month = MONTH_NUMBER[caseless(match.group(2))]
        year = year_of(month, 1)
        add(match, None if year is None else _month(year, month, now), True)
    if seasons:  # before a year alone: "the summer of 2021" is not all 2021
        for match in filter(free, _SEASON_YEAR.finditer(text)):
            first = _SEASON_START[caseless(match.group(1))]
            year = int(match.group(2))
            add(match, _season(first, year - 1 if first == 12 else year, now))
        for match in filter(free, _SEASON_RELATIVE.finditer(text)):
            add(match, _season_relative(caseless(match.group(1)), _SEASON_START[caseless(match.group(2))], now))
        for match in filter(free, _IN_SEASON.finditer(text)):
            add(match, _latest_season(_SEASON_START[caseless(match.group(1))], now))
    for match in filter(free, _YEAR_ALONE.finditer(text)):
        if match.group("since") and not statement:
            continue
        year = int(match.group(2))
        add(match, (now.replace(year=year, month=1, day=1, hour=0, minute=0, second=0, microsecond=0),
                    now.replace(year=year + 1, month=1, day=1, hour=0, minute=0, second=0, microsecond=0)), True)
    for match in filter(free, _AGO.finditer(text)):
        count = int(match.group(1)) if match.group(1).isdigit() else _NUMBERS[caseless(match.group(1))]
        unit = caseless(match.group(2))
        if statement:  # the day that far back
            start = _midnight(now) - timedelta(days=count) if unit == "day" else _later(unit, _midnight(now), -count)
            add(match, (start, start + timedelta(days=1)), unit in ("month", "year"))
            continue
        days = count * _UNITS[unit]
        spread = max(1, days // 4)  # "three weeks ago" is about then, give or take
        add(match, (now - timedelta(days=days + spread), now - timedelta(days=max(days - spread, 0))))
    for match in filter(free, _RELATIVE.finditer(text)):
        add(match, _relative(" ".join(caseless(match.group(1)).split()), now, statement))
    for match in filter(free, _WEEKDAY_RELATIVE.finditer(text)):
        which = " ".join(caseless(match.group(1)).split())
        if which != "on" or _OF_THE_PAST.search(text):
            add(match, None if _beside(match, dates, text)
                else _weekday(which, WEEKDAYS.index(caseless(match.group(2))), now))
    return read


def _beside(match: re.Match, dates: list[tuple[int, int]], question: str) -> bool:
    """Whether the weekday phrase is next to one of the days' dates, either side ("last Friday, 23
    January", "last Friday on 23 January", "on 23 January, last Friday")."""
    return any(_BETWEEN.fullmatch(question[match.end():start] if match.end() <= start
                                  else question[end:match.start()]) for start, end in dates)


def within(moment: datetime, periods: list[Window]) -> bool:
    return any(start <= moment < end for start, end in periods)


def _midnight(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _day(day: int, month: int, year: int, now: datetime, width: int) -> Window | None:
    """The day, or in a question (`width` 3) a day either side too: a day asked of in passing may be off
    by one (time zones, "the night of")."""
    try:
        start = _midnight(now).replace(year=year, month=month, day=day)
    except ValueError:
        return None  # "31 June"
    return start - timedelta(days=width // 2), start + timedelta(days=width - width // 2)


def _month(year: int, month: int, now: datetime) -> Window:
    start = _midnight(now).replace(year=year, month=month, day=1)
    return start, _later("month", start, 1)


def _season(first: int, year: int, now: datetime) -> Window:
    """The season that begins in month `first` of `year`."""
    start = _midnight(now).replace(year=year, month=first, day=1)
    return start, _later("month", start, 3)


def _latest_season(first: int, now: datetime) -> Window:
    """The latest season beginning in month `first` that has begun by `now`."""
    return _season(first, now.year if first <= now.month else now.year - 1, now)


def _season_relative(which: str, first: int, now: datetime) -> Window:
    latest = _latest_season(first, now)
    under_way = now < latest[1]
    if which == "this":  # the one under way, else the nearer of the last one over and the next one
        following = _season(first, latest[0].year + 1, now)
        return latest if under_way or now - latest[1] < following[0] - now else following
    # "last", "past", "this past": the latest one over
    return _season(first, latest[0].year - 1, now) if under_way else latest


def _latest_year(month: int, day: int, now: datetime) -> int:
    """The year of the latest such date not after `now`: "in May", asked in March, is last May."""
    return now.year if (month, day) <= (now.month, now.day) else now.year - 1


def _relative(expression: str, now: datetime, statement: bool = False) -> Window:
    today = _midnight(now)
    if expression in ("today", "tonight", "this morning"):
        return today, today + timedelta(days=1)
    if expression in ("yesterday", "last night"):
        # a question's "last night" may reach past midnight
        return today - timedelta(days=1), today + timedelta(hours=0 if statement else 6)
    *_, which, unit = expression.split()  # "this past week" is "the past week"
    week_start = today - timedelta(days=today.weekday())
    if unit == "weekend":
        return _weekend(which, week_start, now)
    if which == "past":  # "in the past month": counted back from the day asked, not the calendar's
        return _later(unit, today, -1), today + timedelta(days=1)
    start = {"week": week_start, "month": today.replace(day=1), "year": today.replace(month=1, day=1)}[unit]
    if which == "this":
        return start, _later(unit, start, 1)
    return _later(unit, start, -1), start  # "last", "previous": the whole one before


def _in_month(ordinal: int, unit: str, month: int, year: int | None, now: datetime) -> Window | None:
    """The `ordinal`th (-1: the last) weekday or weekend (Saturday and Sunday) of a month, a week the
    month (_IN_MONTH_ORDINAL); None when the month has no such day. Without a year, the latest such
    period begun by `now`, as a date without one is."""
    if year is None:
        latest = _in_month(ordinal, unit, month, now.year, now)
        begun = latest is not None and (_week_begins(ordinal, month, now.year, now) if unit == "week"
                                        else latest[0]) <= now
        return latest if begun else _in_month(ordinal, unit, month, now.year - 1, now)
    first = _midnight(now).replace(year=year, month=month, day=1)
    if unit == "week":
        return _month(first.year, month, now)
    day = WEEKDAYS.index("saturday" if unit == "weekend" else unit)
    days = monthrange(first.year, month)[1]
    ordinals = range((day - first.weekday()) % 7, days, 7)  # each such day's offset from the first
    if ordinal > len(ordinals):
        return None
    start = first + timedelta(days=ordinals[ordinal - 1 if ordinal > 0 else -1])
    return start, start + timedelta(days=2 if unit == "weekend" else 1)


def _week_begins(ordinal: int, month: int, year: int, now: datetime) -> datetime:
    """When the `ordinal`th (-1: the last) week of a month may be taken to begin, its window being the whole
    month: its seventh of days from the first, the last seven days' first. Asked on 2 December, "the last week
    of December" is last year's: this one's has not begun, though the month has."""
    days = monthrange(year, month)[1]
    first = _midnight(now).replace(year=year, month=month, day=1)
    return first + timedelta(days=days - 7 if ordinal < 0 else 7 * (ordinal - 1))


def _weekday(which: str, day: int, now: datetime) -> Window:
    """The whole day of weekday `day` (Monday 0): that of the week under way ("this"), else the
    latest before today ("last", "this past", "past", "previous", "on")."""
    today = _midnight(now)
    if which == "this":
        start = today + timedelta(days=day - today.weekday())
    else:
        start = today - timedelta(days=(today.weekday() - day - 1) % 7 + 1)
    return start, start + timedelta(days=1)


def _weekend(which: str, week_start: datetime, now: datetime) -> Window:
    """Saturday and Sunday: the latest weekend over ("last", "past", "previous"), else the one under
    way or the nearer of the last one over and the next ("this")."""
    last = week_start - timedelta(days=2), week_start
    if which != "this":
        return last
    coming = week_start + timedelta(days=5), week_start + timedelta(days=7)
    return last if now - last[1] <= coming[0] - now else coming


def _later(unit: str, moment: datetime, count: int) -> datetime:
    """`moment` `count` weeks, months or years later (earlier when negative); a day the month lacks
    is its last ("a month before 31 March" is 28 or 29 February)."""
    if unit == "week":
        return moment + timedelta(days=7 * count)
    months = moment.year * 12 + moment.month - 1 + count * (12 if unit == "year" else 1)
    year, month = divmod(months, 12)
    return moment.replace(year=year, month=month + 1, day=min(moment.day, monthrange(year, month + 1)[1]))
