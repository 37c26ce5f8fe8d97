"""The metrics memex records: one vocabulary for every adapter, and the no-op default.

The domain records through `ctx.metrics` (the `Metrics` port, memex.ports) and names a metric
from this module; it never imports a metrics library. The adapters turn each metric into their
own form from what is declared here: CloudWatch embedded metrics in Lambda (memex_edge.emf, the
`name` and the `unit`, each label a dimension) and Prometheus in the local runtime
(memex_edge.prometheus, `prometheus_name`). Dashboards and alarms name only metrics of this list
(tests/test_dashboards.py checks the template and infra/grafana).
"""

from __future__ import annotations

import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from memex.ports import Metrics

COUNTER, HISTOGRAM, GAUGE = "counter", "histogram", "gauge"

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
AGE_BUCKETS = (0.1, 0.5, 1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 3600.0)
SIZE_BUCKETS = (0, 1, 2, 5, 10, 20, 50, 100)
TOKEN_BUCKETS = (0, 50, 100, 250, 500, 1000, 2000, 4000, 8000)


@dataclass(frozen=True)
class Metric:
    name: str  # the CloudWatch name (namespace Memex)
    kind: str  # COUNTER, HISTOGRAM or GAUGE
    unit: str  # a CloudWatch unit: "Count" or "Seconds"
    description: str
    labels: tuple[str, ...] = ()  # CloudWatch dimensions, Prometheus labels
    buckets: tuple[float, ...] = ()  # a histogram's, in Prometheus
    # Where CloudWatch has it when AWS publishes it itself ("AWS/SQS ApproximateNumberOfMessagesVisible"):
    # the code then records it in the local runtime only.
    aws: str = ""
    # False: only Lambda has it (the cold start, which Powertools emits; what AWS publishes of
    # Lambda and of a queue's oldest message).
    local: bool = True

    @property
    def prometheus_name(self) -> str:
        """memex_<snake_case name>, with `_seconds` for a time (prometheus-client adds `_total` to
        a counter)."""
        snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", self.name).lower()
        return f"memex_{snake}" + ("_seconds" if self.unit == "Seconds" and not snake.endswith("_seconds") else "")


def _counter(name: str, description: str, *labels: str, aws: str = "", local: bool = True) -> Metric:
    return Metric(name, COUNTER, "Count", description, labels, aws=aws, local=local)


def _histogram(name: str, unit: str, description: str, buckets: tuple[float, ...], *labels: str) -> Metric:
    return Metric(name, HISTOGRAM, unit, description, labels, buckets)


# Write path
TURNS_INGESTED = _counter("TurnsIngested", "Turns stored (a resent idempotent turn is not counted)", "source")
TURNS_REPUBLISHED = _counter("TurnsRepublished", "Turns the sweep sent to a queue again after their message was lost")
JOB_STARTS_FAILED = _counter("JobStartsFailed", "Jobs to come whose start failed, the sweep's or a turn's (tried again at "
                                                 "the next run, or an hour after for a text the embedder refused)")
JOB_STARTS_LOCK_HELD = _counter("JobStartsLockHeld", "Users whose jobs to come the sweep left for its next run "
                                "because another transaction held their lock (a long import chunk)")
TURN_REPUBLISHES_FAILED = _counter("TurnRepublishesFailed", "Lost turns the sweep could not send again (their queue "
                                   "unreachable, or refusing them in a batch): left for its next run")
EXTRACTION_LATENCY = _histogram("ExtractionLatency", "Seconds", "Time the extractor took for one turn",
                                LATENCY_BUCKETS)
CANDIDATES_PER_TURN = _histogram("CandidatesPerTurn", "Count", "Candidate memories extracted from one turn",
                                 SIZE_BUCKETS)
SUPERSESSION_VERDICTS = _counter("SupersessionVerdicts", "Decisions on candidate memories", "action")
# Models
LLM_CALLS = _counter("LlmCalls", "Questions asked of the chat model (retries included in one call)", "purpose")
LLM_FAILURES = _counter("LlmFailures", "Questions the chat model gave no usable answer to", "purpose")
LLM_FALLBACKS = _counter("LlmFallbacks", "What the rules did because the LLM gave no usable answer: a judge's "
                         "decision, a search's split, a turn's extraction on its last delivery", "purpose")
EMBEDDING_LATENCY = _histogram("EmbeddingLatency", "Seconds", "Time one embedding call took", LATENCY_BUCKETS,
                               "call")
EMBEDDING_ERRORS = _counter("EmbeddingErrors", "Embedding calls that raised", "call")
# Recorded by the sweep each run and by a worker or an erasure the embedder failed (memex/vectorless.py); in
# the local runtime read from Postgres at each scrape instead.
MEMORIES_WITHOUT_VECTOR = Metric("MemoriesWithoutVector", GAUGE, "Count",
                                 "Memories waiting for their vector (stored or left without one while the embedder "
                                 "failed; not a user's being erased): found by their words, not yet by their meaning")
# Read path
SEARCH_LATENCY = _histogram("SearchLatency", "Seconds", "Time one search request took", LATENCY_BUCKETS, "mode")
SEARCH_RESULTS = _histogram("SearchResults", "Count", "Results one search request returned", SIZE_BUCKETS, "mode")
FLOOR_REJECTIONS = _counter("FloorRejections", "Searches the relevance floor answered with nothing")
RECALL_TOKENS = _histogram("RecallTokens", "Count", "Tokens of the context one recall returned", TOKEN_BUCKETS)
REQUESTS_RATE_LIMITED = _counter("RequestsRateLimited", "Requests refused with 429 by the per-tenant rate limit")
# Queues
RECORDS_RECEIVED = _counter("RecordsReceived", "Queue messages delivered to a worker", "queue")
RECORDS_FAILED = _counter("RecordsFailed", "Queue messages a worker reported failed (retried, then the DLQ)", "queue")
QUEUE_AGE = _histogram("QueueAge", "Seconds", "Time a message waited in its queue before a worker got it",
                       AGE_BUCKETS, "queue")
QUEUE_OLDEST = Metric("QueueOldest", GAUGE, "Seconds", "Age of the oldest message of the extraction and backfill queues", ("queue",),
                      aws="AWS/SQS ApproximateAgeOfOldestMessage", local=False)
DLQ_DEPTH = Metric("DlqDepth", GAUGE, "Count", "Messages in a dead-letter queue", ("queue",),
                   aws="AWS/SQS ApproximateNumberOfMessagesVisible")
# Consolidation (the scheduled job that merges old episodic memories)
CONSOLIDATION_RUNS = _counter("ConsolidationRuns", "Consolidation runs")
MEMORIES_MERGED = _counter("MemoriesMerged", "Episodic memories consolidation folded into a summary")
# HTTP (API Gateway publishes these in AWS)
HTTP_REQUESTS = _counter("HttpRequests", "HTTP requests answered", "route", "status",
                         aws="AWS/ApiGateway Count, 4xx, 5xx")
HTTP_LATENCY = Metric("HttpLatency", HISTOGRAM, "Seconds", "Time an HTTP request took", ("route",), LATENCY_BUCKETS,
                      aws="AWS/ApiGateway Latency")
# Lambda
COLD_STARTS = _counter("ColdStart", "Lambda cold starts (emitted by Powertools)", "function_name", local=False)
FUNCTION_FAILURES = _counter("FunctionFailures", "Invocations Lambda failed or refused (published by Lambda)",
                             "function_name", aws="AWS/Lambda Errors, Throttles", local=False)
FUNCTION_DURATION = Metric("FunctionDuration", GAUGE, "Milliseconds", "Longest run of a function (published by Lambda)",
                           ("function_name",), aws="AWS/Lambda Duration", local=False)

ALL: tuple[Metric, ...] = tuple(value for value in list(globals().values()) if isinstance(value, Metric))
BY_NAME = {metric.name: metric for metric in ALL}


class NoMetrics:
    """Records nothing: the Context's default, for code that runs without an adapter."""

    def record(self, metric: Metric, value: float = 1, **labels: str) -> None:
        pass


@contextmanager
def timed(metrics: "Metrics", metric: Metric, **labels: str) -> Iterator[None]:
    """Records the seconds the block took in `metric`, whether or not it raised."""
    started = time.perf_counter()
    try:
        yield
    finally:
        metrics.record(metric, time.perf_counter() - started, **labels)
