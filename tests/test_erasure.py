"""Erasure is final (issue 7, class 4): chains close over erased links, nothing erased comes back,
and no table keeps a copy. The audit reads every table the catalog lists, so a table added later
is audited too."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
import uuid
from datetime import datetime, timezone

import psycopg
import pytest

from memex import backfill, pipeline
from memex.db.erasure import ENDED_WITH_ERASED, REPLACED_ERASED
from memex.jobs import ExtractionJob, SupersessionJob
from memex_edge.context import build_context
from tests.conftest import Tenant, api_client, round_trips, waits_on_users_lock


def _all(tenant, **params) -> list[dict]:
    return tenant.get(f"/v1/users/{tenant.user}/memories",
                      params={"include_inactive": "true", "limit": 500, **params}).json()["memories"]


def _by_value(tenant, key: str) -> dict[str, dict]:
    return {m["value"]: m for m in _all(tenant) if m["key"] == key}


def _rows_mentioning(ctx, *needles: str) -> dict[str, int]:
    """For every table of the schema: how many rows contain one of `needles` anywhere (the whole
    row as text: every column, jsonb and tsvector included); and the definition of every index, a
    partial one's predicate naming its user (vector_indexes.py), as a row of "pg_indexes"."""
    found = {}
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")]
        assert {"memories", "turns", "messages", "memory_links", "tombstones", "backfills", "sessions",
                "memory_stats", "memory_terms", "memory_postings", "rate_limit_buckets"} <= set(tables)
        for table in tables:
            count = conn.execute(
                f'SELECT count(*) FROM "{table}" t WHERE ' + " OR ".join(["t::text LIKE %s"] * len(needles)),
                [f"%{n}%" for n in needles]).fetchone()[0]
            if count:
                found[table] = count
        indexes = conn.execute(
            "SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND ("
            + " OR ".join(["indexdef LIKE %s"] * len(needles)) + ")", [f"%{n}%" for n in needles]).fetchone()[0]
        if indexes:
            found["pg_indexes"] = indexes
    return found


def _facts_mentioning(ctx, tenant, needle: str) -> list[str]:
    """The contents of the user's semantic memories that say `needle` anywhere but in `raw_quote`,
    the copy of the message they were drawn from, which stays with the message (docs/api.md)."""
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        return [r[0] for r in conn.execute(
            """SELECT content FROM memories m WHERE tenant_id = %s AND user_id = %s AND memory_type = 'semantic'
                 AND m.content || coalesce(m.value, '') || coalesce(m.key, '') || (m.metadata - 'raw_quote')::text
                     LIKE %s""", (tenant.id, tenant.user, f"%{needle}%"))]


def _marker(prefix: str = "Zq") -> str:
    return prefix + uuid.uuid4().hex[:10].translate(str.maketrans("0123456789", "ghijklmnop"))



def _reextract(ctx, tenant, runtime) -> None:
    """A re-extraction of the tenant's turns, run to its end by the workers."""
    job = backfill.new_job("reextract", tenant.id)
    ctx.publisher.publish_backfill(job)
    runtime.drain()
    assert tenant.get(f"/v1/backfills/{job.backfill_id}").json()["status"] == "done"


def texts_kept(built, marker: str) -> list[str]:
    """The texts holding `marker` that the process of `built` keeps embedded (the write path's recent
    vectors and the query cache)."""
    return [text for recent in (pipeline._recent(built), built.embedder._recent)
            for _, text in list(recent._vectors) if marker in text]

def test_forgetting_a_former_employer_keeps_the_current_one(ctx, tenant, runtime):
    """"Forget that I worked at Stripe": the old value and its past go, the current value stays
    current, its chain closed over the gap, and nothing the erased value said is left in a fact,
    a search, a recall, a listing, a read as of when it held, nor after a re-extraction."""
    company = _marker()
    first = tenant.turn(f"I work at {company}.", session="s1", timestamp="2026-01-01T00:00:00Z").json()["turn_id"]
    tenant.turn("I work at Notion.", session="s2", timestamp="2026-03-01T00:00:00Z")
    employers = _by_value(tenant, "employer")
    assert company in employers["Notion"]["metadata"]["reason"]
    assert tenant.delete(f"/v1/memories/{employers[company]['id']}").json()["deleted"] == {"memories": 1}

    def unchanged() -> None:
        [notion] = [m for m in _all(tenant) if m["key"] == "employer"]
        assert (notion["value"], notion["active"], notion["valid_to"], notion["supersedes"]) == ("Notion", True, None, None)
        assert notion["metadata"]["reason"] == REPLACED_ERASED
        assert [m["value"] for m in tenant.get(f"/v1/memories/{notion['id']}/history").json()["history"]] == ["Notion"]
        assert _facts_mentioning(ctx, tenant, company) == []
        for asked in ("Where does the user work?", "Where did I work before?", f"Did I work at {company}?"):
            found = tenant.search(asked, top_k=20)
            assert "Notion" in [r["value"] for r in found if r["active"]], asked
            assert not [r for r in found if r["memory_type"] == "semantic" and company in r["content"]], asked
        assert not [r for r in tenant.search("Where did I work?", top_k=20, as_of="2026-02-01T00:00:00Z")
                    if r["memory_type"] == "semantic"]
        recalled = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "Where do I work?"})
        assert "Notion" in recalled.text and f"employer is {company}" not in recalled.text

    unchanged()
    _reextract(ctx, tenant, runtime)
    unchanged()
    # The message the fact was drawn from stays (docs/api.md); erased too, no row holds the value.
    [message] = [m for m in _all(tenant) if m["memory_type"] == "episodic" and company in m["content"]]
    tenant.delete(f"/v1/memories/{message['id']}")
    assert _rows_mentioning(ctx, company) == {}
    assert tenant.get(f"/v1/turns/{first}").json()["status"] == "processed"


def test_forgetting_a_middle_value_takes_its_past_and_keeps_what_replaced_it(ctx, tenant):
    """Lisbon → Porto → Berlin, Porto erased by id: Porto and Lisbon go, Berlin stays current."""
    older, middle = _marker(), _marker()
    for session, city, when in (("s1", older, "2026-01-01"), ("s2", middle, "2026-02-01"), ("s3", "Berlin", "2026-03-01")):
        tenant.turn(f"I live in {city}.", session=session, timestamp=f"{when}T00:00:00Z")
    cities = _by_value(tenant, "city")
    assert tenant.delete(f"/v1/memories/{cities[middle]['id']}").json()["deleted"] == {"memories": 2}
    [berlin] = _by_value(tenant, "city").values()
    assert (berlin["value"], berlin["active"], berlin["supersedes"]) == ("Berlin", True, None)
    assert berlin["metadata"]["reason"] == REPLACED_ERASED
    assert _facts_mentioning(ctx, tenant, older) == [] and _facts_mentioning(ctx, tenant, middle) == []


def test_forgetting_a_job_that_was_left_takes_the_statement_that_it_ended(ctx, tenant):
    """"I quit Stripe." states Stripe's end, naming it: it goes with Stripe; what came after stays."""
    company = _marker()
    tenant.turn(f"I work at {company}.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn(f"I quit {company}.", timestamp="2026-02-01T00:00:00Z", session="s2")
    tenant.turn("I work at Notion now.", timestamp="2026-03-01T00:00:00Z", session="s3")
    assert sorted(m["value"] for m in _all(tenant) if m["key"] == "employer") == sorted([company, company, "Notion"])
    erased = next(m for m in _all(tenant) if m["key"] == "employer" and m["metadata"].get("decision") != "end"
                  and m["value"] == company)
    assert tenant.delete(f"/v1/memories/{erased['id']}").json()["deleted"] == {"memories": 2}
    assert [(m["value"], m["active"]) for m in _all(tenant) if m["key"] == "employer"] == [("Notion", True)]
    assert _facts_mentioning(ctx, tenant, company) == []


def test_a_job_erased_by_id_does_not_come_back_from_the_turn_that_left_it(ctx, tenant, runtime):
    """"I just started at Notion, left Stripe." says both the new employer and that the old one
    ended, under one key: Stripe erased, a re-extraction (a backfill, a redelivered job, a replay
    of either turn) brings back neither Stripe nor "used to work at Stripe", only Notion, of the
    same key and turn."""
    company = "Stripe"
    first = tenant.turn(f"I work at {company}.", timestamp="2026-01-01T00:00:00Z").json()["turn_id"]
    second = tenant.turn(f"I just started at Notion, left {company}.", timestamp="2026-02-01T00:00:00Z",
                         session="s2").json()["turn_id"]
    employers = _by_value(tenant, "employer")
    assert sorted(employers) == sorted([company, "Notion"])
    tenant.delete(f"/v1/memories/{employers[company]['id']}")

    def unchanged() -> None:
        assert [(m["value"], m["active"]) for m in _all(tenant) if m["key"] == "employer"] == [("Notion", True)]
        assert _facts_mentioning(ctx, tenant, company) == []

    unchanged()
    _reextract(ctx, tenant, runtime)
    unchanged()
    for turn in (first, second):
        ctx.publisher.publish_extraction(ExtractionJob(tenant.id, turn))
        ctx.publisher.publish_supersession(SupersessionJob(tenant.id, tenant.user, turn, resend=99))
    runtime.drain()
    for follow_up in pipeline.extract_many(ctx, tenant.id, [first, second], again=True):
        pipeline.resolve(ctx, follow_up)
    unchanged()
    # The tombstones name the value by a digest, not its words.
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        tombstones = [r[0] for r in conn.execute(
            "SELECT t::text FROM tombstones t JOIN turns u ON u.tenant_id = t.tenant_id AND u.id = t.turn_id"
            " WHERE u.tenant_id = %s AND u.user_id = %s", (tenant.id, tenant.user))]
    assert tombstones and not [t for t in tombstones if company.casefold() in t.casefold()]
    # What the user says after the erasure is new: it is stored.
    tenant.turn(f"I work at {company} again.", timestamp="2026-03-01T00:00:00Z", session="s3")
    assert _by_value(tenant, "employer")[company]["active"]


def test_forgetting_a_pets_name_keeps_that_the_pet_is_gone(ctx, tenant):
    """"My dog died." ends the dog's name with a statement of another key (`pet_kind`): erasing the
    name keeps that statement, history still, its reason no longer naming the name."""
    name = _marker("Rq")
    tenant.turn(f"I have a dog named {name}.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("My dog died.", timestamp="2026-03-01T00:00:00Z", session="s2")
    [named] = [m for m in _all(tenant) if m["key"] == "pet_dog_name"]
    assert tenant.delete(f"/v1/memories/{named['id']}").json()["deleted"] == {"memories": 1}
    assert [(m["key"], m["value"], m["active"], m["metadata"]["reason"]) for m in _all(tenant) if m["key"]] == [
        ("pet_kind", "dog", False, REPLACED_ERASED)]
    assert _facts_mentioning(ctx, tenant, name) == []


def test_forgetting_a_former_employer_keeps_the_end_of_the_role_said_with_it_without_naming_it(ctx, tenant):
    """The job title said with the erased employer ended when the employer was replaced, which
    still holds: its statement stays, and its reason no longer names the erased employer."""
    company = _marker()
    tenant.turn(f"I'm a support lead at {company}.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I work at Notion now.", timestamp="2026-03-01T00:00:00Z", session="s2")
    ended = [m for m in _all(tenant) if m["key"] == "role" and m["metadata"].get("ended_by")]
    assert len(ended) == 1 and company in ended[0]["metadata"]["reason"]
    tenant.delete(f"/v1/memories/{_by_value(tenant, 'employer')[company]['id']}")
    assert [(m["value"], m["active"]) for m in _all(tenant) if m["key"] == "employer"] == [("Notion", True)]
    roles = sorted((m["value"], m["active"], m["metadata"]["reason"] == ENDED_WITH_ERASED) for m in _all(tenant)
                   if m["key"] == "role")
    assert roles == [("support lead", False, False), ("support lead", False, True)]
    assert _facts_mentioning(ctx, tenant, company) == []


def test_erasing_the_session_that_said_a_job_takes_its_end_said_in_another(ctx, tenant, runtime):
    """"I quit Stripe." (another session) names the value the erased session said: it goes with it,
    what came after stays current without naming it, and a re-extraction does not bring it back."""
    company = _marker()
    tenant.turn(f"I work at {company}.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn(f"I quit {company}.", timestamp="2026-02-01T00:00:00Z", session="s2")
    tenant.turn("I work at Notion now.", timestamp="2026-03-01T00:00:00Z", session="s3")
    assert sorted(m["session_id"] for m in _all(tenant) if m["key"] == "employer") == ["s1", "s2", "s3"]
    assert tenant.delete(f"/v1/sessions/s1?user_id={tenant.user}").json()["deleted"] == {"turns": 1, "memories": 3}
    assert [(m["value"], m["active"]) for m in _all(tenant) if m["key"] == "employer"] == [("Notion", True)]
    assert _facts_mentioning(ctx, tenant, company) == []
    _reextract(ctx, tenant, runtime)
    assert _facts_mentioning(ctx, tenant, company) == []
    # The message of the end stays (docs/api.md); erased too, no row holds the value.
    [message] = [m for m in _all(tenant) if m["memory_type"] == "episodic" and company in m["content"]]
    tenant.delete(f"/v1/memories/{message['id']}")
    assert _rows_mentioning(ctx, company) == {}


def test_erasing_the_session_that_said_a_role_with_its_employer_leaves_no_reason_naming_it(ctx, tenant):
    """The role said with the erased employer is in the same session: its end, made by the employer
    that replaced it in another, goes with it (history.ended_with), and no row names the employer."""
    company = _marker()
    tenant.turn(f"I'm a support lead at {company}.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I work at Notion now.", timestamp="2026-03-01T00:00:00Z", session="s2")
    assert [company in m["metadata"]["reason"] for m in _all(tenant) if m["metadata"].get("ended_by")] == [True]
    tenant.delete(f"/v1/sessions/s1?user_id={tenant.user}")
    assert [(m["key"], m["value"], m["active"], m["metadata"]["reason"]) for m in _all(tenant) if m["key"]] == [
        ("employer", "Notion", True, REPLACED_ERASED)]
    assert _rows_mentioning(ctx, company) == {}


def test_erasing_a_middle_link_closes_the_chain(tenant):
    for session, city, when in (("s1", "Lisbon", "2026-01-01"), ("s2", "Porto", "2026-02-01"),
                                ("s3", "Berlin", "2026-03-01")):
        tenant.turn(f"I live in {city}.", session=session, timestamp=f"{when}T00:00:00Z")
    assert tenant.delete(f"/v1/sessions/s2?user_id={tenant.user}").status_code == 200
    cities = _by_value(tenant, "city")
    assert set(cities) == {"Lisbon", "Berlin"}
    assert cities["Berlin"]["active"] and not cities["Lisbon"]["active"]
    assert cities["Lisbon"]["valid_to"] == cities["Berlin"]["valid_from"]
    assert cities["Berlin"]["supersedes"] == cities["Lisbon"]["id"]
    history = tenant.get(f"/v1/memories/{cities['Berlin']['id']}/history").json()["history"]
    assert [m["value"] for m in history] == ["Lisbon", "Berlin"]


def test_an_erased_link_leaves_no_trace_in_the_reason_of_what_replaced_it(ctx, tenant):
    # Berlin's reason read "city holds one value: 'Berlin' replaces 'Zq…'" after Zq…'s session went.
    city = "Zq" + uuid.uuid4().hex[:10].translate(str.maketrans("0123456789", "ghijklmnop"))
    for session, said, when in (("s1", "I live in Lisbon.", "2026-01-01"), ("s2", f"I live in {city}.", "2026-02-01"),
                                ("s3", "I live in Berlin.", "2026-03-01")):
        tenant.turn(said, session=session, timestamp=f"{when}T00:00:00Z")
    assert city in _by_value(tenant, "city")["Berlin"]["metadata"]["reason"]
    tenant.delete(f"/v1/sessions/s2?user_id={tenant.user}")
    assert _rows_mentioning(ctx, city) == {}
    berlin = _by_value(tenant, "city")["Berlin"]
    assert berlin["active"] and berlin["supersedes"] == _by_value(tenant, "city")["Lisbon"]["id"]
    assert berlin["metadata"]["reason"] == "what it replaced was erased"


def test_erasing_the_newest_link_makes_what_it_replaced_current_but_never_the_past(tenant):
    tenant.turn("I used to live in Paris.", session="s0", timestamp="2025-12-01T00:00:00Z")
    tenant.turn("I live in Lisbon.", session="s1", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I live in Porto.", session="s2", timestamp="2026-02-01T00:00:00Z")
    tenant.turn("I work at Stripe.", session="s3", timestamp="2026-02-02T00:00:00Z")
    tenant.delete(f"/v1/sessions/s2?user_id={tenant.user}")
    cities = _by_value(tenant, "city")
    assert cities["Lisbon"]["active"] and cities["Lisbon"]["valid_to"] is None
    assert not cities["Paris"]["active"]  # a statement about the past never becomes current
    tenant.delete(f"/v1/sessions/s3?user_id={tenant.user}")  # unrelated to the chain: changes nothing
    assert not _by_value(tenant, "city")["Paris"]["active"]


def test_a_facts_tombstone_names_the_message_it_was_drawn_from(ctx, tenant):
    """What an export leaves out (export.py): the message the erased fact was drawn from, not its turn's others."""
    turn = tenant.turn("I have a dog.", "I live in Porto.").json()["turn_id"]
    city = _by_value(tenant, "city")["Porto"]
    assert tenant.delete(f"/v1/memories/{city['id']}").status_code == 200
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        named = conn.execute("SELECT message_id FROM tombstones WHERE tenant_id = %s AND turn_id = %s",
                             (tenant.id, turn)).fetchall()
    assert named == [(city["sources"][0]["message_id"],)]


def test_a_memory_erased_by_id_goes_with_its_history_and_does_not_come_back(ctx, tenant, runtime):
    first = tenant.turn("I work at Stripe.", timestamp="2026-01-01T00:00:00Z").json()["turn_id"]
    company = f"Zq{uuid.uuid4().hex[:10]}"
    tenant.turn(f"I work at {company}.", timestamp="2026-02-01T00:00:00Z")
    erased = _by_value(tenant, "employer")[company]
    assert tenant.delete(f"/v1/memories/{erased['id']}").json()["deleted"] == {"memories": 2}
    assert _by_value(tenant, "employer") == {}
    # The fact leaves no copy; the message it was drawn from is the conversation itself, which
    # goes with its session or its episodic memory.
    assert _rows_mentioning(ctx, f"employer is {company}", erased["id"]) == {}
    # A redelivered job and a re-extraction of the turn do not bring it back.
    ctx.publisher.publish_extraction(ExtractionJob(tenant.id, first))
    ctx.publisher.publish_supersession(SupersessionJob(tenant.id, tenant.user, first, resend=99))
    runtime.drain()
    for follow_up in pipeline.extract_many(ctx, tenant.id, [first], again=True):
        pipeline.resolve(ctx, follow_up)
    assert _by_value(tenant, "employer") == {}
    assert tenant.get(f"/v1/turns/{first}").json()["status"] == "processed"


def test_a_role_ended_with_its_job_comes_back_only_with_that_job(ctx, tenant):
    """A role said with its employer ends when the employer is replaced (pipeline): erasing the
    change (its session) makes the old job and its role current again, and erasing the new job by
    id (with its past, the old job) takes the statement of the role's end with it, which says
    nothing of its own: the role is current again, as it was said, and no copy of the change is left."""
    role, company = f"zq{uuid.uuid4().hex[:8]} engineer", f"Zq{uuid.uuid4().hex[:10]}"

    def jobs() -> list[tuple]:
        return sorted((m["key"], m["value"], m["active"]) for m in _all(tenant) if m["key"] in ("role", "employer"))

    tenant.turn(f"I'm a {role} at Zendesk.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn(f"I changed jobs from Zendesk to {company}.", timestamp="2026-02-01T00:00:00Z", session="s2")
    assert ("role", role, True) not in jobs()
    tenant.delete(f"/v1/sessions/s2?user_id={tenant.user}")
    assert jobs() == [("employer", "Zendesk", True), ("role", role, True)]
    tenant.turn(f"I changed jobs from Zendesk to {company}.", timestamp="2026-02-01T00:00:00Z", session="s3")
    assert jobs() == [("employer", "Zendesk", False), ("employer", company, True), ("role", role, False),
                      ("role", role, False)]
    changed = _by_value(tenant, "employer")[company]
    assert tenant.delete(f"/v1/memories/{changed['id']}").json()["deleted"] == {"memories": 3}
    assert [(m["value"], m["active"], m["supersedes"]) for m in _all(tenant) if m["key"] == "role"] == [
        (role, True, None)]
    assert _rows_mentioning(ctx, f"used to be {role}", f"employer is {company}") == {}


def test_an_erased_message_leaves_no_copy_in_its_neighbour(ctx, tenant):
    marker = f"zq{uuid.uuid4().hex[:10]}"
    turn = tenant.turn(f"My secret word is {marker}.", "Noted, I will remember that.").json()
    episodic = {m["content"]: m for m in turn["memories"] if m["memory_type"] == "episodic"}
    erased = episodic[f"My secret word is {marker}."]
    tenant.delete(f"/v1/memories/{erased['id']}")
    assert _rows_mentioning(ctx, marker) == {}
    reply = tenant.search("remember that", mode="bm25")
    assert [r["content"] for r in reply] == ["Noted, I will remember that."]


def test_an_erased_message_leaves_no_quote_in_the_facts_drawn_from_it(ctx, tenant):
    # "Forget my sister's number": the message goes, the fact about her name drawn from it stays,
    # and that fact no longer quotes the message it came from.
    marker = f"zq{uuid.uuid4().hex[:10]}"
    turn = tenant.turn(f"My sister Jo's phone number is {marker}.").json()
    drawn = [m for m in turn["memories"] if m["key"] == "sister_name"]
    assert drawn and marker in drawn[0]["metadata"]["raw_quote"]
    message = next(m for m in turn["memories"] if m["memory_type"] == "episodic")
    tenant.delete(f"/v1/memories/{message['id']}")
    assert _rows_mentioning(ctx, marker) == {}
    kept = tenant.get(f"/v1/memories/{drawn[0]['id']}").json()
    assert kept["content"] == "The user's sister is named Jo." and "raw_quote" not in kept["metadata"]


def test_the_audit_finds_nothing_of_an_erased_user_session_or_memory(ctx, tenant, runtime):
    marker = f"zq{uuid.uuid4().hex[:10]}"
    other = f"zq{uuid.uuid4().hex[:10]}"
    session_marker = f"zq{uuid.uuid4().hex[:10]}"
    tenant.turn(f"I work at Stripe. My dog is called {marker.capitalize()}.", session="a",
                idempotency_key=f"k-{marker}")
    tenant.turn(f"I live in Lisbon. I said {session_marker} today.", session="b", wait=False,
                idempotency_key=f"k-{session_marker}")  # the session's erasure keeps a digest of it alone
    runtime.drain()
    tenant.post("/v1/memories", {"user_id": tenant.user, "content": f"Prefers {marker} tea"})
    kept = tenant.turn(f"Other user {other}.", user=f"k-{uuid.uuid4().hex[:8]}").json()["turn_id"]
    erased_ids = [m["id"] for m in _all(tenant)] + [s["session_id"] for s in tenant.get(
        f"/v1/users/{tenant.user}/sessions").json()["sessions"]]
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        erased_ids += [r[0] for r in conn.execute("SELECT id FROM turns WHERE tenant_id = %s AND user_id = %s",
                                                  (tenant.id, tenant.user))]
    assert len(erased_ids) > 5 and _rows_mentioning(ctx, tenant.user)  # the rows the audit must find gone

    tenant.delete(f"/v1/sessions/b?user_id={tenant.user}")
    assert _rows_mentioning(ctx, session_marker) == {}
    assert tenant.delete(f"/v1/users/{tenant.user}").status_code == 200
    assert _rows_mentioning(ctx, marker, marker.capitalize()) == {}
    # the user's id as any column holds it (the statistics', the sessions' rows), and the ids of its
    # turns and memories (a tombstone, a link, a summary's sources); the kept user's id holds none
    assert _rows_mentioning(ctx, tenant.user, *[i for i in erased_ids if len(i) > 8]) == {}
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        for table in ("turns", "memories"):
            left = conn.execute(f"SELECT count(*) FROM {table} WHERE tenant_id = %s AND user_id = %s",
                                (tenant.id, tenant.user)).fetchone()[0]
            assert left == 0, table
    runtime.drain()
    assert _all(tenant) == []
    assert tenant.get(f"/v1/turns/{kept}").json()["status"] == "processed"  # the other user is untouched
    assert _rows_mentioning(ctx, other)


def test_what_was_said_of_a_partner_comes_back_with_the_partnership(ctx, tenant):
    """Erasing the breakup (its session) makes the partner and what was said of them current again,
    and leaves no statement of its end behind."""
    leo = f"Zq{uuid.uuid4().hex[:8]}"  # another test's former partner may be a Leo too
    tenant.turn(f"My boyfriend {leo} is a chef.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn(f"{leo} and I broke up last week.", timestamp="2026-03-01T00:00:00Z", session="s2")

    def partner() -> list[tuple]:
        return sorted((m["key"], m["value"], m["active"]) for m in _all(tenant) if (m["key"] or "").startswith("partner_"))

    role = (f"partner_{leo.casefold()}_role", "chef", True)
    assert role not in partner()
    tenant.delete(f"/v1/sessions/s2?user_id={tenant.user}")
    assert partner() == sorted([role, ("partner_name", leo, True)])
    assert _rows_mentioning(ctx, f"former partner {leo}") == {}


def test_a_job_a_work_status_ended_comes_back_when_the_status_is_erased(tenant):
    """Erasing "I got laid off." (its session) makes the employer and the job title it ended current
    again, and no status is left."""
    tenant.turn("I work at Acme as a designer.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I got laid off last week.", timestamp="2026-03-01T00:00:00Z", session="s2")

    def job() -> list[tuple]:
        return sorted((m["key"], m["value"], m["active"]) for m in _all(tenant)
                      if m["key"] in ("employer", "role", "employment_status"))

    assert job() == [("employer", "Acme", False), ("employment_status", "out of work", True),
                     ("role", "designer", False)]
    tenant.delete(f"/v1/sessions/s2?user_id={tenant.user}")
    assert job() == [("employer", "Acme", True), ("role", "designer", True)]


def test_what_an_erasure_takes_is_not_kept_in_the_process(ctx):
    """The write path's recent vectors and the query cache are keyed by the texts themselves: an
    erased session's or user's words go from them with the erasure, not when pushed out."""
    built = build_context(dataclasses.replace(ctx.settings, embeddings_query_cache=16))

    def kept(marker: str) -> list[str]:
        return texts_kept(built, marker)

    with api_client(built) as client:
        tenant = Tenant(ctx, client)
        for erase in ("memory", f"/v1/sessions/s9?user_id={tenant.user}", f"/v1/users/{tenant.user}"):
            marker = f"zq{uuid.uuid4().hex[:10]}"
            tenant.turn(f"My locker code is {marker}.", session="s9")
            tenant.search(f"what is the locker code {marker}?")
            assert len(kept(marker)) >= 2  # what was written, and what was asked
            if erase == "memory":
                said = [m["id"] for m in _all(tenant) if marker in m["content"]]
                assert said
                erase = f"/v1/memories/{said[0]}"
            assert tenant.delete(erase).status_code == 200
            assert kept(marker) == []


def _user_rows(ctx, tenant) -> dict[str, int]:
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        return {table: conn.execute(f"SELECT count(*) FROM {table} WHERE tenant_id = %s AND user_id = %s",
                                    (tenant.id, tenant.user)).fetchone()[0]
                for table in ("turns", "memories", "memory_postings", "sessions", "user_erasures")}


def test_a_user_larger_than_a_chunk_is_erased_across_transactions(ctx):
    """MEMEX_ERASURE_CHUNK_ROWS=2: the user's five memories and three turns go two rows a transaction,
    all within the request, which answers 200 with the counts as a one-transaction erasure does."""
    built = build_context(dataclasses.replace(ctx.settings, erasure_chunk_rows=2))
    with api_client(built) as client:
        tenant = Tenant(ctx, client)
        other = f"k-{uuid.uuid4().hex[:8]}"
        tenant.turn("I work at Stripe. I live in Lisbon.", session="a")
        tenant.turn("My dog is called Rex.", session="b")
        tenant.turn("I play the cello.", session="b")
        tenant.turn("I work at Notion.", user=other)
        before = _user_rows(ctx, tenant)
        assert before["turns"] == 3 and before["memories"] > 2 * 2  # more than two chunks of memories
        kept = tenant.get(f"/v1/users/{other}/memories").json()["memories"]

        answer = tenant.delete(f"/v1/users/{tenant.user}")
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"deleted": {"turns": 3, "memories": before["memories"]}}
        assert _user_rows(ctx, tenant) == dict.fromkeys(before, 0)
        assert _rows_mentioning(ctx, tenant.user) == {}
        assert tenant.get(f"/v1/users/{other}/memories").json()["memories"] == kept  # the other user untouched


def test_an_erasure_stopped_between_chunks_shows_nothing_of_the_user_and_goes_on_when_run_again(ctx):
    """One row a transaction and no time for a second: the request answers 202, and until a DELETE sent
    again (or the sweep) has finished, the half-erased user is neither read nor written (409), in
    search, recall, listings, by id; another user of the tenant is served as ever."""
    built = build_context(dataclasses.replace(ctx.settings, erasure_chunk_rows=1, erasure_request_seconds=1e-9))
    with api_client(built) as client:
        tenant = Tenant(ctx, client)
        other = f"k-{uuid.uuid4().hex[:8]}"
        turn_id = tenant.turn("I work at Stripe. My dog is called Rex.", session="a").json()["turn_id"]
        tenant.turn("I play the cello.", session="b")
        tenant.turn("I work at Notion.", user=other)
        memory_ids = [m["id"] for m in _all(tenant)]
        before = _user_rows(ctx, tenant)
        assert len(memory_ids) >= 3

        stopped = tenant.delete(f"/v1/users/{tenant.user}")
        assert stopped.status_code == 202, stopped.text
        assert stopped.json() == {"deleted": {"turns": 0, "memories": 1}, "status": "erasing"}
        left = _user_rows(ctx, tenant)
        assert left["memories"] == before["memories"] - 1 and left["turns"] == 2 and left["user_erasures"] == 1
        with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
            (still_there,) = conn.execute("SELECT id FROM memories WHERE tenant_id = %s AND user_id = %s LIMIT 1",
                                          (tenant.id, tenant.user)).fetchone()
        user = {"user_id": tenant.user}
        refused = [
            tenant.post("/v1/search", {**user, "query": "cello"}),
            tenant.post("/v1/recall", {**user, "query": "cello"}),
            tenant.post("/search", {**user, "query": "cello"}),
            tenant.get(f"/v1/users/{tenant.user}/memories"),
            tenant.get(f"/users/{tenant.user}/memories"),
            tenant.get("/v1/memories/count", params=user),
            tenant.get(f"/v1/memories/{still_there}"),
            tenant.get(f"/v1/memories/{still_there}/history"),
            tenant.get(f"/v1/users/{tenant.user}/sessions"),
            tenant.get(f"/v1/users/{tenant.user}/turns"),
            tenant.get("/v1/sessions/b/messages", params=user),
            tenant.get(f"/v1/turns/{turn_id}"),
            tenant.turn("I moved to Porto.", session="c"),
            tenant.post("/v1/memories", {**user, "content": "likes tea"}),
        ]
        assert [(r.status_code, r.json()["error"]["code"]) for r in refused] == \
            [(409, "user_being_erased")] * len(refused), [r.text for r in refused]
        assert [r["content"] for r in tenant.search("Notion", user_id=other)]  # another user is served

        # The sweep goes on with it; a DELETE sent afterwards finds nothing left and says so (200).
        from memex import memories
        assert memories.finish_erasures(built, 60) == 1
        assert _user_rows(ctx, tenant) == dict.fromkeys(before, 0)
        assert tenant.delete(f"/v1/users/{tenant.user}").json() == {"deleted": {"turns": 0, "memories": 0}}
        assert _rows_mentioning(ctx, tenant.user) == {}
        assert _all(tenant) == [] and tenant.search("cello") == []
        assert tenant.turn("I moved to Porto.", session="c").status_code == 201  # writes are let in again


def test_an_erasure_request_time_of_0_erases_one_transaction_a_request(ctx, monkeypatch):
    """MEMEX_ERASURE_REQUEST_SECONDS=0: each DELETE erases its first transaction's rows and begins no
    other (202), the rest left to a DELETE sent again or the sweep; it used to stop the start. Below 0
    stops it, naming the setting."""
    import pytest

    from memex.config import ConfigurationError, load_settings

    monkeypatch.setenv("MEMEX_ERASURE_REQUEST_SECONDS", "-1")
    with pytest.raises(ConfigurationError, match=r"^MEMEX_ERASURE_REQUEST_SECONDS: must be 0 \(one transaction a "
                                                 r"request\) or a positive number of seconds, got -1$"):
        load_settings()
    monkeypatch.setenv("MEMEX_ERASURE_REQUEST_SECONDS", "0")
    seconds = load_settings().erasure_request_seconds
    assert seconds == 0
    built = build_context(dataclasses.replace(ctx.settings, erasure_chunk_rows=1, erasure_request_seconds=seconds))
    with api_client(built) as client:
        tenant = Tenant(ctx, client)
        tenant.turn("I work at Stripe. My dog is called Rex.")
        before = _user_rows(ctx, tenant)
        assert before["memories"] >= 3
        answers = [tenant.delete(f"/v1/users/{tenant.user}") for _ in range(2)]
        assert [(a.status_code, a.json()) for a in answers] == \
            [(202, {"deleted": {"turns": 0, "memories": 1}, "status": "erasing"})] * 2
        assert _user_rows(ctx, tenant)["memories"] == before["memories"] - 2


def _mark_read_alone(statement: str) -> bool:
    """Whether a statement asks only whether a user is being erased."""
    return " ".join(statement.split()).startswith("SELECT EXISTS (SELECT 1 FROM user_erasures")


def test_a_read_naming_a_user_reads_the_mark_in_the_statement_that_reads_its_rows(ctx, tenant, monkeypatch):
    """A memory, its history, the user's memories and their count, their sessions, a session's messages, a
    turn and the user's backfills: whether the user is being erased is read in the statement that reads
    what the route answers, not in a round trip of its own before or after it (one fewer each); a user
    being erased is still refused, and a memory that is not there is a 404 first (below and
    test_an_erasure_stopped_between_chunks_shows_nothing_of_the_user_and_goes_on_when_run_again)."""
    turn_id = tenant.turn("I work at Stripe.", session="a", timestamp="2026-01-01T10:00:00Z").json()["turn_id"]
    tenant.turn("I work at Notion.", session="a", timestamp="2026-02-01T10:00:00Z")
    memory_id = next(m["id"] for m in _all(tenant) if m["supersedes"])  # Notion, its history Stripe's too
    user = {"user_id": tenant.user}
    reads = {
        "memory": (f"/v1/memories/{memory_id}", {}, "FROM memories m"),
        "history": (f"/v1/memories/{memory_id}/history", {}, "WITH RECURSIVE linked"),
        "listing": (f"/v1/users/{tenant.user}/memories", {}, "FROM memories m"),
        "count": ("/v1/memories/count", user, "count(*)"),
        "sessions": (f"/v1/users/{tenant.user}/sessions", {}, "FROM sessions s"),
        "messages": ("/v1/sessions/a/messages", user, "JOIN messages m"),
        "turn": (f"/v1/turns/{turn_id}", {}, "FROM turns t"),
        "backfills": ("/v1/backfills", user, "FROM backfills"),
    }
    for name, (path, params, reads_rows) in reads.items():
        with round_trips(monkeypatch) as batches:
            answer = tenant.get(path, params=params)
        statements = [statement for batch in batches for statement in batch]
        assert answer.status_code == 200, (name, answer.text)
        assert not [s for s in statements if _mark_read_alone(s)], (name, statements)
        marked = [s for s in statements if "user_erasures" in s]
        assert len(marked) == 1 and reads_rows in marked[0], (name, statements)
    assert tenant.get(f"/v1/memories/{uuid.uuid4()}").status_code == 404

    from memex.db import erasure
    nobody = {"user_id": f"gone-{uuid.uuid4().hex[:8]}"}
    with ctx.db.transaction() as conn:
        erasure.begin_user(conn, tenant.id, tenant.user)
    try:
        refused = {name: tenant.get(path, params=params) for name, (path, params, _) in reads.items()}
        assert {name: (r.status_code, r.json()["error"]["code"]) for name, r in refused.items()} == \
            dict.fromkeys(reads, (409, "user_being_erased")), {n: r.text for n, r in refused.items()}
        assert tenant.get(f"/v1/memories/{uuid.uuid4()}").status_code == 404
        # A user being erased with none of these rows left (nor ever had): still refused, not an empty page.
        with ctx.db.transaction() as conn:
            erasure.begin_user(conn, tenant.id, nobody["user_id"])
        empty = [tenant.get(f"/v1/users/{nobody['user_id']}/memories"), tenant.get("/v1/memories/count", params=nobody),
                 tenant.get(f"/v1/users/{nobody['user_id']}/sessions"), tenant.get("/v1/sessions/a/messages", params=nobody),
                 tenant.get("/v1/backfills", params=nobody)]
        assert [r.status_code for r in empty] == [409] * len(empty), [r.text for r in empty]
    finally:
        from memex import memories
        for who in (tenant.user, nobody["user_id"]):
            assert memories.erase_user_rows(ctx, tenant.id, who).finished
    assert tenant.get("/v1/memories/count", params=user).json() == {"count": 0}


def test_a_backfill_of_a_user_being_erased_is_refused_by_id_as_in_the_listing(ctx, tenant):
    """The progress of a re-embedding of one user, read by its id while that user is being erased: 409, as
    the listing of their jobs answers (the job's row goes with the user's last rows, then a 404); a job of
    the whole tenant is read as ever."""
    from memex.db import backfills as backfill_rows
    from memex.db import erasure

    tenant.turn("I play the cello.")
    own, whole = backfill.new_job("reembed", tenant.id, user_id=tenant.user), backfill.new_job("reembed", tenant.id)
    with ctx.db.transaction() as conn:
        for job in (own, whole):
            backfill_rows.create(conn, tenant.id, job.backfill_id, job.kind, None, job.user_id, 1)
    assert tenant.get(f"/v1/backfills/{own.backfill_id}").json()["user_id"] == tenant.user
    with ctx.db.transaction() as conn:
        erasure.begin_user(conn, tenant.id, tenant.user)
    refused = [tenant.get(f"/v1/backfills/{own.backfill_id}"), tenant.get("/v1/backfills", params={"user_id": tenant.user})]
    assert [(r.status_code, r.json()["error"]["code"]) for r in refused] == [(409, "user_being_erased")] * 2, \
        [r.text for r in refused]
    assert tenant.get(f"/v1/backfills/{whole.backfill_id}").status_code == 200

    from memex import memories
    assert memories.erase_user_rows(ctx, tenant.id, tenant.user).finished
    assert tenant.get(f"/v1/backfills/{own.backfill_id}").status_code == 404
    assert tenant.get(f"/v1/backfills/{whole.backfill_id}").status_code == 200


def test_a_job_of_a_user_being_erased_is_not_resumed(ctx, tenant):
    """`memex backfill --resume` of a re-embedding of one user while that user is being erased: refused
    (409 user_being_erased, as its progress by id is), its record left as it was; once erased, not found.
    It used to be reopened and its next chunk sent: a chunk of a job that had made no progress, delivered
    once the erasure had taken the record, made the record again, naming the erased user."""
    import pytest

    from memex import memories
    from memex.db import backfills as backfill_rows
    from memex.db import erasure
    from memex.errors import NotFound, UserBeingErased

    tenant.turn("I play the cello.")
    job = backfill.new_job("reembed", tenant.id, user_id=tenant.user)
    with ctx.db.transaction() as conn:
        backfill_rows.create(conn, tenant.id, job.backfill_id, job.kind, None, job.user_id, 1)
        backfill_rows.fail(conn, tenant.id, job.backfill_id, "interrupted (Ctrl-C) before the end")
        erasure.begin_user(conn, tenant.id, tenant.user)
    with pytest.raises(UserBeingErased) as refused:
        backfill.resume(ctx, job, job.backfill_id)
    assert f"backfill {job.backfill_id} is of user {tenant.user}, whose erasure is under way" in str(refused.value)
    assert backfill_rows.get(ctx.db.connection(), tenant.id, job.backfill_id)["status"] == "failed"

    assert memories.erase_user_rows(ctx, tenant.id, tenant.user).finished
    with pytest.raises(NotFound):
        backfill.resume(ctx, job, job.backfill_id)
    assert _rows_mentioning(ctx, tenant.user) == {}


def test_a_job_run_for_a_user_leaves_no_row_naming_them_from_a_chunk_delivered_during_or_after_their_erasure(
        ctx, tenant, runtime):
    """A re-embedding of one user: a later chunk of it delivered after the user's erasure took the job's row
    makes none again (it would name the erased user, "running" for ever), and the first chunk of one
    delivered while the user is being erased makes none (nothing is written for them); both are dropped."""
    from memex import memories
    from memex.db import erasure

    tenant.turn("I play the cello.")
    job = backfill.new_job("reembed", tenant.id, user_id=tenant.user)
    ctx.publisher.publish_backfill(job)
    runtime.drain()
    assert tenant.get(f"/v1/backfills/{job.backfill_id}").json()["status"] == "done"
    assert memories.erase_user_rows(ctx, tenant.id, tenant.user).finished
    backfill.run_chunk(ctx, job.next("a-later-chunk"))  # a redelivery, or a chain still going
    assert _rows_mentioning(ctx, tenant.user) == {}

    other = f"k-{uuid.uuid4().hex[:8]}"
    tenant.turn("I play the oboe.", user=other)
    with ctx.db.transaction() as conn:
        erasure.begin_user(conn, tenant.id, other)
    during = backfill.new_job("reembed", tenant.id, user_id=other)
    backfill.run_chunk(ctx, during)
    assert tenant.get(f"/v1/backfills/{during.backfill_id}").status_code == 404
    assert memories.erase_user_rows(ctx, tenant.id, other).finished
    assert _rows_mentioning(ctx, other) == {}


def test_a_delete_sent_again_goes_on_with_a_stopped_erasure(ctx):
    built = build_context(dataclasses.replace(ctx.settings, erasure_chunk_rows=1, erasure_request_seconds=1e-9))
    with api_client(built) as client:
        tenant = Tenant(ctx, client)
        tenant.turn("I work at Stripe. My dog is called Rex.")
        before = _user_rows(ctx, tenant)
        assert before["memories"] >= 3
        answers = []
        while not answers or answers[-1].status_code == 202:
            answers.append(tenant.delete(f"/v1/users/{tenant.user}"))
            assert len(answers) <= before["memories"] + before["turns"] + 1
        assert [a.status_code for a in answers] == [202] * (before["memories"] + before["turns"]) + [200]
        assert sum(a.json()["deleted"]["memories"] for a in answers) == before["memories"]
        assert sum(a.json()["deleted"]["turns"] for a in answers) == before["turns"]
        assert _rows_mentioning(ctx, tenant.user) == {}


def _stopped_erasure(ctx, client):
    """A user of a few rows whose DELETE, one row a transaction and no time for a second, answered 202."""
    tenant = Tenant(ctx, client)
    tenant.turn("I work at Stripe. My dog is called Rex.", session="a")
    tenant.turn("I play the cello.", session="b")
    before = _user_rows(ctx, tenant)
    assert before["memories"] + before["turns"] >= 4
    assert tenant.delete(f"/v1/users/{tenant.user}").status_code == 202
    return tenant, before


def test_one_sweep_run_erases_for_the_time_its_invocation_has_not_the_requests(ctx):
    """The sweep's erasures take the invocation's time, not MEMEX_ERASURE_REQUEST_SECONDS: with no
    request time at all, one run of a 60 s sweep finishes a user of one row a transaction."""
    from infra.local.lambda_context import LocalLambdaContext
    from infra.local.runtime import function_module

    built = build_context(dataclasses.replace(ctx.settings, erasure_chunk_rows=1, erasure_request_seconds=1e-9))
    with api_client(built) as client:
        tenant, before = _stopped_erasure(ctx, client)
        answer = function_module("sweep").run(built, LocalLambdaContext("sweep", timeout_seconds=60))
        assert answer["erasures_finished"] >= 1
        assert _user_rows(ctx, tenant) == dict.fromkeys(before, 0)
        assert _rows_mentioning(ctx, tenant.user) == {}


def test_a_sweep_run_out_of_time_leaves_the_user_marked_and_a_later_run_finishes(ctx):
    from infra.local.lambda_context import LocalLambdaContext
    from infra.local.runtime import function_module

    built = build_context(dataclasses.replace(ctx.settings, erasure_chunk_rows=1, erasure_request_seconds=1e-9))
    with api_client(built) as client:
        tenant, before = _stopped_erasure(ctx, client)
        sweep = function_module("sweep")
        spent = LocalLambdaContext("sweep", timeout_seconds=60, started=time.monotonic() - 60)
        stopped = _user_rows(ctx, tenant)
        assert sweep.run(built, spent)["erasures_finished"] == 0
        left = _user_rows(ctx, tenant)
        assert left == stopped and left["user_erasures"] == 1 and left["memories"] + left["turns"] > 0  # none begun
        assert tenant.get(f"/v1/users/{tenant.user}/memories").status_code == 409  # still refused
        sweep.run(built, LocalLambdaContext("sweep", timeout_seconds=60))
        assert _user_rows(ctx, tenant) == dict.fromkeys(before, 0)
        assert tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"] == []

def test_a_turn_is_stored_after_one_round_trip_that_checks_its_tenant_and_its_users_erasure(tenant, monkeypatch):
    tenant.turn("Hello!")  # the tenant's row exists: the path of every turn after its first
    with round_trips(monkeypatch) as trips:
        assert tenant.turn("I live in Lisbon.", wait=False).status_code == 202
    statements = [s for trip in trips for s in trip]
    stored = next(i for i, s in enumerate(statements) if s.lstrip().startswith("INSERT INTO turns"))
    checks = [s for s in statements[:stored] if "user_erasures" in s or "FROM tenants" in s]
    assert len(checks) == 1 and "user_erasures" in checks[0] and "FOR KEY SHARE" in checks[0], checks


def _state_of(ctx, tenant) -> list[tuple]:
    """Every row of the user's that a write path could add or change: memories (their vectors too),
    turns (their status and candidates), summaries."""
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        return conn.execute(
            """SELECT 'memory', id, content, embedding::text, active FROM memories WHERE tenant_id = %(t)s AND user_id = %(u)s
               UNION ALL
               SELECT 'turn', id, status, coalesce(candidates::text, ''), extracted_at IS NULL FROM turns
               WHERE tenant_id = %(t)s AND user_id = %(u)s ORDER BY 1, 2""",
            {"t": tenant.id, "u": tenant.user}).fetchall()


def test_nothing_is_written_for_a_user_being_erased_from_what_was_read_before(ctx, runtime, tmp_path):
    """Turns stored before a user's erasure began (one unextracted, one extracted and undecided) and
    the user's memories: once the erasure has begun, the extraction and supersession workers, a
    re-extraction, a re-embedding, an import and a consolidation write nothing of theirs, and each
    message is done (no batch item failure, nothing retried); the routes naming the user answer 409.
    The sweep then finishes the erasure and nothing of the user is left."""
    from infra.local.lambda_context import LocalLambdaContext
    from infra.local.runtime import function_module
    from memex.consolidation.job import Options, consolidate
    from memex.ingest import ingest_turn
    from memex.models import TurnIn
    from memex_edge.sqs import SqsPublisher

    built = build_context(dataclasses.replace(ctx.settings, erasure_chunk_rows=1, erasure_request_seconds=1e-9))
    # A publisher whose queue does not exist: the turns are stored and wait for the messages sent below.
    lost = dataclasses.replace(built, publisher=SqsPublisher(dataclasses.replace(
        ctx.settings, extraction_queue_url=ctx.settings.extraction_queue_url + "-missing")))
    with api_client(built) as client:
        tenant = Tenant(ctx, client)
        for line in ("I love hiking in the Alps every summer", "I love hiking in the Alps every single summer"):
            tenant.turn(line, session="a", timestamp="2025-01-10T10:00:00Z")

        def stored(content: str) -> str:
            turn = TurnIn(user_id=tenant.user, session_id="b", messages=[{"role": "user", "content": content}])
            return ingest_turn(lost, tenant.id, turn, wait=False)["turn_id"]

        unextracted = stored("I work at Stripe. My dog is called Rex.")
        undecided = stored("I live in Porto.")
        assert pipeline.extract_many(built, tenant.id, [undecided])  # its candidates wait on the turn

        assert tenant.delete(f"/v1/users/{tenant.user}").status_code == 202
        before = _state_of(ctx, tenant)
        assert [r for r in before if r[1] == undecided][0][3]  # still undecided

        def invoke(function: str, job, group=None) -> dict:
            attributes = {"ApproximateReceiveCount": "1", "SentTimestamp": "1767225600000",
                          **({"MessageGroupId": group, "MessageDeduplicationId": "d1"} if group else {})}
            record = {"messageId": "m1", "receiptHandle": "rh-m1", "body": job.to_json(), "attributes": attributes,
                      "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
                      "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:memex", "awsRegion": "us-east-1"}
            return function_module(function).handler({"Records": [record]}, LocalLambdaContext(function))

        assert invoke("extract_worker", ExtractionJob(tenant.id, unextracted)) == {"batchItemFailures": []}
        assert invoke("supersede_worker", SupersessionJob(tenant.id, tenant.user, undecided),
                      group=f"{tenant.id}:{tenant.user}") == {"batchItemFailures": []}
        pipeline.resolve_many(built, [SupersessionJob(tenant.id, tenant.user, undecided)])
        assert consolidate(built, tenant.id, tenant.user,
                           options=Options.from_settings(built, threshold=0, min_age_days=0)).summaries == 0
        lines = tmp_path / "turns.jsonl"
        lines.write_text(f'{{"user_id": "{tenant.user}", "session_id": "c", '
                         '"messages": [{"role": "user", "content": "I moved to Berlin."}]}\n')
        jobs = [backfill.new_job("reembed", tenant.id, user_id=tenant.user),
                backfill.new_job("reextract", tenant.id, user_id=tenant.user),
                backfill.new_job("import", tenant.id, path=str(lines))]
        with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:  # a re-embedding's vectors would differ
            conn.execute("UPDATE memories SET embedding = %s::vector WHERE tenant_id = %s AND user_id = %s",
                         ("[" + ",".join(["0.05"] * 384) + "]", tenant.id, tenant.user))
        before = _state_of(ctx, tenant)
        for job in jobs:
            ctx.publisher.publish_backfill(job)
        runtime.drain()
        assert _state_of(ctx, tenant) == before
        imported = tenant.get(f"/v1/backfills/{jobs[2].backfill_id}").json()
        assert imported["done"] == 0 and [f["reason"] for f in imported["failures"]] == \
            ["not stored (its user is being erased)"]

        user = {"user_id": tenant.user}
        refused = [tenant.delete("/v1/sessions/b", params=user), tenant.delete("/sessions/b", params=user),
                   tenant.delete(f"/v1/memories/{before[0][1]}"), tenant.get("/v1/backfills", params=user)]
        assert [(r.status_code, r.json()["error"]["code"]) for r in refused] == \
            [(409, "user_being_erased")] * len(refused), [r.text for r in refused]
        assert _state_of(ctx, tenant) == before

        from memex import memories
        assert memories.finish_erasures(built, 60) == 1
        assert _state_of(ctx, tenant) == []
        assert _rows_mentioning(ctx, tenant.user) == {}


def test_the_sweep_begins_no_transaction_that_would_end_past_its_time(ctx, monkeypatch):
    """Each transaction takes one second of a clock the test keeps (one row each): with 2.5 s, the sweep
    erases two rows and stops, rather than beginning a third at 2 s (ending at 3 s) or going on with a
    second user at all; a later run, with time, finishes both."""
    from types import SimpleNamespace

    from memex import memories, transaction_time
    from memex.db import erasure as erasure_rows

    built = build_context(dataclasses.replace(ctx.settings, erasure_chunk_rows=1, erasure_request_seconds=1e-9))
    with api_client(built) as client:
        stopped = [_stopped_erasure(ctx, client) for _ in range(2)]
    left = sum(before["memories"] + before["turns"] for _, before in stopped) - 2  # one row each: the 202s'
    clock = [0.0]
    chunk = erasure_rows.user_chunk

    def a_second_each(*args, **kwargs):
        clock[0] += 1
        return chunk(*args, **kwargs)

    for timed in (memories, transaction_time):
        monkeypatch.setattr(timed, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(erasure_rows, "user_chunk", a_second_each)
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:  # the oldest begun: before any other test's
        for day, (t, _) in enumerate(stopped, start=1):
            conn.execute("UPDATE user_erasures SET started_at = %s WHERE tenant_id = %s AND user_id = %s",
                         (f"2000-01-0{day}T00:00:00Z", t.id, t.user))
    assert memories.finish_erasures(built, 2.5) == 0
    assert clock[0] == 2
    assert sum(sum(_user_rows(ctx, t)[k] for k in ("memories", "turns")) for t, _ in stopped) == left - 2
    assert memories.finish_erasures(built, 1000) >= 2
    assert all(_user_rows(ctx, t) == dict.fromkeys(before, 0) for t, before in stopped)


def _writes(ctx, tenant) -> dict:
    """The writes that refuse a user being erased under the user's lock, each as a call: a memory added
    (POST /v1/memories), a memory erased, a session erased (DELETE), an import's chunk of turns (whose
    turns of such a user are refused, not raised)."""
    from memex import memories
    from memex.db import backfills as backfill_rows
    from memex.models import ImportedTurn, MemoryIn

    memory_id = next(m["id"] for m in _all(tenant) if m["memory_type"] == "semantic")

    def chunk():
        with ctx.db.transaction() as conn:
            return backfill_rows.insert_turns(conn, tenant.id, [ImportedTurn(
                user_id=tenant.user, session_id="b", messages=[{"role": "user", "content": "I play the oboe."}])])

    return {"add": lambda: memories.add(ctx, tenant.id, MemoryIn(user_id=tenant.user, content="likes tea")),
            "erase memory": lambda: memories.erase_memory(ctx, tenant.id, memory_id),
            "erase session": lambda: memories.erase_session(ctx, tenant.id, "a", tenant.user),
            "import chunk": chunk}


def test_a_write_reads_its_users_mark_in_the_round_trip_that_takes_their_lock(ctx, tenant, monkeypatch):
    """A memory added or erased, a session erased, an import's chunk: the user's lock and whether they
    are being erased are read in one statement (migration 0041's function, which reads the mark once the
    lock is held), not in a round trip of its own (one fewer each than main at f6e6a21: 5, 15, 16 and 3). An
    import's chunk has one more since its turns' ids and keys are looked up among those erased
    (db/erasure.erased_turns: every line of a file has a key, so every chunk reads them)."""
    tenant.turn("I work at Stripe.", session="a")
    tenant.turn("I live in Lisbon.", session="a")
    counted = {}
    for name, write in _writes(ctx, tenant).items():
        with round_trips(monkeypatch) as trips:
            write()
        locking = [i for i, trip in enumerate(trips) if any("pg_advisory" in s or "lock_users" in s for s in trip)]
        assert len(locking) == 1, (name, trips)
        assert trips[locking[0]] == ["SELECT lock_users_and_read_marks(%s, %s) AS marked"], (name, trips)
        assert not [s for t in trips for s in t if _mark_read_alone(s)], (name, trips)
        counted[name] = (locking[0], len(trips))
    # (the round trip that takes the lock, of how many): after the tenant's check or the memory's read, or first
    assert counted == {"add": (1, 4), "erase memory": (1, 14), "erase session": (0, 15), "import chunk": (0, 3)}, counted


def test_a_write_waiting_on_the_users_lock_reads_the_mark_the_erasure_committed_before_releasing_it(ctx, tenant):
    """The race the mark's read after the lock is for, on two real connections: an erasure's first
    transaction (the user's lock taken, the mark written) holds while each write waits on the lock; it
    commits, the write takes the lock and must see the mark (409, nothing written; an import's turn
    refused). A statement that took the lock and read the mark itself would read the snapshot taken
    when it began, before the commit: it reads no mark (the first case, so that the race is shown real)."""
    from memex.db import erasing, erasure, locks
    from memex.errors import UserBeingErased

    tenant.turn("I work at Stripe.", session="a")
    tenant.turn("I live in Lisbon.", session="a")

    def in_one_statement():
        with ctx.db.transaction() as conn:
            return conn.execute(f"SELECT pg_advisory_xact_lock(hashtext(%(t)s), hashtext(%(u)s)), {erasing.MARKED}"
                                " AS erasing", {"t": tenant.id, "u": tenant.user}).fetchone()["erasing"]

    def raced(write):
        outcome: dict = {}

        def run():
            try:
                outcome["returned"] = write()
            except Exception as exc:  # noqa: BLE001 - the test reads it
                outcome["raised"] = exc

        with psycopg.connect(ctx.db.dsn, autocommit=True) as watcher, \
                psycopg.connect(ctx.db.dsn) as eraser:
            with eraser.transaction():
                locks.lock_user(eraser, tenant.id, tenant.user)
                erasure.begin_user(eraser, tenant.id, tenant.user)
                writer = threading.Thread(target=run)
                writer.start()
                deadline = time.monotonic() + 30
                while not waits_on_users_lock(watcher, tenant.id, tenant.user):
                    assert writer.is_alive() and time.monotonic() < deadline, ("never waited on the lock", outcome)
                    time.sleep(0.02)
            writer.join(timeout=60)
            assert not writer.is_alive()
            eraser.execute("DELETE FROM user_erasures WHERE tenant_id = %s AND user_id = %s", (tenant.id, tenant.user))
            eraser.commit()  # this erasure erased nothing: its mark taken off by hand for the next case
        return outcome

    assert raced(in_one_statement) == {"returned": False}
    for name, write in _writes(ctx, tenant).items():
        before = _state_of(ctx, tenant), _user_rows(ctx, tenant)
        outcome = raced(write)
        if name == "import chunk":
            assert outcome == {"returned": ([], [(0, "its user is being erased")], 0, [])}, (name, outcome)
        else:
            assert isinstance(outcome.get("raised"), UserBeingErased), (name, outcome)
        assert (_state_of(ctx, tenant), _user_rows(ctx, tenant)) == before, name  # nothing half-written
    for name, write in _writes(ctx, tenant).items():
        write()  # unmarked, each is let in as ever
    assert _all(tenant) and not [m for m in _all(tenant) if m["session_id"] == "a"]


def test_a_keyed_turn_sent_again_after_its_erasure_is_not_stored_again(tenant):
    """Erasure is final, an agent's retry too: a turn sent again with its idempotency key after its session's
    erasure, as it was or otherwise, with `wait` or without, answers 409 `turn_erased` and stores nothing, as
    after the user's erasure. The key is the user's: another user's turn under it is theirs, and a new key is
    a new turn."""
    assert tenant.turn("I work at Acme.", session="gone", idempotency_key="k-retry").status_code == 201
    assert tenant.delete("/v1/sessions/gone", params={"user_id": tenant.user}).status_code == 200
    for content, wait in (("I work at Acme.", True), ("I work at Acme.", False), ("I work at Initech.", True)):
        again = tenant.turn(content, session="gone", idempotency_key="k-retry", wait=wait)
        assert again.status_code == 409 and again.json()["error"] == {"code": "turn_erased", "message": (
            "idempotency_key 'k-retry' names a turn this user erased: it is not stored again (a new turn takes a "
            "new key)")}, again.text
    assert tenant.get(f"/v1/users/{tenant.user}/turns").json()["turns"] == [] and _all(tenant) == []
    assert tenant.turn("I work at Acme.", user=f"{tenant.user}-other", idempotency_key="k-retry").status_code == 201
    assert tenant.turn("I have a cat.", idempotency_key="k-cat").status_code == 201

    assert tenant.delete(f"/v1/users/{tenant.user}").status_code == 200
    for key in ("k-retry", "k-cat"):
        again = tenant.turn("I have a cat.", idempotency_key=key)
        assert again.status_code == 409 and again.json()["error"]["code"] == "turn_erased", again.text
    assert tenant.get(f"/v1/users/{tenant.user}/turns").json()["turns"] == []


def test_a_keyed_turn_sent_again_while_its_erasure_commits_is_not_stored_again(ctx, tenant):
    """The race the erased keys' read after the insert is for, on two real connections: the turn sent again
    while the session's erasure holds (its row deleted, its key's digest kept, not committed) waits on the row
    the erasure deletes, and is inserted once it commits; the insert's own snapshot, taken before, does not
    see the digest, the statement after it does: 409, nothing stored."""
    from psycopg.rows import dict_row

    from memex.db import erasure, locks

    assert tenant.turn("I work at Acme.", session="gone", idempotency_key="k-race").status_code == 201
    outcome: dict = {}

    def send():
        outcome["answer"] = tenant.turn("I work at Acme.", session="gone", idempotency_key="k-race", wait=False)

    with psycopg.connect(ctx.db.dsn, autocommit=True) as watcher, \
            psycopg.connect(ctx.db.dsn, row_factory=dict_row) as eraser:
        with eraser.transaction():
            locks.lock_user(eraser, tenant.id, tenant.user)
            assert erasure.session(eraser, tenant.id, "gone", tenant.user)["turns"] == 1
            writer = threading.Thread(target=send)
            writer.start()
            deadline = time.monotonic() + 60
            while not watcher.execute("""SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'
                                         AND query LIKE 'INSERT INTO turns%%'""").fetchone()[0]:
                assert writer.is_alive() and time.monotonic() < deadline, ("never waited on the erased row", outcome)
                time.sleep(0.02)
        writer.join(timeout=60)
    assert not writer.is_alive()
    assert outcome["answer"].status_code == 409, outcome["answer"].text
    assert outcome["answer"].json()["error"]["code"] == "turn_erased"
    assert tenant.get(f"/v1/users/{tenant.user}/turns").json()["turns"] == []


def test_a_users_erasure_moves_to_digests_what_a_rolled_back_version_kept_of_their_turns_in_clear(ctx, tenant):
    """A version between 0056 and 0058 rolled back onto the database (docs/operations.md: going back works) keeps
    what its erasures take in 0056's erased_turns, the turn's id and its user's in clear, and a restored turn's
    `imported_from` in clear. Upgraded again, the user's erasure moves them to digests as migration 0059 did (the
    erasure stays final) and leaves no row naming them; another user's rows become digests salted with them."""
    other = f"{tenant.user}-other"
    assert tenant.turn("I have a cat.", session="s").status_code == 201
    with ctx.db.transaction() as conn:  # what the rolled-back version wrote
        conn.execute("INSERT INTO erased_turns VALUES (%s, %s, 'turn-x', 'kd'), (%s, %s, 'turn-x', NULL)",
                     (tenant.id, tenant.user, tenant.id, other))
        conn.execute("UPDATE turns SET imported_from = 'turn-y' WHERE tenant_id = %s AND user_id = %s",
                     (tenant.id, tenant.user))
    assert tenant.delete(f"/v1/users/{tenant.user}").status_code == 200

    with ctx.db.transaction() as conn:
        left = conn.execute("SELECT user_id FROM erased_turns WHERE tenant_id = %s", (tenant.id,)).fetchall()
        kept = conn.execute(
            """SELECT d.key_digest, d.turn_digest = erased_digest(d.tenant_id, %s, 'turn-x') AS x,
                      d.turn_digest = erased_digest(d.tenant_id, %s, 'turn-y') AS y,
                      d.turn_digest = erased_digest(d.tenant_id, %s, 'turn-x') AS other_x
               FROM erased_turn_digests d WHERE d.tenant_id = %s""",
            (tenant.user, tenant.user, other, tenant.id)).fetchall()
    assert left == []
    assert {"key_digest": "kd", "x": True, "y": False, "other_x": False} in kept and any(r["y"] for r in kept), kept
    assert {"key_digest": None, "x": False, "y": False, "other_x": True} in kept, kept


def test_a_users_erasure_leaves_no_id_of_their_turns_a_rolled_back_version_kept_in_other_users_rows(ctx, tenant):
    """The rolled-back version gave the user's turn to another user (whose turn keeps its id as `imported_from`, in
    clear) and erased that user's session (erased_turns keeps it under the other user). Upgraded again, the first
    user's erasure leaves their turn's id in no row: those rows become digests, salted with the other user."""
    other = f"{tenant.user}-two"
    named = tenant.turn("I have a cat.", session="s").json()["turn_id"]
    assert tenant.turn("I have a dog.", session="s", user=other).status_code == 201
    with ctx.db.transaction() as conn:  # what the rolled-back version wrote
        conn.execute("UPDATE turns SET imported_from = %s WHERE tenant_id = %s AND user_id = %s",
                     (named, tenant.id, other))
        conn.execute("INSERT INTO erased_turns VALUES (%s, %s, %s, NULL)", (tenant.id, other, named))
    assert tenant.delete(f"/v1/users/{tenant.user}").status_code == 200

    with ctx.db.transaction() as conn:
        [row] = conn.execute("SELECT t.*, erased_digest(t.tenant_id, t.user_id, %s) AS named FROM turns t"
                             " WHERE t.tenant_id = %s", (named, tenant.id)).fetchall()
        left = conn.execute("SELECT * FROM erased_turns WHERE tenant_id = %s", (tenant.id,)).fetchall()
        kept = conn.execute("SELECT turn_digest FROM erased_turn_digests WHERE tenant_id = %s AND turn_digest = %s",
                            (tenant.id, row["named"])).fetchall()
    assert left == [] and row["imported_from_digests"] == [row.pop("named")] and kept
    assert named not in json.dumps(row, default=str)


def test_a_keyed_turn_sent_again_whose_erasure_commits_after_the_erased_keys_read_is_erased(ctx, tenant):
    """The other side of the race: the turn sent again finds its key's turn (the insert does nothing), reads no erased
    key, and the session's erasure commits before it reads the turn its key names, which is gone: erased (409), not
    a server error."""
    from psycopg.rows import dict_row

    from memex.db import erasure, locks
    from memex.db import turns as turn_rows
    from memex.errors import TurnErased
    from memex.models import TurnIn

    assert tenant.turn("I work at Acme.", session="gone", idempotency_key="k-late").status_code == 201

    class ErasedMeanwhile:
        """The writer's connection; the session's erasure commits on another as the writer reads the key's turn."""

        def __init__(self, conn):
            self.conn = conn

        def __getattr__(self, name):
            return getattr(self.conn, name)

        def execute(self, query, *args, **kwargs):
            if query.startswith("SELECT id, payload_hash FROM turns"):
                with psycopg.connect(ctx.db.dsn, row_factory=dict_row) as eraser, eraser.transaction():
                    eraser.execute("SET LOCAL lock_timeout = '30s'")
                    locks.lock_user(eraser, tenant.id, tenant.user)
                    assert erasure.session(eraser, tenant.id, "gone", tenant.user)["turns"] == 1
            return self.conn.execute(query, *args, **kwargs)

    turn = TurnIn(user_id=tenant.user, session_id="gone", idempotency_key="k-late",
                  messages=[{"role": "user", "content": "I work at Acme."}])
    with psycopg.connect(ctx.db.dsn, row_factory=dict_row) as writer, pytest.raises(TurnErased):
        with writer.transaction():
            turn_rows.insert_turn(ErasedMeanwhile(writer), tenant.id, turn, datetime.now(timezone.utc))
    assert tenant.get(f"/v1/users/{tenant.user}/turns").json()["turns"] == []
