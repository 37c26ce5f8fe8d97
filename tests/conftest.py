"""Shared fixtures: one local runtime per test session, on a real Postgres with pgvector (embedded,
or the server at MEMEX_TEST_DATABASE_URL) and real SQS queues on a loopback AWS endpoint: moto by
default, or LocalStack's own runtime (`--aws localstack` or MEMEX_TEST_AWS=localstack; `make
test-localstack`), which refuses what AWS refuses where moto lets it through.

Workers are not left running in threads here: tests drive the queues with `runtime.drain()` so
that every assertion sees a settled pipeline.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Iterator

import jsonschema
import numpy as np
import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[1]

# Every answer's times in one form, RFC 3339 in UTC with Z: a client compares a turn's occurred_at
# with a memory's valid_from as strings, and "+00:00" sorts after "Z" at the same instant. Checks
# each `"format": "date-time"` an answer's schema declares (jsonschema's `format_checker`).
WIRE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z")
WIRE_TIMES = jsonschema.FormatChecker(formats=())


@WIRE_TIMES.checks("date-time")
def _wire_time(value) -> bool:
    return not isinstance(value, str) or WIRE_TIME.fullmatch(value) is not None


def installed_tool(name: str) -> str:
    """The path of a command-line tool the dev dependencies install (beside this Python first)."""
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed (make install)")
    return found

# Short visibility timeout and few receives so that retries and the DLQ are observable in seconds.
VISIBILITY_TIMEOUT = 1
MAX_RECEIVE_COUNT = 2


def pytest_addoption(parser):
    parser.addoption("--aws", choices=("moto", "localstack"), default=os.environ.get("MEMEX_TEST_AWS") or "moto",
                     help="the SQS, S3 and Secrets Manager endpoint the tests run against (default: "
                          "MEMEX_TEST_AWS, else moto)")


class AwsEndpoint:
    """The loopback endpoint serving SQS, S3 and Secrets Manager for this session."""

    def __init__(self, kind: str, url: str):
        self.kind = kind
        self.url = url

    def client(self, service: str):
        import boto3

        return boto3.client(service, region_name="us-east-1", endpoint_url=self.url)


@pytest.fixture(scope="session")
def aws(request, tmp_path_factory):
    for name in ("DATABASE_URL", "SQS_ENDPOINT_URL", "AWS_ENDPOINT_URL", "EXTRACTION_QUEUE_URL",
                 "SUPERSESSION_QUEUE_URL", "BACKFILL_QUEUE_URL", "MEMEX_LOCALSTACK", "MEMEX_LLM_MODEL",
                 "MEMEX_EMBEDDINGS_PROVIDER"):
        os.environ.pop(name, None)
    # Both endpoints take any credentials; these keep boto3 from looking for real ones.
    os.environ.update(AWS_ACCESS_KEY_ID="test", AWS_SECRET_ACCESS_KEY="test", AWS_DEFAULT_REGION="us-east-1")
    if request.config.getoption("--aws") == "localstack":
        from infra.localstack.server import LocalStack, LocalStackError
        from infra.localstack.stack import STACK_SERVICES

        try:
            # CloudFormation and IAM too: tests/test_localstack.py deploys the template.
            localstack = LocalStack(None, tmp_path_factory.mktemp("localstack"), STACK_SERVICES).start()
        except LocalStackError as exc:
            pytest.exit(f"--aws localstack: {exc}", returncode=1)
        # The runtime's boto3 clients come from localstack-client, which reads AWS_ENDPOINT_URL;
        # plain boto3 (the backfill worker's S3 reads, the secrets) reads it as well.
        os.environ.update(MEMEX_LOCALSTACK="true", AWS_ENDPOINT_URL=localstack.endpoint)
        yield AwsEndpoint("localstack", localstack.endpoint)
        localstack.stop()
    else:
        from infra.local.sqs_server import start_moto

        server, url = start_moto()
        os.environ["SQS_ENDPOINT_URL"] = url
        yield AwsEndpoint("moto", url)
        server.stop()


@pytest.fixture(scope="session")
def runtime(aws, tmp_path_factory):
    if os.environ.get("MEMEX_TEST_DATABASE_URL"):
        os.environ["DATABASE_URL"] = os.environ["MEMEX_TEST_DATABASE_URL"]
    os.environ["MEMEX_MAX_RECEIVE_COUNT"] = str(MAX_RECEIVE_COUNT)
    os.environ["MEMEX_REQUIRE_API_KEY"] = "true"
    from infra.local.runtime import LocalRuntime

    rt = LocalRuntime(tmp_path_factory.mktemp("memex-home"), visibility_timeout=VISIBILITY_TIMEOUT).start()
    yield rt
    rt.stop()


@pytest.fixture(scope="session")
def ctx(runtime):
    from memex_edge.context import get_context

    return get_context()


@pytest.fixture(scope="session")
def app(runtime):
    return runtime.asgi_app()


@pytest.fixture(scope="session")
def http(app):
    from fastapi.testclient import TestClient

    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


class Tenant:
    """A tenant of its own for one test, with its API key and a unique user id."""

    def __init__(self, ctx, http):
        from memex.keys import create_key

        self.id = f"t-{uuid.uuid4().hex[:10]}"
        self.key = create_key(ctx, self.id)
        self.user = f"u-{uuid.uuid4().hex[:8]}"
        self._http = http

    def through(self, http) -> "Tenant":
        """The same tenant and user, calling another app (one built on a Context of its own)."""
        other = Tenant.__new__(Tenant)
        other.__dict__.update(self.__dict__, _http=http)
        return other

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    def post(self, path: str, body=None, **kwargs):
        return self._http.post(path, json=body, headers=self.headers, **kwargs)

    def get(self, path: str, **kwargs):
        return self._http.get(path, headers=self.headers, **kwargs)

    def delete(self, path: str, **kwargs):
        return self._http.delete(path, headers=self.headers, **kwargs)

    def turn(self, *contents: str, session: str = "s1", wait: bool = True, user: str | None = None, **extra):
        body = {"user_id": user or self.user, "session_id": session,
                "messages": [{"role": "user", "content": c} for c in contents], **extra}
        return self.post("/v1/turns" + ("?wait=true" if wait else ""), body)

    def search(self, query: str, **extra) -> list[dict]:
        response = self.post("/v1/search", {"user_id": self.user, "query": query, **extra})
        assert response.status_code == 200, response.text
        return response.json()["results"]


class WrappedEmbedder:
    """An embedder with some of its methods changed by a subclass (logged, failing, slow): everything
    else is the wrapped embedder's."""

    def __init__(self, embedder):
        self._embedder = embedder

    def __getattr__(self, name):
        return getattr(self._embedder, name)


class Refusing(WrappedEmbedder):
    """The context's embedder raising for a text that holds `marker` (a local embedder's own error: not a
    failure on its side, embeddings.on_its_side), answering the others and its probe; `refused` counts those
    texts asked."""

    def __init__(self, embedder, marker: str):
        super().__init__(embedder)
        self.marker, self.refused = marker, 0

    def embed(self, texts):
        if self.marker and any(self.marker in text for text in texts):
            self.refused += 1
            raise ValueError("this text is refused")
        return self._embedder.embed(texts)


class LoggedEmbedder(WrappedEmbedder):
    """An embedder wrapped to log each call's search queries; `one_at_a_time` embeds them one call
    each (as a search did before it batched a round's queries), `failing` raises instead."""

    def __init__(self, embedder, one_at_a_time: bool = False, failing: bool = False):
        super().__init__(embedder)
        self._one_at_a_time = one_at_a_time
        self._failing = failing
        self.calls: list[list[str]] = []

    def embed_queries(self, texts):
        if self._failing:
            self.calls.append(list(texts))
            raise TimeoutError("embedder down")
        if self._one_at_a_time:
            self.calls.extend([text] for text in texts)
            return np.stack([self._embedder.embed_query(text) for text in texts])
        self.calls.append(list(texts))
        return self._embedder.embed_queries(texts)


def api_client(app_ctx):
    """A TestClient of every HTTP function's routes served over `app_ctx` (a context built with other
    settings, another embedder or LLM): what a test needs to compare two configurations in one process."""
    from fastapi.testclient import TestClient

    from infra.local.runtime import HTTP_FUNCTIONS, function_module
    from memex_edge.http.app import create_app

    routers = [function_module(name).router for name in HTTP_FUNCTIONS]
    return TestClient(create_app(*routers, provide=lambda: app_ctx), raise_server_exceptions=False)


@pytest.fixture(scope="module")
def llm():
    """An OpenAI-compatible endpoint on loopback (bench.openai_double) for a module's tests to script."""
    from bench.openai_double import OpenAIDouble

    with OpenAIDouble() as server:
        yield server


@pytest.fixture
def tenant(ctx, http) -> Tenant:
    return Tenant(ctx, http)


@pytest.fixture
def other_tenant(ctx, http) -> Tenant:
    return Tenant(ctx, http)


@contextmanager
def round_trips(monkeypatch) -> Iterator[list[list[str]]]:
    """The statements of each round trip the process's connections make while open, in order: a
    pipeline's (entered at the top) as one, a statement sent outside one (psycopg's
    Connection.execute, any thread) as its own; counted on the real connection."""
    trips: list[list[str]] = []
    execute, pipeline = psycopg.Connection.execute, psycopg.Connection.pipeline

    def counted_execute(conn, query, *args, **kwargs):
        if conn._pipeline is None:
            trips.append([])
        trips[-1].append(str(query))
        return execute(conn, query, *args, **kwargs)

    @contextmanager
    def counted_pipeline(conn):
        if conn._pipeline is None:
            trips.append([])
        with pipeline(conn) as sent:
            yield sent

    with monkeypatch.context() as patched:
        patched.setattr(psycopg.Connection, "execute", counted_execute)
        patched.setattr(psycopg.Connection, "pipeline", counted_pipeline)
        yield trips


def _users_lock(conn: psycopg.Connection, tenant_id: str, user_id: str | None, granted: bool) -> list[int]:
    """The sessions holding (`granted`) or waiting on this user's lock (None: any of the tenant's users')
    (memex.db.locks: an advisory lock of two int4 keys, which pg_locks shows as classid and objid, objsubid 2),
    not any other advisory lock."""
    return [pid for pid, in conn.cursor(row_factory=psycopg.rows.tuple_row).execute(
        """SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted = %s AND objsubid = 2
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND classid = hashtext(%s)::oid AND (%s::text IS NULL OR objid = hashtext(%s)::oid)""",
        (granted, tenant_id, user_id, user_id)).fetchall()]


def waits_on_users_lock(conn: psycopg.Connection, tenant_id: str, user_id: str) -> bool:
    """Whether a session waits on this user's lock."""
    return bool(_users_lock(conn, tenant_id, user_id, granted=False))


def comes_to_wait_on_users_lock(thread: threading.Thread, conn: psycopg.Connection, tenant_id: str,
                                users: list[str], seconds: float = 300) -> bool:
    """Whether, before `thread` ends, a session comes to wait on one of these users' locks (read on `conn`,
    any session of the database): what a test asks of a thread that must not wait for them, rather than
    whether it ended within some seconds, which a busy machine can pass."""
    deadline = time.monotonic() + seconds
    while thread.is_alive():
        if any(waits_on_users_lock(conn, tenant_id, user) for user in users):
            return True
        assert time.monotonic() < deadline, "it neither ended nor waited on a user's lock"
        time.sleep(0.05)
    return False


def users_lock_holder(conn: psycopg.Connection, tenant_id: str, user_id: str) -> int | None:
    """The pid of the session holding this user's lock, if one does."""
    return next(iter(_users_lock(conn, tenant_id, user_id, granted=True)), None)


def holds_a_users_lock(conn: psycopg.Connection, tenant_id: str) -> bool:
    """Whether a transaction holds the lock of one of the tenant's users: another test's users, and any other
    advisory lock, are not this one's."""
    return bool(_users_lock(conn, tenant_id, None, granted=True))



def offline_found(content: str) -> list:
    """What the offline rules find in a user's message said alone."""
    from memex.extraction.offline import OfflineExtractor

    return OfflineExtractor().extract([{"id": "m", "role": "user", "content": content}], [])


def offline_facts(content: str) -> set[tuple[str, str, bool]]:
    """`offline_found`'s as (key, value, historical)."""
    return {(c.key, c.value, c.historical) for c in offline_found(content)}


def current_values(tenant, key: str) -> list[str]:
    """The values of the user's memories under `key` that are current, sorted."""
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    return sorted(m["value"] for m in listed.json()["memories"] if m["key"] == key and m["active"])


def memories_rows_read(conn) -> int:
    """The memories' rows read so far in `conn`'s transaction: by a scan of the table, and fetched through any
    of its indexes (counted under the index): what a statement reads, told apart from what it returns."""
    return conn.execute(
        """SELECT pg_stat_get_xact_tuples_returned('memories'::regclass)
                  + pg_stat_get_xact_tuples_fetched('memories'::regclass)
                  + (SELECT sum(pg_stat_get_xact_tuples_fetched(indexrelid)) FROM pg_index
                     WHERE indrelid = 'memories'::regclass) AS n""").fetchone()["n"]


def import_lines(ctx, tenant, runtime, tmp_path, lines: list[dict]) -> None:
    """Import these lines through a backfill job, as `memex backfill` does, and wait until every one is done."""
    from memex import backfill

    path = tmp_path / "history.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path))
    ctx.publisher.publish_backfill(job)
    runtime.drain(timeout=300)
    assert backfill.status(ctx, tenant.id, job.backfill_id)["done"] == len(lines)


def memex_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """`memex <args>` (this checkout's CLI) in `env`, its output captured."""
    return subprocess.run([sys.executable, "-m", "infra.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180)


@contextmanager
def scratch_database(ctx, name: str, template: str | None = None) -> Iterator[str]:
    """An empty database `name` on the suite's Postgres (a copy of `template`), its conninfo; dropped
    afterwards with any connection left on it (and first, should an interrupted run have left one of
    that name)."""
    from psycopg.conninfo import make_conninfo

    with psycopg.connect(ctx.db.dsn, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
    try:
        yield make_conninfo(ctx.db.dsn, dbname=name)
    finally:
        with psycopg.connect(ctx.db.dsn, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


# database_of_its_own's migrated databases to copy, one a session for each server and embedding
# dimension (a template lives on the server that made it): by (server's conninfo, dimension), their name.
_migrated: dict[tuple[str, int], str] = {}


def _migrated_template(ctx) -> str:
    """A database migrated once a session for `ctx`'s embedding dimension: a copy of it takes a fraction
    of a second, migrating a database of one's own seconds."""
    from psycopg.conninfo import make_conninfo

    from memex.db.migrations import apply_migrations

    dim = ctx.embedder.dim
    if (ctx.db.dsn, dim) not in _migrated:
        name = f"migrated_{dim}_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(ctx.db.dsn, autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        with psycopg.connect(make_conninfo(ctx.db.dsn, dbname=name), autocommit=True) as conn:
            apply_migrations(conn, dim)
        _migrated[ctx.db.dsn, dim] = name
    return _migrated[ctx.db.dsn, dim]


def pytest_sessionfinish(session):
    for (dsn, _), name in _migrated.items():
        # gone already with an embedded Postgres, stopped with the session's runtime
        with suppress(psycopg.OperationalError), psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextmanager
def database_of_its_own(ctx, prefix: str):
    """`ctx` on a database of its own, migrated, dropped after: for what reads every tenant's rows (a
    scheduled function) or an index the rest of the suite would crowd."""
    import dataclasses

    from memex.db.connection import Database

    with scratch_database(ctx, f"{prefix}_{uuid.uuid4().hex[:10]}", template=_migrated_template(ctx)) as url:
        own = Database(lambda: url)
        try:
            yield dataclasses.replace(ctx, db=own)
        finally:
            own.reset()


@pytest.fixture
def keyless(ctx):
    """A Context on a database of its own in which no key was made, with MEMEX_REQUIRE_API_KEY off:
    `make dev`'s first run, where every request without a key is the default tenant's."""
    import dataclasses

    with database_of_its_own(ctx, "keyless_hosts") as own:
        yield dataclasses.replace(own, settings=dataclasses.replace(own.settings, require_api_key=False))


def local_server(ctx, loopback: bool):
    """The local runtime's routes, /health and docs, served on loopback or off it, on `ctx`."""
    from fastapi.testclient import TestClient

    from infra.local.runtime import HTTP_FUNCTIONS, function_module
    from memex_edge.http.app import create_app

    app = create_app(*(function_module(name).router for name in HTTP_FUNCTIONS), provide=lambda: ctx,
                     docs=True, loopback=loopback)
    return TestClient(app, raise_server_exceptions=False)


@contextmanager
def logging_into(handler: logging.Handler) -> Iterator[logging.Handler]:
    """`handler` given every record at INFO or above, from the root logger and from memex's own
    (which does not propagate to the root under Powertools), until the block ends."""
    loggers = [logging.getLogger(), logging.getLogger("memex")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        for logger, level in zip(loggers, levels):
            logger.removeHandler(handler)
            logger.setLevel(level)


@contextmanager
def served(app) -> Iterator[str]:
    """`app` served by uvicorn on a loopback port, as `make dev` serves it; yields its base URL."""
    import uvicorn

    # Bound here and handed to uvicorn: a port picked free and bound later could be taken in between.
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@contextmanager
def refused_port() -> Iterator[int]:
    """A loopback port that refuses connections while the block runs: bound here and never listened
    on. A port picked free and let go is "nothing listens there" only until another process binds it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@pytest.fixture
def event_loop_for_mangum():
    """Mangum runs an invocation on the thread's current event loop, which an earlier asyncio.run
    on this thread (another test's MCP client) leaves unset, as it never is in Lambda."""
    try:
        previous = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        previous = None
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield
    asyncio.set_event_loop(previous)
    loop.close()


@pytest.fixture(scope="session")
def letters_one_case_apart() -> list[set[str]]:
    """Every group of characters that are cases of one another (each a single character, re's extra
    cases among them: "ſ" with s, "ı" with i, "ς" with σ), for comparing a caseless reading with
    re.IGNORECASE's."""
    letters = {chr(i) for i in range(0x10000) if not 0xD800 <= i < 0xE000 and chr(i).lower() != chr(i).upper()}
    letters |= {case for letter in list(letters) for case in (letter.lower(), letter.upper()) if len(case) == 1}
    near: dict[str, set[str]] = {}
    for letter in letters:
        lower = letter.lower() if len(letter.lower()) == 1 else letter
        for key in {lower, lower.upper() if len(lower.upper()) == 1 else lower}:
            near.setdefault(key, set()).add(letter)
    return list(near.values())
