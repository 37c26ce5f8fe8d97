"""The SQS workers: partial batch failures, the DLQ, at-least-once delivery, lost publishes."""

from __future__ import annotations

import dataclasses
import logging
import json
import threading
import time
import uuid
from contextlib import contextmanager
from typing import Iterator

import psycopg
import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

from infra import template
from infra.local.lambda_context import LocalLambdaContext
from infra.local.poller import QueuePoller
from infra.local.runtime import QUEUES, function_module
from memex.config import Settings
from memex.context import Context
from memex.db import turns as turn_rows
from memex import pipeline
from memex.ingest import ingest_turn, sweep
from memex.jobs import Candidate, ExtractionJob, SupersessionJob
from memex.models import TurnIn
from memex_edge.sqs import SqsPublisher
from tests.conftest import logging_into, refused_port


def _record(body: str, message_id: str, receive_count: int = 1, group: str | None = None) -> dict:
    attributes = {"ApproximateReceiveCount": str(receive_count), "SentTimestamp": "1767225600000"}
    if group:
        attributes |= {"MessageGroupId": group, "MessageDeduplicationId": message_id}
    return {"messageId": message_id, "receiptHandle": f"rh-{message_id}", "body": body, "attributes": attributes,
            "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:memex-extraction", "awsRegion": "us-east-1"}


def _invoke(function: str, records: list[dict]) -> dict:
    return function_module(function).handler({"Records": records}, LocalLambdaContext(function))


def _store_turn(ctx: Context, tenant, *contents: str, wait=False) -> str:
    turn = TurnIn(user_id=tenant.user, session_id="s1", messages=[{"role": "user", "content": c} for c in contents])
    # A publisher whose queue does not exist: the turn is stored, its publish fails for real.
    lost = dataclasses.replace(ctx, publisher=SqsPublisher(dataclasses.replace(
        ctx.settings, extraction_queue_url=ctx.settings.extraction_queue_url + "-missing")))
    return ingest_turn(lost, tenant.id, turn, wait=wait)["turn_id"]


def test_a_poison_message_fails_alone(ctx, tenant):
    first = _store_turn(ctx, tenant, "I work at Stripe.")
    second = _store_turn(ctx, tenant, "I live in Porto.")
    result = _invoke("extract_worker", [
        _record(ExtractionJob(tenant.id, first).to_json(), "m1"),
        _record("this is not json", "m2"),
        _record(ExtractionJob(tenant.id, second).to_json(), "m3"),
    ])
    assert result == {"batchItemFailures": [{"itemIdentifier": "m2"}]}
    for turn_id in (first, second):
        assert tenant.get(f"/v1/turns/{turn_id}").json()["status"] == "processing"


def test_a_poison_message_ends_in_the_dlq(runtime):
    client = runtime.sqs_client()
    queue = runtime.queues["memex-extraction"]
    # The queue and its DLQ are the session's: a message another test left there is not this one.
    poison = json.dumps({"tenant_id": 42, "sent_by": f"poison-{uuid.uuid4().hex[:8]}"})
    client.send_message(QueueUrl=queue["url"], MessageBody=poison)
    poller = next(p for p in runtime.pollers if p.name == "poller-extract_worker")
    deadline = time.monotonic() + 30
    dead = []
    while time.monotonic() < deadline and not dead:
        poller.poll_once()
        time.sleep(0.5)
        dead = [m for m in client.receive_message(QueueUrl=queue["dlq_url"], MaxNumberOfMessages=10).get("Messages", [])
                if m["Body"] == poison]
    assert [m["Body"] for m in dead] == [poison]
    left = client.receive_message(QueueUrl=queue["url"], MaxNumberOfMessages=10, WaitTimeSeconds=0).get("Messages", [])
    assert poison not in [m["Body"] for m in left]


def test_a_local_workers_batch_has_its_functions_deployed_timeout(runtime):
    """Each batch a local worker takes has the time its deployed function has (template.yaml's
    Timeout: 120, 60, 600 s), counting down, not a fixed 300 s: the LLM time budget is sized by it."""
    client, left = runtime.sqs_client(), {}
    for name, (_, worker, fifo) in QUEUES.items():
        queue = runtime.queues[name]
        client.send_message(QueueUrl=queue["url"], MessageBody="{}", **(
            {"MessageGroupId": "g", "MessageDeduplicationId": str(uuid.uuid4())} if fifo else {}))
        poller = QueuePoller(client, queue["url"], queue["arn"], lambda event, context, worker=worker: left.update(
            {worker: context.get_remaining_time_in_millis()}), worker, threading.Event())
        deadline = time.monotonic() + 30
        while worker not in left and time.monotonic() < deadline:
            poller.poll_once(wait_seconds=1)
    timeouts = {worker: template.function_timeout(worker) for _, worker, _ in QUEUES.values()}
    assert timeouts == {"extract_worker": 120, "supersede_worker": 60, "backfill_worker": 600}
    assert left.keys() == timeouts.keys()
    assert all(timeouts[w] * 1000 - 5_000 < ms <= timeouts[w] * 1000 for w, ms in left.items()), left


def test_redelivered_messages_write_nothing_twice(ctx, tenant, runtime):
    tenant.turn("I live in Porto.", timestamp="2026-01-01T00:00:00Z")
    # Jobs earlier tests published and left queued would fill the one receive below before this one's.
    runtime.drain()
    turn_id = _store_turn(ctx, tenant, "I moved to Lisbon. My dog is called Biscuit.")
    extraction = _record(ExtractionJob(tenant.id, turn_id).to_json(), "x1")
    assert _invoke("extract_worker", [extraction]) == {"batchItemFailures": []}
    assert _invoke("extract_worker", [extraction]) == {"batchItemFailures": []}

    supersession = runtime.sqs_client().receive_message(
        QueueUrl=runtime.queues["memex-supersession"]["url"], MaxNumberOfMessages=10, AttributeNames=["All"]
    )["Messages"]
    # The second extraction re-published the same job; the FIFO queue dropped the copy.
    ours = [m for m in supersession if json.loads(m["Body"])["turn_id"] == turn_id]
    assert len(ours) == 1
    record = _record(ours[0]["Body"], "y1", group=f"{tenant.id}:{tenant.user}")
    assert _invoke("supersede_worker", [record]) == {"batchItemFailures": []}
    assert _invoke("supersede_worker", [record]) == {"batchItemFailures": []}
    runtime.drain()

    memories = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()["memories"]
    by_key = {}
    for m in memories:
        by_key.setdefault(m["key"] or m["type"], []).append(m)
    assert len(by_key["message"]) == 2  # one episodic memory per message, not per delivery
    assert sorted((m["value"], m["active"]) for m in by_key["city"]) == [("Lisbon", True), ("Porto", False)]
    assert [m["value"] for m in by_key["pet_dog_name"]] == ["Biscuit"]
    assert tenant.get(f"/v1/turns/{turn_id}").json()["status"] == "processed"


def test_the_last_failed_delivery_marks_the_turn_failed(ctx, tenant):
    turn_id = _store_turn(ctx, tenant, "hello")
    bad = Candidate(type="fact", key="employer", value="X", content="The user's employer is X.",
                    confidence=5.0, importance=0.5, source_message_id=None)  # violates a CHECK constraint
    with ctx.db.transaction() as conn:
        turn_rows.store_many_candidates(conn, tenant.id, [(turn_id, [dataclasses.asdict(bad)])])
    body = SupersessionJob(tenant.id, tenant.user, turn_id).to_json()
    group = f"{tenant.id}:{tenant.user}"
    # A batch whose every record failed is raised, so that Lambda retries it whole.
    with pytest.raises(BatchProcessingError, match="CheckViolation"):
        _invoke("supersede_worker", [_record(body, "z1", receive_count=1, group=group)])
    assert tenant.get(f"/v1/turns/{turn_id}").json()["status"] == "processing"
    with pytest.raises(BatchProcessingError):
        _invoke("supersede_worker", [_record(body, "z1", receive_count=2, group=group)])
    status = tenant.get(f"/v1/turns/{turn_id}").json()
    assert status["status"] == "failed" and "CheckViolation" in status["error"]


def test_a_lost_publish_is_recovered_by_the_sweep(ctx, tenant, runtime):
    turn_id = _store_turn(ctx, tenant, "My name is Ada.")
    runtime.drain()
    assert tenant.get(f"/v1/turns/{turn_id}").json()["status"] == "queued"
    # At the configured age this turn is too recent to be sent again (turns other tests left queued
    # long enough ago may be: the sweep reads every tenant's, so only this turn's fate is asserted).
    _invoke("sweep", [])
    runtime.drain()
    assert tenant.get(f"/v1/turns/{turn_id}").json()["status"] == "queued"
    assert sweep(ctx, older_than_seconds=0) >= 1
    runtime.drain()
    status = tenant.get(f"/v1/turns/{turn_id}").json()
    assert status["status"] == "processed"
    assert any(m["key"] == "name" and m["value"] == "Ada" for m in status["memories"])


@contextmanager
def _queues_down(settings: Settings, down: str) -> Iterator[Settings]:
    """`settings` with a queue down while the block runs, as `down` says: the extraction queue missing, or every
    queue's endpoint a loopback port nothing listens on (refused_port: not port 9, which a machine may serve or
    a firewall drop, a hang rather than a refusal). The closed port in every runtime: LocalStack's client
    (localstack-client) sends to its own endpoint whatever the settings' one, so the outage leaves it out."""
    if down == "missing queue":
        yield dataclasses.replace(settings, extraction_queue_url=settings.extraction_queue_url + "-missing")
        return
    with refused_port() as closed:
        yield dataclasses.replace(settings, sqs_endpoint_url=f"http://127.0.0.1:{closed}", use_localstack=False)


@pytest.mark.parametrize("down", ["missing queue", "closed port"])
def test_the_sweep_fails_no_turn_while_the_queue_is_down_and_sends_it_once_it_is_back(ctx, tenant, runtime, down):
    """A publish the queue refused was counted as a re-send, so an outage of MEMEX_SWEEP_MAX_REPUBLISH
    sweeps marked the turn failed (and the first refusal raised out of the sweep)."""
    turn_id = _store_turn(ctx, tenant, "My name is Ada.")
    _store_turn(ctx, tenant, "I live in Porto.", wait=True)  # a later turn extracted: the queue moved past it
    with _queues_down(ctx.settings, down) as unreachable:
        outage = dataclasses.replace(ctx, publisher=SqsPublisher(unreachable))
        for _ in range(ctx.settings.sweep_max_republish + 2):
            sweep(outage, older_than_seconds=0)
            row = _turn_row(ctx, tenant, turn_id)
            assert row["status"] == "queued" and row["republished"] == 0
    assert sweep(ctx, older_than_seconds=0) >= 1  # the queue is back
    runtime.drain()
    status = tenant.get(f"/v1/turns/{turn_id}").json()
    assert status["status"] == "processed"
    assert _turn_row(ctx, tenant, turn_id)["republished"] == 1


@pytest.mark.parametrize("down", ["missing queue", "closed port"])
def test_a_queue_that_fails_a_sweep_is_not_called_again_in_its_run_and_its_turns_wait_for_the_next(
        ctx, tenant, runtime, down):
    """Down, a queue was asked its backlog, then its visibility timeout, then to take its turns (the extraction
    queue three calls a run, each waiting out the client's attempts, the publish with the claimed rows
    locked). Now its first failure is its last call of the run; a queue that answers gets its turns, and the
    down one's are sent by the next run."""
    queued = _store_turn(ctx, tenant, "My name is Ada.")  # its extraction message lost
    _store_turn(ctx, tenant, "I live in Porto.", wait=True)  # the extraction queue moved past it
    extracted = _store_turn(ctx, tenant, "I work at Stripe.")
    assert pipeline.extract(ctx, ExtractionJob(tenant.id, extracted)) is not None  # its supersession message lost
    _store_turn(ctx, tenant, "I have a cat.", wait=True)  # the user's supersession group moved past it
    with _queues_down(ctx.settings, down) as settings:
        publisher, calls = SqsPublisher(settings), []
        publisher._client.meta.events.register("provide-client-params.sqs", lambda params, model, **_: calls.append(
            (model.name, params.get("QueueUrl"))))
        sweep(dataclasses.replace(ctx, publisher=publisher), older_than_seconds=0)
    if down == "missing queue":
        assert [name for name, url in calls if url == settings.extraction_queue_url] == ["GetQueueAttributes"]
        assert _turn_row(ctx, tenant, extracted)["republished"] == 1  # the supersession queue took it
    else:
        assert [name for name, _ in calls] == ["GetQueueAttributes"] * 2  # one a queue
        assert _turn_row(ctx, tenant, extracted)["republished"] == 0
    assert (_turn_row(ctx, tenant, queued)["status"], _turn_row(ctx, tenant, queued)["republished"]) == ("queued", 0)
    runtime.drain()  # what the supersession queue took
    assert sweep(ctx, older_than_seconds=0) >= 1  # the queue is back
    runtime.drain()
    for turn_id in (queued, extracted):
        assert (_turn_row(ctx, tenant, turn_id)["status"], _turn_row(ctx, tenant, turn_id)["republished"]) == (
            "processed", 1)


class _SeeingTheLock(SqsPublisher):
    """The real publisher, looking, as it publishes to the supersession queue, whether the sweep's transaction
    holds the row of the turn `watched` locked (from a connection of its own, as any other writer would)."""

    def __init__(self, settings, dsn: str, tenant_id: str, watched: str):
        super().__init__(settings)
        self._dsn, self._tenant_id, self._watched = dsn, tenant_id, watched
        self.locked: list[bool] = []

    def publish_supersessions(self, jobs):
        with psycopg.connect(self._dsn) as other:
            free = other.execute("SELECT id FROM turns WHERE tenant_id = %s AND id = %s FOR UPDATE SKIP LOCKED",
                                 (self._tenant_id, self._watched)).fetchall()
            other.rollback()
        self.locked.append(not free)
        return super().publish_supersessions(jobs)


def test_the_sweep_claims_no_turn_of_a_queue_it_found_down_and_still_counts_it(ctx, tenant, runtime):
    """The extraction queue found down at its first call (its backlog), its lost turns were claimed all the same:
    their rows locked while the supersession queue took its own (a writer of such a turn, a user's erasure,
    waited for it), then not sent. Now they are left as they are for the next run, and counted still in
    TurnRepublishesFailed: the sweep's one metric of a queue it cannot reach keeps saying so."""
    queued = _store_turn(ctx, tenant, "My name is Ada.")  # its extraction message lost
    _store_turn(ctx, tenant, "I live in Porto.", wait=True)  # the extraction queue moved past it
    extracted = _store_turn(ctx, tenant, "I work at Stripe.")
    assert pipeline.extract(ctx, ExtractionJob(tenant.id, extracted)) is not None  # its supersession message lost
    _store_turn(ctx, tenant, "I have a cat.", wait=True)  # the user's supersession group moved past it
    settings = dataclasses.replace(ctx.settings, extraction_queue_url=ctx.settings.extraction_queue_url + "-missing")
    publisher, recorded = _SeeingTheLock(settings, ctx.db.dsn, tenant.id, queued), []

    class Recorder:
        def record(self, metric, value=1, **labels):
            recorded.append((metric.name, value))

    sweep(dataclasses.replace(ctx, publisher=publisher, metrics=Recorder()), older_than_seconds=0)
    assert publisher.locked and not any(publisher.locked)  # a publish a 10 turns: other tests' lost turns too
    assert _turn_row(ctx, tenant, extracted)["republished"] == 1  # the supersession queue took it
    assert (_turn_row(ctx, tenant, queued)["status"], _turn_row(ctx, tenant, queued)["republished"]) == ("queued", 0)
    assert sum(value for name, value in recorded if name == "TurnRepublishesFailed") >= 1  # every tenant's
    runtime.drain()
    assert sweep(ctx, older_than_seconds=0) >= 1  # the queue is back
    runtime.drain()
    assert (_turn_row(ctx, tenant, queued)["status"], _turn_row(ctx, tenant, queued)["republished"]) == (
        "processed", 1)


class _DelayingOne(SqsPublisher):
    """The real publisher, asking SQS to delay one turn's message past the 900 s it allows: the queue
    refuses that entry of its batch alone (moto and AWS alike answer it in `Failed`)."""

    def __init__(self, settings, turn_id: str):
        super().__init__(settings)
        self._turn_id = turn_id

    def _send_batch(self, queue_url, entries):
        return super()._send_batch(queue_url, [dict(entry, DelaySeconds=901) if self._turn_id in entry["MessageBody"]
                                               else entry for entry in entries])


def test_the_sweep_sends_lost_turns_ten_to_a_request_and_leaves_one_the_queue_refused_queued(aws, ctx, tenant, runtime):
    """A request per lost turn, each within the transaction holding the claimed rows: 200 stuck turns
    were 200 round trips. SendMessageBatch sends ten at once; an entry the queue refuses is not counted
    as re-sent and stays `queued` for the next sweep, while the rest of its batch goes. (LocalStack takes
    a delay over 900 s and would hold that message back: there, none is refused, and all go.)"""
    queued = [_store_turn(ctx, tenant, f"My dog number {n} is called Rex.") for n in range(23)]
    extracted = [_store_turn(ctx, tenant, f"I live in {city}.") for city in (
        "Porto", "Lisbon", "Madrid", "Paris", "Berlin", "Vienna", "Prague", "Warsaw", "Oslo", "Dublin", "Rome", "Athens")]
    for turn_id in extracted:  # their supersession message then lost
        assert pipeline.extract(ctx, ExtractionJob(tenant.id, turn_id)) is not None
        _backdate(ctx, tenant, turn_id, 600)
    runtime.drain()
    refused = queued[4] if aws.kind == "moto" else None
    publisher = _DelayingOne(ctx.settings, refused) if refused else SqsPublisher(ctx.settings)
    requests: list[str] = []
    publisher._client.meta.events.register("before-call.sqs", lambda model, **_: requests.append(model.name))
    republished = sweep(dataclasses.replace(ctx, publisher=publisher), older_than_seconds=0)
    assert republished >= len(queued) - (1 if refused else 0) + len(extracted)
    sends = [name for name in requests if name.startswith("SendMessage")]
    assert set(sends) == {"SendMessageBatch"} and len(sends) <= republished // 10 + 3, sends
    if refused is None:
        runtime.drain()
        assert {_turn_row(ctx, tenant, t)["status"] for t in queued + extracted} == {"processed"}
        return
    assert (_turn_row(ctx, tenant, refused)["status"], _turn_row(ctx, tenant, refused)["republished"]) == ("queued", 0)
    runtime.drain()
    for turn_id in [t for t in queued if t != refused] + extracted:
        row = _turn_row(ctx, tenant, turn_id)
        assert (row["status"], row["republished"]) == ("processed", 1), turn_id
    assert sweep(ctx, older_than_seconds=0) >= 1  # the next sweep sends it
    runtime.drain()
    assert _turn_row(ctx, tenant, refused)["status"] == "processed"


def _backdate(ctx, tenant, turn_id: str, seconds: int) -> None:
    with ctx.db.transaction() as conn:
        conn.execute("UPDATE turns SET updated_at = now() - make_interval(secs => %s) WHERE tenant_id = %s AND id = %s",
                     (seconds, tenant.id, turn_id))


def _turn_row(ctx, tenant, turn_id: str) -> dict:
    return turn_rows.get_turn(ctx.db.connection(), tenant.id, turn_id)


def test_a_lost_supersession_message_is_sent_again_without_extracting_again(ctx, tenant, runtime):
    turn_id = _store_turn(ctx, tenant, "I work at Stripe.")
    assert pipeline.extract(ctx, ExtractionJob(tenant.id, turn_id)) is not None  # its message is then lost
    extracted_at = _turn_row(ctx, tenant, turn_id)["extracted_at"]
    _backdate(ctx, tenant, turn_id, 600)
    runtime.drain()  # the supersession queue is empty: nothing can still be waiting there
    assert sweep(ctx, older_than_seconds=300) >= 1
    runtime.drain()
    row = _turn_row(ctx, tenant, turn_id)
    assert row["status"] == "processed" and row["candidates"] is None
    assert row["extracted_at"] == extracted_at  # supersession ran again; extraction did not


def test_a_turn_waiting_in_a_backlog_is_not_taken_for_lost(ctx, tenant, runtime):
    done = tenant.turn("I live in Lisbon.").json()["turn_id"]
    waiting = _store_turn(ctx, tenant, "I work at Stripe.")
    pipeline.extract(ctx, ExtractionJob(tenant.id, waiting))
    _backdate(ctx, tenant, waiting, 600)
    busy = {"extraction_idle": False, "supersession_idle": False, "retry_seconds": 1500}
    with ctx.db.transaction() as conn:  # the group resolved a turn extracted before this one
        conn.execute("UPDATE turns SET extracted_at = now() - interval '1 hour', resolved_at = now() "
                     "WHERE tenant_id = %s AND id = %s", (tenant.id, done))
        claimed = turn_rows.claim_lost(conn, 300, 5, **busy)
    assert waiting not in {r["id"] for r in claimed}  # old, but the queue holds a backlog: it waits
    with ctx.db.transaction() as conn:  # a turn extracted after it is resolved: FIFO order says it is lost
        conn.execute("UPDATE turns SET extracted_at = now() WHERE tenant_id = %s AND id = %s", (tenant.id, done))
        claimed = turn_rows.claim_lost(conn, 300, 5, **busy)
    assert waiting in {r["id"] for r in claimed}
    with ctx.db.transaction() as conn:  # an empty queue holds nothing: a turn still waiting is lost
        conn.execute("UPDATE turns SET extracted_at = now() - interval '1 hour' WHERE tenant_id = %s AND id = %s",
                     (tenant.id, done))
        _backdate(ctx, tenant, waiting, 600)
        claimed = turn_rows.claim_lost(conn, 300, 5, extraction_idle=False, supersession_idle=True, retry_seconds=1500)
    assert waiting in {r["id"] for r in claimed}
    runtime.drain()


def test_a_turn_lost_again_and_again_is_marked_failed_not_sent_forever(ctx, tenant, runtime):
    turn_id = _store_turn(ctx, tenant, "hello")
    runtime.drain()
    with ctx.db.transaction() as conn:
        conn.execute("UPDATE turns SET republished = %s, updated_at = now() - interval '1 hour' "
                     "WHERE tenant_id = %s AND id = %s", (ctx.settings.sweep_max_republish, tenant.id, turn_id))
    sweep(ctx, older_than_seconds=300)
    status = tenant.get(f"/v1/turns/{turn_id}").json()
    assert status["status"] == "failed" and "re-sent 5 times" in status["error"]


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.seen: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not any(record is seen for seen in self.seen):  # reached through both loggers
            self.seen.append(record)


def test_a_batch_the_llm_failed_is_one_warning_from_the_worker_itself(ctx, tenant, llm, monkeypatch):
    """In Lambda no poller runs the worker: its handler raises the batch's failure, which Lambda logs as
    its own, and memex said nothing of the LLM (the local poller's warning was the only one). The
    worker says it: one WARNING a batch, naming the LLM's error, never what the user said."""
    from bench.openai_double import CHAT
    from memex_edge.context import build_context

    llm_ctx = build_context(dataclasses.replace(ctx.settings, llm_base_url=llm.base_url, llm_model="test-model",
                                                llm_api_key="k"))
    turns = [_store_turn(ctx, tenant, said) for said in ("I work at Qz8 Labs.", "I live in Qz8ville.")]
    records = [_record(ExtractionJob(tenant.id, turn_id).to_json(), f"m{i}") for i, turn_id in enumerate(turns)]
    llm.fail(CHAT, "500")
    try:
        with monkeypatch.context() as patched, logging_into(_Records()) as logged:
            patched.setattr(function_module("extract_worker"), "get_context", lambda: llm_ctx)
            with pytest.raises(BatchProcessingError):
                _invoke("extract_worker", records)
    finally:
        llm.heal(CHAT)
    warned = [r for r in logged.seen if "failed every record of the batch for the LLM" in r.getMessage()]
    assert [(r.levelname, r.exc_info) for r in warned] == [("WARNING", None)], [r.getMessage() for r in logged.seen]
    assert warned[0].getMessage().startswith("extract_worker failed every record of the batch for the LLM (LLMError: "
                                             "test-model: no usable answer")
    assert not [r.getMessage() for r in logged.seen if "Qz8" in r.getMessage()]


def test_a_batch_the_database_failed_is_one_warning_from_the_worker_itself(ctx, tenant, monkeypatch):
    """The database out of reach was named only by the local poller and scheduler, and Powertools' Tracer
    keeps its traceback to itself (observability._WithoutOutages): in Lambda memex said nothing of it. The
    worker says it as it says an LLM outage: one WARNING a batch, naming the error, never what the user said."""
    from memex_edge.context import build_context

    turns = [_store_turn(ctx, tenant, said) for said in ("I work at Qz9 Labs.", "I live in Qz9ville.")]
    records = [_record(ExtractionJob(tenant.id, turn_id).to_json(), f"m{i}") for i, turn_id in enumerate(turns)]
    with refused_port() as nowhere, monkeypatch.context() as patched, logging_into(_Records()) as logged:
        gone = build_context(dataclasses.replace(ctx.settings, database_url=f"postgresql://memex@127.0.0.1:{nowhere}/memex"))
        patched.setattr(function_module("extract_worker"), "get_context", lambda: gone)
        with pytest.raises(BatchProcessingError):
            _invoke("extract_worker", records)
    warned = [r for r in logged.seen if "the database out of reach" in r.getMessage()]
    assert [(r.levelname, r.exc_info) for r in warned] == [("WARNING", None)], [r.getMessage() for r in logged.seen]
    assert warned[0].getMessage().startswith("extract_worker failed every record of the batch, the database out of "
                                             "reach (OperationalError: connection failed: "), warned[0].getMessage()
    assert warned[0].getMessage().endswith("; the whole batch will be retried")
    assert not [r.getMessage() for r in logged.seen if "Qz9" in r.getMessage()]
