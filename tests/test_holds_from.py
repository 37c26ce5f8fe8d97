"""A fact's own time: "I moved to Paris last week." holds from the end of last week, read against when it
was said, not from when it was said (timeline.py, migration 0055; README "Times"). Its key's history still
puts the later-said value last, and a value said later but dated far back goes before the current one."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memex import pipeline, time_phrases
from memex.jobs import SupersessionJob

# A Wednesday: "last week" is Monday 2 to Sunday 8 March, over on Monday 9 March. (The LLM path's test is in
# test_pipeline_llm.py, beside its fixtures.)
SAID = "2026-03-11T10:00:00Z"
LAST_WEEK_OVER = "2026-03-09T00:00:00Z"


def _everything(tenant, key: str) -> list[dict]:
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    return sorted((m for m in listed.json()["memories"] if m["key"] == key), key=lambda m: m["created_at"])


def _cities(tenant, as_of: str) -> list[str]:
    return [r["value"] for r in tenant.search("where does the user live? Berlin Paris Rome", top_k=20, as_of=as_of)
            if r["key"] == "city"]


def test_i_moved_to_paris_last_week_holds_from_last_week_and_ends_berlin_then(ctx, tenant, runtime):
    """The README's example: asked as of a day between last week and when it was said, the user lived in
    Paris; Berlin held until then. A redelivery and a re-extraction of the turn give the same times."""
    tenant.turn("I live in Berlin.", timestamp="2026-02-01T09:00:00Z")
    moved = tenant.turn("I moved to Paris last week.", timestamp=SAID, session="s2")
    berlin, paris = _everything(tenant, "city")
    assert (berlin["value"], berlin["active"], paris["value"], paris["active"]) == ("Berlin", False, "Paris", True)
    assert paris["valid_from"] == LAST_WEEK_OVER and berlin["valid_to"] == LAST_WEEK_OVER, (berlin, paris)
    assert _cities(tenant, "2026-03-10T12:00:00Z") == ["Paris"]
    assert _cities(tenant, "2026-03-05T12:00:00Z") == ["Berlin"]
    history = tenant.get(f"/v1/memories/{paris['id']}/history").json()["history"]
    assert [(m["value"], m["valid_from"], m["valid_to"]) for m in history] == [
        ("Berlin", "2026-02-01T09:00:00Z", LAST_WEEK_OVER), ("Paris", LAST_WEEK_OVER, None)]
    ctx.publisher.publish_supersession(SupersessionJob(tenant.id, tenant.user, moved.json()["turn_id"], resend=99))
    runtime.drain()
    for follow_up in pipeline.extract_many(ctx, tenant.id, [moved.json()["turn_id"]], again=True):
        pipeline.resolve(ctx, follow_up)
    assert _everything(tenant, "city") == [berlin, paris]


def test_a_value_said_after_a_recent_one_is_current_and_its_earlier_time_does_not_erase_it(tenant):
    """"I live in Berlin." said on Tuesday, then "I moved to Paris last week." on Wednesday: the later said
    is current. Its words' time is before Berlin was said as holding: Berlin keeps the time it held (two
    cities never held at once), and Paris holds from when it was said."""
    tenant.turn("I live in Berlin.", timestamp="2026-03-10T09:00:00Z")
    tenant.turn("I moved to Paris last week.", timestamp=SAID, session="s2")
    berlin, paris = _everything(tenant, "city")
    assert (berlin["active"], paris["active"]) == (False, True)
    assert (berlin["valid_from"], berlin["valid_to"], paris["valid_from"]) == ("2026-03-10T09:00:00Z", SAID, SAID)
    assert _cities(tenant, "2026-03-10T12:00:00Z") == ["Berlin"]


def test_a_value_said_before_one_dated_earlier_but_arriving_after_it_is_not_current(tenant):
    """"I live in Lyon." said on 10 March arrives after "I moved to Paris last week." said on 11 March: Paris,
    said later, stays current. Lyon goes between Berlin and Paris, holding from when it was said until Paris
    was, and Paris, whose words went back past Lyon, holds from when it was said."""
    tenant.turn("I live in Berlin.", timestamp="2026-02-01T09:00:00Z")
    tenant.turn("I moved to Paris last week.", timestamp=SAID, session="s2")
    tenant.turn("I live in Lyon.", timestamp="2026-03-10T09:00:00Z", session="s3")
    cities = {m["value"]: m for m in _everything(tenant, "city")}
    assert [v for v, m in cities.items() if m["active"]] == ["Paris"]
    assert (cities["Berlin"]["valid_to"], cities["Lyon"]["valid_from"]) == ("2026-03-10T09:00:00Z",) * 2
    assert (cities["Lyon"]["valid_to"], cities["Paris"]["valid_from"]) == (SAID, SAID)
    assert _cities(tenant, "2026-03-10T12:00:00Z") == ["Lyon"]
    assert _cities(tenant, "2026-03-09T12:00:00Z") == ["Berlin"]
    history = tenant.get(f"/v1/memories/{cities['Paris']['id']}/history").json()["history"]
    assert [m["value"] for m in history] == ["Berlin", "Lyon", "Paris"]


def _times(tenant) -> dict[str, tuple[str, str | None]]:
    return {m["value"]: (m["valid_from"], m["valid_to"]) for m in _everything(tenant, "city")}


def test_erasing_the_value_that_took_a_words_time_back_gives_it_back(tenant):
    """Lyon, said between Paris's words' time and when Paris was said, took that time back; erasing Lyon's
    session leaves no trace of it: Paris holds from last week again, Berlin until then."""
    tenant.turn("I live in Berlin.", timestamp="2026-02-01T09:00:00Z")
    tenant.turn("I moved to Paris last week.", timestamp=SAID, session="s2")
    before = _times(tenant)
    tenant.turn("I live in Lyon.", timestamp="2026-03-10T09:00:00Z", session="s3")
    assert tenant.delete("/v1/sessions/s3", params={"user_id": tenant.user}).status_code in (200, 204)
    assert _times(tenant) == before == {"Berlin": ("2026-02-01T09:00:00Z", LAST_WEEK_OVER),
                                        "Paris": (LAST_WEEK_OVER, None)}


def test_a_statement_about_the_past_left_does_not_keep_the_words_time_taken_back(tenant):
    """"I used to live in Madrid.", said after Paris and Lyon, held at no moment after Paris's words' time:
    erasing Lyon gives Paris its time back all the same, as if Lyon had never been said."""
    tenant.turn("I live in Berlin.", timestamp="2026-02-01T09:00:00Z")
    tenant.turn("I moved to Paris last week.", timestamp=SAID, session="s2")
    tenant.turn("I used to live in Madrid.", timestamp="2026-03-12T10:00:00Z", session="s5")
    before = _times(tenant)
    assert tenant.delete("/v1/sessions/s5", params={"user_id": tenant.user}).status_code in (200, 204)
    tenant.turn("I live in Lyon.", timestamp="2026-03-10T09:00:00Z", session="s3")
    tenant.turn("I used to live in Madrid.", timestamp="2026-03-12T10:00:00Z", session="s6")
    assert tenant.delete("/v1/sessions/s3", params={"user_id": tenant.user}).status_code in (200, 204)
    assert _times(tenant) == before
    assert (before["Berlin"][1], before["Paris"]) == (LAST_WEEK_OVER, (LAST_WEEK_OVER, None))
    paris = next(m for m in _everything(tenant, "city") if m["value"] == "Paris")
    assert "own_time" not in paris["metadata"]
    assert "Paris" in _cities(tenant, "2026-03-09T12:00:00Z")


def test_erasing_a_value_by_id_gives_back_the_words_time_it_took(tenant):
    """Erased by id, Lyon goes with its past (Berlin): Paris, the only city left, holds from last week."""
    tenant.turn("I live in Berlin.", timestamp="2026-02-01T09:00:00Z")
    tenant.turn("I moved to Paris last week.", timestamp=SAID, session="s2")
    tenant.turn("I live in Lyon.", timestamp="2026-03-10T09:00:00Z", session="s3")
    lyon = next(m for m in _everything(tenant, "city") if m["value"] == "Lyon")
    assert tenant.delete(f"/v1/memories/{lyon['id']}").status_code in (200, 204)
    assert _times(tenant) == {"Paris": (LAST_WEEK_OVER, None)}


def test_a_words_time_taken_back_by_a_value_left_stays_taken_back(tenant):
    """Marseille, also said after Paris's words' time, is left when Lyon is erased: Paris still holds from when
    it was said, and Marseille until then."""
    tenant.turn("I live in Berlin.", timestamp="2026-02-01T09:00:00Z")
    tenant.turn("I moved to Paris last week.", timestamp=SAID, session="s2")
    tenant.turn("I live in Lyon.", timestamp="2026-03-10T09:00:00Z", session="s3")
    tenant.turn("I live in Marseille.", timestamp="2026-03-10T08:00:00Z", session="s4")
    assert tenant.delete("/v1/sessions/s3", params={"user_id": tenant.user}).status_code in (200, 204)
    assert _times(tenant) == {"Berlin": ("2026-02-01T09:00:00Z", "2026-03-10T08:00:00Z"),
                              "Marseille": ("2026-03-10T08:00:00Z", SAID), "Paris": (SAID, None)}


def test_a_period_asked_with_a_filter_reads_what_was_said_in_it(tenant):
    """A question that asks only what was said in a period, with a filter (retrieval/period.py): a fact
    said in it that began before it is found by when it was said."""
    tenant.turn("I live in Berlin.", timestamp="2026-02-01T09:00:00Z")
    tenant.turn("I moved to Paris last week.", timestamp=SAID, session="s2")
    answer = tenant.post("/v1/search", {"user_id": tenant.user, "query": "what did I tell you today?",
                                        "reference_time": "2026-03-11T18:00:00Z",
                                        "filters": {"memory_type": "semantic"}})
    assert answer.status_code == 200, answer.text
    [paris] = answer.json()["results"]
    assert (paris["value"], paris["valid_from"]) == ("Paris", LAST_WEEK_OVER)
    assert paris["score_parts"]["said_within"] == "2026-03-11T00:00:00Z/2026-03-12T00:00:00Z"


def test_a_time_said_in_another_clause_is_not_the_facts_own(tenant):
    """"I live in Paris and I have been vegan since 2019.": 2019 is when the diet began, not the city."""
    tenant.turn("I live in Berlin.", timestamp="2026-02-01T09:00:00Z")
    tenant.turn("I live in Paris and I have been vegan since 2019.", timestamp=SAID, session="s2")
    berlin, paris = _everything(tenant, "city")
    assert (paris["value"], paris["active"], paris["valid_from"], berlin["valid_to"]) == ("Paris", True, SAID, SAID)
    [vegan] = _everything(tenant, "dietary_restriction")
    assert (vegan["value"], vegan["valid_from"]) == ("vegan", "2019-01-01T00:00:00Z")


@pytest.mark.parametrize("said, key, value", [
    ("I'm moving to Lisbon in May.", "plan", "moving to Lisbon in May"),
    ("I'm starting at Google in May.", "next_job", "starting at Google in May"),
])
def test_a_time_to_come_is_never_a_facts_own(tenant, said, key, value):
    """A plan's or a job to come's time is when it is to happen, not when the plan began (read as last
    May, it held from last June)."""
    tenant.turn("I'm planning a trip to Japan.", timestamp="2026-03-01T09:00:00Z")
    tenant.turn("I'm starting at Stripe next month.", timestamp="2026-03-01T09:00:00Z", session="s1b")
    tenant.turn(said, timestamp=SAID, session="s2")
    [fact] = [m for m in _everything(tenant, key) if m["value"] == value]
    assert (fact["active"], fact["valid_from"]) == (True, SAID)
    if key == "next_job":
        [stripe] = [m for m in _everything(tenant, key) if m["value"] != value]
        assert (stripe["active"], stripe["valid_to"]) == (False, SAID)


def test_a_day_soon_to_come_is_not_last_years(tenant):
    """"I moved to Paris on 12 March." said on 11 March: not 12 March of last year, before Berlin was said."""
    tenant.turn("I live in Berlin.", timestamp="2026-02-01T09:00:00Z")
    tenant.turn("I moved to Paris on 12 March.", timestamp=SAID, session="s2")
    berlin, paris = _everything(tenant, "city")
    assert (paris["active"], paris["valid_from"], berlin["valid_to"]) == (True, SAID, SAID)
    assert _cities(tenant, "2026-02-15T00:00:00Z") == ["Berlin"]


@pytest.mark.parametrize("said", ["I lived in Rome in 2015.", "I lived in Rome from 2015 to 2018."])
def test_a_story_of_the_past_said_later_but_dated_before_the_current_value_leaves_it_current(tenant, said):
    """A production memory does not let a story of the past take the present back: "I lived in Rome in 2015."
    said after "I live in Paris." (said in 2024) goes in the city's history at its own time, before Paris,
    which stays current; "I lived in Rome from 2015 to 2018." is a statement about the past."""
    tenant.turn("I live in Paris.", timestamp="2024-01-10T09:00:00Z")
    tenant.turn(said, timestamp="2024-03-01T09:00:00Z", session="s2")
    cities = {m["value"]: m for m in _everything(tenant, "city")}
    assert [v for v, m in cities.items() if m["active"]] == ["Paris"]
    assert cities["Rome"]["valid_to"] <= cities["Paris"]["valid_from"] == "2024-01-10T09:00:00Z", cities
    assert _cities(tenant, "2024-02-01T00:00:00Z") == ["Paris"]
    history = tenant.get(f"/v1/memories/{cities['Paris']['id']}/history").json()["history"]
    assert [m["value"] for m in history] == ["Rome", "Paris"]


# Paris said on 5 April 2026, after every time below but "since last year"'s; the second said on 15 April.
@pytest.mark.parametrize("first, said, key, current", [
    ("I live in Paris.", "I've lived in Lyon since 2019.", "city", "Lyon"),
    ("I live in Paris.", "I have lived in Lyon since last year.", "city", "Lyon"),
    ("I live in Paris.", "I moved to Lyon three months ago.", "city", "Lyon"),
    ("I live in Paris.", "I moved to Lyon in March.", "city", "Lyon"),
    ("I live in Paris.", "I moved to Lyon in 2020.", "city", "Lyon"),
    ("I live in Paris.", "I moved to Lyon two years ago.", "city", "Lyon"),
    ("I live in Paris.", "I moved to Lyon last week.", "city", "Lyon"),
    ("I live in Paris.", "I lived in Lyon in 2015.", "city", "Paris"),
    ("I live in Paris.", "I used to live in Lyon.", "city", "Paris"),
    ("I work at Stripe.", "I started at Notion three months ago.", "employer", "Notion"),
    ("I work at Stripe.", "I worked at Google in 2015.", "employer", "Stripe"),
    ("I work at Stripe.", "I left Google in 2019.", "employer", "Stripe"),
    ("I work at Google.", "I left Google in 2019.", "employer", None),
    ("My girlfriend is Sam.", "Sam and I split up three months ago.", "partner_name", None),
    # a parting's leaving word said of the value, a dot in the value or a denial elsewhere in the sentence (revAF)
    ("I live in St. Louis.", "I moved away from St. Louis in 2019.", "city", None),
    ("I live in Rome.", "I couldn't stand it so I moved out of Rome in 2019.", "city", None),
])
def test_a_statement_of_the_present_replaces_the_current_value_whatever_its_own_time(tenant, first, said, key,
                                                                                    current):
    """What the user says of the present is their present, however long it has held ("since 2019", "three
    months ago", "in March"): only a story of the past, a fact said as over or a parting, stands at its own
    time behind a value said since (timeline.times); one that names the current value ends it."""
    tenant.turn(first, timestamp="2026-04-05T09:00:00Z")
    tenant.turn(said, timestamp="2026-04-15T10:00:00Z", session="s2")
    assert [m["value"] for m in _everything(tenant, key) if m["active"]] == ([current] if current else [])


def test_a_parting_that_names_a_value_said_since_its_time_ends_it_when_said(tenant):
    """"I left Google in 2019." said after "I work at Google.": Google, named in April, is over; it ended by
    the time the parting was said (the history holds no end of it before), and the parting follows it."""
    tenant.turn("I work at Google as an engineer.", timestamp="2026-04-05T09:00:00Z")
    tenant.turn("I left Google in 2019.", timestamp="2026-04-15T10:00:00Z", session="s2")
    google, left = _everything(tenant, "employer")
    [role, *_] = _everything(tenant, "role")
    assert (google["active"], google["valid_to"], role["active"], role["valid_to"]) == (
        False, "2026-04-15T10:00:00Z", False, "2026-04-15T10:00:00Z")
    assert (left["active"], left["valid_from"], left["valid_to"]) == (False, "2026-04-15T10:00:00Z",
                                                                      "2026-04-15T10:00:00Z")
    history = tenant.get(f"/v1/memories/{left['id']}/history").json()["history"]
    assert [m["id"] for m in history] == [google["id"], left["id"]]


@pytest.mark.parametrize("first, said, key", [
    ("I live in Rome.", "I lived in Rome in 2015.", "city"),
    ("I work at Google.", "I worked at Google in 2015.", "employer"),
    # a leaving word of another clause, of something else, or denied, is no parting of the value (review revAE)
    ("I work at Google.", "I worked at Google in 2015, the year I quit smoking.", "employer"),
    ("I work at Google.", "I worked at Google in 2015 and lost a lot of weight.", "employer"),
    ("I live in Rome.", "I lived in Rome in 2015, when I sold my car.", "city"),
    ("I live in Rome.", "I lived in Rome in 2015, the year I gave up coffee.", "city"),
    ("I live in Rome.", "I lived in Rome in 2015 and I never left.", "city"),
    ("I work at Google.", "I worked at Google in 2015 when my wife and I divorced.", "employer"),
    ("I live in Rome.", "I lived in Rome in 2015 when my husband and I separated.", "city"),
    ("I work at Google.", "In 2015 I quit smoking and worked at Google.", "employer")])
def test_a_story_of_the_past_naming_the_current_value_at_a_far_time_leaves_it_current(tenant, first, said, key):
    """"I lived in Rome in 2015." said after "I live in Rome.": no parting, the Rome of 2015 goes before the one
    said since, which stays current."""
    tenant.turn(first, timestamp="2024-04-05T09:00:00Z")
    tenant.turn(said, timestamp="2026-04-15T10:00:00Z", session="s2")
    current = _everything(tenant, key)[0]
    assert (current["active"], current["valid_to"]) == (True, None)


def _rome_said_today_after_paris(tenant, said: str) -> tuple[dict, dict]:
    """Paris (2024), then `said` of Rome today: what was said today, history included, is Rome alone; the
    city's two memories."""
    tenant.turn("I live in Paris.", timestamp="2024-01-10T09:00:00Z")
    tenant.turn(said, timestamp=SAID, session="s2")
    answer = tenant.post("/v1/search", {"user_id": tenant.user, "query": "what did I tell you today?",
                                        "reference_time": "2026-03-11T18:00:00Z", "include_inactive": True,
                                        "filters": {"memory_type": "semantic"}})
    assert answer.status_code == 200, answer.text
    assert [r["value"] for r in answer.json()["results"]] == ["Rome"]
    paris, rome = _everything(tenant, "city")
    return paris, rome


def test_a_story_of_the_past_keeps_when_it_was_said_as_its_said_time(tenant):
    """"I lived in Rome in 2015.", said today after Paris, stands in the city's history in 2015 and holds from
    then, but was said today: a question of what was said today, history included, finds it (its `valid_from`
    in the store is when it was said; `holds_from` when it began), and Paris's history lists it first."""
    paris, rome = _rome_said_today_after_paris(tenant, "I lived in Rome in 2015.")
    assert (rome["value"], rome["active"], rome["valid_from"]) == ("Rome", False, "2016-01-01T00:00:00Z")
    history = tenant.get(f"/v1/memories/{paris['id']}/history").json()["history"]
    assert [m["value"] for m in history] == ["Rome", "Paris"]


@pytest.mark.parametrize("said", ["I used to live in Rome.", "I lived in Rome last week."])
def test_a_statement_about_the_past_without_a_far_time_is_found_as_said_when_said(tenant, said):
    """"I used to live in Rome.", said today after Paris (2024): it stands in the city's history before Paris
    and holds at no moment, but was said today (`valid_from`): what was said today finds it, and no `as_of`
    makes it current."""
    paris, rome = _rome_said_today_after_paris(tenant, said)
    assert (rome["value"], rome["active"], rome["valid_to"]) == ("Rome", False, "2024-01-10T09:00:00Z")
    history = tenant.get(f"/v1/memories/{paris['id']}/history").json()["history"]
    assert [m["value"] for m in history] == ["Rome", "Paris"]
    for at in ("2024-01-10T08:00:00Z", "2024-01-10T09:00:00Z", "2026-03-11T10:00:00Z", "2026-03-12T00:00:00Z"):
        assert _cities(tenant, at) == ([] if at < "2024-01-10T09" else ["Paris"]), at


def test_the_first_value_and_the_one_before_are_read_in_the_order_history_lists(tenant):
    """"I lived in Rome in 2015.", said after Berlin (2024) and Paris (2025), is the first city the memory's
    history lists: "the first city" and "before Berlin" answer Rome (retrieval/chains.py), not Berlin."""
    tenant.turn("I live in Berlin.", timestamp="2024-01-01T09:00:00Z")
    tenant.turn("I moved to Paris.", timestamp="2025-01-01T09:00:00Z", session="s2")
    tenant.turn("I lived in Rome in 2015.", timestamp=SAID, session="s3")
    [paris] = [m for m in _everything(tenant, "city") if m["active"]]
    history = tenant.get(f"/v1/memories/{paris['id']}/history").json()["history"]
    assert [m["value"] for m in history] == ["Rome", "Berlin", "Paris"]
    first = tenant.search("What was the first city I lived in?", top_k=5)[0]
    assert (first["value"], first["score_parts"].get("chain")) == ("Rome", "first")
    before = tenant.search("Where did I live before Berlin?", top_k=5)[0]
    assert (before["value"], before["score_parts"].get("chain")) == ("Rome", "before")


@pytest.mark.parametrize("paris", [False, True])
def test_a_value_that_ends_where_the_next_one_begins_is_read_first_as_history_lists_it(tenant, paris):
    """"I used to live in Rome.", said after Berlin, stands where Berlin does and ended first: history lists it
    first, and so does "the first city" (one order, history.send_chain_facts), whatever their texts."""
    tenant.turn("I live in Berlin.", timestamp="2024-01-01T09:00:00Z")
    tenant.turn("I used to live in Rome.", timestamp="2025-03-01T09:00:00Z", session="s3")
    if paris:
        tenant.turn("I moved to Paris.", timestamp="2026-01-01T09:00:00Z", session="s2")
    [current] = [m for m in _everything(tenant, "city") if m["active"]]
    history = tenant.get(f"/v1/memories/{current['id']}/history").json()["history"]
    assert [m["value"] for m in history] == ["Rome", "Berlin", "Paris"][:3 if paris else 2]
    first = tenant.search("What was the first city I lived in?", top_k=5)[0]
    assert (first["value"], first["score_parts"].get("chain")) == ("Rome", "first")
    if paris:
        before = tenant.search("Where did I live before Paris?", top_k=5)[0]
        assert (before["value"], before["score_parts"].get("chain")) == ("Berlin", "before")
    # Nothing is listed before Rome: Berlin, listed after it on the tie, is no answer of "before" (review revAE).
    assert all(r["score_parts"].get("chain") != "before"
               for r in tenant.search("Where did I live before Rome?", top_k=5)), "Berlin read as before Rome"


def test_where_a_memory_stands_and_began_reads_the_same_in_python_as_in_sql(ctx, tenant):
    """validity.stands_at/began_at (the pipeline's, on rows in hand) and validity.stands/began (the reads'
    SQL) agree on every shape a fact's times take: said as holding, replaced, with its own time, its own time
    taken back, a story of the past with a far time and without, a parting."""
    from memex.db import validity

    tenant.turn("I live in Berlin.", timestamp="2026-02-01T09:00:00Z")
    tenant.turn("I moved to Paris last week.", timestamp=SAID, session="s2")
    tenant.turn("I live in Lyon.", timestamp="2026-03-10T09:00:00Z", session="s3")
    tenant.turn("I lived in Rome in 2015.", timestamp=SAID, session="s4")
    tenant.turn("I used to live in Madrid.", timestamp=SAID, session="s5")
    tenant.turn("I work at Google as an engineer.", timestamp="2026-01-05T09:00:00Z", session="s6")
    tenant.turn("I left Google last week.", timestamp=SAID, session="s7")
    tenant.turn("I adopted a cat yesterday.", timestamp=SAID, session="s8")
    rows = ctx.db.connection().execute(
        f"""SELECT m.value, m.valid_from, m.holds_from, m.valid_to, {validity.stands("m")} AS stands,
                   {validity.began("m")} AS began
            FROM memories m WHERE m.tenant_id = %s AND m.user_id = %s AND m.memory_type = 'semantic'""",
        (tenant.id, tenant.user)).fetchall()
    shapes = {(r["holds_from"] is not None, r["valid_to"] is not None and r["valid_to"] <= r["valid_from"])
              for r in rows}
    assert shapes == {(False, False), (True, False), (True, True), (False, True)}, rows
    assert [(r["value"], validity.stands_at(r), validity.moment(validity.began_at(r))) for r in rows] == [
        (r["value"], r["stands"], r["began"]) for r in rows]


def test_leaving_last_week_ends_the_job_and_its_title_then(tenant):
    tenant.turn("I work at Stripe as an engineer.", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I left Stripe last week.", timestamp=SAID, session="s2")
    [stripe, *_] = _everything(tenant, "employer")
    [role, *_] = _everything(tenant, "role")
    assert (stripe["active"], stripe["valid_to"], role["active"], role["valid_to"]) == (
        False, LAST_WEEK_OVER, False, LAST_WEEK_OVER)
    employers = [r["value"] for r in tenant.search("where does the user work? Stripe", top_k=20,
                                                   as_of="2026-03-10T00:00:00Z") if r["key"] == "employer"]
    assert employers == []


@pytest.mark.parametrize("said, words, holds_from", [
    ("I moved to Paris last week.", "last week", "2026-03-09T00:00:00+00:00"),  # a week: from its end
    ("I moved to Paris since last week.", "since last week", "2026-03-02T00:00:00+00:00"),
    ("I've lived here since 2019.", "since 2019", "2019-01-01T00:00:00+00:00"),
    ("I've been vegan since May.", "since May", "2025-05-01T00:00:00+00:00"),
    ("I moved in in 2019.", "in 2019", "2020-01-01T00:00:00+00:00"),
    ("I adopted a cat yesterday.", "yesterday", "2026-03-10T00:00:00+00:00"),  # a day: from its start
    ("I adopted a cat 3 days ago.", "3 days ago", "2026-03-08T00:00:00+00:00"),
    ("We moved in on 3 March.", "3 March", "2026-03-03T00:00:00+00:00"),  # no day either side, as a question's
    ("I started at Notion two years ago.", "two years ago", "2024-03-11T00:00:00+00:00"),
    ("I moved to Paris on 12 March.", "12 March", "2026-03-11T10:00:00+00:00"),  # soon to come: no time
    ("We split up in April.", "in April", "2026-03-11T10:00:00+00:00"),
    ("We split up in December.", "in December", "2026-01-01T00:00:00+00:00"),  # last December
    ("I live in Paris this year.", "this year", "2026-03-11T10:00:00+00:00"),  # not over
    ("I live in Paris.", None, "2026-03-11T10:00:00+00:00"),
])
def test_a_statements_own_time_is_read_as_said_against_when_it_was_said(said, words, holds_from):
    from memex import timeline
    from memex.jobs import Candidate

    assert time_phrases.named(said) == words
    candidate = Candidate("fact", "city", "Paris", "The user lives in Paris.", 0.8, 0.7, "m1", happened=words)
    assert timeline.times(candidate, datetime(2026, 3, 11, 10, tzinfo=timezone.utc)).began.isoformat() == holds_from


def test_a_statements_day_is_the_users_day():
    """Read in the offset it was said in: "yesterday", said at 08:00 in Tokyo on 11 March, is 10 March there."""
    tokyo = timezone(timedelta(hours=9))
    assert time_phrases.began("yesterday", datetime(2026, 3, 11, 8, tzinfo=tokyo)) == (
        datetime(2026, 3, 10, tzinfo=tokyo), False)


def test_a_time_said_before_its_clause_is_its_own(tenant):
    """"Last week, I moved to Paris.": the time opening the sentence, before a comma, is the move's."""
    tenant.turn("I live in Berlin.", timestamp="2026-02-01T09:00:00Z")
    tenant.turn("Last week, I moved to Paris.", timestamp=SAID, session="s2")
    berlin, paris = _everything(tenant, "city")
    assert (paris["value"], paris["active"], paris["valid_from"], berlin["valid_to"]) == (
        "Paris", True, LAST_WEEK_OVER, LAST_WEEK_OVER)


def test_a_birth_year_is_a_value_not_when_the_fact_began(tenant):
    """"My daughter was born in 2019.": 2019 is what the fact says, not a time it began to hold from."""
    tenant.turn("My daughter was born in 2019.", timestamp=SAID)
    [born] = _everything(tenant, "child_daughter_birth_year")
    assert (born["value"], born["valid_from"]) == ("2019", SAID)
