"""A search's top k is not spent on a line said again (retrieval/repeats.py; trial 15)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

from memex.db import memories as memory_rows
from memex.retrieval import repeats
from memex_edge.context import build_context
from tests.conftest import api_client, round_trips

LINE = "I had a long day at work."
ASKED = {"reference_time": "2026-03-25T09:00:00Z"}


def _evenings(tenant) -> None:
    for day in range(1, 16):
        assert tenant.turn(LINE, session=f"s{day}", timestamp=f"2026-03-{day:02d}T20:00:00Z").status_code == 201
    tenant.turn("My manager Priya praised my work on the launch.", session="s20", timestamp="2026-03-20T20:00:00Z")
    tenant.turn("Work was stressful after the reorg.", session="s21", timestamp="2026-03-21T20:00:00Z")


def _searched(ctx, tenant, question: str, top_k: int = 10, **changes) -> list[dict]:
    with api_client(build_context(dataclasses.replace(ctx.settings, **changes))) as client:
        response = client.post("/v1/search", json={"user_id": tenant.user, "query": question, "top_k": top_k,
                                                   **ASKED},
                               headers=tenant.headers)
    assert response.status_code == 200, response.text
    return response.json()["results"]


def test_a_line_said_on_fifteen_evenings_takes_one_place_of_the_top_k(ctx, tenant, monkeypatch):
    """Trial 15: the top five held the same line five times and neither other line said of work."""
    _evenings(tenant)
    top = [r["content"] for r in tenant.search("what happened at work lately?", top_k=5, **ASKED)]
    # three distinct lines were said of work: they come first, the evenings after them
    assert sorted(top[:3]) == sorted([LINE, "My manager Priya praised my work on the launch.",
                                      "Work was stressful after the reorg."]), top
    assert top[3:] == [LINE, LINE], top
    # a caller asking for more still gets every evening (its own day each), below the distinct lines
    every = tenant.search("what happened at work lately?", top_k=50, **ASKED)
    said = [r for r in every if r["content"] == LINE]
    assert len(said) == 15 and len({r["valid_from"] for r in said}) == 15
    first_repeat = every.index(said[1])
    assert all(r["content"] == LINE for r in every[first_repeat:]), [r["content"] for r in every]
    # the same round trips as without the rule
    counts = []
    for changes in ({}, {"search_repeats_below": False}):
        with round_trips(monkeypatch) as trips:
            _searched(ctx, tenant, "what happened at work lately?", top_k=5, **changes)
        counts.append(len(trips))
    assert counts[0] == counts[1], counts


def test_a_line_said_once_or_on_different_days_is_found_as_before(ctx, tenant):
    """Nothing said twice: the same answer as without the rule. Words that count from the day they
    were said ("yesterday") read differently on another day, as recall's bullets do: both stay."""
    tenant.turn("I work at Notion.", session="a", timestamp="2026-03-01T09:00:00Z")
    tenant.turn("I was sick yesterday.", session="b", timestamp="2026-03-05T09:00:00Z")
    tenant.turn("I was sick yesterday.", session="c", timestamp="2026-03-12T09:00:00Z")
    tenant.turn("My manager Priya praised my work on the launch.", session="d", timestamp="2026-03-20T20:00:00Z")
    for question in ("where do I work?", "when was I sick?", "what did my manager say?"):
        found = _searched(ctx, tenant, question)
        assert found, question
        assert [(r["id"], r["score"]) for r in found] == \
            [(r["id"], r["score"]) for r in _searched(ctx, tenant, question, search_repeats_below=False)], question
    sick = [r for r in _searched(ctx, tenant, "when was I sick?") if r["content"] == "I was sick yesterday."]
    assert len(sick) == 2, sick


def test_a_repeat_takes_the_last_distinct_lines_score_so_sorting_by_score_keeps_the_order(tenant):
    """A moved repeat kept its own score: a caller who sorts the results by score (many clients do)
    brought the evenings back above the distinct lines. It takes the last distinct line's score when
    its own is higher, and names the line it repeats."""
    _evenings(tenant)
    every = tenant.search("what happened at work lately?", top_k=50, **ASKED)
    assert [r["score"] for r in every] == sorted((r["score"] for r in every), reverse=True), \
        [(r["content"], r["score"]) for r in every]
    assert all(r["score_parts"]["score"] == r["score"] for r in every)
    first = next(r for r in every if r["content"] == LINE)
    assert "repeat_of" not in first["score_parts"]
    distinct = every[:every.index(first) + 1] + [r for r in every if r["content"] != LINE]
    distinct = list({r["id"]: r for r in distinct}.values())
    again = [r for r in every if r["content"] == LINE and r["id"] != first["id"]]
    assert len(again) == 14 and all(r["score_parts"]["repeat_of"] == first["id"] for r in again)
    assert all(r["score"] <= min(d["score"] for d in distinct) for r in again)
    # sorted by score (a stable sort, as Python's), the top three are still the three distinct lines
    top = sorted(tenant.search("what happened at work lately?", top_k=5, **ASKED), key=lambda r: -r["score"])
    assert sorted(r["content"] for r in top[:3]) == sorted([LINE, "My manager Priya praised my work on the launch.",
                                                            "Work was stressful after the reorg."]), top


def test_a_question_about_a_period_lists_each_line_once_before_its_repeats(ctx, tenant, monkeypatch):
    """"What did I say last week?" listed the week's newest messages as said: a line said on seven
    evenings took the whole top three, and what else was said that week none."""
    for day in range(16, 23):
        tenant.turn(LINE, session=f"e{day}", timestamp=f"2026-03-{day}T20:00:00Z")
    tenant.turn("I started a pottery class.", session="p", timestamp="2026-03-17T10:00:00Z")
    tenant.turn("My sister visited from Porto.", session="v", timestamp="2026-03-16T10:00:00Z")
    answer = tenant.post("/v1/search", {"user_id": tenant.user, "query": "what did I say last week?", "top_k": 3,
                                        **ASKED}).json()
    three = answer["results"]
    assert [r["content"] for r in three] == [LINE, "I started a pottery class.", "My sister visited from Porto."]
    assert answer["total"] == 9  # the week's messages, as a search's total counts all it ranked, not top_k
    assert three[0]["valid_from"].startswith("2026-03-22")  # the newest saying stands for the line
    assert all(r["score_parts"]["said_within"] and "repeat_of" not in r["score_parts"] for r in three)
    every = tenant.search("what did I say last week?", top_k=20, **ASKED)
    assert [r["content"] for r in every[:3]] == [r["content"] for r in three]
    assert [r["content"] for r in every[3:]] == [LINE] * 6  # nothing dropped: each evening, below
    assert all(r["score_parts"]["repeat_of"] == three[0]["id"] for r in every[3:])
    assert [r["score"] for r in every] == sorted((r["score"] for r in every), reverse=True)
    # a period said once each is read in one statement, as before; with the setting off, as said
    assert [r["content"] for r in _searched(ctx, tenant, "what did I say last week?", top_k=3,
                                            search_repeats_below=False)] == [LINE] * 3
    counts = []
    for changes in ({}, {"search_repeats_below": False}):
        with api_client(build_context(dataclasses.replace(ctx.settings, **changes))) as client:
            with round_trips(monkeypatch) as trips:
                response = client.post("/v1/search", json={"user_id": tenant.user, "top_k": 3,
                                                           "query": "what did I say yesterday?",
                                                           "reference_time": "2026-03-18T09:00:00Z"},
                                       headers=tenant.headers)
        assert [r["content"] for r in response.json()["results"]] == [LINE, "I started a pottery class."]
        counts.append(len(trips))
    assert counts[0] == counts[1], counts


def test_recall_and_search_judge_a_line_said_again_alike(tenant):
    """One judge (repeats.reads_as): the same words, and the same day for words that count from it. A
    message whose values are no longer current reads with those values, and its bullet with the days it
    was said (a line said again states the fact its first saying did: stale.py), so recall, which drops a
    repeat where a search moves it, names both days on one bullet."""
    tenant.turn("I live in York.", session="a", timestamp="2026-01-10T09:00:00Z")
    tenant.turn("I live in York.", session="b", timestamp="2026-02-10T09:00:00Z")  # its fact already held
    tenant.turn("We moved to Berlin.", session="c", timestamp="2026-03-01T09:00:00Z")
    tenant.turn("I was sick yesterday.", session="d", timestamp="2026-03-05T09:00:00Z")
    tenant.turn("I was sick yesterday.", session="e", timestamp="2026-03-12T09:00:00Z")
    tenant.turn("I was sick yesterday.", session="f", timestamp="2026-03-12T19:00:00Z")

    def recalled(question: str) -> list[str]:
        response = tenant.post("/v1/recall", {"user_id": tenant.user, "query": question, **ASKED})
        assert response.status_code == 200, response.text
        return response.json()["context"].splitlines()[1:]

    sick = tenant.search("when was I sick?", **ASKED)
    said = [r for r in sick if r["content"] == "I was sick yesterday."]
    assert len(said) == 3 and ["repeat_of" in r["score_parts"] for r in said] == [False, False, True], said
    assert said[2]["valid_from"].startswith("2026-03-12")
    assert sorted(line for line in recalled("when was I sick?") if "sick" in line) == [
        "- I was sick yesterday. (said 2026-03-05)", "- I was sick yesterday. (said 2026-03-12)"]
    york = [r for r in tenant.search("where do I live?", **ASKED) if r["content"] == "I live in York."]
    assert len(york) == 2 and york[1]["score_parts"]["repeat_of"] == york[0]["id"], york
    assert [r["no_longer_current"] for r in york] == [["York"], ["York"]]
    assert [line for line in recalled("where do I live?") if "York" in line] == [
        "- I live in York. (said 2026-01-10 and 2026-02-10; no longer current: York)"]


def test_reads_as():
    said = datetime(2026, 3, 12, 23, 30, tzinfo=timezone.utc)
    tokyo = timezone(timedelta(hours=9))
    assert repeats.reads_as("I live in York.", said, None) == ("I live in York.", None, ())
    assert repeats.reads_as("I was sick yesterday.", said, timezone.utc)[1].isoformat() == "2026-03-12"
    assert repeats.reads_as("I was sick yesterday.", said, tokyo)[1].isoformat() == "2026-03-13"  # the asker's day
    assert repeats.reads_as("I live in York.", said, tokyo, ["York"]) == ("I live in York.", None, ("York",))
    assert repeats.reads_as("I was sick yesterday.", None, tokyo) == ("I was sick yesterday.", None, ())


def test_recall_gives_a_line_said_again_while_its_fact_held_one_bullet_with_its_days(tenant):
    """A line said on six days while its fact held, the fact ended since: each saying is stale, and recall
    printed six bullets that differ only by their day, spending the budget six times on one line. One
    bullet now, cited once, with the first and the last day it was said (a line said twice names both:
    test_recall_and_search_judge_a_line_said_again_alike)."""
    for day in (3, 8, 13, 18, 23, 28):
        tenant.turn("I live in York.", session=f"y{day}", timestamp=f"2026-01-{day:02d}T09:00:00Z")
    tenant.turn("I'm vegetarian.", session="v", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("We moved to Berlin.", session="b", timestamp="2026-03-01T09:00:00Z")
    york = [r for r in tenant.search("where do I live?", top_k=30, **ASKED) if r["content"] == "I live in York."]
    assert len(york) == 6 and all(r["no_longer_current"] == ["York"] for r in york), york  # each saying stale

    response = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "where do I live?", **ASKED})
    assert response.status_code == 200, response.text
    body = response.json()
    lines = [line for line in body["context"].splitlines() if "York" in line]
    assert lines == ["- I live in York. (said 2026-01-03 to 2026-01-28; no longer current: York)"], lines
    cited = [c for c in body["citations"] if c["snippet"] == "I live in York."]
    assert len(cited) == 1, body["citations"]
    # what else is known still goes in beside it
    assert "- The user is vegetarian." in body["context"].splitlines(), body["context"]


def test_a_question_about_a_period_reads_at_most_the_setting_s_messages_past_its_repeats(ctx, tenant, monkeypatch):
    """A period held by one line said again (a device's "Door opened." said 100,000 times) was read to its
    end looking for top_k distinct lines, a page twice the last each round trip. MEMEX_SEARCH_PERIOD_READS
    bounds the messages read; `total` still counts the whole period."""
    for day in range(16, 23):
        tenant.turn(LINE, session=f"e{day}", timestamp=f"2026-03-{day}T20:00:00Z")
    tenant.turn("I started a pottery class.", session="p", timestamp="2026-03-17T10:00:00Z")
    read: list[int] = []
    said_within = memory_rows.said_within
    monkeypatch.setattr(memory_rows, "said_within",
                        lambda *args, **kwargs: read.append(args[7]) or said_within(*args, **kwargs))

    def asked(**changes) -> dict:
        with api_client(build_context(dataclasses.replace(ctx.settings, **changes))) as client:
            response = client.post("/v1/search", json={"user_id": tenant.user, "query": "what did I say last week?",
                                                       "top_k": 3, **ASKED}, headers=tenant.headers)
        assert response.status_code == 200, response.text
        return response.json()

    bounded = asked(search_period_reads=5)
    assert read == [3, 2], read  # the first top_k, then only what the bound leaves
    assert [r["content"] for r in bounded["results"]] == [LINE] * 3 and bounded["total"] == 8
    read.clear()
    every = asked()
    assert read == [3, 3, 6], read  # twice the last each time, to the period's end (the pottery class is sixth)
    assert [r["content"] for r in every["results"]] == [LINE, "I started a pottery class.", LINE]
    assert every["total"] == 8
