"""Every Lambda handler invoked in-process with its sample event from events/, as Lambda would."""

from __future__ import annotations

import json
import logging
import urllib.parse

import psycopg
import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

from infra.local.lambda_context import LocalLambdaContext
from infra.local.runtime import function_module
from infra.local.loopback import loopback_endpoint
from tests.conftest import ROOT, Tenant, api_client, database_of_its_own
from tests.test_family_keys import filed_as

EVENTS = ROOT / "events"


def _event(name: str) -> dict:
    return json.loads((EVENTS / f"{name}.json").read_text())


def _invoke(function: str, event: dict):
    return function_module(function).handler(event, LocalLambdaContext(function))


def _http(function: str, name: str, key: str, path: str | None = None) -> tuple[int, dict]:
    event = _event(name)
    event["headers"]["authorization"] = f"Bearer {key}"
    if path is not None:
        event["rawPath"] = event["requestContext"]["http"]["path"] = path
    response = _invoke(function, event)
    return response["statusCode"], json.loads(response["body"])


def test_a_path_with_a_trailing_slash_is_answered_in_place_behind_api_gateway(tenant):
    """Under Mangum the scope's raw_path is None; the path is answered as without its slash, as locally."""
    status, counted = _http("search", "search_count", tenant.key)
    event = _event("search_count")
    event["headers"]["authorization"] = f"Bearer {tenant.key}"
    event["rawPath"] = event["requestContext"]["http"]["path"] = event["rawPath"] + "/"
    response = _invoke("search", event)
    assert (response["statusCode"], json.loads(response["body"])) == (status, counted) and status == 200


def test_an_id_ending_in_an_encoded_slash_erases_nothing_behind_api_gateway(tenant):
    """API Gateway decodes requestContext.http.path (`u%2F` → `u/`); the path as sent is rawPath."""
    assert tenant.turn("I live in Oslo.").status_code == 201
    event = _event("cleanup_delete_user")
    event["headers"]["authorization"] = f"Bearer {tenant.key}"
    event["rawPath"] = f"/v1/users/{tenant.user}%2F"
    event["requestContext"]["http"]["path"] = f"/v1/users/{tenant.user}/"
    response = _invoke("cleanup", event)
    assert response["statusCode"] == 422 and "holds '/'" in json.loads(response["body"])["error"]["message"]
    assert tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]


def test_head_health_is_answered_behind_api_gateway_as_the_template_routes_it(tenant):
    """HEAD /health, routed to CleanupFunction for uptime checks: the GET's status and headers, no body."""
    event = _event("cleanup_health")
    event["routeKey"] = event["requestContext"]["routeKey"] = "HEAD /health"
    event["requestContext"]["http"]["method"] = "HEAD"
    response = _invoke("cleanup", event)
    assert response["statusCode"] == 200 and response["body"] == ""
    assert response["headers"]["content-type"] == "application/json"


def test_every_answer_to_a_head_is_without_a_body_a_refusal_too(tenant):
    """RFC 9110: a HEAD's answer has no body. A 405 of a REST path no route takes GET at carried its
    error's JSON (/mcp's 405 was emptied alone, by its surface); every HEAD's answer is emptied in one
    place now."""
    event = _event("search_post")
    event["routeKey"] = event["requestContext"]["routeKey"] = "HEAD /v1/search"
    event["requestContext"]["http"]["method"] = "HEAD"
    event["headers"]["authorization"] = f"Bearer {tenant.key}"
    event["body"] = None
    response = _invoke("search", event)
    assert (response["statusCode"], response["headers"]["allow"], response["body"]) == (405, "POST", "")
    event["rawPath"] = event["requestContext"]["http"]["path"] = "/v1/nothing"
    missing = _invoke("search", event)
    assert (missing["statusCode"], missing["body"]) == (404, "")


def _sqs(name: str, body: dict) -> dict:
    event = _event(name)
    event["Records"][0]["body"] = json.dumps(body)
    return event


def test_http_and_worker_handlers_on_their_sample_events(tenant, runtime):
    status, turn = _http("ingest", "ingest_post_turn", tenant.key)
    assert status == 202 and turn["status"] == "queued"
    # The same job the ingest handler published, delivered by hand as the event source would.
    extract = _invoke("extract_worker", _sqs("extract_worker", {"tenant_id": tenant.id, "turn_id": turn["turn_id"]}))
    assert extract == {"batchItemFailures": []}
    runtime.drain()

    status, state = _http("ingest", "ingest_get_turn", tenant.key, f"/v1/turns/{turn['turn_id']}")
    assert status == 200 and state["status"] == "processed"
    assert {m["content"] for m in state["memories"]} >= {"The user's employer is Notion."}

    status, found = _http("search", "search_post", tenant.key)
    # the message said and the fact drawn from it, in either order ("user" is no keyword)
    employer = [r for r in found["results"][:2] if r.get("key") == "employer"]
    assert status == 200 and len(employer) == 1, found
    assert employer[0]["sources"][0]["metadata"] == {"client_msg_id": "m-1"}

    status, created = _http("ingest", "ingest_post_memory", tenant.key)
    assert status == 201 and created["user_id"] == "u_alice"
    status, listing = _http("search", "search_list_user_memories", tenant.key)
    assert status == 200 and created["id"] in {m["id"] for m in listing["memories"]}
    status, counted = _http("search", "search_count", tenant.key)
    # The turn's message, employer=Notion, role=product manager, and the memory posted above.
    assert status == 200 and counted["count"] == len(listing["memories"]) == 4

    status, recalled = _http("recall", "recall_post", tenant.key)
    assert status == 200 and recalled["citations"] and recalled["token_count"] > 0

    status, health = _http("cleanup", "cleanup_health", tenant.key)
    assert status == 200 and health["db"] == "ok"

    status, deleted = _http("cleanup", "cleanup_delete_user", tenant.key)
    assert status == 200 and deleted["deleted"]["memories"] == 4
    assert _http("search", "search_count", tenant.key)[1]["count"] == 0


def test_supersede_worker_on_its_sample_event_for_a_turn_that_no_longer_exists(tenant):
    event = _sqs("supersede_worker", {"tenant_id": tenant.id, "user_id": "u_alice",
                                      "turn_id": "00000000-0000-0000-0000-000000000001", "candidates": []})
    assert _invoke("supersede_worker", event) == {"batchItemFailures": []}


def test_backfill_worker_imports_the_sample_file(tenant, runtime):
    event = _sqs("backfill_worker", {"kind": "import", "tenant_id": tenant.id, "backfill_id": "bf-sample",
                                     "path": str(EVENTS / "backfill_sample.jsonl")})
    assert _invoke("backfill_worker", event) == {"batchItemFailures": []}
    assert _invoke("backfill_worker", event) == {"batchItemFailures": []}  # redelivery imports nothing twice
    runtime.drain()
    progress = tenant.get("/v1/backfills/bf-sample").json()
    assert (progress["status"], progress["done"], progress["failed"], progress["remaining"]) == ("done", 3, 0, 0)
    lines = [json.loads(line) for line in (EVENTS / "backfill_sample.jsonl").read_text().splitlines() if line.strip()]
    bob = tenant.post("/v1/search", {"user_id": "u_bob", "query": "dog Biscuit"}).json()["results"]
    assert any(r["value"] == "Biscuit" for r in bob)
    bob_messages = sum(len(line["messages"]) for line in lines if line["user_id"] == "u_bob")
    bob_memories = tenant.get("/v1/users/u_bob/memories", params={"include_inactive": "true"}).json()["memories"]
    assert len([m for m in bob_memories if m["memory_type"] == "episodic"]) == bob_messages
    first = next(line for line in lines if line["user_id"] == "u_bob")
    assert min(m["valid_from"] for m in bob_memories) == first["timestamp"]


def test_a_backfill_message_without_a_source_fails(tenant):
    event = _sqs("backfill_worker", {"kind": "import", "tenant_id": tenant.id, "backfill_id": "bf-x"})
    # A batch whose every record failed is raised whole.
    with pytest.raises(BatchProcessingError, match="path or an s3_uri"):
        _invoke("backfill_worker", event)


def test_sweep_handler_on_its_sample_event(runtime):
    assert set(_invoke("sweep", _event("sweep"))) == {"republished", "jobs_started", "jobs_failed", "jobs_left", "jobs_lock_held", "erasures_finished", "vectors_filled"}


def test_migrate_handler_answers_cloudformation(runtime):
    with loopback_endpoint("PUT", 200) as (url, answers):
        event = _event("migrate_create")
        event["ResponseURL"] = url
        _invoke("migrate", event)
    assert len(answers) == 1
    assert answers[0]["body"]["Status"] == "SUCCESS", answers[0]
    assert answers[0]["body"]["RequestId"] == event["RequestId"] and answers[0]["body"]["Data"] == {"Applied": "none"}


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_migrate_handler_logs_the_migrations_the_database_has_that_it_does_not_know(ctx, monkeypatch):
    """A deploy of an older version over a database a newer one migrated (a rollback) says so in its
    log, as `make dev` says it when it starts, and still succeeds: migrations only add."""
    records = _Records()
    memex_log = logging.getLogger("memex")
    memex_log.addHandler(records)
    try:
        with database_of_its_own(ctx, "newer") as own, loopback_endpoint("PUT", 200) as (url, answers):
            own.db.connection().execute("INSERT INTO schema_migrations (version) VALUES ('9000_from_a_newer_memex')")
            monkeypatch.setattr(function_module("migrate"), "get_context", lambda: own)
            event = _event("migrate_create")
            event["ResponseURL"] = url
            _invoke("migrate", event)
    finally:
        memex_log.removeHandler(records)
    assert [answer["body"]["Status"] for answer in answers] == ["SUCCESS"], answers
    assert [m for m in records.messages if "does not know" in m] == [
        "the database has migrations this version of memex does not know (9000_from_a_newer_memex): a newer "
        "version applied them; this one serves it as it is, without what they added"]


def _unfinished_0033(own, users: int, before: tuple[str, ...] = (), after: tuple[str, ...] = ()) -> None:
    """`own` as before migration 0033, its `users` users' facts each under the key 0033 re-keys
    (tests/test_family_keys.py): 0033 re-keys one user per transaction. The versions `before` and
    `after` it (migrations that may run again) are left unapplied too."""
    with api_client(own) as client:
        tenant = Tenant(own, client)
        for n in range(users):
            tenant.turn("I live in Berlin.", user=f"{tenant.user}-{n}", timestamp="2026-01-01T10:00:00Z")
        filed_as(own, tenant, "city", "current_city", every_user=True)
    with psycopg.connect(own.db.dsn, autocommit=True) as conn:
        conn.execute("DELETE FROM schema_migrations WHERE version = ANY(%s)", (["0033_family_keys", *before, *after],))


def _out_of_time_context():
    # What the function has left is its margin at once: each invocation re-keys one user and stops.
    return LocalLambdaContext("migrate", timeout_seconds=function_module("migrate").UNUSED_SECONDS)


def test_a_migration_longer_than_an_invocation_continues_in_the_next_and_only_the_last_answers(ctx, monkeypatch):
    """At 1M memories migration 0033 outlasts MigrateFunction's 300 s: the function invokes itself
    (async, the same event counting its invocations) and answers CloudFormation once, when done, with
    every migration the invocations applied: the first applies those before 0033, the last those after."""
    migrate = function_module("migrate")
    with database_of_its_own(ctx, "chain") as own, loopback_endpoint("POST", 202) as (endpoint, invocations), \
            loopback_endpoint("PUT", 200) as (url, answers):
        _unfinished_0033(own, users=3, before=("0032_analyze_sooner",), after=("0038_whole_user_statistics",))
        monkeypatch.setattr(migrate, "get_context", lambda: own)
        monkeypatch.setenv("AWS_ENDPOINT_URL_LAMBDA", endpoint)
        event = _event("migrate_create")
        event["ResponseURL"] = url
        migrate.handler(event, _out_of_time_context())
        assert answers == [] and len(invocations) == 1
        context = _out_of_time_context()
        assert invocations[0]["path"] == (
            f"/2015-03-31/functions/{urllib.parse.quote(context.invoked_function_arn, safe='')}/invocations")
        assert invocations[0]["headers"]["x-amz-invocation-type"] == "Event"
        assert invocations[0]["body"] == {**event, "MemexContinuation": 1, "MemexApplied": ["0032_analyze_sooner"]}
        while not answers:
            assert len(invocations) <= 5, invocations
            migrate.handler(invocations[-1]["body"], _out_of_time_context())
        with psycopg.connect(own.db.dsn) as conn:
            assert conn.execute("SELECT count(*) FROM memories WHERE key = 'current_city'").fetchone()[0] == 0
            assert conn.execute("SELECT 1 FROM schema_migrations WHERE version = '0033_family_keys'").fetchall()
    assert [p["body"]["MemexContinuation"] for p in invocations] == list(range(1, len(invocations) + 1))
    assert len(invocations) >= 2  # three users, one an invocation
    assert len(answers) == 1 and answers[0]["body"]["Status"] == "SUCCESS", answers
    assert answers[0]["body"]["RequestId"] == event["RequestId"]
    assert answers[0]["body"]["Data"] == {"Applied": "0032_analyze_sooner,0033_family_keys,0038_whole_user_statistics"}
    assert all(p["body"]["MemexApplied"] == ["0032_analyze_sooner"] for p in invocations), invocations


def test_a_chain_that_applied_more_migrations_than_an_answer_holds_names_the_first_and_last(runtime):
    """CloudFormation refuses an answer of more than 4,096 bytes (and the deploy with it)."""
    earlier = [f"{n:04d}_a_migration_of_a_far_future_memex" for n in range(1, 301)]
    with loopback_endpoint("PUT", 200) as (url, answers):
        event = _event("migrate_create")
        event["ResponseURL"] = url
        _invoke("migrate", {**event, "MemexContinuation": 2, "MemexApplied": earlier})
    assert [a["body"]["Status"] for a in answers] == ["SUCCESS"], answers
    assert answers[0]["body"]["Data"] == {"Applied": f"{earlier[0]} ... {earlier[-1]} (300 migrations)"}
    assert len(json.dumps(answers[0]["body"]).encode()) <= 4096


def test_a_failure_whose_text_passes_what_an_answer_holds_fails_the_deploy_with_its_start(monkeypatch):
    """A MigrationBlocked naming many lock holders (or any long exception text) must not push the
    answer past CloudFormation's 4,096 bytes: refused, the deploy would hang to its timeout."""
    from memex.db.migrations import MigrationBlocked

    migrate = function_module("migrate")
    holders = "; ".join(f"pid {n} holds RowExclusiveLock on memories: UPDATE memories SET clé = 'é'" for n in range(140))
    text = f"migration 0040_a_far_future_index met locks held by other sessions on every try: {holders}"
    assert len(text) > 10_000

    def blocked():
        raise MigrationBlocked(text)

    monkeypatch.setattr(migrate, "get_context", blocked)
    with loopback_endpoint("PUT", 200) as (url, answers):
        event = _event("migrate_create")
        event["ResponseURL"] = url
        context = LocalLambdaContext("migrate")
        migrate.handler(event, context)
    assert [a["body"]["Status"] for a in answers] == ["FAILED"], answers
    assert int(answers[0]["headers"]["content-length"]) <= 4096
    reason = answers[0]["body"]["Reason"]
    assert reason.startswith(f"MigrationBlocked: {text[:1000]}")
    assert f"of {len('MigrationBlocked: ' + text)} characters" in reason
    assert reason.endswith(f"(log stream {context.log_stream_name})")


def test_a_migration_unfinished_after_the_most_invocations_fails_the_deploy_saying_so(ctx, monkeypatch):
    migrate = function_module("migrate")
    with database_of_its_own(ctx, "chain_bound") as own, loopback_endpoint("POST", 202) as (endpoint, invocations), \
            loopback_endpoint("PUT", 200) as (url, answers):
        _unfinished_0033(own, users=3)
        monkeypatch.setattr(migrate, "get_context", lambda: own)
        monkeypatch.setattr(migrate, "MAX_CONTINUATIONS", 1)
        monkeypatch.setenv("AWS_ENDPOINT_URL_LAMBDA", endpoint)
        event = _event("migrate_create")
        event["ResponseURL"] = url
        migrate.handler(event, _out_of_time_context())
        migrate.handler(invocations[0]["body"], _out_of_time_context())
    assert len(invocations) == 1
    assert [a["body"]["Status"] for a in answers] == ["FAILED"], answers
    assert answers[0]["body"]["Reason"].startswith(
        "MigrationUnfinished: migration 0033_family_keys ran out of time with work left; what it did is kept")
    assert "after 2 invocations of MigrateFunction" in answers[0]["body"]["Reason"]


def test_an_invocation_finding_another_migrator_at_work_hands_the_wait_on_and_never_answers_twice(ctx, monkeypatch):
    """Lambda retries an async event (twice): a second MigrateFunction of one deploy meets the first's
    advisory lock. It waits no longer than its own time (not the lock's 1800 s, past which Lambda
    would end it unanswered) and continues in a new invocation, which applies nothing twice."""
    from memex.db.migrations import _LOCK_ID

    migrate = function_module("migrate")
    with database_of_its_own(ctx, "chain_lock") as own, loopback_endpoint("POST", 202) as (endpoint, invocations), \
            loopback_endpoint("PUT", 200) as (url, answers):
        monkeypatch.setattr(migrate, "get_context", lambda: own)
        monkeypatch.setenv("AWS_ENDPOINT_URL_LAMBDA", endpoint)
        event = _event("migrate_create")
        event["ResponseURL"] = url
        with psycopg.connect(own.db.dsn, autocommit=True) as other:
            other.execute("SELECT pg_advisory_lock(%s)", (_LOCK_ID,))  # the first migrator, at work
            migrate.handler(event, LocalLambdaContext("migrate", timeout_seconds=migrate.UNUSED_SECONDS + 1))
            assert answers == [] and [i["body"] for i in invocations] == [
                {**event, "MemexContinuation": 1, "MemexApplied": []}]
        migrate.handler(invocations[0]["body"], LocalLambdaContext("migrate"))
    assert len(invocations) == 1
    assert [(a["body"]["Status"], a["body"]["Data"]) for a in answers] == [("SUCCESS", {"Applied": "none"})], answers
