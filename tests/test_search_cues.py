"""The question's cues in hybrid search (time_phrases.py, speakers.py, search.py `_cues`):
the periods a question names, the participant it names, the lines said next to a strong hit (the
reply to one that asks more, retrieval/replies.py; the line a hit says yes to more,
retrieval/confirmed.py), and
the offline expansion skipped when the question's channels already agree. Each lever is checked
against the same history with the lever off, through the HTTP API and the embedded Postgres."""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime, timezone

import pytest
from hypothesis import example, given, settings, strategies as st

from memex import time_phrases
from memex.config import Settings
from memex.retrieval import answer_type, confirmed, repeats, replies, speakers
from memex_edge.context import build_context
from tests.conftest import api_client

NOW = datetime(2025, 10, 20, 15, 0, tzinfo=timezone.utc)  # a Monday


def _days(window):
    return window[0].date().isoformat(), window[1].date().isoformat()


@pytest.mark.parametrize("question, expected", [
    ("What did Caroline do in May 2023?", [("2023-05-01", "2023-06-01")]),
    ("What happened on 8 May, 2023?", [("2023-05-07", "2023-05-10")]),
    ("Where was she on May 8?", [("2025-05-07", "2025-05-10")]),
    ("Where did we go in December?", [("2024-12-01", "2025-01-01")]),  # the latest December
    ("What did I cook yesterday?", [("2025-10-19", "2025-10-20")]),
    ("What did I read last week?", [("2025-10-13", "2025-10-20")]),
    ("Who called two weeks ago?", [("2025-10-03", "2025-10-09")]),
    ("What did we plan in 2024?", [("2024-01-01", "2025-01-01")]),
    ("Which film did we watch this month?", [("2025-10-01", "2025-11-01")]),
    ("May I ask what the user likes?", []),  # "May" the verb
    ("What happened on 31 June 2023?", []),  # no such day
    ("What does the user do for a living?", []),
])
def test_periods_a_question_names(question, expected):
    assert [_days(w) for w in time_phrases.windows(question, NOW)] == expected


@pytest.mark.parametrize("question, asked_on, expected", [
    # the calendar month before this one, none of this one (asked on a Sunday)
    ("What did I do last month?", "2026-12-06", [("2026-11-01", "2026-12-01")]),
    ("What did I buy the previous month?", "2026-12-06", [("2026-11-01", "2026-12-01")]),
    ("What did I do last month?", "2026-01-15", [("2025-12-01", "2026-01-01")]),  # over the new year
    ("What did I do this month?", "2026-12-06", [("2026-12-01", "2027-01-01")]),
    ("What did I read last week?", "2026-12-06", [("2026-11-23", "2026-11-30")]),  # Monday to Sunday
    ("What did I read last week?", "2026-03-25", [("2026-03-16", "2026-03-23")]),  # asked on a Wednesday
    ("What did I read this week?", "2026-03-25", [("2026-03-23", "2026-03-30")]),
    ("Where did we go last year?", "2026-03-05", [("2025-01-01", "2026-01-01")]),
    ("Where did we go this year?", "2026-03-05", [("2026-01-01", "2027-01-01")]),
    # "the past ..." counts back from the day asked, that day included
    ("What did I do in the past week?", "2026-03-25", [("2026-03-18", "2026-03-26")]),
    ("What did I do in the past month?", "2026-03-31", [("2026-02-28", "2026-04-01")]),  # no 31 February
    ("What did I do over the past year?", "2024-02-29", [("2023-02-28", "2024-03-01")]),
    # Saturday and Sunday: the latest over; "this" the one under way, else the nearer
    ("What did I do last weekend?", "2026-03-25", [("2026-03-21", "2026-03-23")]),
    ("What did I do last weekend?", "2026-12-06", [("2026-11-28", "2026-11-30")]),  # a Sunday: the one before
    ("What did I do this past weekend?", "2026-03-23", [("2026-03-21", "2026-03-23")]),
    ("What did I do this past week?", "2026-03-25", [("2026-03-18", "2026-03-26")]),  # "the past week"
    ("What did I do this past month?", "2026-03-31", [("2026-02-28", "2026-04-01")]),
    ("What did I do this weekend?", "2026-03-23", [("2026-03-21", "2026-03-23")]),  # Monday: just gone
    ("What will I do this weekend?", "2026-03-26", []),  # Thursday: the nearer is to come, so none
    ("What did I do this weekend?", "2026-12-06", [("2026-12-05", "2026-12-07")]),  # under way
])
def test_a_relative_period_is_the_calendar_one(question, asked_on, expected):
    now = datetime.fromisoformat(asked_on + "T15:00:00+00:00")
    assert [_days(w) for w in time_phrases.windows(question, now)] == expected


@pytest.mark.parametrize("question, rest", [
    ("What did I do this past weekend?", "What did I do ?"),
    ("What did I read this  past month?", "What did I read ?"),
    ("What did I do this past Friday?", "What did I do ?"),
])
def test_this_past_is_read_whole(question, rest):
    """"this past week" was read as "past week", and its "this" left in the question's other words."""
    assert time_phrases.read(question, NOW)[1] == rest


@pytest.mark.parametrize("question, asked_on, expected", [
    # "last": the latest such day before the day asked, one whole day
    ("What did I do last Friday?", "2026-12-02", [("2026-11-27", "2026-11-28")]),  # a Wednesday
    ("What did Joanna finish last Friday?", "2026-12-05", [("2026-12-04", "2026-12-05")]),  # a Saturday: yesterday
    ("What did I do last Friday?", "2026-12-04", [("2026-11-27", "2026-11-28")]),  # a Friday: a week ago
    ("What did I do last monday?", "2026-12-06", [("2026-11-30", "2026-12-01")]),
    ("What did I buy the previous Sunday?", "2026-12-06", [("2026-11-29", "2026-11-30")]),
    ("What did I do this past Friday?", "2026-12-07", [("2026-12-04", "2026-12-05")]),
    # "this": the one of the week under way, today included; one still ahead is no period
    ("What did I do this Tuesday?", "2026-12-06", [("2026-12-01", "2026-12-02")]),
    ("What did I eat this Wednesday?", "2026-12-02", [("2026-12-02", "2026-12-03")]),
    ("What am I doing this Friday?", "2026-12-02", []),
    # "on": as "last" in a question of the past, nothing in one that may ask of the day to come
    ("What did I do on Monday?", "2026-12-02", [("2026-11-30", "2026-12-01")]),
    ("Where was I on Wednesday?", "2026-12-02", [("2026-11-25", "2026-11-26")]),
    ("What's on Monday?", "2026-12-02", []),
    # a weekday alone, or beside the date that says its day, is no period counted from today
    ("Friday was fun, what did we do?", "2026-12-02", []),
    ("What do I do on Fridays?", "2026-12-02", []),
    ("What did she contribute on the Sunday before October 25, 2022?", "2026-12-02", [("2022-10-24", "2022-10-27")]),
    ("What did Joanna finish last Friday on 23 January, 2022?", "2026-12-02", [("2022-01-22", "2022-01-25")]),
    ("What did I do last Friday, 23 January?", "2026-12-02", [("2026-01-22", "2026-01-25")]),
    ("What did I do on 23 January, last Friday?", "2026-12-02", [("2026-01-22", "2026-01-25")]),
    ("What did I do on Friday the 23rd of January?", "2026-12-02", [("2026-01-22", "2026-01-25")]),
    # a date elsewhere in the question leaves the weekday its own day
    ("What did I do last Friday and on 3 March?", "2026-12-02", [("2026-03-02", "2026-03-05"),
                                                                  ("2026-11-27", "2026-11-28")]),
    ("What did I do on 3 March, and what did I do on Monday?", "2026-12-02", [("2026-03-02", "2026-03-05"),
                                                                              ("2026-11-30", "2026-12-01")]),
])
def test_a_weekday_is_one_day_read_back_from_the_day_asked(question, asked_on, expected):
    now = datetime.fromisoformat(asked_on + "T15:00:00+00:00")
    assert [_days(w) for w in time_phrases.windows(question, now)] == expected


@pytest.mark.parametrize("question, asked_on, expected", [
    # the weekday or weekend counted within the month, not back from the day asked
    ("What did I do last Friday in May 2023?", "2026-12-02", [("2023-05-26", "2023-05-27")]),
    ("What did I do on the last Friday of May, 2023?", "2026-12-02", [("2023-05-26", "2023-05-27")]),
    ("Where was I the first Monday in June 2023?", "2026-12-02", [("2023-06-05", "2023-06-06")]),
    ("What did I do the third Sunday of October 2022?", "2026-12-02", [("2022-10-16", "2022-10-17")]),
    ("What did we do the last weekend of May 2023?", "2026-12-02", [("2023-05-27", "2023-05-29")]),
    ("What did we do the 2nd weekend in April 2024?", "2026-12-02", [("2024-04-13", "2024-04-15")]),
    # without a year, the latest such day by the day asked: this May's last Friday is still to come
    ("What did I do the last Friday in May?", "2026-12-02", [("2026-05-29", "2026-05-30")]),
    ("What did I do the last Friday in May?", "2026-05-10", [("2025-05-30", "2025-05-31")]),
    # a month without a fifth Friday has none; a week of a month is no calendar week: the month
    ("What did I do the fifth Friday of February 2023?", "2026-12-02", []),
    ("Where was Tim in the second week of November?", "2026-12-02", [("2026-11-01", "2026-12-01")]),
    ("What did I do the last week of May 2023?", "2026-12-02", [("2023-05-01", "2023-06-01")]),
    # without a year, the latest such week begun by the day asked, not the latest month begun
    ("What did I do the last week of December?", "2026-12-02", [("2025-12-01", "2026-01-01")]),
    ("What did I do the last week of December?", "2026-12-25", [("2026-12-01", "2027-01-01")]),
    ("Where was Tim in the third week of November?", "2026-11-03", [("2025-11-01", "2025-12-01")]),
    ("Where was Tim in the third week of November?", "2026-11-15", [("2026-11-01", "2026-12-01")]),
    ("Where was Tim in the first week of November?", "2026-11-01", [("2026-11-01", "2026-12-01")]),
])
def test_a_weekday_counted_within_a_month_is_that_months(question, asked_on, expected):
    """"What did I do last Friday in May 2023?" was read as May 2023 and as the Friday before the day
    asked, a day of 2026 the question does not name."""
    now = datetime.fromisoformat(asked_on + "T15:00:00+00:00")
    assert [_days(w) for w in time_phrases.windows(question, now)] == expected
    assert [_days(w) for w in time_phrases.read(question, now)[0]] == expected


@pytest.mark.parametrize("question, asked_on, expected", [
    # begun after the moment asked: no period, whatever names it
    ("What am I doing this weekend?", "2026-12-03", []),  # a Thursday
    ("What's happening on 8 May 2030?", "2026-12-03", []),
    ("What are we doing in 2030?", "2026-12-03", []),
    ("What's planned for December 2027?", "2026-12-03", []),
    ("What did we plan for 8 May 2030 in 2026?", "2026-12-03", [("2026-01-01", "2027-01-01")]),  # the rest kept
    # under way, or reaching back to the moment asked: a period as before
    ("What am I doing this weekend?", "2026-12-05", [("2026-12-05", "2026-12-07")]),  # a Saturday
    ("What did I do this Friday?", "2026-12-04", [("2026-12-04", "2026-12-05")]),  # today
    ("What's happening on 7 December 2026?", "2026-12-06", [("2026-12-06", "2026-12-09")]),  # a day's slack
    # "next week", "tomorrow" are not read
    ("What am I doing next week?", "2026-12-03", []),
    ("What am I doing tomorrow?", "2026-12-03", []),
])
def test_a_period_begun_after_the_moment_asked_is_none(question, asked_on, expected):
    now = datetime.fromisoformat(asked_on + "T15:00:00+00:00")
    assert [_days(w) for w in time_phrases.windows(question, now)] == expected
    assert [_days(w) for w in time_phrases.read(question, now)[0]] == expected


@pytest.mark.parametrize("question, asked_on, expected", [
    ("What did I do last spring?", "2025-10-20", [("2025-03-01", "2025-06-01")]),
    ("What did we do last summer?", "2025-07-10", [("2024-06-01", "2024-09-01")]),  # not the one under way
    ("What happened this summer?", "2025-07-10", [("2025-06-01", "2025-09-01")]),
    ("What happened this summer?", "2025-10-20", [("2025-06-01", "2025-09-01")]),  # the nearer: just gone
    ("What happened this summer?", "2025-03-10", []),  # the nearer is to come, so none
    ("Where did we ski in the winter?", "2025-10-20", [("2024-12-01", "2025-03-01")]),  # over the new year
    ("Where did we ski in the winter?", "2025-01-10", [("2024-12-01", "2025-03-01")]),  # under way
    ("What did we do last winter?", "2025-02-10", [("2023-12-01", "2024-03-01")]),
    ("What did I plant this past fall?", "2025-10-20", [("2024-09-01", "2024-12-01")]),
    ("Which state did she visit in summer 2021?", "2025-10-20", [("2021-06-01", "2021-09-01")]),
    ("Where was she in the winter of 2024?", "2025-10-20", [("2023-12-01", "2024-03-01")]),  # its January's year
    ("Did she fall in love?", "2025-10-20", []),  # "fall" the verb
])
def test_a_season_is_a_questions_period(question, asked_on, expected):
    now = datetime.fromisoformat(asked_on + "T15:00:00+00:00")
    assert [_days(w) for w in time_phrases.read(question, now)[0]] == expected
    # neither the search's favour nor what a memory says happened then reads one: the year alone, or nothing
    assert time_phrases.windows(question, now) == (
        [(datetime(2024, 1, 1, tzinfo=timezone.utc), datetime(2025, 1, 1, tzinfo=timezone.utc))]
        if "of 2024" in question else [])


def test_within_a_period_is_half_open():
    [(start, end)] = time_phrases.windows("in May 2023", NOW)
    assert time_phrases.within(start, [(start, end)]) and not time_phrases.within(end, [(start, end)])


def test_a_question_names_a_speaker_by_every_word_of_the_name():
    asked = speakers.words("What did Melanie's daughter paint with Anna Lee?")
    assert speakers.named(asked, "Melanie") and speakers.named(asked, "anna lee")
    assert not speakers.named(asked, "Caroline") and not speakers.named(asked, "Anna Smith")
    assert not speakers.named(asked, None) and not speakers.named(asked, "")


def test_a_texts_words_are_read_once_within_a_search_and_forgotten_after_it(monkeypatch):
    read = []
    tokenise = speakers._words
    monkeypatch.setattr(speakers, "_words", lambda text: read.append(text) or tokenise(text))
    with speakers.remembered():
        assert speakers.words("Melanie's pottery") == speakers.words("Melanie's pottery") == {"melanie", "pottery"}
    assert read == ["Melanie's pottery"]
    speakers.words("Melanie's pottery")  # kept for the block only: no memory's words outlive its search
    assert read == ["Melanie's pottery"] * 2


@pytest.mark.parametrize("text", ["Melanie's CAT-Sitter's 2nd o'clock visit", "Hi, I'm Caroline! What's up?",
                                  "Tom's  dog\nran_fast -- 3 times", "", "'s 's's"])
def test_an_ascii_texts_words_are_those_the_unicode_reading_finds(text):
    # " ä" sends the text down the reading of any text, which finds "ä" and otherwise the same words
    assert speakers.words(text) == speakers.words(text + " ä") - {"ä"}


@pytest.mark.parametrize("phrase", ["Yesterday", "TODAY", "toNight", "last Night", "this Morning", "this evening",
                                    "Next Weekend", "past AUTUMN", "coming friday", "previous fall", "this Summer",
                                    "a couple of Weeks ago", "in 3 DAYS", "three years ago", "in a month",
                                    "next winter", "last spring", "tomorrow"])
def test_a_time_counted_from_the_day_is_read_in_ascii_text_as_in_any(phrase):
    for line in (f"We met {phrase}.", f"We met {phrase} in Zürich."):
        assert time_phrases.counts_from_saying(line) == bool(time_phrases._SAID_WHEN.search(line)) is True
    for line in ("We met at the lake.", "Week after week, years of Mondays", "We met at the lake in Zürich."):
        assert time_phrases.counts_from_saying(line) == bool(time_phrases._SAID_WHEN.search(line))


@pytest.mark.parametrize("line, counts", [
    ("We went hiking the last Friday in May 2023.", False), ("We went hiking the last Friday of May.", False),
    ("The first week of June was rough.", False), ("We went hiking last Friday.", True),
    ("We went hiking the last Friday in May 2023, and again last week.", True),
])
def test_a_weekday_counted_within_a_month_is_a_date_not_a_time_counted_from_the_day(line, counts):
    # _SAID_WHEN reads "last Friday" in "the last Friday in May 2023" as the Friday before the day it was
    # said; the whole names its day, as the questions' reading has it (time_phrases._IN_MONTH_ORDINAL)
    assert time_phrases.counts_from_saying(line) is counts
    # and so the line said on two days reads as one (repeats.reads_as: a search's top k holds it once)
    days = [datetime(2023, 6, day, 12, tzinfo=timezone.utc) for day in (2, 9)]
    assert (repeats.reads_as(line, days[0], timezone.utc) == repeats.reads_as(line, days[1], timezone.utc)) \
        is not counts


def test_the_keywords_go_without_the_participants_the_question_names():
    found = ["Caroline", "Melanie", "Anna Lee", None]  # the speakers of what was found; None: the user
    assert speakers.without_names("What is Caroline's relationship status?", found) == "What is relationship status?"
    assert speakers.without_names("What have Caroline and Melanie both painted?", found) == "What have and both painted?"
    assert speakers.without_names("Where does Anna Lee live?", found) == "Where does live?"
    assert speakers.without_names("Where does Anna live?", found) is None  # not every word of the name
    assert speakers.without_names("Melanie's?", found) is None  # nothing else to search for
    assert speakers.without_names("What does the user do?", found) is None


# Texts and names of pieces where the reading of a name can go wrong: case (with re's third cases:
# "ſ" an s, "ı" an i), a possessive of either apostrophe, a hyphen or an apostrophe joining a name to
# more, whitespace runs between a name's words, a name inside another ("Ann" in "Anna").
_PIECES = ["Dana", "dana", "DANA", "Silva", "Ann", "Anna", "ANNA", "Lee", "x", " ", "  ", "\t", "\n", "'s", "’s",
           "'S", "'", "’", "-", ".", "?", "s", "ſ", "ı", "é", "Ånna", "1", "_", "ΣΑΣ"]
_NAMES = ["Dana", "Dana Silva", "Ann", "Anna", "Anna Lee", "Lee", "Ånna", "ΣΑΣ", "ſilva"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join),
       st.lists(st.sampled_from(_NAMES), min_size=1, max_size=3, unique=True))
@example("Where does Anna Lee live? Ask Lee.", ["Lee", "Anna Lee"])  # a name inside a longer one said
@example("dana’s partner and DANA'S", ["Dana"])
def test_the_names_are_read_as_the_patterns_they_stand_for(question, names):
    """without_names and as_the_user find a name where the regular expressions their comments give
    would (they read it as data, never compiled: literal.py says why)."""
    asked = speakers.words(question)
    named = [name for name in names if speakers.named(asked, name)]
    expected = None
    if named:
        parts = sorted({w for name in named for w in speakers.words(name)}, key=len, reverse=True)
        rest = re.sub(rf"\b(?:{'|'.join(map(re.escape, parts))})(?:['’]s)?\b", " ", question, flags=re.IGNORECASE)
        expected = " ".join(rest.split()) if speakers._WORD.search(rest) else None
    assert speakers.without_names(question, names) == expected

    spoken = sorted((speakers._WORD.findall(name) for name in named), reverse=True,
                    key=lambda ws: sum(len(w) + w.count("-") for w in ws) + 3 * (len(ws) - 1))
    pattern = "|".join(r"\s+".join(map(re.escape, ws)) for ws in spoken)
    rewritten = re.sub(rf"(?<![\w'’-])(?:{pattern})(['’]s)?(?![\w'’-])",
                       lambda m: speakers._the_user(question, m.start()) + (m.group(1) or ""),
                       question, flags=re.IGNORECASE) if named else question
    assert speakers.as_the_user(question, names, names) == (rewritten if rewritten != question else None)


# --- through the service ----------------------------------------------------------------------

def _app(ctx, **changes):
    app_ctx = build_context(dataclasses.replace(ctx.settings, **changes))
    return api_client(app_ctx)


# The learned order (learned.py) reads the period and the speaker too: off, each cue is seen alone.
OFF = {"search_speaker_boost": 0.0, "search_temporal_boost": 0.0, "search_neighbour_share": 0.0,
       "search_reply_share": 0.0, "search_confirmed_share": 0.0, "search_when_boost": 0.0, "search_expansion_skip_decisive": False, "search_keywords_without_speakers": False, "search_learned": False}


@pytest.fixture(scope="module")
def plain(ctx):
    with _app(ctx, **OFF) as client:
        yield client


@pytest.fixture(scope="module")
def cued(ctx):
    with _app(ctx, **{**OFF, "search_speaker_boost": 0.5, "search_temporal_boost": 0.5,
                      "search_neighbour_share": 0.9, "search_neighbour_reach": 1}) as client:
        yield client


def _contents(client, tenant, query: str, when: str = "2025-10-20T15:00:00Z") -> list[str]:
    body = {"user_id": tenant.user, "query": query, "reference_time": when}
    response = client.post("/v1/search", json=body, headers=tenant.headers)
    assert response.status_code == 200, response.text
    return [r["content"] for r in response.json()["results"]]


def _say(tenant, session: str, when: str, *lines: tuple[str, str], user_name: str | None = None):
    body = {"user_id": tenant.user, "session_id": session, "timestamp": when,
            "messages": [{"role": "user", "name": name, "content": text} if name else {"role": "user", "content": text}
                         for name, text in lines], **({"user_name": user_name} if user_name else {})}
    assert tenant.post("/v1/turns?wait=true", body).status_code == 201


def test_a_dated_question_ranks_the_memory_from_that_month_first(tenant, plain, cued):
    _say(tenant, "march", "2025-03-14T10:00:00Z", ("", "We went hiking in the hills near Sintra."))
    _say(tenant, "may", "2025-05-16T10:00:00Z", ("", "We went hiking again, hiking the hills near Arrabida."))
    _say(tenant, "other", "2025-06-01T10:00:00Z", ("", "The bakery on our street sells great bread."))
    question = "Where did we go hiking in March 2025?"
    # without the cue the newer walk comes first (same words, more recent)
    assert "Arrabida" in _contents(plain, tenant, question)[0]
    assert "Sintra" in _contents(cued, tenant, question)[0]


def test_a_period_to_come_is_no_favour(tenant, plain, cued):
    """"This weekend" asked on a Thursday was the weekend to come, a period no memory is from, and its
    favour divided every score by its factor (a third less with the boost at 0.5); now it is no
    period, and the scores are those without the cue."""
    _say(tenant, "s1", "2026-11-30T10:00:00Z", ("", "This weekend I'm going hiking in Sintra with Marta."))
    _say(tenant, "s2", "2026-12-01T10:00:00Z", ("", "I'm going to the dentist on Friday."))

    def scored(client):
        body = {"user_id": tenant.user, "query": "What am I going to do this weekend?",
                "reference_time": "2026-12-03T15:00:00Z"}  # a Thursday
        response = client.post("/v1/search", json=body, headers=tenant.headers)
        assert response.status_code == 200, response.text
        return [(r["content"], r["score"]) for r in response.json()["results"]]

    assert scored(cued)[0][0] == "This weekend I'm going hiking in Sintra with Marta."
    assert scored(cued) == scored(plain)


def test_a_question_naming_a_participant_favours_what_they_said(tenant, plain, cued):
    _say(tenant, "s1", "2025-09-01T10:00:00Z",
         ("Caroline", "Melanie, guess what? I painted the harbour for Melanie's birthday."), user_name="Caroline")
    _say(tenant, "s2", "2025-09-02T10:00:00Z", ("Melanie", "I painted horses in a field."), user_name="Caroline")
    question = "What did Melanie paint?"
    assert _contents(plain, tenant, question)[0].startswith("Caroline:")
    assert _contents(cued, tenant, question)[0].startswith("Melanie:")


def test_the_line_said_next_to_a_strong_hit_is_surfaced(tenant, plain, cued):
    _say(tenant, "s1", "2025-09-01T10:00:00Z",
         ("", "Last spring I spent a whole month in Kyoto."),
         ("", "What was the best part of it?"),
         ("", "Kinkaku-ji, the golden pavilion, at sunset."),
         ("", "My cousin is getting married in October."))
    for i, line in enumerate(("I love the old trams of Lisbon.", "What I loved most about Porto was the river.",
                              "We loved the food markets in Madrid.", "I would love to visit Osaka one day.",
                              "The best part of Paris was the bakeries.", "I loved that little hotel in Seville.")):
        _say(tenant, f"d{i}", "2025-08-01T10:00:00Z", ("", line))  # each alone: no neighbours
    question = "What did I love about Kyoto?"
    answer, anchor = "Kinkaku-ji, the golden pavilion, at sunset.", "What was the best part of it?"

    def relevance(client) -> dict[str, float]:
        body = {"user_id": tenant.user, "query": question, "reference_time": "2025-10-20T15:00:00Z", "top_k": 20}
        results = client.post("/v1/search", json=body, headers=tenant.headers).json()["results"]
        return {r["content"]: r["score_parts"]["relevance"] for r in results}

    without, with_neighbours = relevance(plain), relevance(cued)
    # the anchor is among the best hits; the answer, said next to it, takes 0.9 of its own relevance
    assert sorted(without.values())[-5] <= without[anchor]
    assert with_neighbours[answer] == pytest.approx(0.9 * without[anchor], abs=1e-5)
    # on its own it shares no word with the question and little meaning: it ranks below every line
    # that mentions loving a place
    assert without.get(answer, 0.0) < 0.5 * without[anchor]
    distractors = [line for line in without if "love" in line.lower() and "Kyoto" not in line]
    assert len(distractors) >= 4 and all(without[line] > without.get(answer, 0.0) for line in distractors)


@pytest.mark.parametrize("said, asking", [
    ("How did they react when they saw it?", True),
    ("Wow, that looks great! Is that your third one?", True),
    ("What's it about? Glad it's all done!", True),
    ("Really?!", True),
    ('She asked me "why now?" and left.', True),
    ("They were awestruck and humbled.", False),
    ("The results are at https://example.com/search?q=memorial for you.", False),
])
def test_a_line_asks_when_a_sentence_of_it_ends_in_a_question_mark(said, asking):
    assert replies.asks(said) is asking


def test_only_the_line_right_after_one_that_asks_takes_the_reply_share():
    settings = Settings(search_neighbour_share=0.5, search_reply_share=0.9)
    assert replies.share(settings, "How did they react?", 1) == 0.9
    assert replies.share(settings, "How did they react?", -1) == 0.5  # the line before it is no reply
    assert replies.share(settings, "How did they react?", 2) == 0.5
    assert replies.share(settings, "They loved it.", 1) == 0.5
    # never less than a neighbour's: a reply share under it changes nothing
    assert replies.share(dataclasses.replace(settings, search_reply_share=0.3), "How did they react?", 1) == 0.5


def test_the_reply_to_a_strong_hit_that_asks_takes_more_of_its_relevance(ctx, tenant):
    """The line that asks shares the question's words; the reply after it, which answers, shares
    none: it takes the reply share of the hit's relevance, the line before the hit the neighbour's."""
    _say(tenant, "s1", "2025-08-03T18:00:00Z",
         ("John", "My cousin is getting married in October."),
         ("Maria", "How did your kids react at the military memorial?"),
         ("John", "Awestruck and humbled, all three of them. Then we drove back through the hills, had ice "
                  "cream at the old harbour cafe, fed the ducks by the pond and sat in a long traffic jam home."),
         user_name="John")
    for i, line in enumerate(("The kids loved the military museum and the memorial garden in Washington.",
                              "My kids reacted badly to their shots at the military clinic.",
                              "Kids react to a memorial in their own way, my sister says.",
                              "We watched the military parade at the memorial with the kids.")):
        _say(tenant, f"d{i}", "2025-07-01T10:00:00Z", ("Maria", line), user_name="John")  # each alone
    question = "How did John's kids react at the military memorial?"
    before, anchor = "John: My cousin is getting married in October.", \
        "Maria: How did your kids react at the military memorial?"
    reply = "John: Awestruck and humbled, all three of them. Then we drove back through the hills, had ice " \
        "cream at the old harbour cafe, fed the ducks by the pond and sat in a long traffic jam home."

    def relevance(reply_share: float) -> dict[str, float]:
        with _app(ctx, **{**OFF, "search_neighbour_share": 0.5, "search_neighbour_reach": 1,
                          "search_reply_share": reply_share}) as client:
            body = {"user_id": tenant.user, "query": question, "reference_time": "2025-10-20T15:00:00Z", "top_k": 20}
            results = client.post("/v1/search", json=body, headers=tenant.headers).json()["results"]
        return {r["content"]: r["score_parts"]["relevance"] for r in results}

    plain, replied = relevance(0.0), relevance(0.9)
    # without it the reply, found through the line it answers (its context), is below three lines
    # that share the question's words
    assert max(plain, key=plain.get) == anchor
    assert sorted(plain, key=plain.get, reverse=True).index(reply) >= 3
    assert replied[reply] == pytest.approx(0.9 * plain[anchor], abs=1e-5)
    assert replied[before] == pytest.approx(plain[before], abs=1e-5)  # said before it: no reply
    # with it the reply comes right after the line that asked
    assert sorted(replied, key=replied.get, reverse=True)[:2] == [anchor, reply]


@pytest.mark.parametrize("said, says_yes", [
    ("Yep! I'm currently playing a fantasy RPG.", True),
    ("Yeah, it does! My brother wrote it.", True),
    ("Sure thing! I can give it to you tomorrow.", True),
    ("It does, every time I read it.", True),
    ("Definitely! Having someone back us up is great.", True),
    ("Wow, that's great! Yes, I'd love to.", False),  # a yes further in answers what it said itself
    ("Thanks! It's a bummer about your class.", False),
    ("Yesterday was crazy cool.", False),  # a word that starts like one
    ("Surely you jest.", False),
])
def test_a_line_confirms_when_it_opens_with_a_yes(said, says_yes):
    assert confirmed.confirms(said) is says_yes


def test_only_the_line_right_before_a_yes_takes_the_confirmed_share():
    settings = Settings(search_neighbour_share=0.5, search_confirmed_share=0.9)
    assert confirmed.share(settings, "Yep! It's about loss.", -1) == 0.9
    assert confirmed.share(settings, "Yep! It's about loss.", 1) == 0.0  # the line after it: its reply's
    assert confirmed.share(settings, "Yep! It's about loss.", -2) == 0.0
    assert confirmed.share(settings, "It's about loss.", -1) == 0.0
    assert confirmed.share(dataclasses.replace(settings, search_confirmed_share=0.0), "Yep!", -1) == 0.0


def test_the_line_a_strong_hit_says_yes_to_takes_more_of_its_relevance(ctx, tenant):
    """The hit that says yes shares the question's words; the line before it, which it agrees with
    and which holds the answer, shares none: it takes the confirmed share of the hit's relevance,
    the line after the hit the neighbour's."""
    _say(tenant, "s1", "2025-08-03T18:00:00Z",
         ("Maria", "The old boathouse by the river would do, with a brass band, a barbecue and lanterns."),
         ("John", "Yes! That's where we'll throw the party for the veterans."),
         ("Maria", "My cousin is getting married in October."),
         user_name="John")
    for i, line in enumerate(("The veterans loved the party at the museum last year.",
                              "We throw a party for my cousin every spring, John loves it.",
                              "Veterans need more than a party, they need housing.",
                              "John will throw his old shoes away.")):
        _say(tenant, f"c{i}", "2025-07-01T10:00:00Z", ("Maria", line), user_name="John")  # each alone
    question = "Where will John throw the party for the veterans?"
    answer = "Maria: The old boathouse by the river would do, with a brass band, a barbecue and lanterns."
    anchor = "John: Yes! That's where we'll throw the party for the veterans."
    after = "Maria: My cousin is getting married in October."

    def relevance(confirmed_share: float) -> dict[str, float]:
        with _app(ctx, **{**OFF, "search_neighbour_share": 0.5, "search_neighbour_reach": 1,
                          "search_confirmed_share": confirmed_share}) as client:
            body = {"user_id": tenant.user, "query": question, "reference_time": "2025-10-20T15:00:00Z", "top_k": 20}
            results = client.post("/v1/search", json=body, headers=tenant.headers).json()["results"]
        return {r["content"]: r["score_parts"]["relevance"] for r in results}

    plain, confirming = relevance(0.0), relevance(0.9)
    # without it the line said yes to, found only as the hit's neighbour, is below lines that
    # share the question's words
    assert max(plain, key=plain.get) == anchor
    assert sorted(plain, key=plain.get, reverse=True).index(answer) >= 3
    assert confirming[answer] == pytest.approx(0.9 * plain[anchor], abs=1e-5)
    assert confirming[after] == pytest.approx(plain[after], abs=1e-5)  # said after it: what it confirms is before
    # with it the answer comes right after the hit that said yes to it
    assert sorted(confirming, key=confirming.get, reverse=True)[:2] == [anchor, answer]


def test_a_decisive_first_hit_spares_the_offline_expansion(ctx, tenant, plain):
    """The expansion adds a keyword search per name in the first hits; skipped, the results are the
    question's own channels, as with the expansion off."""
    _say(tenant, "s1", "2026-01-01T00:00:00Z", ("", "My dog is called Biscuit."), *[("", line) for line in (
        "My neighbour's cat sleeps all day on the balcony.", "Paris is the most beautiful city I have visited.",
        "I work at Stripe as an engineer.", "My sister adopted a kitten last spring.",
        "The new office has a great coffee machine.", "I am learning to play the guitar.")])
    _say(tenant, "s2", "2026-01-02T00:00:00Z", ("", "Biscuit and I love our walks along the river in Lisbon."))
    question, when = "What is my dog called?", "2026-01-10T00:00:00Z"
    walks = "Biscuit and I love our walks along the river in Lisbon."
    # expanded, the walk is reached through the name "Biscuit" of the first hit
    assert walks in _contents(plain, tenant, question, when)
    with _app(ctx, **{**OFF, "search_expansion_skip_decisive": True}) as skipping, \
            _app(ctx, **{**OFF, "offline_expansion": False}) as unexpanded:
        skipped = _contents(skipping, tenant, question, when)
        assert skipped[0] == "My dog is called Biscuit."
        assert skipped == _contents(unexpanded, tenant, question, when)
        assert walks not in skipped


def test_the_keyword_channel_goes_without_the_participant_the_question_names(ctx, tenant):
    """A line that matches the question only through the name it addresses is no keyword hit."""
    # in turns of their own: a line is also indexed with the line it answers
    _say(tenant, "s1", "2025-09-01T10:00:00Z", ("Caroline", "I painted a sunset over the lake last weekend."),
         user_name="Caroline")
    _say(tenant, "s2", "2025-09-02T10:00:00Z", ("Melanie", "Caroline, you are the best friend ever, Caroline!"),
         user_name="Caroline")
    question, painted = "What did Caroline paint?", "Caroline: I painted a sunset over the lake last weekend."
    addressed = "Melanie: Caroline, you are the best friend ever, Caroline!"

    def bm25(without: bool) -> dict[str, float | None]:
        with _app(ctx, **{**OFF, "search_speaker_boost": 0.3, "search_keywords_without_speakers": without}) as client:
            body = {"user_id": tenant.user, "query": question, "reference_time": "2025-10-20T15:00:00Z"}
            results = client.post("/v1/search", json=body, headers=tenant.headers).json()["results"]
        return {r["content"]: r["score_parts"]["bm25"] for r in results}

    with_name, without_name = bm25(False), bm25(True)
    assert with_name[addressed] is not None and with_name[painted] is not None
    assert without_name[painted] is not None and without_name.get(addressed) is None


@pytest.mark.parametrize("question, asking", [
    ("When did Nate win his third tourney?", True),
    ("In what year did John start surfing?", True),
    ("How long ago did Maria move?", True),
    ("What did Nate win at the tourney?", False),
    ("Where was John when it rained?", False),  # a "when" that does not open the question asks a place
])
def test_a_question_asks_when_it_asks_for_a_time(question, asking):
    assert answer_type.asks_time(question) is asking


def test_a_when_question_favours_the_line_that_says_its_time_from_its_day(ctx, tenant):
    """"Last week" is no word of the question and the question names no period: without the cue the
    line of the same exchange that repeats the question's words comes first, with it the one that
    says when."""
    _say(tenant, "s1", "2025-08-03T18:00:00Z",
         ("Nate", "I won another regional video game tournament last week!"),
         ("Joanna", "Your third regional video game tournament win, Nate, you must have won with the new team."),
         user_name="Nate")
    question = "When did Nate win his third regional video game tournament?"
    answer = "Nate: I won another regional video game tournament last week!"
    other = "Which regional video game tournament did Nate win?"  # asks no time: left as it was
    with _app(ctx, **OFF) as client:
        assert _contents(client, tenant, question)[0] != answer
        plain_other = _contents(client, tenant, other)
    with _app(ctx, **{**OFF, "search_when_boost": 1.0}) as client:
        assert _contents(client, tenant, question)[0] == answer
        assert _contents(client, tenant, other) == plain_other
