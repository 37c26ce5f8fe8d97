"""Consolidation against the real Postgres: grouping, summaries citing every original, idempotence,
the per-user lock, erasure of a source, the LLM summary through the loopback double, the CLI and
the scheduled function."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone

import numpy as np
import pytest

from bench.openai_double import OpenAIDouble
from infra.local.lambda_context import LocalLambdaContext
from infra.local.runtime import function_module
from memex.consolidation.extractive import ExtractiveSummariser
from memex.consolidation.grouping import Grouper, Rules, gist, group, jaccard, words
from memex.consolidation.job import Options, consolidate
from memex.db import locks
from tests.conftest import ROOT, Tenant, api_client, database_of_its_own, waits_on_users_lock


OLD = "2025-01-10T10:00:00Z"
# Three lines that repeat each other (word-set Jaccard >= 0.7 with the first) and two that do not.
HIKING = ["I love hiking in the Alps with my sister every summer",
          "I love hiking in the Alps with my sister every single summer",
          "I really love hiking in the Alps with my sister every summer"]
OTHERS = ["My cat Miso knocked the vase off the shelf this morning",
          "The quarterly budget review moved to Thursday afternoon"]
NOW_OPTIONS = dict(threshold=0, min_age_days=0)


def options(ctx, **overrides) -> Options:
    """This run's settings: every user, every memory, and the seed's rule alone (whatever the defaults)."""
    return dataclasses.replace(Options.from_settings(ctx, **{**NOW_OPTIONS, **overrides}), rules=Rules(0.7, 0.0, 8))


def say(tenant, lines, session="s1", timestamp=OLD, user=None):
    response = tenant.turn(*lines, session=session, user=user, **({"timestamp": timestamp} if timestamp else {}))
    assert response.status_code == 201, response.text


def episodic(tenant, include_inactive=False, user=None) -> list[dict]:
    response = tenant.get(f"/v1/users/{user or tenant.user}/memories",
                          params={"include_inactive": str(include_inactive).lower(), "limit": 500})
    assert response.status_code == 200, response.text
    return [m for m in response.json()["memories"] if m["memory_type"] == "episodic"]


def summaries(tenant) -> list[dict]:
    return [m for m in episodic(tenant) if m["type"] == "summary"]


def snapshot(ctx, tenant_id):
    return ctx.db.connection().execute(
        """SELECT id, active, valid_to, content, type FROM memories WHERE tenant_id = %s ORDER BY id""",
        (tenant_id,)).fetchall()


# ---- pure parts ---------------------------------------------------------------------------------

def test_near_duplicates_group_by_their_words_and_others_stay_alone():
    rules = Rules(jaccard=0.7, similarity=0.0, max_group=8)
    assert jaccard(words(HIKING[0]), words(HIKING[1])) >= 0.7
    assert group(HIKING + OTHERS, None, rules) == [[0, 1, 2]]
    assert group(OTHERS, None, rules) == []
    assert group(HIKING, None, dataclasses.replace(rules, max_group=2)) == [[0, 1]]


def test_lines_saying_the_same_words_are_one_group_however_many():
    # Trial 15: "Noted." said 133 times became 44 identical summaries of three lines each.
    rules = Rules(jaccard=0.7, similarity=0.0, max_group=3)
    lines = ["Noted.", "noted", HIKING[0], "Noted!", HIKING[1], "NOTED.", HIKING[2], "Noted.", HIKING[0] + ", code zq81"]
    # identical words (case and punctuation aside) join their first line's group past the cap; lines
    # that differ, however near, keep to it
    assert group(lines, None, rules) == [[0, 1, 3, 5, 7], [2, 4, 6]]
    # the words in another order are another line (a cap of one: only the same line groups)
    assert group(["dog bites man", "man bites dog", "dog bites man"], None, Rules(0.7, 0.0, 1)) == [[0, 2]]
    # and lines without a word are not the same line
    assert group(["👍", "🙏", "👍"], None, Rules(0.7, 0.0, 1)) == []


def test_a_line_of_a_full_group_said_again_joins_that_group_not_one_of_its_own():
    # HIKING[1] joins HIKING[0]'s group, which is then full; said again, it joined no group but a
    # new one of its own, whose summary said again a line of the first one's
    rules = Rules(jaccard=0.7, similarity=0.0, max_group=2)
    assert group([HIKING[0], HIKING[1], HIKING[1], "hiking in the alps with my sister every single summer"],
                 None, rules) == [[0, 1, 2]]
    vectors = np.array([[1, 0], [0.99, 0.1], [0.99, 0.1], [0.98, 0.2]], dtype=np.float32)
    assert group(["apples and pears", "fruit salad today", "Fruit salad, today!", "plums"], vectors,
                 Rules(0.7, 0.95, 2)) == [[0, 1, 2]]


def test_same_topic_groups_by_meaning_when_a_similarity_is_set():
    vectors = np.array([[1, 0], [0.99, 0.1], [0, 1]], dtype=np.float32)
    contents = ["apples and pears", "fruit salad today", "tax forms"]
    assert group(contents, vectors, Rules(0.7, 0.0, 8)) == []
    assert group(contents, vectors, Rules(0.7, 0.95, 8)) == [[0, 1]]


def test_the_grouper_holds_a_line_said_alone_across_batches_and_returns_lines_that_differ_at_once():
    grouper = Grouper(Rules(jaccard=0.7, similarity=0.0, max_group=3))
    first = grouper.add("abcde", ["Noted.", HIKING[0], HIKING[1], "noted", OTHERS[0]], None)
    assert [(g.lines, g.members, g.gist) for g in first] == [([HIKING[0], HIKING[1]], ["b", "c"], gist(HIKING[:2]))]
    assert grouper.add("fgh", ["Noted!", OTHERS[0].upper(), HIKING[2]], None) == []
    assert [(g.lines, g.members, g.gist) for g in grouper.held()] == [
        (["Noted."], ["a", "d", "f"], gist(["noted"])), ([OTHERS[0]], ["e", "g"], gist(OTHERS[:1])),
        ([HIKING[2]], ["h"], gist(HIKING[2:]))]
    # a group's gist is its lines' words, each line once; a line without a word gives it none
    assert gist(["Noted.", "noted", HIKING[0]]) == gist([HIKING[0], "NOTED!"]) != gist(["Noted."])
    assert gist(["👍", "Noted."]) is None


def test_the_extractive_summary_keeps_every_word_and_drops_repetitions():
    summary = ExtractiveSummariser().summarise([HIKING[0], HIKING[0], HIKING[1], HIKING[2]])
    assert summary.method == "extractive"
    assert summary.content.split("\n") == [HIKING[0], HIKING[1], HIKING[2]]
    assert words(summary.content) == words(" ".join(HIKING))


# ---- against the database ------------------------------------------------------------------------

def test_a_group_becomes_one_summary_citing_every_original(ctx, tenant):
    say(tenant, HIKING + OTHERS)
    before = episodic(tenant)
    originals = [m for m in before if any(line in m["content"] for line in HIKING)]
    assert len(originals) == 3

    recorded = []

    class Recorder:
        def record(self, metric, value=1, **labels):
            recorded.append((metric.name, value))

    result = consolidate(dataclasses.replace(ctx, metrics=Recorder()), tenant.id, options=options(ctx))
    assert result.to_dict() == {"users": 1, "summaries": 1, "merged": 3, "extended": 0, "alike_ended": 0, "llm_fallbacks": 0,
                                "out_of_time": 0}
    assert ("ConsolidationRuns", 1) in recorded and ("MemoriesMerged", 3) in recorded

    after = episodic(tenant)
    assert len(after) == len(before) - 2
    [summary] = summaries(tenant)
    assert words(" ".join(HIKING)) <= words(summary["content"])
    assert summary["metadata"] == {"summary_of": 3, "summarised_by": "extractive"}
    assert sorted(s["message_id"] for s in summary["sources"]) == sorted(o["sources"][0]["message_id"] for o in originals)
    assert {s["session_id"] for s in summary["sources"]} == {"s1"}
    # the originals: inactive, kept, and in the summary's history
    kept = {m["id"]: m for m in episodic(tenant, include_inactive=True)}
    assert all(not kept[o["id"]]["active"] and kept[o["id"]]["valid_to"] for o in originals)
    history = tenant.get(f"/v1/memories/{summary['id']}/history").json()["history"]
    assert {m["id"] for m in history} == {o["id"] for o in originals} | {summary["id"]}
    # searched in their place
    found = [m["id"] for m in tenant.search("hiking in the Alps", filters={"memory_type": "episodic"})]
    assert summary["id"] in found and not {o["id"] for o in originals} & set(found)


def test_a_second_run_changes_nothing(ctx, tenant):
    say(tenant, HIKING + OTHERS)
    consolidate(ctx, tenant.id, options=options(ctx))
    state = snapshot(ctx, tenant.id)
    again = consolidate(ctx, tenant.id, options=options(ctx))
    assert (again.summaries, again.merged) == (0, 0)
    assert snapshot(ctx, tenant.id) == state


NOTED = ["Noted.", "noted", "Noted!"]
LONG_DAY = "I had a long day at work."


def test_a_line_said_many_times_is_summarised_once_citing_every_time(ctx, tenant):
    for day in range(4):
        say(tenant, [NOTED[day % 3], LONG_DAY, "Noted.", HIKING[day % 3]], session=f"day{day}",
            timestamp=f"2025-01-1{day}T10:00:00Z")
    say(tenant, OTHERS + [HIKING[0] + ", code zq81"], session="day4", timestamp="2025-01-14T10:00:00Z")
    noted = [m for m in episodic(tenant) if m["content"].lower().startswith("noted")]
    assert len(noted) == 8
    capped = options(ctx)
    capped = dataclasses.replace(capped, rules=dataclasses.replace(capped.rules, max_group=3))

    result = consolidate(ctx, tenant.id, options=capped)
    written = summaries(tenant)
    contents = [s["content"] for s in written]
    assert len(contents) == len(set(contents)), contents
    [once] = [s for s in written if s["content"].lower().startswith("noted")]
    assert "\n" not in once["content"] and once["metadata"]["summary_of"] == 8
    assert sorted(s["message_id"] for s in once["sources"]) == sorted(m["sources"][0]["message_id"] for m in noted)
    assert once["session_id"] is None
    history = tenant.get(f"/v1/memories/{once['id']}/history").json()["history"]
    assert {m["id"] for m in history} == {m["id"] for m in noted} | {once["id"]}
    [long_day] = [s for s in written if s["content"] == LONG_DAY]
    assert long_day["metadata"]["summary_of"] == 4
    # lines that differ keep the cap: of four near hiking lines, three are one group (with the first
    # one's repetition) and the fourth is left alone
    [hiking] = [s for s in written if "hiking" in s["content"]]
    assert hiking["metadata"]["summary_of"] == 4 and "zq81" not in hiking["content"]
    assert [m for m in episodic(tenant) if "zq81" in m["content"]][0]["type"] != "summary"
    assert (result.summaries, result.merged) == (len(written), sum(s["metadata"]["summary_of"] for s in written))

    state = snapshot(ctx, tenant.id)
    assert consolidate(ctx, tenant.id, options=capped).summaries == 0
    assert snapshot(ctx, tenant.id) == state

    # erasing one of the times it was said erases the summary; the others come back, and are summarised again
    assert tenant.delete(f"/v1/memories/{noted[0]['id']}").status_code in (200, 204)
    assert tenant.get(f"/v1/memories/{once['id']}").status_code == 404
    assert {m["id"] for m in noted[1:]} <= {m["id"] for m in episodic(tenant)}
    consolidate(ctx, tenant.id, options=capped)
    [again] = [s for s in summaries(tenant) if s["content"].lower().startswith("noted")]
    assert again["metadata"]["summary_of"] == 7


DISTINCT = ["The plumber comes on Tuesday", "Ana scored twice at football", "We booked flights to Oslo",
            "My passport expires in May", "The oven timer broke again"]


def test_a_line_said_again_in_later_batches_joins_the_same_summary(ctx, tenant):
    for day in range(5):
        say(tenant, [NOTED[day % 3], DISTINCT[day]], session=f"day{day}",
            timestamp=f"2025-01-1{day}T10:00:00Z")
    small = dataclasses.replace(options(ctx), batch_size=3)  # the five "noted" in three batches
    result = consolidate(ctx, tenant.id, options=small)
    [once] = summaries(tenant)
    assert once["metadata"]["summary_of"] == 5 and (result.summaries, result.merged) == (1, 5)
    assert {s["session_id"] for s in once["sources"]} == {f"day{day}" for day in range(5)}
    assert consolidate(ctx, tenant.id, options=small).summaries == 0


def test_a_line_said_again_after_a_run_extends_its_summary_and_no_summary_alike_is_written(ctx, tenant):
    # A user who says "I had a long day at work." every week got one more identical summary every run.
    for day in range(3):
        say(tenant, [LONG_DAY, DISTINCT[day]], session=f"day{day}", timestamp=f"2025-01-1{day}T10:00:00Z")
    first = consolidate(ctx, tenant.id, options=options(ctx))
    [summary] = summaries(tenant)
    assert (first.summaries, first.extended, summary["metadata"]["summary_of"]) == (1, 0, 3)

    for day in (5, 6):  # said twice again since
        say(tenant, [LONG_DAY, "Noted."], session=f"day{day}", timestamp=f"2025-01-1{day}T10:00:00Z")
    second = consolidate(ctx, tenant.id, options=options(ctx))
    assert (second.summaries, second.extended, second.merged) == (1, 1, 4)  # the new one: "Noted." twice
    [again] = [s for s in summaries(tenant) if s["content"] == LONG_DAY]
    assert again["id"] == summary["id"] and again["metadata"]["summary_of"] == 5
    assert again["valid_from"].startswith("2025-01-16") and again["session_id"] is None
    assert {s["session_id"] for s in again["sources"]} == {"day0", "day1", "day2", "day5", "day6"}
    long_days = [m for m in episodic(tenant, include_inactive=True) if m["content"] == LONG_DAY and m["type"] != "summary"]
    assert len(long_days) == 5 and not any(m["active"] for m in long_days)
    history = tenant.get(f"/v1/memories/{summary['id']}/history").json()["history"]
    assert {m["id"] for m in history} == {m["id"] for m in long_days} | {summary["id"]}

    # said once more: one line alone is no group, but it says what a summary says, so it joins it
    say(tenant, ["i had a long day at work"], session="day8", timestamp="2025-01-18T10:00:00Z")
    third = consolidate(ctx, tenant.id, options=options(ctx))
    assert (third.summaries, third.extended, third.merged) == (0, 1, 1)
    assert [s["content"] for s in summaries(tenant)].count(LONG_DAY) == 1
    state = snapshot(ctx, tenant.id)
    assert consolidate(ctx, tenant.id, options=options(ctx)).merged == 0
    assert snapshot(ctx, tenant.id) == state

    # erasing the newest saying erases the summary, whichever run added it; the other five come back
    newest = next(m for m in episodic(tenant, include_inactive=True) if m["content"] == "i had a long day at work")
    assert tenant.delete(f"/v1/memories/{newest['id']}").status_code in (200, 204)
    assert tenant.get(f"/v1/memories/{summary['id']}").status_code == 404
    back = [m for m in episodic(tenant) if m["content"] == LONG_DAY]
    assert len(back) == 5 and all(m["type"] != "summary" for m in back)


def test_a_group_of_lines_that_differ_said_again_extends_its_summary(ctx, tenant):
    say(tenant, HIKING, session="a")
    consolidate(ctx, tenant.id, options=options(ctx))
    [summary] = summaries(tenant)
    say(tenant, [HIKING[2], HIKING[1], HIKING[0].upper() + "!"], session="b", timestamp="2025-02-10T10:00:00Z")
    again = consolidate(ctx, tenant.id, options=options(ctx))
    assert (again.summaries, again.extended, again.merged) == (0, 1, 3)
    [extended] = summaries(tenant)
    assert extended["id"] == summary["id"] and extended["content"] == summary["content"]
    assert extended["metadata"]["summary_of"] == 6 and extended["session_id"] is None
    assert extended["valid_from"].startswith("2025-02-10")


def test_a_line_of_a_mixed_summary_said_again_extends_it_and_is_no_summary_of_its_own(ctx, tenant):
    say(tenant, HIKING[:2], session="a")
    consolidate(ctx, tenant.id, options=options(ctx))
    [mixed] = summaries(tenant)
    say(tenant, [HIKING[1], HIKING[1].upper()], session="b", timestamp="2025-02-10T10:00:00Z")
    again = consolidate(ctx, tenant.id, options=options(ctx))
    assert (again.summaries, again.extended, again.merged) == (0, 1, 2)
    [extended] = summaries(tenant)
    assert extended["id"] == mixed["id"] and extended["content"] == mixed["content"]
    assert extended["metadata"]["summary_of"] == 4 and extended["valid_from"].startswith("2025-02-10")
    # said once more, alone, it joins it too
    say(tenant, [HIKING[1]], session="c", timestamp="2025-02-11T10:00:00Z")
    assert consolidate(ctx, tenant.id, options=options(ctx)).extended == 1
    assert [s["metadata"]["summary_of"] for s in summaries(tenant)] == [5]


def _summary_as_before(ctx, tenant_id: str, user: str, content: str, lines: list[str]) -> str:
    """A summary of `lines` written as a run before summaries were extended wrote one alike: anew."""
    import hashlib
    import uuid

    from memex.db import consolidation as rows

    members = ctx.db.connection().execute(
        "SELECT valid_from, importance FROM memories WHERE tenant_id = %s AND id = ANY(%s)", (tenant_id, lines)).fetchall()
    summary_id = str(uuid.uuid4())
    with ctx.db.transaction() as conn:
        locks.lock_user(conn, tenant_id, user)
        assert rows.write_summary(conn, tenant_id, {
            "id": summary_id, "user_id": user, "agent_id": None, "session_id": None, "memory_type": "episodic",
            "content": content, "importance": max(m["importance"] for m in members),
            "embedding": ctx.embedder.embed([content])[0], "valid_from": max(m["valid_from"] for m in members),
            "dedupe_key": "summary:" + hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest(),
            "metadata": {"summary_of": len(lines), "summarised_by": "extractive"}}, lines,
            datetime.now(timezone.utc))
    return summary_id


def _alike(ctx, tenant, user: str) -> tuple[str, list[str], str, list[str]]:
    """Two active summaries of LONG_DAY, as runs before `extended` left them: the older one's id and
    lines, and the newer one's."""
    for day in range(3):
        say(tenant, [LONG_DAY, DISTINCT[day]], session=f"day{day}", timestamp=f"2025-01-1{day}T10:00:00Z", user=user)
    consolidate(ctx, tenant.id, user, options(ctx))
    [older] = [m["id"] for m in episodic(tenant, user=user) if m["type"] == "summary"]
    for day in (5, 6):
        say(tenant, [LONG_DAY.lower()], session=f"day{day}", timestamp=f"2025-01-1{day}T10:00:00Z", user=user)
    newer_lines = [m["id"] for m in episodic(tenant, user=user) if m["content"] == LONG_DAY.lower()]
    newer = _summary_as_before(ctx, tenant.id, user, LONG_DAY.lower(), newer_lines)
    older_lines = [m["id"] for m in episodic(tenant, include_inactive=True, user=user)
                   if m["content"] == LONG_DAY and m["type"] != "summary"]
    assert len(older_lines) == 3 and len(newer_lines) == 2
    return older, older_lines, newer, newer_lines


def test_summaries_alike_from_runs_before_extension_end_into_the_newest_and_erasure_follows_every_line(ctx, tenant):
    older, older_lines, newer, newer_lines = _alike(ctx, tenant, tenant.user)
    assert len([m for m in episodic(tenant) if m["type"] == "summary"]) == 2

    result = consolidate(ctx, tenant.id, options=options(ctx))
    assert (result.alike_ended, result.summaries, result.extended, result.merged) == (1, 0, 0, 0)
    [kept] = summaries(tenant)
    assert kept["id"] == newer and kept["metadata"]["summary_of"] == 5
    assert kept["valid_from"].startswith("2025-01-16") and kept["session_id"] is None
    assert {s["session_id"] for s in kept["sources"]} == {"day0", "day1", "day2", "day5", "day6"}
    assert all(s["message_id"] for s in kept["sources"])
    ended = tenant.get(f"/v1/memories/{older}").json()
    assert not ended["active"] and ended["valid_to"]
    history = tenant.get(f"/v1/memories/{newer}/history").json()["history"]
    assert {m["id"] for m in history} == {newer, older, *older_lines, *newer_lines}
    state = snapshot(ctx, tenant.id)
    assert consolidate(ctx, tenant.id, options=options(ctx)).alike_ended == 0
    assert snapshot(ctx, tenant.id) == state
    # said again: the one left takes it in
    say(tenant, [LONG_DAY], session="day8", timestamp="2025-01-18T10:00:00Z")
    assert consolidate(ctx, tenant.id, options=options(ctx)).extended == 1
    assert [s["metadata"]["summary_of"] for s in summaries(tenant)] == [6]

    # erasing a line of the one ended erases both; every other line comes back
    assert tenant.delete(f"/v1/memories/{older_lines[0]}").status_code in (200, 204)
    assert tenant.get(f"/v1/memories/{newer}").status_code == 404
    assert tenant.get(f"/v1/memories/{older}").status_code == 404
    back = [m for m in episodic(tenant) if m["content"].lower() == LONG_DAY.lower()]
    assert len(back) == 5 and all(m["type"] != "summary" for m in back)


def test_erasing_a_line_of_the_summary_kept_makes_the_one_it_ended_current_again(ctx, tenant):
    older, older_lines, newer, newer_lines = _alike(ctx, tenant, tenant.user)
    consolidate(ctx, tenant.id, options=options(ctx))
    assert [s["id"] for s in summaries(tenant)] == [newer]
    assert tenant.delete(f"/v1/memories/{newer_lines[0]}").status_code in (200, 204)
    assert tenant.get(f"/v1/memories/{newer}").status_code == 404
    [again] = summaries(tenant)
    assert again["id"] == older and again["metadata"]["summary_of"] == 3
    assert {m["id"] for m in episodic(tenant) if m["type"] != "summary" and "long day" in m["content"]} == {newer_lines[1]}
    history = tenant.get(f"/v1/memories/{older}/history").json()["history"]
    assert {m["id"] for m in history} == {older, *older_lines}


def test_only_users_over_the_threshold_and_memories_old_enough(ctx, tenant):
    say(tenant, HIKING)
    say(tenant, HIKING, session="recent", timestamp=None)  # said now
    count = len(episodic(tenant))
    assert consolidate(ctx, tenant.id, options=options(ctx, threshold=count)).users == 0
    result = consolidate(ctx, tenant.id, options=options(ctx, threshold=count - 1, min_age_days=30))
    assert (result.users, result.merged) == (1, 3)
    [summary] = summaries(tenant)
    assert summary["session_id"] == "s1"
    assert sum(1 for m in episodic(tenant) if m["session_id"] == "recent") == 3


def test_only_the_named_user_and_never_another_tenant(ctx, tenant, other_tenant):
    say(tenant, HIKING)
    say(tenant, HIKING, user="someone-else")
    say(other_tenant, HIKING)
    result = consolidate(ctx, tenant.id, tenant.user, options(ctx))
    assert (result.users, result.summaries) == (1, 1)
    assert summaries(tenant) and not [m for m in episodic(tenant, user="someone-else") if m["type"] == "summary"]
    assert not summaries(other_tenant)


def test_a_run_waits_for_the_users_lock(ctx, tenant):
    say(tenant, HIKING)
    holder = ctx.db.__class__(lambda: ctx.db.dsn)
    outcome = {}
    with holder.transaction() as conn:
        locks.lock_user(conn, tenant.id, tenant.user)
        run = threading.Thread(target=lambda: outcome.setdefault("result", consolidate(ctx, tenant.id, options=options(ctx))))
        run.start()
        waiting = False
        for _ in range(600):  # up to a minute for the run to reach the lock
            waiting = waits_on_users_lock(conn, tenant.id, tenant.user)
            if waiting or not run.is_alive():
                break
            time.sleep(0.1)
        assert waiting, "the run did not wait on the user's lock"
        assert not summaries(tenant)
    run.join(timeout=60)
    holder.reset()
    assert outcome["result"].summaries == 1 and len(summaries(tenant)) == 1


def test_erasing_a_source_removes_the_summary_and_its_other_sources_come_back(ctx, tenant):
    say(tenant, HIKING + ["I love hiking in the Alps with my sister every summer, code zq81"])
    originals = [m for m in episodic(tenant) if "hiking" in m["content"]]
    consolidate(ctx, tenant.id, options=options(ctx))
    [summary] = summaries(tenant)
    assert "zq81" in summary["content"]

    erased = next(m for m in originals if "zq81" in m["content"])
    assert tenant.delete(f"/v1/memories/{erased['id']}").status_code in (200, 204)
    assert tenant.get(f"/v1/memories/{summary['id']}").status_code == 404
    active = {m["id"] for m in episodic(tenant)}
    assert {m["id"] for m in originals if m is not erased} <= active
    # a new run summarises what is left, without what was erased
    consolidate(ctx, tenant.id, options=options(ctx))
    [again] = summaries(tenant)
    assert "zq81" not in again["content"] and len(again["sources"]) == 3
    leftovers = ctx.db.connection().execute(
        "SELECT count(*) AS n FROM memories WHERE tenant_id = %s AND content LIKE %s", (tenant.id, "%zq81%")).fetchone()
    assert leftovers["n"] == 0


def test_erasing_a_session_removes_the_summaries_citing_it(ctx, tenant):
    say(tenant, HIKING[:2], session="a")
    say(tenant, HIKING[2:], session="b")
    consolidate(ctx, tenant.id, options=options(ctx))
    [summary] = summaries(tenant)
    assert summary["session_id"] is None and {s["session_id"] for s in summary["sources"]} == {"a", "b"}
    assert tenant.delete("/v1/sessions/b", params={"user_id": tenant.user}).status_code in (200, 204)
    assert not summaries(tenant)
    assert sorted(m["content"] for m in episodic(tenant)) == sorted(HIKING[:2])


def test_erasing_a_summary_erases_what_it_summarises(ctx, tenant):
    say(tenant, HIKING + OTHERS)
    consolidate(ctx, tenant.id, options=options(ctx))
    [summary] = summaries(tenant)
    assert tenant.delete(f"/v1/memories/{summary['id']}").status_code in (200, 204)
    left = episodic(tenant, include_inactive=True)
    assert not [m for m in left if "hiking" in m["content"]]
    assert len(left) == len(OTHERS)
    assert consolidate(ctx, tenant.id, options=options(ctx)).summaries == 0


@pytest.fixture
def llm_ctx(ctx):
    with OpenAIDouble() as double:
        settings = dataclasses.replace(ctx.settings, llm_base_url=double.base_url, llm_model="test-model")
        yield dataclasses.replace(ctx, settings=settings), double


def test_the_llm_writes_the_summary_when_configured(llm_ctx, tenant):
    llm, double = llm_ctx
    say(tenant, HIKING)
    double.script_chat(json.dumps({"summary": "The user loves hiking in the Alps with their sister every summer."}))
    result = consolidate(llm, tenant.id, options=options(llm))
    assert (result.summaries, result.llm_fallbacks) == (1, 0)
    [summary] = summaries(tenant)
    assert summary["content"] == "The user loves hiking in the Alps with their sister every summer."
    assert summary["metadata"]["summarised_by"] == "llm" and len(summary["sources"]) == 3
    [request] = double.chat_requests
    assert all(line in request["messages"][1]["content"] for line in HIKING)


def test_the_llm_is_asked_each_line_once_however_often_it_was_said(llm_ctx, tenant):
    llm, double = llm_ctx
    say(tenant, ["Noted.", "noted", "Noted!", "Noted.", HIKING[0], HIKING[0], HIKING[1]])
    double.script_chat(json.dumps({"summary": "The user noted it."}),
                       json.dumps({"summary": "The user loves hiking in the Alps with their sister."}))
    result = consolidate(llm, tenant.id, options=options(llm))
    assert (result.summaries, result.merged, result.llm_fallbacks) == (2, 7, 0)
    [asked] = [json.loads(r["messages"][1]["content"])["lines"] for r in double.chat_requests]
    assert sorted(asked) == sorted([HIKING[0], HIKING[1]])


def test_the_llm_is_not_asked_about_one_line_nor_about_what_a_summary_says_already(llm_ctx, tenant):
    llm, double = llm_ctx
    say(tenant, ["Noted.", "noted", "Noted!"] + HIKING)
    double.script_chat(json.dumps({"summary": "The user loves hiking in the Alps with their sister every summer."}))
    first = consolidate(llm, tenant.id, options=options(llm))
    assert (first.summaries, first.llm_fallbacks) == (2, 0)
    [request] = double.chat_requests  # the hiking lines; "Noted." three times is its own summary
    assert sorted(json.loads(request["messages"][1]["content"])["lines"]) == sorted(HIKING)
    [noted] = [s for s in summaries(tenant) if s["content"] in ("Noted.", "noted", "Noted!")]
    assert noted["metadata"] == {"summary_of": 3, "summarised_by": "extractive"}

    # both said again later: both summaries take them in, and the model is not asked again
    say(tenant, ["noted", HIKING[2], HIKING[1], HIKING[0]], session="later", timestamp="2025-03-01T10:00:00Z")
    again = consolidate(llm, tenant.id, options=options(llm))
    assert (again.summaries, again.extended, again.merged) == (0, 2, 4)
    assert len(double.chat_requests) == 1
    assert sorted(s["metadata"]["summary_of"] for s in summaries(tenant)) == [4, 6]


def test_without_a_usable_llm_answer_the_summary_is_extractive(llm_ctx, tenant):
    llm, double = llm_ctx
    say(tenant, HIKING)
    double.fail("/v1/chat/completions", "500")
    result = consolidate(llm, tenant.id, options=options(llm))
    assert (result.summaries, result.llm_fallbacks) == (1, 1)
    [summary] = summaries(tenant)
    assert summary["metadata"]["summarised_by"] == "extractive (llm failed)"
    assert words(" ".join(HIKING)) <= words(summary["content"])


# ---- the command and the scheduled function --------------------------------------------------------

def test_the_cli_consolidates_with_its_flags_overriding_the_settings(ctx, tenant):
    say(tenant, HIKING)
    # as an operator runs it: MEMEX_METRICS unset (this process's runtime set it), so that the
    # summary's embedding writes no metric line into the JSON answer
    env = {**{k: v for k, v in os.environ.items() if k != "MEMEX_METRICS"},
           "DATABASE_URL": ctx.db.dsn, "MEMEX_CONSOLIDATION_THRESHOLD": "100000"}

    def memex(*args):
        done = subprocess.run([sys.executable, "-m", "infra.cli", "consolidate", "--tenant", tenant.id, *args],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert memex("--user", tenant.user)["users"] == 0  # the configured threshold
    assert memex("--user", tenant.user, "--threshold", "0", "--min-age-days", "100000")["merged"] == 0
    assert memex("--user", tenant.user, "--threshold", "0")["merged"] == 3
    assert len(summaries(tenant)) == 1


def test_the_scheduled_function_runs_on_its_sample_event(runtime):
    event = json.loads((ROOT / "events" / "consolidate.json").read_text())
    answer = function_module("consolidate").handler(event, LocalLambdaContext("consolidate"))
    assert set(answer) == {"users", "summaries", "merged", "extended", "alike_ended", "llm_fallbacks", "out_of_time"}


# ---- within the invocation's time -------------------------------------------------------------------

COOKING = ["I bake sourdough bread at home every Sunday morning",
           "I bake sourdough bread at home every single Sunday morning",
           "I really bake sourdough bread at home every Sunday morning"]


class _ShortLambdaContext(LocalLambdaContext):
    """An invocation with this many seconds left (the template gives ConsolidateFunction 900)."""

    def __init__(self, seconds_left: float):
        super().__init__("consolidate")
        self.seconds_left = seconds_left

    def get_remaining_time_in_millis(self) -> int:
        return int(self.seconds_left * 1000)


@pytest.fixture
def own_database(ctx):
    """The context on a database of its own: the scheduled function runs over every tenant, and
    this one has only the test's."""
    with database_of_its_own(ctx, "consolidation") as own:
        yield own


def test_a_run_out_of_its_lambdas_time_leaves_no_group_half_done_and_the_next_run_goes_on(own_database, monkeypatch):
    # ConsolidateFunction's chat calls had no budget: a slow model kept the run waiting until Lambda
    # stopped it wherever it was. Now they end within the invocation's time, and a batch the budget
    # cut short is not written at all (not summarised extractively for good: summaries are never
    # grouped again); the next run summarises it.
    with api_client(own_database) as http, OpenAIDouble() as double:
        tenant = Tenant(own_database, http)
        say(tenant, HIKING)
        say(tenant, COOKING, timestamp="2025-01-11T10:00:00Z")
        # every user, every memory old enough, one group a batch (HIKING's three lines, then COOKING's)
        settings = dataclasses.replace(own_database.settings, llm_base_url=double.base_url, llm_model="test-model",
                                       consolidation_threshold=0, consolidation_min_age_days=0,
                                       consolidation_batch_size=3, consolidation_similarity=0.0)
        llm = dataclasses.replace(own_database, settings=settings)
        function = function_module("consolidate")
        monkeypatch.setattr(function, "get_context", lambda: llm)
        event = json.loads((ROOT / "events" / "consolidate.json").read_text())
        hiking = "The user loves hiking in the Alps with their sister every summer."
        cooking = "The user bakes sourdough bread at home every Sunday morning."
        double.script_chat(json.dumps({"summary": hiking}))
        late = 10.0  # the answer comes past the invocation's end (and within the chat client's timeout)
        double.script_chat(json.dumps({"summary": cooking}), delay=late)
        started = time.monotonic()
        answer = function.handler(event, _ShortLambdaContext(4.0))
        # Its call was cut, not waited out: bounded by the late answer (7 s past the budget's cut, at 3 s),
        # not by the invocation's 4 s, which the work after the cut can pass on a busy machine.
        took = time.monotonic() - started
        assert took < late, took
        assert answer == {"users": 1, "summaries": 1, "merged": 3, "extended": 0, "alike_ended": 0, "llm_fallbacks": 0, "out_of_time": 1}
        [first] = summaries(tenant)
        assert first["content"] == hiking
        assert {m["content"] for m in episodic(tenant)} == {hiking, *COOKING}

        double.script_chat(json.dumps({"summary": cooking}))
        again = function.handler(event, LocalLambdaContext("consolidate"))
        assert again == {"users": 1, "summaries": 1, "merged": 3, "extended": 0, "alike_ended": 0, "llm_fallbacks": 0, "out_of_time": 0}
        written = summaries(tenant)
        assert sorted(m["content"] for m in written) == sorted([hiking, cooking])
        assert all(m["metadata"]["summarised_by"] == "llm" and len(m["sources"]) == 3 for m in written)
        assert {m["content"] for m in episodic(tenant)} == {hiking, cooking}


def test_a_run_whose_embeddings_outlast_its_lambdas_time_writes_nothing_and_the_next_run_writes_it(
        own_database, monkeypatch):
    # The summaries' embeddings through an OpenAI-compatible endpoint that hangs: cut by the
    # invocation's time, the batch is left as it was (no summary without its vector), not failed.
    from memex.embeddings.openai_compat import OpenAICompatibleEmbedder

    with api_client(own_database) as http, OpenAIDouble(dim=own_database.embedder.dim) as endpoint:
        tenant = Tenant(own_database, http)
        say(tenant, HIKING)
        settings = dataclasses.replace(own_database.settings, consolidation_threshold=0, consolidation_min_age_days=0,
                                       consolidation_similarity=0.0)
        remote = dataclasses.replace(own_database, settings=settings, embedder=OpenAICompatibleEmbedder(
            "embed-test", own_database.embedder.dim, endpoint.base_url, None))
        function = function_module("consolidate")
        monkeypatch.setattr(function, "get_context", lambda: remote)
        event = json.loads((ROOT / "events" / "consolidate.json").read_text())
        endpoint.hang_seconds = 10.0
        endpoint.fail("/v1/embeddings", "hang")
        started = time.monotonic()
        answer = function.handler(event, _ShortLambdaContext(4.0))
        assert time.monotonic() - started < endpoint.hang_seconds  # the call was cut, not waited out (as above)
        assert answer == {"users": 1, "summaries": 0, "merged": 0, "extended": 0, "alike_ended": 0, "llm_fallbacks": 0, "out_of_time": 1}
        assert sorted(m["content"] for m in episodic(tenant)) == sorted(HIKING)

        endpoint.heal("/v1/embeddings")
        again = function.handler(event, LocalLambdaContext("consolidate"))
        assert (again["summaries"], again["merged"], again["out_of_time"]) == (1, 3, 0)
        assert [len(m["sources"]) for m in summaries(tenant)] == [3]


def test_a_failure_that_is_not_the_time_running_out_is_raised_even_once_the_time_is_spent(ctx, tenant):
    # Only a call the budget cut short is "out of time" (the next run goes on): an embedder that fails
    # for another reason as the time runs out (here its endpoint's vectors of the wrong size) was also
    # reported as out of time, run after run, and its failure never seen.
    from memex import llm

    class WrongSizeAtTheEnd:
        dim = ctx.embedder.dim

        def embed(self, texts):
            while not llm.spent():
                time.sleep(0.05)
            raise ValueError(f"endpoint returned 3-d vectors, configured {self.dim}")

    say(tenant, HIKING)
    with llm.time_budget(0.3), pytest.raises(ValueError, match="3-d vectors"):
        consolidate(dataclasses.replace(ctx, embedder=WrongSizeAtTheEnd()), tenant.id, options=options(ctx))
    assert summaries(tenant) == [] and len(episodic(tenant)) == 3
