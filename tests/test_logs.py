"""What the logs say about a request: a 500 is logged once, by memex, naming the function and the
route that handled it (even in the local runtime, where one process runs every function), and no
command echoes an API key."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import uuid

import pytest

from infra.local.lambda_context import LocalLambdaContext
from memex_edge.observability import logger as memex_logger
from tests.conftest import ROOT, logging_into


class Lines(logging.Handler):
    """Every record at INFO or above, each also as the JSON line Powertools makes of it, formatted
    when it is emitted (the keys labelling a thread or task are read then)."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []
        self.lines: dict[int, dict] = {}

    def emit(self, record: logging.LogRecord) -> None:
        if any(record is seen for seen in self.records):
            return  # reached through both loggers
        self.records.append(record)
        if record.name.startswith("memex"):
            self.lines[id(record)] = json.loads(memex_logger.registered_formatter.format(record))

    def about(self, text: str) -> list[logging.LogRecord]:
        return [r for r in self.records if text in r.getMessage() or (r.exc_info and text in str(r.exc_info[1]))]


@pytest.fixture
def logged():
    with logging_into(Lines()) as handler:
        yield handler


def _break_limit(ctx, tenant_id: str) -> None:
    """A tenant override no code would write (edited by hand in the database): the request fails."""
    ctx.db.connection().execute("UPDATE tenants SET rate_limit = 'lots' WHERE id = %s", (tenant_id,))


def test_a_500_in_the_local_runtime_is_logged_once_naming_its_function(ctx, runtime, tenant, logged):
    # A worker runs first: Powertools labels the whole process with its Lambda context.
    assert tenant.turn("I moved to Lisbon.", wait=False).status_code == 202
    runtime.drain()
    assert memex_logger.get_current_keys().get("function_name") in ("extract_worker", "supersede_worker")

    _break_limit(ctx, tenant.id)
    answer = tenant.get(f"/v1/memories/count?user_id={tenant.user}")
    assert answer.status_code == 500
    assert answer.json() == {"error": {"code": "internal_error", "message": "internal error"}}

    about = logged.about("'lots' is not a rate")
    assert len(about) == 1, [(r.name, r.getMessage()) for r in about]
    line = logged.lines[id(about[0])]
    assert line["message"] == "unhandled error" and line["level"] == "ERROR"
    assert line["function_name"] == "search"
    assert line["function_arn"].endswith(":function:search"), line["function_arn"]
    assert line["handler"] == "functions.search.app.get_count"
    assert line["route"] == "GET /v1/memories/count"
    assert line["exception_name"] == "InvalidRate"
    # Labelling one request leaves the next one's lines to its own function.
    ctx.db.connection().execute("UPDATE tenants SET rate_limit = NULL WHERE id = %s", (tenant.id,))
    assert tenant.delete(f"/v1/users/{tenant.user}").status_code == 200


def test_a_500_through_the_lambda_handler_is_logged_once_and_answered_in_the_wire_shape(ctx, tenant, logged, event_loop_for_mangum):
    from infra.local.runtime import function_module

    _break_limit(ctx, tenant.id)
    event = json.loads((ROOT / "events" / "search_post.json").read_text())
    event["headers"]["authorization"] = f"Bearer {tenant.key}"
    response = function_module("search").handler(event, LocalLambdaContext("memex-SearchFn"))
    assert response["statusCode"] == 500
    assert json.loads(response["body"]) == {"error": {"code": "internal_error", "message": "internal error"}}

    about = logged.about("'lots' is not a rate")
    assert len(about) == 1, [(r.name, r.getMessage()) for r in about]
    line = logged.lines[id(about[0])]
    assert line["function_name"] == "memex-SearchFn" and line["handler"].endswith("post_search")
    # Mangum saw an answer, not an exception: it has nothing to log but the request line.
    assert not [r for r in logged.records if r.name.startswith("mangum") and r.levelno >= logging.ERROR]
    ctx.db.connection().execute("UPDATE tenants SET rate_limit = NULL WHERE id = %s", (tenant.id,))


def test_make_invoke_passes_the_key_without_echoing_it(tmp_path):
    """The real Makefile rule, with a stand-in `memex` that reports the key it was given."""
    secret = "mx_ThisMustNotBeEchoed0123456789"
    (tmp_path / "memex").write_text('#!/bin/sh\necho "memex got $*; key ${MEMEX_API_KEY}"\n')
    (tmp_path / "memex").chmod(0o755)
    (tmp_path / "stamp").touch()  # newer than pyproject.toml: `install` has nothing to do
    done = subprocess.run(["make", "--no-print-directory", "invoke", f"BIN={tmp_path}", f"STAMP={tmp_path}/stamp",
                           "FN=search", "EVENT=events/search_post.json", f"KEY={secret}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    echoed, reported = done.stdout.splitlines()
    assert echoed.rstrip() == f"{tmp_path}/memex invoke search events/search_post.json"
    assert reported == f"memex got invoke search events/search_post.json; key {secret}"


def test_a_scheduled_functions_lines_name_it(logged):
    import threading
    import time

    from infra.local.scheduler import ScheduledRunner

    def handler(event, context):
        logging.getLogger("memex.scheduled").info("scheduled run %s", event["detail-type"])

    stop = threading.Event()
    runner = ScheduledRunner("consolidate", handler, 0.05, stop)
    runner.start()
    deadline = time.monotonic() + 30
    while not logged.about("scheduled run") and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    runner.join(timeout=30)
    [line, *_] = [logged.lines[id(r)] for r in logged.about("scheduled run")]
    assert line["function_name"] == "consolidate" and line["function_arn"].endswith(":function:consolidate")


def test_a_scheduled_run_failed_by_the_database_out_of_reach_is_one_warning_line(logged):
    """With the embedded Postgres killed under `make dev`, each run of the sweep (every 30 s) logged
    `scheduled function sweep failed` with psycopg's traceback; an LLM outage is said the same way (degraded,
    not down); a bug keeps its traceback."""
    import threading
    import time

    import psycopg

    from infra.local.scheduler import ScheduledRunner
    from memex.llm import LLMError

    def gone(event, context):
        raise psycopg.OperationalError("connection is bad: Connection refused")

    def degraded(event, context):
        raise LLMError("test-model: no usable answer (500)")

    def broken(event, context):
        raise KeyError("a bug")

    for handler, says in ((gone, "the database out of reach"), (degraded, "for the LLM"), (broken, "a bug")):
        stop = threading.Event()
        runner = ScheduledRunner("sweep", handler, 0.05, stop)
        runner.start()
        deadline = time.monotonic() + 30
        while not logged.about(says) and time.monotonic() < deadline:
            time.sleep(0.05)
        stop.set()
        runner.join(timeout=30)
    outage, *_ = logged.about("scheduled function sweep failed")
    assert (outage.levelname, outage.exc_info) == ("WARNING", None)
    assert outage.getMessage() == ("scheduled function sweep failed, the database out of reach "
                                   "(OperationalError: connection is bad: Connection refused)")
    llm, *_ = logged.about("scheduled function sweep failed for the LLM")
    assert (llm.levelname, llm.exc_info) == ("WARNING", None)
    assert llm.getMessage() == "scheduled function sweep failed for the LLM (LLMError: test-model: no usable answer (500))"
    crash = [r for r in logged.about("scheduled function sweep failed") if "a bug" in str(r.exc_info and r.exc_info[1])]
    assert crash and crash[0].levelname == "ERROR"


def test_a_poller_whose_queue_is_gone_names_its_function_and_backs_off(runtime, logged, monkeypatch):
    """make dev with its extraction queue deleted: the poller wrote a traceback every second, each
    labelled with whichever function Powertools had labelled the process with last (the sweep's).
    Its lines name its own function; one traceback, then a line per try, 1, 2, 4 ... s apart."""
    import threading
    import time

    from infra.local import poller
    from infra.local.poller import QueuePoller

    monkeypatch.setattr(poller, "MAX_RETRY_SECONDS", 2.0)
    gone = runtime.queues["memex-extraction"]["url"].rsplit("/", 1)[0] + "/memex-gone-queue"
    memex_logger.append_keys(function_name="sweep")  # what the sweep's inject_lambda_context leaves
    stop = threading.Event()
    try:
        worker = QueuePoller(runtime.sqs_client(), gone, "arn:aws:sqs:us-east-1:000000000000:memex-gone-queue",
                             lambda event, context: None, "extract_worker", stop)
        worker.start()
        deadline = time.monotonic() + 60
        while len(logged.about("memex-gone-queue")) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        stop.set()
        worker.join(timeout=30)
    finally:
        memex_logger.remove_keys(["function_name"])
    failed = logged.about("memex-gone-queue")[:4]
    messages = [r.getMessage() for r in failed]
    assert len(failed) == 4, messages
    lines = [logged.lines[id(r)] for r in failed]
    assert {line["function_name"] for line in lines} == {"extract_worker"}, lines
    assert failed[0].exc_info is not None
    assert not any(r.exc_info for r in failed[1:]), messages
    # A try every second, not backing off, wrote four lines in 3 s; backing off, each line waits 1, 2, then
    # at most 2 s. The waits are checked from below only: a slow machine makes them longer, never shorter.
    assert [re.search(r"in (\d+) s", m).group(1) for m in messages] == ["1", "2", "2", "2"], messages
    apart = [later.created - earlier.created for earlier, later in zip(failed, failed[1:])]
    assert all(gap >= wait - 0.05 for gap, wait in zip(apart, (1, 2, 2))), apart


def test_an_llm_outage_is_one_warning_line_naming_it_and_a_bug_keeps_its_traceback(ctx, runtime, llm, logged,
                                                                                   monkeypatch, caplog):
    """An LLM down is "degraded, not down" (README), but each inline turn logged an ERROR with a traceback
    (memex.ingest) and each delivery of its job `extract_worker raised; the whole batch will be retried`
    with another. Each is one WARNING line naming the LLM's error; any other failure keeps its traceback."""
    import dataclasses
    import threading

    from bench.openai_double import CHAT
    from infra.local.poller import QueuePoller
    from infra.local.runtime import function_module
    from memex.ingest import ingest_turn
    from memex.models import TurnIn
    from memex_edge.context import build_context

    llm_ctx = build_context(dataclasses.replace(ctx.settings, llm_base_url=llm.base_url, llm_model="test-model",
                                                llm_api_key="k"))
    tenant_id = f"t-{uuid.uuid4().hex[:10]}"
    queue = runtime.queues["memex-extraction"]
    runtime.drain()  # what earlier tests left queued
    llm.fail(CHAT, "500")
    try:
        with monkeypatch.context() as patched:
            patched.setattr(function_module("extract_worker"), "get_context", lambda: llm_ctx)
            answer = ingest_turn(llm_ctx, tenant_id, TurnIn(user_id="u-outage", session_id="s1", messages=[
                {"role": "user", "content": "I work at Stripe."}]), wait=True)
            assert answer["status"] == "queued" and "LLMError" in answer["error"]
            worker = QueuePoller(runtime.sqs_client(), queue["url"], queue["arn"],
                                 function_module("extract_worker").handler, "extract_worker", threading.Event())
            assert worker.poll_once(wait_seconds=5) == 1
    finally:
        llm.heal(CHAT)
    inline = logged.about("inline processing of turn")
    batch = logged.about("the whole batch will be retried")
    assert [(r.levelname, r.exc_info) for r in inline + batch] == [("WARNING", None)] * 2, [
        r.getMessage() for r in inline + batch]
    assert all("LLMError: test-model: no usable answer" in r.getMessage() for r in inline + batch)
    assert "Traceback" not in batch[0].getMessage()
    # Nor does any library log it with a traceback (Powertools' Tracer logged two ERRORs a delivery).
    assert [(r.name, r.getMessage()) for r in caplog.records if r.exc_info and r.levelno >= logging.ERROR] == []
    runtime.drain()  # the offline rules read it, as the queue's next delivery would

    def broken(event, context):
        raise KeyError("a bug")

    client = runtime.sqs_client()
    client.send_message(QueueUrl=queue["url"], MessageBody="{}")
    assert QueuePoller(client, queue["url"], queue["arn"], broken, "extract_worker",
                       threading.Event()).poll_once(wait_seconds=5) == 1
    [crash] = [r for r in logged.about("the whole batch will be retried") if r not in batch]
    assert crash.levelname == "ERROR" and crash.exc_info is not None
    runtime.drain()


def test_a_database_out_of_reach_is_one_warning_line_a_batch_not_a_traceback_a_record(ctx, runtime, logged,
                                                                                    monkeypatch, caplog):
    """With the embedded Postgres killed under `make dev`, each batch the extraction worker took logged
    `extract_worker raised; the whole batch will be retried` with the traceback of each of its records (two
    chained apiece), a batch a second: 3.7 MB of log in 45 s. Each batch is one WARNING line naming the error."""
    import dataclasses
    import threading

    from infra.local.poller import QueuePoller
    from infra.local.runtime import function_module
    from memex.ingest import ingest_turn
    from memex.models import TurnIn
    from memex_edge.context import build_context
    from tests.conftest import refused_port

    queue = runtime.queues["memex-extraction"]
    runtime.drain()  # what earlier tests left queued
    turn = ingest_turn(ctx, f"t-{uuid.uuid4().hex[:10]}", TurnIn(user_id="u-gone", session_id="s1", messages=[
        {"role": "user", "content": "I work at Stripe."}]), wait=False)
    with refused_port() as nowhere, monkeypatch.context() as patched:
        gone = build_context(dataclasses.replace(ctx.settings, database_url=f"postgresql://memex@127.0.0.1:{nowhere}/memex"))
        patched.setattr(function_module("extract_worker"), "get_context", lambda: gone)
        worker = QueuePoller(runtime.sqs_client(), queue["url"], queue["arn"],
                             function_module("extract_worker").handler, "extract_worker", threading.Event())
        assert worker.poll_once(wait_seconds=5) == 1
    [batch] = logged.about("the whole batch will be retried")
    assert (batch.levelname, batch.exc_info) == ("WARNING", None), batch.getMessage()
    assert "the database out of reach (OperationalError: connection failed: " in batch.getMessage(), batch.getMessage()
    assert "Traceback" not in batch.getMessage()
    assert [(r.name, r.getMessage()) for r in caplog.records if r.exc_info and r.levelno >= logging.ERROR] == []
    runtime.drain()  # the next delivery, the database back, processes the turn
    status = ctx.db.connection().execute("SELECT status FROM turns WHERE id = %s", (turn["turn_id"],)).fetchone()
    assert status["status"] == "processed"
