"""A job to come becomes the job when its day comes (pipeline.start_jobs, job_start.py): "I start at
Twilio next Monday." said on a Wednesday makes Twilio the employer from that Monday, replacing the old
one in its chain, at the user's first turn after it or at the sweep, whichever comes first."""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from contextlib import contextmanager, suppress
from datetime import datetime, timedelta, timezone
from typing import Iterator

import psycopg
import pytest

from memex import job_start, pipeline
from memex.db import locks
from memex.extraction.offline import OfflineExtractor
from memex.jobs import subject_key, user_hash
from memex.ingest import ingest_turn
from memex.models import TurnIn
from tests.conftest import (Refusing, Tenant, WrappedEmbedder, api_client, comes_to_wait_on_users_lock,
                            database_of_its_own, holds_a_users_lock)
from tests.test_metrics import moved, scrape

WEDNESDAY = "2026-03-04T10:00:00Z"  # "next Monday" is 2026-03-09


def _facts(tenant, key: str, user: str | None = None) -> list[dict]:
    listed = tenant.get(f"/v1/users/{user or tenant.user}/memories",
                        params={"include_inactive": "true", "limit": 500}).json()["memories"]
    return sorted((m for m in listed if m["key"] == key), key=lambda m: m["valid_from"])


def _current(tenant, key: str, user: str | None = None) -> list[str]:
    return [m["value"] for m in _facts(tenant, key, user) if m["active"]]


def _first(tenant, query: str, **extra) -> str:
    return tenant.search(query, **extra)[0]["content"]


@pytest.fixture
def own_database(ctx) -> Iterator[tuple]:
    """(the context on a database of its own, a tenant there): the sweep reads every tenant's jobs due, so what a
    run counts (started, failed, left) and asks the embedder is the test's own only there, whatever the suite's
    database holds of other tests' (a job due left behind an undecided turn, which another test's drain decides)."""
    with database_of_its_own(ctx, "job_start") as own, api_client(own) as client:
        yield own, Tenant(own, client)


@pytest.mark.parametrize("value, said, start", [
    ("starting at Twilio next Monday", "2026-03-04T10:00:00+00:00", "2026-03-09T00:00:00+00:00"),
    ("starting at Twilio on Monday", "2026-03-09T10:00:00+00:00", "2026-03-16T00:00:00+00:00"),
    ("first day at Twilio tomorrow", "2026-03-04T23:30:00-05:00", "2026-03-05T00:00:00-05:00"),
    ("starting at Notion next month", "2026-12-20T09:00:00+09:00", "2027-01-01T00:00:00+09:00"),
    ("starting at Notion in April", "2026-05-02T09:00:00+00:00", "2027-04-01T00:00:00+00:00"),
    ("joining Notion next week", "2026-03-04T10:00:00+00:00", "2026-03-09T00:00:00+00:00"),
    ("starting at Canva on March 16th", "2026-03-04T10:00:00+00:00", "2026-03-16T00:00:00+00:00"),
    ("starting at Canva on the 2nd", "2026-03-04T10:00:00+00:00", "2026-04-02T00:00:00+00:00"),
    ("starting at Canva in two weeks", "2026-03-04T10:00:00+00:00", "2026-03-18T00:00:00+00:00"),
    ("joining Canva this summer", "2026-03-04T10:00:00+00:00", None),
    ("joining Canva as a designer", "2026-03-04T10:00:00+00:00", None),
    ("starting at Canva soon", "2026-03-04T10:00:00+00:00", None),
])
def test_the_day_a_job_to_come_starts_is_read_in_the_offset_it_was_said_in(value, said, start):
    found = job_start.starts(value, datetime.fromisoformat(said))
    assert found == (datetime.fromisoformat(start) if start else None)
    if start:
        assert found.utcoffset() == datetime.fromisoformat(said).utcoffset()


@pytest.mark.parametrize("value, employer", [
    ("starting at Twilio next Monday", "Twilio"), ("first day at Twilio tomorrow", "Twilio"),
    ("joining the Red Cross next month", "Red Cross"), ("start date at Procter and Gamble on March 3rd",
                                                          "Procter and Gamble"),
    ("Notion, starting in April", "Notion"),
])
def test_the_employer_of_a_job_to_come_is_its_name_without_the_when(value, employer):
    assert job_start.employer(value) == employer


def test_the_job_to_come_is_the_employer_from_its_day_at_the_next_turn_and_the_old_one_is_its_history(ctx, tenant):
    tenant.turn("I work at Canva.", timestamp="2026-03-02T09:00:00Z")
    tenant.turn("I start at Twilio next Monday.", timestamp=WEDNESDAY)
    assert _current(tenant, "employer") == ["Canva"]
    assert _first(tenant, "where does she work?") == "The user's employer is Canva."

    tenant.turn("The weather was lovely this afternoon.", timestamp="2026-03-10T18:00:00Z")
    canva, twilio = _facts(tenant, "employer")
    assert (canva["value"], canva["active"], twilio["value"], twilio["active"]) == ("Canva", False, "Twilio", True)
    assert canva["valid_to"] == twilio["valid_from"]
    assert twilio["valid_from"].startswith("2026-03-09T00:00:00")
    assert twilio["content"] == "The user's employer is Twilio."
    assert _current(tenant, "next_job") == []
    history = tenant.get(f"/v1/memories/{twilio['id']}/history").json()["history"]
    # one chain: Canva, the job to come (`supersedes`: the latest it replaced), Twilio
    assert [(m["key"], m["value"]) for m in history] == [
        ("employer", "Canva"), ("next_job", "starting at Twilio next Monday"), ("employer", "Twilio")]

    assert _first(tenant, "where does she work?") == "The user's employer is Twilio."
    # as it stood before the start, the old job
    assert _first(tenant, "where does she work?", as_of="2026-03-06T12:00:00Z") == "The user's employer is Canva."
    recall = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "where does she work?",
                                        "max_tokens": 500}).json()["context"]
    assert "The user's employer is Twilio." in recall, recall

    # a redelivered turn, a second sweep: nothing more
    tenant.turn("The weather was lovely this afternoon.", timestamp="2026-03-11T18:00:00Z")
    pipeline.start_jobs_due(ctx, 60.0)
    assert [m["value"] for m in _facts(tenant, "employer")] == ["Canva", "Twilio"]


def test_a_participants_job_to_come_under_a_name_longer_than_a_key_starts_as_their_employer(tenant):
    """A participant of a 68-character name: their prefix cut at the bound filed the employer and the job to come
    under one key. Each has its own (jobs.subject_key), and the start (pipeline._start_job) writes the
    employer's, replacing the old job."""
    name = "Bartholomew Montgomery Fitzwilliam Archibald Worthington-Smythe Jude"
    for text, when in (("I work at Canva.", "2026-03-02T09:00:00Z"), ("I start at Twilio next Monday.", WEDNESDAY),
                       ("Long day.", "2026-03-10T18:00:00Z")):
        assert tenant.post("/v1/turns?wait=true", {
            "user_id": tenant.user, "session_id": "s1", "user_name": "Caroline", "timestamp": when,
            "messages": [{"role": "user", "name": name, "content": text}]}).status_code == 201
    employer = subject_key(name, "employer")
    assert employer == "bartholomew_montgomery_fitzwilliam_archibald_be47ecc9_employer"
    canva, twilio = _facts(tenant, employer)
    assert (canva["value"], canva["active"], twilio["value"], twilio["active"]) == ("Canva", False, "Twilio", True)
    assert twilio["valid_from"].startswith("2026-03-09T00:00:00")
    assert [m["value"] for m in _facts(tenant, subject_key(name, "next_job"))] == ["starting at Twilio next Monday"]
    assert _current(tenant, subject_key(name, "next_job")) == []


def test_a_turn_before_the_start_leaves_the_job_to_come_and_as_of_before_it_answers_the_old_job(tenant):
    tenant.turn("I work at Canva.", timestamp="2026-03-02T09:00:00Z")
    tenant.turn("I start at Twilio next Monday.", timestamp=WEDNESDAY)
    tenant.turn("It rained all day, stayed in.", timestamp="2026-03-08T23:00:00Z")  # the Sunday before
    assert _current(tenant, "employer") == ["Canva"]
    assert _current(tenant, "next_job") == ["starting at Twilio next Monday"]


def test_the_start_is_the_users_midnight_in_the_offset_the_job_was_said_in(tenant):
    """Said in New York on a Wednesday evening: Monday begins at 05:00 UTC, so a turn at 04:00 UTC on
    Monday (still Sunday there) leaves the job to come, one at 06:00 UTC makes it the job."""
    tenant.turn("I work at Canva.", timestamp="2026-03-02T09:00:00-05:00")
    tenant.turn("I start at Twilio next Monday.", timestamp="2026-03-04T20:00:00-05:00")
    tenant.turn("Quiet evening.", timestamp="2026-03-09T04:00:00Z")
    assert _current(tenant, "employer") == ["Canva"]
    tenant.turn("Long day.", timestamp="2026-03-09T06:00:00Z")
    assert _current(tenant, "employer") == ["Twilio"]
    assert _facts(tenant, "employer")[-1]["valid_from"].startswith("2026-03-09T05:00:00")


def test_the_sweep_starts_the_job_of_a_user_who_says_nothing_more_and_no_one_elses(ctx, tenant):
    """No turn after the start: the sweep (every 5 minutes) makes the job current; another user's job
    to come, whose day has not come, stays; a user's turn starts only their own."""
    said = datetime.now(timezone.utc) - timedelta(days=10)
    tenant.turn("I work at Canva.", timestamp=(said - timedelta(days=1)).isoformat())
    tenant.turn("I start at Twilio next week.", timestamp=said.isoformat())
    other = tenant.user + "-b"
    tenant.turn("I work at Miro.", user=other, timestamp=(said - timedelta(days=1)).isoformat())
    tenant.turn("I start at Asana next year.", user=other, timestamp=said.isoformat())  # no day
    tenant.turn("I start at Notion next month.", user=other + "-c",
                timestamp=datetime.now(timezone.utc).isoformat())  # not yet
    assert _current(tenant, "employer") == ["Canva"]
    assert pipeline.start_jobs_due(ctx, 60.0).started >= 1
    assert _current(tenant, "employer") == ["Twilio"]
    assert _current(tenant, "employer", other) == ["Miro"]
    assert _current(tenant, "next_job", other) == ["starting at Asana next year"]
    assert _current(tenant, "next_job", other + "-c") == ["starting at Notion next month"]


def test_a_job_to_come_no_longer_current_is_never_started(ctx, tenant):
    """"I start at Twilio next Monday." then, before it, "I just started at Google.": the job to come
    was taken back by the employer named, and its day makes nothing of it."""
    tenant.turn("I work at Canva.", timestamp="2026-03-02T09:00:00Z")
    tenant.turn("I start at Twilio next Monday.", timestamp=WEDNESDAY)
    tenant.turn("I just started at Google.", timestamp="2026-03-05T09:00:00Z")
    tenant.turn("Long day.", timestamp="2026-03-12T09:00:00Z")
    pipeline.start_jobs_due(ctx, 60.0)
    assert _current(tenant, "employer") == ["Google"]
    assert "Twilio" not in [m["value"] for m in _facts(tenant, "employer")]


def test_the_goodbye_and_first_day_tomorrow_makes_the_new_job_continue_the_ended_chain(tenant):
    """The year's "First day at Twilio tomorrow, said goodbye to everyone at Canva.": Canva ends at
    once, and from the next day Twilio is the employer, continuing Canva's chain."""
    tenant.turn("I work at Canva.", timestamp="2026-01-01T09:00:00Z")
    tenant.turn("First day at Twilio tomorrow, said goodbye to everyone at Canva.", timestamp="2026-02-01T18:00:00Z")
    assert _current(tenant, "employer") == []
    tenant.turn("Busy first week.", timestamp="2026-02-06T18:00:00Z")
    employer = _facts(tenant, "employer")
    assert [(m["value"], m["active"]) for m in employer] == [("Canva", False), ("Canva", False), ("Twilio", True)]
    assert employer[-1]["valid_from"].startswith("2026-02-02T00:00:00")
    assert _first(tenant, "where does she work?") == "The user's employer is Twilio."


def test_erasing_the_started_job_does_not_bring_it_back(ctx, tenant):
    tenant.turn("I work at Canva.", timestamp="2026-03-02T09:00:00Z")
    tenant.turn("I start at Twilio next Monday.", timestamp=WEDNESDAY)
    tenant.turn("Long day.", timestamp="2026-03-10T09:00:00Z")
    twilio = _facts(tenant, "employer")[-1]
    assert tenant.delete(f"/v1/memories/{twilio['id']}").status_code in (200, 204)
    tenant.turn("Another long day.", timestamp="2026-03-11T09:00:00Z")
    pipeline.start_jobs_due(ctx, 60.0)
    assert "Twilio" not in [m["value"] for m in _facts(tenant, "employer")]


def _queued(ctx, tenant, text: str, timestamp: str) -> None:
    ingest_turn(ctx, tenant.id, TurnIn(user_id=tenant.user, session_id="s1", timestamp=timestamp,
                                       messages=[{"role": "user", "content": text}]), wait=False)


def test_a_job_said_in_a_batch_starts_as_of_a_later_turn_of_the_batch_with_nothing_to_decide(ctx, tenant, runtime):
    """The workers take the user's turns together (a client that sends them quickly, an import): the
    day after "I start at Twilio tomorrow." is stored before the job is decided, and says nothing to
    decide; the job starts as of it all the same, once the job is decided."""
    _queued(ctx, tenant, "I work at Canva.", "2026-03-02T09:00:00Z")
    _queued(ctx, tenant, "I start at Twilio tomorrow.", "2026-03-04T09:00:00Z")
    _queued(ctx, tenant, "Busy first day.", "2026-03-05T18:00:00Z")
    runtime.drain()
    assert _current(tenant, "employer") == ["Twilio"]
    assert _facts(tenant, "employer")[-1]["valid_from"].startswith("2026-03-05T00:00:00")


def test_an_employer_named_before_the_day_in_the_same_batch_takes_the_job_back_first(ctx, tenant, runtime):
    """"I just started at Google." said before Twilio's Monday, decided in the batch that holds a turn
    after that Monday: the job to come is taken back before its day is reached, never started."""
    _queued(ctx, tenant, "I work at Canva.", "2026-03-02T09:00:00Z")
    _queued(ctx, tenant, "I start at Twilio next Monday.", WEDNESDAY)
    _queued(ctx, tenant, "I just started at Google.", "2026-03-05T09:00:00Z")
    _queued(ctx, tenant, "Long day.", "2026-03-10T18:00:00Z")
    runtime.drain()
    assert _current(tenant, "employer") == ["Google"]
    assert "Twilio" not in [m["value"] for m in _facts(tenant, "employer")]


def test_a_job_started_and_left_within_one_batch_keeps_its_place_in_the_chain(ctx, tenant, runtime):
    """An import's chunk: the job to come, a day after its Monday, and a new job that Thursday, decided
    together: Twilio holds from Monday to Thursday, between Canva and Asana."""
    _queued(ctx, tenant, "I work at Canva.", "2026-03-02T09:00:00Z")
    _queued(ctx, tenant, "I start at Twilio next Monday.", WEDNESDAY)
    _queued(ctx, tenant, "Long first day.", "2026-03-10T18:00:00Z")
    _queued(ctx, tenant, "I just started at Asana, left Twilio.", "2026-03-12T09:00:00Z")
    runtime.drain()
    employer = [(m["value"], m["valid_from"][:10], (m["valid_to"] or "")[:10]) for m in _facts(tenant, "employer")]
    assert employer[0] == ("Canva", "2026-03-02", "2026-03-09")
    assert ("Twilio", "2026-03-09", "2026-03-12") in employer and employer[-1][0] == "Asana"
    assert _current(tenant, "employer") == ["Asana"]


@pytest.mark.parametrize("called_off", [
    "The Twilio offer fell through.", "I turned down the Twilio job.", "I'm not taking the job at Twilio after all.",
    "Twilio rescinded my offer.", "Decided to stay at Canva.", "The new job got cancelled.",
])
def test_a_job_to_come_called_off_never_starts_and_is_kept_as_history(ctx, tenant, called_off):
    tenant.turn("I work at Canva.", timestamp="2026-03-02T09:00:00Z")
    tenant.turn("I start at Twilio next Monday.", timestamp=WEDNESDAY)
    tenant.turn(called_off, timestamp="2026-03-05T09:00:00Z")
    tenant.turn("Long day.", timestamp="2026-03-10T18:00:00Z")
    pipeline.start_jobs_due(ctx, 60.0)
    assert _current(tenant, "employer") == ["Canva"]
    assert "Twilio" not in [m["value"] for m in _facts(tenant, "employer")]
    assert _current(tenant, "next_job") == []
    job, over = _facts(tenant, "next_job")
    assert (job["value"], job["active"], over["active"]) == ("starting at Twilio next Monday", False, False)
    assert over["supersedes"] == job["id"] and job["valid_to"].startswith("2026-03-05T09:00:00")
    assert "called off" in over["content"]


@pytest.mark.parametrize("said", [
    "I'm nervous about the Twilio job.", "Twilio sent me the contract.", "my sister turned down a job at Twilio",
])
def test_a_job_to_come_spoken_of_but_not_called_off_still_starts(ctx, tenant, said):
    tenant.turn("I work at Canva.", timestamp="2026-03-02T09:00:00Z")
    tenant.turn("I start at Twilio next Monday.", timestamp=WEDNESDAY)
    tenant.turn(said, timestamp="2026-03-05T09:00:00Z")
    tenant.turn("Long day.", timestamp="2026-03-10T18:00:00Z")
    assert _current(tenant, "employer") == ["Twilio"]


def test_a_call_off_with_no_job_to_come_writes_nothing(tenant):
    tenant.turn("I work at Canva.", timestamp="2026-03-02T09:00:00Z")
    tenant.turn("The Twilio offer fell through.", timestamp="2026-03-05T09:00:00Z")
    assert _facts(tenant, "next_job") == []


def test_a_job_to_come_is_called_off_by_its_employers_name_or_as_the_only_new_job():
    jobs = ["starting at Twilio next Monday", "joining the Red Cross in April"]
    assert job_start.called_off("Twilio", jobs) == [0]
    assert job_start.called_off("the Red Cross offer", jobs) == [1]
    assert job_start.called_off("Twilio Inc.", jobs) == [0]
    assert job_start.called_off("the new job", jobs) == []  # which one: neither
    assert job_start.called_off("the new job", jobs[:1]) == [0]
    assert job_start.called_off("Asana", jobs[:1]) == []


def test_a_job_to_come_at_the_employer_already_current_ends_at_its_day_and_is_read_no_more(ctx, tenant):
    """"I work at Twilio." then "I start at Twilio next Monday." (a transfer, a contract made permanent): on
    the day the job to come ends, the employer not written twice, and the sweep has nothing more to read."""
    tenant.turn("I work at Twilio.", timestamp="2026-03-02T09:00:00Z")
    tenant.turn("I start at Twilio next Monday.", timestamp=WEDNESDAY)
    assert _current(tenant, "next_job") == ["starting at Twilio next Monday"]
    tenant.turn("Long day.", timestamp="2026-03-10T18:00:00Z")
    assert _current(tenant, "next_job") == []
    assert _facts(tenant, "next_job")[0]["valid_to"].startswith("2026-03-09T00:00:00")
    assert [(m["value"], m["active"]) for m in _facts(tenant, "employer")] == [("Twilio", True)]
    everyones = pipeline.jobs_rows.everyones(ctx.db.connection(), pipeline.JOB_START_BACKOFF)
    assert (tenant.id, tenant.user) not in {(job["tenant_id"], job["user_id"]) for job in everyones}


@pytest.mark.parametrize("said, value", [
    ("The Twilio offer fell through.", "Twilio"), ("I turned down the Twilio job.", "Twilio"),
    ("I'm not taking the job at Twilio after all.", "Twilio"), ("Twilio rescinded my offer.", "Twilio"),
    ("Decided to stay at Canva.", "the new job"), ("The new job got cancelled.", "the new job"),
    ("I'm nervous about the Twilio job.", None), ("Twilio sent me the contract.", None),
    ("my sister turned down a job at Twilio", None), ("We decided to stay at the Hilton.", None),
    ("Decided to stay at Grandma's.", None), ("Decided to stay at Lisbon.", None),
])
def test_the_offline_rules_read_a_job_to_come_called_off_as_its_end(said, value):
    found = [c for c in OfflineExtractor().extract([{"id": "m1", "role": "user", "content": said}], [])
             if c.base_key == "next_job"]
    assert [(c.value, c.historical, c.ends_only) for c in found] == ([(value, True, True)] if value else [])


def _days_ago(days: float) -> str:
    return (datetime.now(timezone.utc) - timedelta(days=days)).isoformat()


class _Embedder(WrappedEmbedder):
    """The context's embedder, failing for texts that name `failing` (an endpoint down for one call) and
    its probe then failing too (still down a moment after: embeddings.down), taking `seconds` for each call;
    `embedded`, the texts of each call."""

    def __init__(self, embedder, failing: str = "", seconds: float = 0.0):
        super().__init__(embedder)
        self._failing, self._seconds = failing, seconds
        self.embedded: list[list[str]] = []

    def embed(self, texts):
        self.embedded.append(list(texts))
        time.sleep(self._seconds)
        if self._failing and any(self._failing in text for text in texts):
            raise TimeoutError("embedder down")
        return self._embedder.embed(texts)

    def probe(self):
        if self._failing:
            raise TimeoutError("embedder down")
        self._embedder.probe()


def test_the_sweep_locks_no_user_whose_job_to_come_names_no_day_or_one_not_yet_come(own_database):
    """The sweep took the lock of every user with a job to come, in a transaction each, every 5 minutes:
    now only those whose day has come, read in one statement. A transaction holding the others' locks (a
    long import's) holds the sweep up no more."""
    ctx, tenant = own_database
    tenant.turn("I work at Miro.", timestamp=_days_ago(11))
    tenant.turn("I start at Asana next year.", timestamp=_days_ago(10))  # no day
    soon, later = tenant.user + "-soon", tenant.user + "-later"
    tenant.turn("I start at Figma soon.", user=soon, timestamp=_days_ago(10))  # no day
    tenant.turn("I start at Notion in two weeks.", user=later, timestamp=_days_ago(0.01))  # not yet
    assert [_current(tenant, "next_job", user) for user in (tenant.user, soon, later)] == [
        ["starting at Asana next year"], ["starting at Figma soon"], ["starting at Notion in two weeks"]]
    with psycopg.connect(ctx.db.dsn) as holder:
        for user in (tenant.user, soon, later):
            locks.lock_user(holder, tenant.id, user)
        due = []
        swept = threading.Thread(target=lambda: due.append(pipeline.start_jobs_due(ctx, 60.0)), daemon=True)
        swept.start()
        waited = comes_to_wait_on_users_lock(swept, holder, tenant.id, [tenant.user, soon, later])
        holder.rollback()
    swept.join(timeout=60)
    assert not waited, "the sweep waited for the lock of a user with no job due"
    # A user it tried would be left for the next run (its lock held: try_lock_user), not waited for.
    assert due[0].left == 0, "the sweep tried the lock of a user with no job due"
    assert _current(tenant, "next_job") == ["starting at Asana next year"]


def test_a_user_whose_lock_is_held_is_left_for_the_next_sweep_and_said_so(own_database, http, caplog):
    """A user due whose lock another transaction holds (a long import chunk) is left for the next run: that was
    counted only in `left`, with the users the time did not reach, and logged nowhere, so an import that
    never ends kept a user's new job from starting unseen. Now one warning a run names them (as hashes)
    and JobStartsLockHeld counts them; the lock free, the next run starts the job."""
    ctx, tenant = own_database
    tenant.turn("I work at Canva.", timestamp=_days_ago(31))
    tenant.turn("I start at Twilio next week.", timestamp=_days_ago(30))
    before = scrape(http)
    with psycopg.connect(ctx.db.dsn) as holder:
        locks.lock_user(holder, tenant.id, tenant.user)
        with caplog.at_level(logging.WARNING, logger="memex.pipeline"):
            due = pipeline.start_jobs_due(ctx, 60.0)
        holder.rollback()
    assert (due.started, due.lock_held, due.left) == (0, 1, 1) 
    assert moved(before, scrape(http), "memex_job_starts_lock_held_total") == 1
    [said] = [line for line in caplog.messages if user_hash(tenant.id, tenant.user) in line]
    assert "lock" in said and tenant.user not in said and "Twilio" not in said
    assert _current(tenant, "employer") == ["Canva"]
    again = pipeline.start_jobs_due(ctx, 60.0)
    assert again.lock_held == 0 and _current(tenant, "employer") == ["Twilio"]


def test_a_user_whose_job_fails_to_start_for_the_embedder_leaves_the_others_and_not_the_erasures(own_database, http,
                                                                                                 caplog):
    """One user's start fails (the embedder down for their employer's text): logged (the user as a hash,
    the error as its type) and counted, the next sweep tries again; the other user's start, after it, is
    left for the next sweep too (the embedder failed: each start would wait for it), and the erasure after
    them goes on."""
    from infra.local.lambda_context import LocalLambdaContext
    from infra.local.runtime import function_module

    ctx, _ = own_database
    hurried = dataclasses.replace(ctx, settings=dataclasses.replace(ctx.settings, erasure_chunk_rows=1,
                                                                    erasure_request_seconds=1e-9))
    with api_client(hurried) as client:
        failing, other, erased = Tenant(ctx, client), Tenant(ctx, client), Tenant(ctx, client)
        failing.turn("I work at Canva.", timestamp=_days_ago(31))
        failing.turn("I start at Twilio next week.", timestamp=_days_ago(30))  # the earlier: tried first
        other.turn("I work at Miro.", timestamp=_days_ago(21))
        other.turn("I start at Asana next week.", timestamp=_days_ago(20))
        erased.turn("I work at Stripe. My dog is called Rex.", session="a")
        erased.turn("I play the cello.", session="b")
        assert erased.delete(f"/v1/users/{erased.user}").status_code == 202  # one row erased, the rest left
        down = dataclasses.replace(ctx, embedder=_Embedder(ctx.embedder, failing="Twilio"))
        before = scrape(http)
        with caplog.at_level(logging.WARNING, logger="memex.pipeline"):
            answer = function_module("sweep").run(down, LocalLambdaContext("sweep", timeout_seconds=60))
        assert (answer["jobs_failed"], answer["jobs_left"], answer["erasures_finished"]) == (1, 1, 1)
        assert moved(before, scrape(http), "memex_job_starts_failed_total") == answer["jobs_failed"]
        assert any(user_hash(failing.id, failing.user) in line and "TimeoutError" in line for line in caplog.messages)
        assert not any(failing.user in line or "Twilio" in line for line in caplog.messages)
        assert _current(other, "employer") == ["Miro"]
        assert _current(failing, "employer") == ["Canva"]
        assert _current(failing, "next_job") == ["starting at Twilio next week"]
        assert erased.get(f"/v1/users/{erased.user}/memories").json()["memories"] == []
        # the embedder back: the next sweep starts both
        function_module("sweep").run(ctx, LocalLambdaContext("sweep", timeout_seconds=60))
        assert (_current(failing, "employer"), _current(other, "employer")) == (["Twilio"], ["Asana"])


def test_the_sweep_begins_no_job_start_past_its_time_and_leaves_the_rest_to_the_next(own_database):
    """Each start here takes 1 s (its embedding): with 1.5 s, the first due (the earliest day) is started,
    the second is not begun, since what is left is less than the first took; the next run starts it."""
    ctx, tenant = own_database
    first, second = tenant.user, tenant.user + "-b"
    tenant.turn("I work at Canva.", timestamp="2001-02-26T09:00:00Z")
    tenant.turn("I start at Twilio next week.", timestamp="2001-03-01T09:00:00Z")
    tenant.turn("I work at Miro.", user=second, timestamp="2001-02-26T09:00:00Z")
    tenant.turn("I start at Asana next week.", user=second, timestamp="2001-03-08T09:00:00Z")
    slow = dataclasses.replace(ctx, embedder=_Embedder(ctx.embedder, seconds=1.0))
    due = pipeline.start_jobs_due(slow, 1.5)
    # Not begun, rather than a bound on the run's wall time, which a busy machine can pass.
    assert not any("Asana" in text for texts in slow.embedder.embedded for text in texts), slow.embedder.embedded
    assert (due.started, due.failed, due.left) == (1, 0, 1)
    assert (_current(tenant, "employer", first), _current(tenant, "employer", second)) == (["Twilio"], ["Miro"])
    assert pipeline.start_jobs_due(ctx, 60.0).started == 1
    assert _current(tenant, "employer", second) == ["Asana"]


def test_with_the_embedder_down_the_sweep_waits_for_one_users_start_and_leaves_the_others(own_database):
    """The embedder down on the 1st of a month, every "next month" due: each due user's start waited out the
    embedder's attempts in turn, the run's time share gone to them. The first failure that is the embedder's
    stops the starts (the real `openai` client against a loopback endpoint answering 500): one user's
    attempts, the others left for the next run, which starts them all once it answers."""
    from bench.openai_double import OpenAIDouble
    from memex.embeddings.openai_compat import DOCUMENT_ATTEMPTS

    ctx, tenant = own_database
    users = [f"{tenant.user}-{n}" for n in range(3)]
    for n, user in enumerate(users):
        tenant.turn("I work at Canva.", user=user, timestamp=f"1990-01-0{n + 1}T09:00:00Z")
        tenant.turn("I start at Twilio next week.", user=user, timestamp=f"1990-01-0{n + 2}T09:00:00Z")
    with OpenAIDouble(dim=ctx.settings.embedding_dim) as double:
        double.fail("/v1/embeddings", "500")
        due = pipeline.start_jobs_due(_at_the_double(ctx, double), 600.0)
        asked = _embeddings_asked(double)
    assert asked == DOCUMENT_ATTEMPTS + 1, f"{asked // DOCUMENT_ATTEMPTS} users waited for the embedder"  # and the probe
    assert (due.started, due.failed, due.left) == (0, 1, len(users) - 1)
    assert due.embedder_down  # the sweep's fill does not ask it again in the run (tests/test_vector_fill.py)
    assert [_current(tenant, "employer", user) for user in users] == [["Canva"]] * len(users)
    assert pipeline.start_jobs_due(ctx, 600.0).started == len(users)
    assert [_current(tenant, "employer", user) for user in users] == [["Twilio"]] * len(users)


def _at_the_double(ctx, double, **settings):
    """The context with its embedder at the double, through the real `openai` client (`settings` changed)."""
    from memex.embeddings import measured_embedder

    settings = dataclasses.replace(ctx.settings, embeddings_provider="openai", embeddings_base_url=double.base_url,
                                   embeddings_model="embed-down", embeddings_query_cache=0, **settings)
    return dataclasses.replace(ctx, settings=settings, embedder=measured_embedder(settings, ctx.metrics))


@contextmanager
def _asked_under_the_lock(ctx, tenant, double) -> Iterator[list[tuple[str, bool]]]:
    """(each text of each embedding request at the double, whether a transaction held the lock of one of the
    tenant's users as it arrived), filled in as they come."""
    from bench.openai_double import EMBEDDINGS

    asked: list[tuple[str, bool]] = []
    with psycopg.connect(ctx.db.dsn, autocommit=True) as watcher:
        def arrived(path, body):
            if path != EMBEDDINGS:
                return
            held = holds_a_users_lock(watcher, tenant.id)
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            asked.extend((text, held) for text in texts)

        double.on_request = arrived
        yield asked
        double.on_request = None


def _embeddings_asked(double) -> int:
    from bench.openai_double import EMBEDDINGS

    return sum(1 for path, _ in double.requests if path == EMBEDDINGS)


@pytest.mark.parametrize("failure", ["400", "500 to that text"])
def test_a_text_the_embedder_refuses_fails_its_users_start_and_the_others_go_on(own_database, caplog, monkeypatch,
                                                                               failure):
    """The embedder refusing one user's text (a 400: what it was given, not a failure of its own,
    embeddings.on_its_side; or a 500 to that text only while it answers a probe, embeddings.down) stopped the
    starts of every user due after them, at each run for as long as that job was due. It is that user's
    failure: logged, counted, the others started. It would refuse the text again: each run (every 5 minutes)
    asked it once more and counted one more failure, for as long as the job was due. The sweep leaves that
    job for pipeline.JOB_START_BACKOFF, then asks again. Refused with no lock held, the text was asked once more
    under the user's lock in the same run (the endpoint's attempts, and a probe, with the user's writes waiting):
    its job is now noted and left out of the run's starts at once."""
    from bench.openai_double import EMBEDDINGS, OpenAIDouble
    from memex.embeddings import openai_compat
    from memex.embeddings.openai_compat import DOCUMENT_ATTEMPTS

    ctx, tenant = own_database
    monkeypatch.setattr(openai_compat, "RETRY_PAUSE_SECONDS", 0.0)

    refused, other = tenant.user + "-refused", tenant.user + "-other"
    # the refused one first (its week the earlier)
    tenant.turn("I work at Canva.", user=refused, timestamp="1987-01-01T09:00:00Z")
    tenant.turn("I start at Kayak next week.", user=refused, timestamp="1987-01-02T09:00:00Z")
    tenant.turn("I work at Miro.", user=other, timestamp="1987-01-01T09:00:00Z")
    tenant.turn("I start at Asana next week.", user=other, timestamp="1987-01-13T09:00:00Z")
    attempts, error = (1, "BadRequestError") if failure == "400" else (DOCUMENT_ATTEMPTS, "InternalServerError")
    with OpenAIDouble(dim=ctx.settings.embedding_dim) as double, _asked_under_the_lock(ctx, tenant, double) as asked:
        if failure == "400":
            double.script(EMBEDDINGS, status=400, body={"error": {"message": "input too long"}})
        else:
            double.fail_inputs_with("Kayak")
        at_the_double = _at_the_double(ctx, double)
        with caplog.at_level(logging.WARNING, logger="memex.pipeline"):
            due = pipeline.start_jobs_due(at_the_double, 600.0)
            assert (due.failed, due.embedder_down) == (1, False)
            assert (_current(tenant, "employer", refused), _current(tenant, "employer", other)) == (
                ["Canva"], ["Asana"])
            assert any(user_hash(tenant.id, refused) in line and error in line
                       and "tries again in 60 minutes" in line for line in caplog.messages)
            caplog.clear()
            double.failing_inputs.clear()
            # the next run, the embedder taking every text now: it is not asked for the refused user's
            again = pipeline.start_jobs_due(at_the_double, 600.0)
        kayak = "My employer is Kayak: I work there."
        # refused with no lock held, and not asked once more under it: its job is noted in the transaction run
        # again, which leaves it out (pipeline._start_jobs_alone)
        assert [(text, held) for text, held in asked if "Kayak" in text] == [(kayak, False)] * attempts
        assert again.failed == 0 and not any(user_hash(tenant.id, refused) in line for line in caplog.messages)
        assert _current(tenant, "employer", refused) == ["Canva"]
        # the back-off past, it is asked again
        with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
            conn.execute("UPDATE memories SET start_failed_at = start_failed_at - %s WHERE tenant_id = %s "
                         "AND user_id = %s AND start_failed_at IS NOT NULL",
                         (pipeline.JOB_START_BACKOFF, tenant.id, refused))
        assert pipeline.start_jobs_due(at_the_double, 600.0).started == 1
    assert [text for text, _ in asked if "Kayak" in text] == [kayak] * (attempts + 1)
    assert _current(tenant, "employer", refused) == ["Kayak"]


def test_a_rate_limit_over_by_the_probe_is_tried_again_at_the_next_run(own_database, caplog, monkeypatch):
    """A start failing on a rate limit that was over by the probe (embeddings.down: not down) was taken for a
    text refused, and the job left for JOB_START_BACKOFF. A rate limit says nothing of the text
    (embeddings.OnItsSide.PASSING): the next run tries it again."""
    from bench.openai_double import EMBEDDINGS, OpenAIDouble
    from memex.embeddings import openai_compat
    from memex.embeddings.openai_compat import DOCUMENT_ATTEMPTS

    ctx, tenant = own_database
    monkeypatch.setattr(openai_compat, "RETRY_PAUSE_SECONDS", 0.0)
    limited = tenant.user + "-limited"
  
    tenant.turn("I work at Canva.", user=limited, timestamp="1984-01-01T09:00:00Z")
    tenant.turn("I start at Kayak next week.", user=limited, timestamp="1984-01-02T09:00:00Z")
    with OpenAIDouble(dim=ctx.settings.embedding_dim) as double:
        for _ in range(DOCUMENT_ATTEMPTS):
            double.script(EMBEDDINGS, status=429, body={"error": {"message": "slow down"}})
        at_the_double = _at_the_double(ctx, double)
        with caplog.at_level(logging.WARNING, logger="memex.pipeline"):
            due = pipeline.start_jobs_due(at_the_double, 600.0)
        assert (due.failed, due.embedder_down) == (1, False)
        assert any(user_hash(tenant.id, limited) in line and "RateLimitError" in line and "next sweep tries again"
                   in line for line in caplog.messages)
        assert pipeline.start_jobs_due(at_the_double, 600.0).started == 1
    assert _current(tenant, "employer", limited) == ["Kayak"]


def test_a_start_embeds_what_ended_with_the_old_job_with_no_lock_held(own_database):
    """A start learns what its write needs a step at a time: its employer's text, then, that vector having
    found the old employer, the end of the role held there. _embedding_unlocked embedded the first with no
    lock held, then ran the write with the second embedded under the user's lock (the embedder's round trip
    keeping every other write of the user's waiting). Each round it lacks a text is now rolled back and the
    text embedded with none held, the write run again until it lacks none."""
    from bench.openai_double import OpenAIDouble

    ctx, tenant = own_database
  
    tenant.turn("I work at Canva as a designer.", timestamp="1985-01-01T09:00:00Z")
    tenant.turn("I start at Twilio next week.", timestamp="1985-01-02T09:00:00Z")
    with OpenAIDouble(dim=ctx.settings.embedding_dim) as double, _asked_under_the_lock(ctx, tenant, double) as asked:
        due = pipeline.start_jobs_due(_at_the_double(ctx, double), 600.0)
    theirs = [(text, held) for text, held in asked if "Twilio" in text or "designer" in text]
    assert [held for _, held in theirs] == [False, False], theirs
    assert due.started == 1 and (_current(tenant, "employer"), _current(tenant, "role")) == (["Twilio"], [])
    [ended] = [m for m in _facts(tenant, "role") if m["content"] == "The user's job title used to be designer."]
    assert ended["valid_to"] is not None


@pytest.mark.parametrize("kept_seconds, under_the_lock", [(600.0, False), (1e-9, True)],
                         ids=["with-no-lock-held", "under-the-lock"])
def test_the_embedder_down_mid_start_stops_the_starts_too(own_database, monkeypatch, kept_seconds, under_the_lock):
    """A start embeds its employer's text, then the end of the role held at the old employer. The embedder
    failing there on its side stops the starts as its failure on the first text does; each user due after
    them would wait out its attempts in turn. Its failure under the user's lock too (before, one user's
    failure: every user after them waited out its attempts): a start embeds there what the recent texts
    dropped between its rounds (an erasure of the tenant's, their age; here kept 1 ns), which no round
    with no lock held could keep."""
    from bench.openai_double import EMBEDDINGS, OpenAIDouble
    from memex.embeddings import openai_compat
    from memex.embeddings.openai_compat import DOCUMENT_ATTEMPTS

    ctx, tenant = own_database
    monkeypatch.setattr(openai_compat, "RETRY_PAUSE_SECONDS", 0.0)
    users = [f"{tenant.user}-{n}" for n in range(2)]
    for n, user in enumerate(users):
        tenant.turn("I work at Canva as a designer.", user=user, timestamp=f"1986-01-0{n + 1}T09:00:00Z")
        tenant.turn("I start at Twilio next week.", user=user, timestamp=f"1986-01-0{n + 2}T09:00:00Z")
    with OpenAIDouble(dim=ctx.settings.embedding_dim) as double, _asked_under_the_lock(ctx, tenant, double) as asked:
        double.script(EMBEDDINGS)  # the employer's text, with no lock held; then the embedder is down
        for _ in range(DOCUMENT_ATTEMPTS * len(users)):
            double.script(EMBEDDINGS, status=500)
        due = pipeline.start_jobs_due(_at_the_double(ctx, double, recent_texts_max_age_seconds=kept_seconds), 600.0)
    # the employer's text, the end's attempts, then the probe (embeddings.down), once: where the attempts were
    # (the start's savepoint classes a failure under the lock, as the turns' transactions do)
    assert len(asked) == 1 + DOCUMENT_ATTEMPTS + 1, f"{(len(asked) - 2) / DOCUMENT_ATTEMPTS:g} users waited for the embedder"
    assert [held for _, held in asked] == [False] + [under_the_lock] * (DOCUMENT_ATTEMPTS + 1)
    assert (due.started, due.failed, due.embedder_down, due.left) == (0, 1, True, len(users) - 1)
    assert [_current(tenant, "employer", user) for user in users] == [["Canva"]] * len(users)
    assert pipeline.start_jobs_due(ctx, 600.0).started == len(users)
    assert [_current(tenant, "employer", user) for user in users] == [["Twilio"]] * len(users)
    assert [_current(tenant, "role", user) for user in users] == [[]] * len(users)  # ended with Canva


def test_the_sweep_leaves_a_user_whose_lock_a_long_writer_holds_and_starts_the_others(own_database):
    """A user's start waited for their lock, held by a long writer (an import's chunk), with the run's time
    share and every user due after them behind it. It takes the lock only if free: that user is left for
    the next run, the others start."""
    ctx, tenant = own_database
    held, free = tenant.user + "-held", tenant.user + "-free"
    for n, user in enumerate((held, free)):  # the held one first
        tenant.turn("I work at Canva.", user=user, timestamp=f"1991-01-0{n + 1}T09:00:00Z")
        tenant.turn("I start at Twilio next week.", user=user, timestamp=f"1991-01-0{n + 2}T09:00:00Z")
    due: list[pipeline.JobsDue] = []
    with psycopg.connect(ctx.db.dsn) as holder:
        locks.lock_user(holder, tenant.id, held)
        swept = threading.Thread(target=lambda: due.append(pipeline.start_jobs_due(ctx, 600.0)), daemon=True)
        swept.start()
        waited = comes_to_wait_on_users_lock(swept, holder, tenant.id, [held])
        holder.rollback()
    swept.join(timeout=60)
    assert not waited, "the sweep waited for the lock a writer held"
    assert (due[0].left, due[0].started) == (1, 1)
    assert (_current(tenant, "employer", held), _current(tenant, "employer", free)) == (["Canva"], ["Twilio"])
    assert pipeline.start_jobs_due(ctx, 600.0).started == 1  # the next run, the lock free
    assert _current(tenant, "employer", held) == ["Twilio"]


@contextmanager
def _refusing(ctx, tenant, failure: str, marker: str):
    """(a context whose embedder refuses the texts that hold `marker`, how many such texts it was asked),
    as `failure` says: a local embedder raising, or an endpoint answering 500 to them (the real `openai` client
    at the double), its attempts without their pauses."""
    from bench.openai_double import OpenAIDouble
    from memex.embeddings import openai_compat

    if failure == "local embedder":
        refusing = Refusing(ctx.embedder, marker)
        yield dataclasses.replace(ctx, embedder=refusing), lambda: refusing.refused
        return
    with OpenAIDouble(dim=ctx.settings.embedding_dim) as double, _asked_under_the_lock(ctx, tenant, double) as asked, \
            pytest.MonkeyPatch.context() as patch:
        patch.setattr(openai_compat, "RETRY_PAUSE_SECONDS", 0.0)
        double.fail_inputs_with(marker)
        yield _at_the_double(ctx, double), lambda: sum(1 for text, _ in asked if marker in text)


def _ingested(ctx, tenant, text: str, timestamp: str) -> str:
    return ingest_turn(ctx, tenant.id, TurnIn(user_id=tenant.user, session_id="s1", timestamp=timestamp,
                                              messages=[{"role": "user", "content": text}]), wait=False)["turn_id"]


def _said_with_melanie(tenant, timestamp: str, users: str, melanies: str) -> None:
    """`users` said by the user (Caroline) and `melanies` by Melanie, a participant, a turn each at `timestamp`,
    stored and decided."""
    for name, said in ((None, users), ("Melanie", melanies)):
        response = tenant.post("/v1/turns?wait=true", {
            "user_id": tenant.user, "session_id": "s1", "user_name": "Caroline", "timestamp": timestamp,
            "messages": [{"role": "user", "content": said, **({"name": name} if name else {})}]})
        assert response.status_code == 201, response.text


@contextmanager
def _metadata_no_object(ctx, tenant) -> Iterator[None]:
    """The user's job to come stored with metadata that is no object while the block runs (a fault of memex's own:
    reading it raises AttributeError), mended after it."""
    def stored(metadata: str) -> None:
        with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
            conn.execute("UPDATE memories SET metadata = %s::jsonb WHERE tenant_id = %s AND user_id = %s "
                         "AND key = 'next_job' AND active", (metadata, tenant.id, tenant.user))

    stored('"not an object"')
    try:
        yield
    finally:
        stored("{}")


def _job_start_failed_at(ctx, tenant) -> list:
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        return [row[0] for row in conn.execute(
            "SELECT start_failed_at FROM memories WHERE tenant_id = %s AND user_id = %s AND key = 'next_job' "
            "AND active", (tenant.id, tenant.user))]


def _status(ctx, tenant, turn_id: str) -> str:
    from memex.db import turns as turn_rows

    return turn_rows.get_turn(ctx.db.connection(), tenant.id, turn_id)["status"]


@pytest.mark.parametrize("failure", ["local embedder", "500 to that text"])
@pytest.mark.parametrize("where", ["storing the turn", "deciding the turns"])
def test_a_job_start_the_embedder_refuses_fails_alone_and_the_users_turns_are_stored(own_database, http, caplog,
                                                                                  where, failure):
    """The rules path starts a user's job whose day has come in the transaction that stores their turn's
    messages, and in the one that decides their turns. The embedder refusing the employer's text (for good:
    a local embedder's error, an endpoint's 500 to that text alone) rolled that whole transaction back: the
    turn, and every later turn of the user, failed the same way, to the dead-letter queue. The start fails
    alone (a savepoint): logged and counted, its job noted as the sweep notes its own failed start, which
    then leaves it for JOB_START_BACKOFF; the turns are stored and decided."""
    ctx, tenant = own_database
    # long ago: the job's day came long before the sweep's runs here
    tenant.turn("I work at Canva.", timestamp="1982-01-04T09:00:00Z")
    if where == "storing the turn":
        tenant.turn("I start at Kayak next week.", timestamp="1982-01-05T09:00:00Z")  # Monday the 11th
        turns = [_ingested(ctx, tenant, "Busy first week, lots of onboarding.", "1982-01-14T18:00:00Z")]
    else:  # the job to come is decided with a turn after its day: the start is the decision's
        turns = [_ingested(ctx, tenant, "I start at Kayak next week.", "1982-01-05T09:00:00Z"),
                 _ingested(ctx, tenant, "Busy first week, lots of onboarding.", "1982-01-14T18:00:00Z")]
    before = scrape(http)
    with _refusing(ctx, tenant, failure, "employer is Kayak") as (refusing, refused), \
            caplog.at_level(logging.WARNING, logger="memex.pipeline"):
        for turn_id in turns:
            pipeline.process_inline(refusing, tenant.id, turn_id)
        assert refused() >= 1
        assert [_status(ctx, tenant, turn_id) for turn_id in turns] == ["processed"] * len(turns)
        listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"limit": 500}).json()["memories"]
        assert "Busy first week, lots of onboarding." in [m["content"] for m in listed]
        assert (_current(tenant, "employer"), _current(tenant, "next_job")) == (["Canva"], ["starting at Kayak next week"])
        [failed_at] = _job_start_failed_at(ctx, tenant)
        assert failed_at is not None
        assert moved(before, scrape(http), "memex_job_starts_failed_total") == 1
        error = "ValueError" if failure == "local embedder" else "InternalServerError"
        assert any(user_hash(tenant.id, tenant.user) in line and error in line for line in caplog.messages)
        assert not any(tenant.user in line or "Kayak" in line for line in caplog.messages)
        # the sweep leaves it for its back-off, as its own failed start
        asked = refused()
        pipeline.start_jobs_due(refusing, 600.0)
        assert refused() == asked and _current(tenant, "employer") == ["Canva"]


def test_a_job_start_failing_by_a_fault_of_memexs_own_fails_the_turn_and_is_not_backed_off(own_database, caplog):
    """Only a failure raised within an embedding call is a refusal the turns go on without: any other (here a
    job whose stored metadata is no object, so reading it raises AttributeError) was taken for one too, the
    turn finished and the job left unstarted an hour at a time, its type alone logged. It fails the turn, as
    before the savepoint, and the sweep logs it with its traceback and tries it again at its next run, which
    starts it once the fault is mended."""
    ctx, tenant = own_database
    tenant.turn("I work at Canva.", timestamp="1983-01-03T09:00:00Z")
    tenant.turn("I start at Kayak next week.", timestamp="1983-01-04T09:00:00Z")
    with _metadata_no_object(ctx, tenant):
        turn_id = _ingested(ctx, tenant, "Busy first week, lots of onboarding.", "1983-01-13T18:00:00Z")
        with pytest.raises(AttributeError):
            pipeline.process_inline(ctx, tenant.id, turn_id)
        assert _status(ctx, tenant, turn_id) == "queued" and _job_start_failed_at(ctx, tenant) == [None]
        with caplog.at_level(logging.ERROR, logger="memex.pipeline"):
            due = pipeline.start_jobs_due(ctx, 600.0)
        assert due.failed == 1 and _job_start_failed_at(ctx, tenant) == [None]
        assert any(r.exc_info and r.exc_info[0] is AttributeError for r in caplog.records)
    # the fault mended: the next run starts it
    assert pipeline.start_jobs_due(ctx, 600.0).started == 1 and _current(tenant, "employer") == ["Kayak"]


def test_with_the_embedder_down_a_turn_whose_job_start_fails_is_retried_and_its_retry_starts_the_job(ctx, tenant):
    """The savepoint keeps only a start's own failure: the embedder down (its failure on its side, the probe
    failing too) still fails the turn, noting nothing on the job, and the turn's retry starts it."""
    tenant.turn("I work at Canva.", timestamp="1981-01-05T09:00:00Z")
    tenant.turn("I start at Kayak next week.", timestamp="1981-01-06T09:00:00Z")
    turn_id = _ingested(ctx, tenant, "Busy first week, lots of onboarding.", "1981-01-15T18:00:00Z")
    down = dataclasses.replace(ctx, embedder=_Embedder(ctx.embedder, failing="employer is Kayak"))
    with pytest.raises(TimeoutError):
        pipeline.process_inline(down, tenant.id, turn_id)
    assert _status(ctx, tenant, turn_id) == "queued" and _job_start_failed_at(ctx, tenant) == [None]
    pipeline.process_inline(ctx, tenant.id, turn_id)
    assert _status(ctx, tenant, turn_id) == "processed" and _current(tenant, "employer") == ["Kayak"]


def test_the_turns_after_a_job_start_refused_leave_it_for_the_back_off_too(ctx, tenant, http):
    """Each turn of the user's tried the start the embedder had refused, at the turn's cost (an endpoint's
    attempts and a probe, under the user's lock) and with one more JobStartsFailed, for as long as the job
    was due: a user's every turn of the day. Their turns leave it for JOB_START_BACKOFF, as the sweep does,
    then try it again, and start it once the embedder takes the text."""
    tenant.turn("I work at Canva.", timestamp="1980-01-07T09:00:00Z")
    tenant.turn("I start at Kayak next week.", timestamp="1980-01-08T09:00:00Z")
    refusing = Refusing(ctx.embedder, "employer is Kayak")
    at_refusing = dataclasses.replace(ctx, embedder=refusing)
    before = scrape(http)
    for day in (16, 17, 18):
        pipeline.process_inline(at_refusing, tenant.id, _ingested(ctx, tenant, f"Onboarding, day {day}.",
                                                                  f"1980-01-{day}T18:00:00Z"))
    assert refusing.refused == 1 and moved(before, scrape(http), "memex_job_starts_failed_total") == 1
    assert _current(tenant, "employer") == ["Canva"]
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:  # the back-off past
        conn.execute("UPDATE memories SET start_failed_at = start_failed_at - %s WHERE tenant_id = %s "
                     "AND user_id = %s AND start_failed_at IS NOT NULL", (pipeline.JOB_START_BACKOFF, tenant.id,
                                                                         tenant.user))
    refusing.marker = ""  # the embedder takes the text now
    turn_id = _ingested(ctx, tenant, "Onboarding, day 19.", "1980-01-19T18:00:00Z")
    pipeline.process_inline(at_refusing, tenant.id, turn_id)
    assert _status(ctx, tenant, turn_id) == "processed" and _current(tenant, "employer") == ["Kayak"]


def test_a_start_that_still_lacks_a_text_past_the_unlocked_rounds_embeds_it_under_the_lock_and_finishes(own_database):
    """_embedding_unlocked's rounds with no lock held are bounded (UNLOCKED_ROUNDS, each a transaction that
    locks the user and reads their jobs and memories before it is rolled back): three jobs starting at once (the
    user's and two participants'), each learning its employer's text and then the end of the role held at the
    old one, lack a text in six rounds. Past the fourth, what is still missing is embedded under the lock, as
    it always was, and the starts finish."""
    from bench.openai_double import OpenAIDouble

    ctx, tenant = own_database
    people = ("Melanie", "Jon")
    for n, name in enumerate((None, *people)):
        said = {"role": "user", **({"name": name} if name else {})}
        for day, text in ((1, "I work at Canva as a designer."), (2, "I start at Twilio next week.")):
            response = tenant.post("/v1/turns?wait=true", {
                "user_id": tenant.user, "session_id": "s1", "user_name": "Caroline",
                "timestamp": f"1979-01-0{day}T0{n + 1}:00:00Z", "messages": [{**said, "content": text}]})
            assert response.status_code == 201, response.text
    subjects = ["user", *(name.lower() for name in people)]
    with OpenAIDouble(dim=ctx.settings.embedding_dim) as double, _asked_under_the_lock(ctx, tenant, double) as asked:
        due = pipeline.start_jobs_due(_at_the_double(ctx, double), 600.0)
    theirs = [(text, held) for text, held in asked if "Twilio" in text or "designer" in text]
    assert len(theirs) == 2 * len(subjects), theirs
    rounds = pipeline.UNLOCKED_ROUNDS
    assert [held for _, held in theirs] == [False] * rounds + [True] * (len(theirs) - rounds), theirs
    assert due.started == len(subjects)
    for subject in subjects:
        assert _current(tenant, subject_key(subject, "employer")) == ["Twilio"], subject
        assert _current(tenant, subject_key(subject, "role")) == [], subject


class _OneFailure(WrappedEmbedder):
    """Every embedding call raising one exception object (a timeout: on the embedder's side, passing), as the
    coalescing embedder raises the failure of one call to every caller that waited on it; the first call first
    lets `meanwhile` run (another caller's, on a thread of its own, as one waiting on the same call would)."""

    def __init__(self, embedder, meanwhile):
        super().__init__(embedder)
        self.failure, self.meanwhile = TimeoutError("the embedder did not answer in time"), meanwhile

    def embed(self, texts):
        meanwhile, self.meanwhile = self.meanwhile, None
        if meanwhile is not None:
            thread = threading.Thread(target=meanwhile)
            thread.start()
            thread.join()
        raise self.failure


def test_the_sweep_counts_its_own_users_jobs_failed_when_another_caller_got_the_same_failure(own_database):
    """start_jobs set the count of the jobs due it had taken on the exception it re-raised, for the sweep to read:
    one exception object raised to several callers (the coalescing embedder's) carried another caller's count,
    and the sweep counted another user's jobs as its user's failed (here its user's start failed embedding with
    no lock held, before its start_jobs counted anything: the other turn's 3, not the 1 job due it read)."""
    ctx, tenant = own_database
    alone, many = tenant.user + "-alone", tenant.user + "-many"
    tenant.turn("I work at Canva.", user=alone, timestamp="1970-01-01T09:00:00Z")  # the earliest due: swept first
    tenant.turn("I start at Twilio next week.", user=alone, timestamp="1970-01-02T09:00:00Z")
    for n, name in enumerate((None, "Melanie", "Jon")):  # three jobs due: the user's and two participants'
        said = {"role": "user", **({"name": name} if name else {})}
        for day, text in ((1, "I work at Canva as a designer."), (2, "I start at Twilio next week.")):
            response = tenant.post("/v1/turns?wait=true", {
                "user_id": many, "session_id": "s1", "user_name": "Caroline",
                "timestamp": f"1971-01-0{day}T0{n + 1}:00:00Z", "messages": [{**said, "content": text}]})
            assert response.status_code == 201, response.text

    def many_users_turn():  # a turn of theirs decided now: start_jobs under the lock, failing with the same exception
        with suppress(TimeoutError), failing.db.transaction() as conn:
            locks.lock_user(conn, tenant.id, many)
            pipeline.start_jobs(conn, failing, tenant.id, many, datetime.now(timezone.utc), embed_here=True)

    failing = dataclasses.replace(ctx, embedder=_OneFailure(ctx.embedder, many_users_turn))
    due = pipeline.start_jobs_due(failing, 600.0)
    assert (due.started, due.failed, due.embedder_down) == (0, 1 + 3, False)
    assert pipeline.start_jobs_due(ctx, 600.0).started == 1 + 3
    assert _current(tenant, "employer", alone) == ["Twilio"]


class _TimingOut(WrappedEmbedder):
    """Timing out for a text that holds `marker` (a failure on the embedder's side, passing), answering the
    others and its probe."""

    def __init__(self, embedder, marker: str):
        super().__init__(embedder)
        self.marker = marker

    def embed(self, texts):
        if any(self.marker in text for text in texts):
            raise TimeoutError("the embedder did not answer in time")
        return self._embedder.embed(texts)


def test_the_sweep_counts_the_jobs_taken_when_their_embedding_with_no_lock_held_fails(own_database, http):
    """A start lacking its employer's vector leaves start_jobs (_Unembedded) to embed it with no lock held: that
    embedding failing, the sweep counted every job it had read as due, a participant's whose day comes after the
    user's turn not yet decided with them, though start_jobs had taken one (review of jobtxn3)."""
    ctx, tenant = own_database
    _said_with_melanie(tenant, "1962-01-03T09:00:00Z", "I start at Zendesk next week.",
                       "I start at Kayak in two weeks.")
    _ingested(ctx, tenant, "Nice weather today.", "1962-01-12T09:00:00Z")  # Zendesk's day past, not Kayak's
    before = scrape(http)
    due = pipeline.start_jobs_due(dataclasses.replace(ctx, embedder=_TimingOut(ctx.embedder, "Zendesk")), 600.0)
    assert due.failed == 1 and moved(before, scrape(http), "memex_job_starts_failed_total") == 1
    assert pipeline.start_jobs_due(ctx, 600.0).started == 1 and _current(tenant, "employer") == ["Zendesk"]


def _job_starts_failed(ctx, tenant) -> dict[str, bool]:
    """Whether each current job to come (by its key) has a failed start noted."""
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        return {row[0]: row[1] is not None for row in conn.execute(
            "SELECT key, start_failed_at FROM memories WHERE tenant_id = %s AND user_id = %s "
            "AND key LIKE '%%next_job' AND active", (tenant.id, tenant.user))}


@pytest.mark.parametrize("where", ["the sweep", "the LLM path"])
def test_a_job_start_refused_fails_alone_on_the_paths_that_embed_with_no_lock_held(own_database, http, llm, where):
    """The sweep and the LLM path start a user's jobs due in one transaction, embedding with no lock held
    (_embedding_unlocked). The embedder refusing one job's text (the participant's employer) failed them all:
    every job due of the user, theirs and their participants', left for JOB_START_BACKOFF, a good start waiting
    an hour for another's text. Each job's start fails alone, as on the rules path: the user's job starts in
    the same run, the participant's alone is noted, and one failure is counted."""
    from memex.jobs import ExtractionJob
    from memex.supersession import make_judge

    ctx, tenant = own_database
    _said_with_melanie(tenant, "1976-01-05T09:00:00Z", "I start at Twilio next week.", "I start at Kayak next week.")
    refusing = dataclasses.replace(ctx, embedder=Refusing(ctx.embedder, "Kayak"))
    before = scrape(http)
    if where == "the sweep":
        due = pipeline.start_jobs_due(refusing, 600.0)
        assert due.failed == 1 and due.started == 1
    else:
        # The later turn, after the jobs' day, extracted while one before it is undecided: the turns' own
        # transactions (the rules path's start, _store_episodic) start nothing past it; the LLM path, deciding
        # the later turn's candidate (no call out: nothing related), does.
        turns = [_ingested(ctx, tenant, "Nice weather today.", "1976-01-08T09:00:00Z"),
                 _ingested(ctx, tenant, "I play the cello.", "1976-01-15T18:00:00Z")]
        job = pipeline.extract(ctx, ExtractionJob(tenant.id, turns[1]), delivered=False)
        assert job is not None and pipeline.extract(ctx, ExtractionJob(tenant.id, turns[0]), delivered=False) is None
        assert _job_starts_failed(ctx, tenant) == {"next_job": False, "melanie_next_job": False}
        settings = dataclasses.replace(ctx.settings, llm_base_url=llm.base_url, llm_model="test-model",
                                       llm_api_key="k")
        asked = len(llm.requests)
        pipeline.resolve(dataclasses.replace(refusing, judge=make_judge(settings, ctx.metrics)), job)
        assert _status(ctx, tenant, turns[1]) == "processed" and len(llm.requests) == asked
    assert (_current(tenant, "employer"), _current(tenant, "melanie_employer")) == (["Twilio"], [])
    assert _current(tenant, "melanie_next_job") == ["starting at Kayak next week"]
    assert _job_starts_failed(ctx, tenant) == {"melanie_next_job": True}
    assert moved(before, scrape(http), "memex_job_starts_failed_total") == 1
    # refused with no lock held, and not asked again under it (pipeline._start_jobs_alone)
    assert refusing.embedder.refused == 1


def test_a_refused_start_is_told_once_its_transaction_commits(ctx, tenant, http, caplog):
    """A start refused in a transaction that then fails (here a later write of the same turns, the embedder
    timing out under the lock) noted nothing, rolled back with it; it was counted and logged all the same (its
    turns "stored"), and counted again at the retry. It is told once the transaction that noted it commits."""
    tenant.turn("I work at Canva as a designer.", timestamp="1975-01-06T09:00:00Z")
    # decided in one transaction: the job to come, then, past its day, its start and an employer that ends the role
    turns = [_ingested(ctx, tenant, "I start at Kayak next week.", "1975-01-07T09:00:00Z"),
             _ingested(ctx, tenant, "I work at Figma now.", "1975-01-20T09:00:00Z")]
    refusing = dataclasses.replace(ctx, embedder=Refusing(ctx.embedder, "employer is Kayak"))
    failing = dataclasses.replace(ctx, embedder=_Embedder(refusing.embedder, failing="used to be designer"))
    jobs = pipeline.extract_many(failing, tenant.id, turns, delivered=False)
    before = scrape(http)
    with caplog.at_level(logging.WARNING, logger="memex.pipeline"), pytest.raises(TimeoutError):
        pipeline.resolve_many(failing, jobs)
    assert moved(before, scrape(http), "memex_job_starts_failed_total") == 0
    assert not any(user_hash(tenant.id, tenant.user) in line for line in caplog.messages)
    # nor the verdicts written before the failure (the job to come's), rolled back with it
    assert _verdicts(before, scrape(http)) == 0
    assert [_status(ctx, tenant, turn_id) for turn_id in turns] == ["processing", "processing"]
    pipeline.resolve_many(refusing, jobs)  # the retry
    assert [_status(ctx, tenant, turn_id) for turn_id in turns] == ["processed", "processed"]
    assert moved(before, scrape(http), "memex_job_starts_failed_total") == 1
    assert _verdicts(before, scrape(http)) == 2  # the job to come and Figma, each once


def _verdicts(before, after) -> float:
    """How many SupersessionVerdicts were counted between the two scrapes, whatever their action."""
    return sum(value - before.get(key, 0.0) for key, value in after.items()
               if key[0] == "memex_supersession_verdicts_total")


def test_the_sweep_counts_each_job_whose_start_failed(own_database, http):
    """JobStartsFailed counted jobs whose start a turn or the LLM path failed, but users in the sweep: a user and
    a participant's starts failing together were one. A failure of a user's starts (here a fault of memex's
    own, which fails them all) counts each of their jobs due, in the metric and the sweep's `jobs_failed`."""
    ctx, tenant = own_database
    _said_with_melanie(tenant, "1974-01-07T09:00:00Z", "I start at Twilio next week.", "I start at Kayak next week.")
    with _metadata_no_object(ctx, tenant):
        before = scrape(http)
        due = pipeline.start_jobs_due(ctx, 600.0)
        assert due.failed == 2 and moved(before, scrape(http), "memex_job_starts_failed_total") == 2
        assert _job_starts_failed(ctx, tenant) == {"next_job": False, "melanie_next_job": False}  # neither started
    # mended: the next run starts both
    assert pipeline.start_jobs_due(ctx, 600.0).started == 2 and _job_starts_failed(ctx, tenant) == {}


def test_the_sweep_counts_the_failed_starts_of_the_jobs_it_took_alone(own_database, http):
    """A user's starts failing (a fault of memex's own) counted every job the sweep read as due, but start_jobs
    takes only those due before the user's earliest turn not yet decided: a participant's job whose day comes
    after that turn was counted failed, though no start of it was begun."""
    ctx, tenant = own_database
    _said_with_melanie(tenant, "1972-01-03T09:00:00Z", "I start at Twilio next week.",
                       "I start at Kayak in two weeks.")
    undecided = _ingested(ctx, tenant, "Nice weather today.", "1972-01-12T09:00:00Z")  # Twilio's day past, not Kayak's
    with _metadata_no_object(ctx, tenant):
        before = scrape(http)
        due = pipeline.start_jobs_due(ctx, 600.0)
        assert due.failed == 1 and moved(before, scrape(http), "memex_job_starts_failed_total") == 1
    # mended, and the turn decided: both start
    pipeline.process_inline(ctx, tenant.id, undecided)
    assert pipeline.start_jobs_due(ctx, 600.0).started == 1
    assert (_current(tenant, "employer"), _current(tenant, "melanie_employer")) == (["Twilio"], ["Kayak"])


@contextmanager
def _failing(ctx, tenant, trigger: str) -> Iterator[None]:
    """While the block runs, the user's transactions that write what `trigger` names fail (a Postgres error),
    `trigger` the rest of a CREATE ... TRIGGER statement after its name."""
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        conn.execute("CREATE FUNCTION failing() RETURNS trigger LANGUAGE plpgsql AS "
                     "$$ BEGIN RAISE EXCEPTION 'a write failing'; END $$")
        conn.execute(trigger.format(user=tenant.user))
    try:
        yield
    finally:
        with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
            conn.execute("DROP FUNCTION failing() CASCADE")


@pytest.mark.parametrize("failing", [
    # the employer written in the round after the refusal, which fails as it commits
    "CREATE CONSTRAINT TRIGGER failing AFTER INSERT ON memories DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
    "WHEN (NEW.user_id = '{user}' AND NEW.key = 'employer') EXECUTE FUNCTION failing()",
    # the refused start noted in that round, before its start_jobs takes a job
    "CREATE TRIGGER failing BEFORE UPDATE OF start_failed_at ON memories FOR EACH ROW "
    "WHEN (NEW.user_id = '{user}' AND NEW.start_failed_at IS NOT NULL) EXECUTE FUNCTION failing()",
], ids=["at its commit", "before it took a job"])
def test_the_sweep_counts_a_start_refused_in_a_round_whose_later_round_fails(own_database, http, failing):
    """The embedder refusing a job's text with no lock held, the user's next round notes its start failed (and
    leaves it out of the starts it takes); that round failing rolls the note back with the others' starts. The
    sweep counted that round's starts only, the refused one lost (a review); and a round failing before
    it took any counted the round before's, the refused one among them, twice."""
    ctx, tenant = own_database
    _said_with_melanie(tenant, "1956-01-05T09:00:00Z", "I start at Twilio next week.", "I start at Zoho next week.")
    refusing = dataclasses.replace(ctx, embedder=Refusing(ctx.embedder, "Zoho"))
    before = scrape(http)
    with _failing(ctx, tenant, failing):
        due = pipeline.start_jobs_due(refusing, 600.0)
    assert (due.started, due.failed) == (0, 2) and moved(before, scrape(http), "memex_job_starts_failed_total") == 2
    assert _job_starts_failed(ctx, tenant) == {"next_job": False, "melanie_next_job": False}  # nothing noted
    assert pipeline.start_jobs_due(ctx, 600.0).started == 2
