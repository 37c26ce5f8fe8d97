"""Metrics: GET /metrics of the local runtime moves with a short session, the Lambda functions
emit the same vocabulary as CloudWatch EMF, and the domain imports no metrics library."""

from __future__ import annotations

import ast
import dataclasses
import io
import json
import logging
import os
import subprocess
import sys

import pytest
from prometheus_client.parser import text_string_to_metric_families

from infra.local.lambda_context import LocalLambdaContext
from infra.local.runtime import HTTP_FUNCTIONS, function_module
from memex import tenants
from memex.metrics import ALL, BY_NAME
from memex_edge.context import build_context
from memex_edge.http.app import create_app
from memex_edge.http.lambda_entry import asgi_lambda_handler
from memex_edge.observability import logger
from tests.conftest import ROOT, Tenant

Sample = tuple[str, tuple[tuple[str, str], ...]]
# What `curl 127.0.0.1:8080/metrics` sends: on loopback a scrape takes no key when its Host names
# this machine (the test client's own Host, testserver, does not).
ON_LOOPBACK = {"Host": "127.0.0.1:8080"}


def scrape(http, headers: dict[str, str] | None = None) -> dict[Sample, float]:
    """Every sample of GET /metrics: (series name, sorted labels) -> value."""
    response = http.get("/metrics", headers=headers or ON_LOOPBACK)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.text) for s in family.samples}


def moved(before: dict[Sample, float], after: dict[Sample, float], name: str, **labels: str) -> float:
    key = (name, tuple(sorted(labels.items())))
    return after.get(key, 0.0) - before.get(key, 0.0)


def test_a_short_session_moves_the_counters_and_histograms(tenant, runtime, http):
    before = scrape(http)
    # texts no other test says: the write path reuses the vectors of texts it embedded recently
    for text in ("I work at Stripe. My cat is called Quillon.", "I moved to Tromso last month."):
        assert tenant.turn(text).status_code == 201
    assert tenant.post("/v1/turns", {"user_id": tenant.user, "session_id": "s2",
                                     "messages": [{"role": "user", "content": "I work at Notion now."}]}).status_code == 202
    runtime.drain()  # the queued turn through the extraction and supersession workers
    assert tenant.search("where does the user work?")
    assert tenant.search("quantum chromodynamics lecture schedule") == []  # the floor: nothing related
    recall = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "where does the user live?"})
    assert recall.status_code == 200
    after = scrape(http)

    assert moved(before, after, "memex_turns_ingested_total", source="api") == 3
    assert moved(before, after, "memex_extraction_latency_seconds_count") >= 3
    assert moved(before, after, "memex_candidates_per_turn_count") >= 3
    assert moved(before, after, "memex_candidates_per_turn_sum") >= 3
    assert moved(before, after, "memex_supersession_verdicts_total", action="coexist") >= 2
    assert moved(before, after, "memex_supersession_verdicts_total", action="supersede") >= 1  # Stripe -> Notion
    assert moved(before, after, "memex_embedding_latency_seconds_count", call="documents") >= 3
    assert moved(before, after, "memex_embedding_latency_seconds_count", call="query") >= 2
    assert moved(before, after, "memex_search_latency_seconds_count", mode="hybrid") == 2
    assert moved(before, after, "memex_search_latency_seconds_sum", mode="hybrid") > 0
    assert moved(before, after, "memex_search_results_sum", mode="hybrid") >= 1
    assert moved(before, after, "memex_floor_rejections_total") >= 1
    assert moved(before, after, "memex_recall_tokens_count") == 1
    assert moved(before, after, "memex_recall_tokens_sum") == recall.json()["token_count"] > 0
    assert moved(before, after, "memex_records_received_total", queue="extraction") >= 1
    assert moved(before, after, "memex_records_received_total", queue="supersession") >= 1
    assert moved(before, after, "memex_queue_age_seconds_count", queue="extraction") >= 1
    assert moved(before, after, "memex_http_requests_total", route="/v1/turns", status="201") == 2
    assert moved(before, after, "memex_http_requests_total", route="/v1/search", status="200") == 2
    assert moved(before, after, "memex_http_latency_seconds_count", route="/v1/recall") == 1
    # read from the queues at each scrape
    assert {labels for name, labels in after if name == "memex_dlq_depth"} == {
        (("queue", queue),) for queue in ("extraction", "supersession", "backfill")}


def test_a_message_in_a_dlq_shows_in_dlq_depth(runtime, http):
    from memex_edge.sqs import sqs_client
    from memex.config import load_settings

    client = sqs_client(load_settings())
    dlq = runtime.queues["memex-backfill"]["dlq_url"]
    before = scrape(http)[("memex_dlq_depth", (("queue", "backfill"),))]
    client.send_message(QueueUrl=dlq, MessageBody="{}")
    try:
        assert scrape(http)[("memex_dlq_depth", (("queue", "backfill"),))] == before + 1
    finally:
        client.purge_queue(QueueUrl=dlq)


def test_off_loopback_a_scrape_takes_an_api_key_as_the_routes_do(ctx, runtime, http, tenant):
    """`--host 0.0.0.0` serves /metrics beyond this machine, and its counts say how the server is used
    (requests by route and status, queue depths): there a scrape needs a key the API takes, as every
    route does; on loopback none (keys exist here). A scrape counts against no tenant's rate limit."""
    from fastapi.testclient import TestClient

    tenants.set_limit(ctx, tenant.id, "1/h")
    with TestClient(runtime.asgi_app("0.0.0.0"), raise_server_exceptions=False) as off_loopback:
        missing = off_loopback.get("/metrics")
        assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer", missing.text
        assert missing.json()["error"] == {"code": "unauthorized",
                                           "message": "missing API key: send Authorization: Bearer <key>"}
        wrong = off_loopback.get("/metrics", headers={"Authorization": "Bearer mx_not-a-key"})
        assert (wrong.status_code, wrong.json()["error"]["message"]) == (401, "invalid API key")
        assert "memex_" not in missing.text + wrong.text
        for _ in range(3):
            assert ("memex_dlq_depth", (("queue", "extraction"),)) in scrape(off_loopback, tenant.headers)
    assert tenant.get(f"/v1/memories/count?user_id={tenant.user}").status_code == 200  # its one request an hour
    assert ("memex_dlq_depth", (("queue", "extraction"),)) in scrape(http)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "testserver"])
def test_on_loopback_a_scrape_naming_another_host_takes_an_api_key(http, tenant, host):
    """DNS rebinding: a web page at evil.example, its name then resolved to 127.0.0.1, reads what a
    server on loopback answers it (its own origin, to the browser), and its request names its own
    host. On loopback a scrape took no key whatever its Host said."""
    missing = http.get("/metrics", headers={"Host": host})
    assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer", missing.text
    assert missing.json()["error"]["code"] == "unauthorized" and "memex_" not in missing.text
    assert ("memex_dlq_depth", (("queue", "extraction"),)) in scrape(http, {"Host": host, **tenant.headers})


def test_on_loopback_a_scrape_naming_another_host_needs_a_key_while_the_api_takes_none(ctx, monkeypatch):
    """No key made yet and MEMEX_REQUIRE_API_KEY off (`make dev` as first run): every request is the
    default tenant's, and a rebinding page's scrape would be too."""
    from fastapi.testclient import TestClient

    from memex_edge import scrape as endpoint
    from tests.conftest import database_of_its_own

    with database_of_its_own(ctx, "open_scrape") as own:
        keyless = dataclasses.replace(own, settings=dataclasses.replace(own.settings, require_api_key=False))
        monkeypatch.setattr(endpoint, "get_context", lambda: keyless)
        app = create_app(surfaces={"/metrics": endpoint.metrics_app(ctx.metrics)}, provide=lambda: keyless)
        with TestClient(app, raise_server_exceptions=False) as client:
            assert client.get("/metrics", headers=ON_LOOPBACK).status_code == 200
            refused = client.get("/metrics", headers={"Host": "evil.example"})
            assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer", refused.text
            assert refused.json()["error"]["code"] == "unauthorized" and "memex_" not in refused.text


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8080", "localhost:8080", "LocalHost", "[::1]:8080"])
def test_on_loopback_a_scrape_naming_this_machine_takes_no_key(http, host):
    assert ("memex_dlq_depth", (("queue", "extraction"),)) in scrape(http, {"Host": host})


def test_a_path_no_route_serves_is_counted_under_one_label_and_a_surfaces_under_its_path(http, tenant):
    """Unmatched paths under one label, never the path sent (any client could make a series a
    request); the surfaces' requests (/mcp, /metrics) under their paths, not as unmatched."""
    before = scrape(http)
    for path in ("/no/such/path/1", "/no/such/path/2", "/v1/users/u-1/nothing"):
        assert http.get(path, headers=tenant.headers).status_code == 404
    assert http.get("/mcp", headers={**tenant.headers, **ON_LOOPBACK}).status_code == 405
    after = scrape(http)
    routes = {dict(labels)["route"] for name, labels in after if name == "memex_http_requests_total"}
    assert not any(route.startswith("/no/") or route.endswith("/nothing") for route in routes), routes
    assert moved(before, after, "memex_http_requests_total", route="unmatched", status="404") == 3
    assert moved(before, after, "memex_http_requests_total", route="/mcp", status="405") == 1
    assert moved(before, after, "memex_http_requests_total", route="/metrics", status="200") == 1


def test_every_series_is_named_from_the_vocabulary(http):
    local = {metric.prometheus_name for metric in ALL if metric.local}
    families = {family.name for family in text_string_to_metric_families(http.get("/metrics", headers=ON_LOOPBACK).text)}
    assert families <= local
    assert families == local  # all are declared at start, a histogram or counter at zero until it moves


def _emf_lines(output: str) -> list[dict]:
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    return [line for line in lines if "_aws" in line]


def _emitted(lines: list[dict]) -> dict[str, tuple[str, set[str]]]:
    """name -> (unit, dimension names) of every metric in the EMF lines."""
    found = {}
    for line in lines:
        (directive,) = line["_aws"]["CloudWatchMetrics"]
        assert directive["Namespace"] == "Memex"
        (dimensions,) = directive["Dimensions"]
        for metric in directive["Metrics"]:
            found[metric["Name"]] = (metric["Unit"], set(dimensions))
            assert metric["Name"] in line
    return found


def _lambda_http(event_name: str, key: str, body: dict, query: str = "") -> dict:
    event = json.loads((ROOT / "events" / f"{event_name}.json").read_text())
    event["headers"]["authorization"] = f"Bearer {key}"
    event["body"] = json.dumps(body)
    event["rawQueryString"] = query
    if query:
        event["queryStringParameters"] = dict(part.split("=") for part in query.split("&"))
    return event


def test_the_lambda_functions_emit_the_same_vocabulary_as_emf(ctx, llm, capfd, monkeypatch):
    from aws_lambda_powertools.metrics.provider.cold_start import reset_cold_start_flag

    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")  # the local runtime turned EMF off
    settings = dataclasses.replace(ctx.settings, metrics="emf", llm_base_url=llm.base_url, llm_model="test-model",
                                   llm_api_key="k", llm_multihop=False)
    emf_ctx = build_context(settings)
    handler = asgi_lambda_handler(create_app(*(function_module(name).router for name in HTTP_FUNCTIONS),
                                             provide=lambda: emf_ctx))
    tenant = Tenant(ctx, None)
    # The Logger's own handler writes to the stream it found at import; this one reads the same lines.
    lines = io.StringIO()
    log_handler = logging.StreamHandler(lines)
    log_handler.setFormatter(logger.registered_formatter)
    logging.getLogger("memex").addHandler(log_handler)
    reset_cold_start_flag()
    capfd.readouterr()

    def invoke(event: dict) -> dict:
        response = handler(event, LocalLambdaContext("memex-ingest"))
        assert response["statusCode"] < 300, response
        return json.loads(response["body"])

    def turn(text: str, key: str, value: str, *judge_answers: str, request_id: str = "r") -> dict:
        llm.script_chat(json.dumps({"memories": [{
            "message": 0, "type": "fact", "key": key, "value": value, "subject": "user", "historical": False,
            "content": f"The user's {key} is {value}.", "confidence": 0.9, "quote": text}]}), *judge_answers)
        event = _lambda_http("ingest_post_turn", tenant.key, {"user_id": tenant.user, "session_id": "s1",
                             "messages": [{"role": "user", "content": text}]}, "wait=true")
        event["requestContext"]["requestId"] = request_id
        return invoke(event)

    assert turn("I work at Stripe", "employer", "Stripe")["status"] == "processed"  # nothing to judge
    # An answer the LLM judge cannot use: the rules decide.
    assert turn("I work at Notion now", "employer", "Notion", '{"action": "maybe"}',
                request_id="judge-fallback-request")["status"] == "processed"
    found = invoke(_lambda_http("search_post", tenant.key, {"user_id": tenant.user, "query": "where does the user work?"}))
    assert "Notion" in [r.get("value") for r in found["results"][:2]]  # beside the message it was drawn from
    invoke(_lambda_http("recall_post", tenant.key, {"user_id": tenant.user, "query": "where does the user work?"}))
    output = capfd.readouterr().out
    logging.getLogger("memex").removeHandler(log_handler)

    emitted = _emitted(_emf_lines(output))
    expected = {"ColdStart", "TurnsIngested", "ExtractionLatency", "CandidatesPerTurn", "SupersessionVerdicts",
                "LlmCalls", "LlmFallbacks", "EmbeddingLatency", "SearchLatency", "SearchResults", "RecallTokens"}
    assert expected <= set(emitted), expected - set(emitted)
    for name, (unit, dimensions) in emitted.items():
        metric = BY_NAME[name]
        assert not metric.aws, f"{name}: AWS publishes it"
        assert unit == metric.unit, name
        assert dimensions == {"service", *metric.labels}, name
    # The rules judge's fallback was logged by a domain module, in the Logger's JSON, with the
    # request's correlation id.
    logs = [json.loads(line) for line in lines.getvalue().splitlines()]
    fallback = [line for line in logs if line["message"].startswith("LLM judge gave no usable answer")]
    assert fallback and fallback[0]["correlation_id"] == "judge-fallback-request"
    assert fallback[0]["name"] == "memex.supersession_llm"


def test_the_domain_imports_no_metrics_library_nor_edge():
    forbidden = {"prometheus_client", "aws_lambda_powertools", "boto3", "botocore", "fastapi", "starlette",
                 "mangum", "memex_edge"}
    for path in (ROOT / "shared" / "memex").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            else:
                continue
            assert not {name.split(".")[0] for name in names} & forbidden, (path, names)


def test_the_prometheus_port_loads_no_http_framework():
    """Every process of the local runtime records through the port (the workers' too): only the scrape
    (memex_edge.scrape) is HTTP."""
    code = ("import json, sys; import memex_edge.prometheus; "
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {'fastapi', 'starlette', 'mangum'})))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")])}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout) == []


def test_a_metric_recorded_with_the_wrong_labels_is_refused():
    from memex_edge.emf import EmfMetrics
    from memex_edge.observability import metrics
    from memex_edge.prometheus import PrometheusMetrics

    for adapter in (PrometheusMetrics(), EmfMetrics(metrics)):
        with pytest.raises(ValueError):
            adapter.record(BY_NAME["SearchLatency"], 0.1)  # mode missing
        with pytest.raises(ValueError):
            adapter.record(BY_NAME["TurnsIngested"], source="api", tenant="acme")


def test_metric_names_are_unique_and_well_formed():
    assert len({m.name for m in ALL}) == len(ALL)
    assert len({m.prometheus_name for m in ALL}) == len(ALL)
    for metric in ALL:
        # memex records counts and seconds; a metric only AWS publishes keeps AWS's unit (Lambda's
        # Duration is in milliseconds)
        assert metric.unit in {"Count", "Seconds"} or (not metric.local and metric.aws), metric
        assert metric.name[0].isupper() and metric.name.isalnum()


def test_an_extraction_answer_none_of_whose_items_is_usable_counts_as_an_llm_failure(ctx, llm, capfd, monkeypatch):
    """Every item the model answered dropped (not in the words of the message) is no answer (an `LLMError`,
    the offline rules read the turn), but was counted in LlmCalls alone: LlmFailures counted only the
    endpoint's failures, so a model answering nothing usable looked healthy on the dashboard."""
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")  # the local runtime turned EMF off
    settings = dataclasses.replace(ctx.settings, metrics="emf", llm_base_url=llm.base_url, llm_model="test-model",
                                   llm_api_key="k", llm_multihop=False)
    emf_ctx = build_context(settings)
    handler = asgi_lambda_handler(create_app(function_module("ingest").router, provide=lambda: emf_ctx))
    tenant = Tenant(ctx, None)
    llm.reset()
    llm.script_chat(json.dumps({"memories": [{
        "message": 0, "type": "fact", "key": "city", "value": "Zurich", "subject": "user", "historical": False,
        "content": "The user lives in Zurich.", "confidence": 0.9, "quote": "I live in Zurich"}]}))
    capfd.readouterr()
    event = _lambda_http("ingest_post_turn", tenant.key, {"user_id": tenant.user, "session_id": "s1",
                         "messages": [{"role": "user", "content": "lol thanks"}]}, "wait=true")
    response = handler(event, LocalLambdaContext("memex-ingest"))
    assert json.loads(response["body"])["status"] == "processed"  # by the offline rules, at once
    counted = {}
    for line in _emf_lines(capfd.readouterr().out):
        for name in ("LlmCalls", "LlmFailures", "LlmFallbacks"):
            if name in line and line.get("purpose") == "extract":
                values = line[name] if isinstance(line[name], list) else [line[name]]  # one line may hold several
                counted[name] = counted.get(name, 0) + sum(values)
    assert counted == {"LlmCalls": 1, "LlmFailures": 1, "LlmFallbacks": 1}, counted
    llm.reset()
