"""How the service reaches Postgres and its secrets in AWS: session limits on every connection,
verified TLS for the database named by a Secrets Manager secret, API keys read from Secrets Manager.
Secrets Manager is the session's loopback AWS endpoint (moto or LocalStack), as SQS is."""

from __future__ import annotations

import dataclasses
import gc
import json
import threading
import time
import uuid
from datetime import timezone

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from memex.config import Settings
from memex.db.connection import Database
from memex_edge.context import build_context, database_dsn


@pytest.fixture
def secrets(runtime, aws, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", aws.url)
    client = aws.client("secretsmanager")

    def create(value: str) -> str:
        return client.create_secret(Name=f"memex-test-{uuid.uuid4().hex}", SecretString=value)["ARN"]

    return create


def test_every_session_has_a_statement_and_an_idle_transaction_timeout(ctx):
    conn = ctx.db.connection()
    assert conn.execute("SHOW statement_timeout").fetchone()["statement_timeout"] == "30s"
    assert conn.execute("SHOW idle_in_transaction_session_timeout").fetchone()[
        "idle_in_transaction_session_timeout"] == "1min"


def test_every_session_reads_its_times_in_utc(ctx):
    # whatever zone the server was initialised with: psycopg then hands times back as
    # datetime.timezone.utc, not a ZoneInfo (db/connection.py)
    conn = ctx.db.connection()
    assert conn.execute("SHOW TimeZone").fetchone()["TimeZone"] == "UTC"
    assert conn.execute("SELECT '2026-12-05 12:00+02'::timestamptz AS at").fetchone()["at"].tzinfo is timezone.utc


def test_the_session_limits_come_from_the_settings(ctx):
    settings = dataclasses.replace(ctx.settings, db_statement_timeout_ms=1500, db_idle_in_transaction_timeout_ms=4000)
    other = build_context(settings)
    try:
        conn = other.db.connection()
        assert conn.execute("SHOW statement_timeout").fetchone()["statement_timeout"] == "1500ms"
        assert conn.execute("SHOW idle_in_transaction_session_timeout").fetchone()[
            "idle_in_transaction_session_timeout"] == "4s"
    finally:
        other.db.reset()


def test_a_database_from_a_secret_is_reached_over_verified_tls(secrets):
    # the secret asks for no TLS: it is not the secret's call
    arn = secrets(json.dumps({"host": "db.internal", "port": 5432, "username": "memex", "password": "pw",
                              "dbname": "memex", "sslmode": "disable"}))
    dsn = conninfo_to_dict(database_dsn(Settings(database_secret_arn=arn)))
    assert dsn["sslmode"] == "verify-full" and dsn["sslrootcert"] == "system"
    assert dsn["host"] == "db.internal" and dsn["user"] == "memex"

    bundled = Settings(database_secret_arn=arn, db_sslrootcert="/opt/python/rds-global-bundle.pem")
    assert conninfo_to_dict(database_dsn(bundled))["sslrootcert"] == "/opt/python/rds-global-bundle.pem"


def test_api_keys_can_come_from_secrets_manager(ctx, secrets):
    settings = dataclasses.replace(
        ctx.settings, llm_model="m", llm_api_key_secret_arn=secrets("sk-llm-plain"),
        embeddings_api_key_secret_arn=secrets(json.dumps({"api_key": "sk-embed-json"})),
        rerank_base_url="http://127.0.0.1:9/v1", rerank_api_key_secret_arn=secrets("sk-rerank"))
    built = build_context(settings)
    assert built.settings.llm_api_key == "sk-llm-plain" and built.settings.llm_configured
    assert built.settings.embeddings_api_key == "sk-embed-json"
    assert built.settings.rerank_api_key == "sk-rerank"


def test_prepared_statements_only_when_asked_and_the_same_answers(ctx, tenant):
    """Statements are prepared only when the setting asks for it; a search prepared gives what the
    same search unprepared gives."""
    from memex.models import SearchIn
    from memex.retrieval.search import search

    assert Settings().db_prepared_statements is False
    tenant.turn("I adopted a rescue dog called Biscuit.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("Biscuit and I love our walks in Lisbon.", timestamp="2026-01-02T00:00:00Z")
    request = SearchIn(user_id=tenant.user, query="Where do I walk my dog?",
                       reference_time="2026-02-01T00:00:00Z")
    prepared = build_context(dataclasses.replace(ctx.settings, db_prepared_statements=True))
    unprepared = build_context(dataclasses.replace(ctx.settings, db_prepared_statements=False))
    try:
        answers = [search(prepared, tenant.id, request) for _ in range(7)]  # prepared from the fifth
        names = {r["name"] for r in prepared.db.connection().execute(
            "SELECT name FROM pg_prepared_statements").fetchall()}
        assert names, "no statement was prepared"
        expected = search(unprepared, tenant.id, request)
        assert expected["results"], expected
        assert not unprepared.db.connection().execute("SELECT name FROM pg_prepared_statements").fetchall()
        for answer in answers:
            assert answer == expected
    finally:
        prepared.db.reset()
        unprepared.db.reset()


def _backend_of_a_thread(db) -> int:
    """The backend pid of the connection a new thread gets from `db`; the thread has ended and
    is gone when this returns."""
    pids = []
    thread = threading.Thread(target=lambda: pids.append(db.connection().info.backend_pid))
    thread.start()
    thread.join()
    del thread
    gc.collect()
    return pids[0]


@pytest.fixture
def pool(ctx):
    db = Database(lambda: ctx.db.dsn, spare_connections=1)
    yield db
    db.discard_all()


def test_an_ended_threads_connection_serves_the_next_new_thread(pool):
    """The local runtime's request threads end after 10 s idle: their sessions, warm, are kept
    for the threads of the next burst instead of being closed and opened again."""
    first = _backend_of_a_thread(pool)
    assert _backend_of_a_thread(pool) == first
    conn = pool.connection()
    assert conn.info.backend_pid == first
    # this thread keeps its own while it lives
    assert _backend_of_a_thread(pool) != first
    pool.reset()


def test_spares_beyond_the_limit_are_closed(ctx, pool):
    ended = []

    def hold(release: threading.Event):
        ended.append(pool.connection())
        release.wait()

    release = threading.Event()
    threads = [threading.Thread(target=hold, args=(release,)) for _ in range(3)]
    for thread in threads:
        thread.start()
    while len(ended) < 3:
        time.sleep(0.01)
    release.set()
    for thread in threads:
        thread.join()
    del threads, thread
    gc.collect()
    assert sum(conn.closed for conn in ended) == 2  # one spare kept
    assert _backend_of_a_thread(pool) in {conn.info.backend_pid for conn in ended if not conn.closed}


def test_a_spare_that_died_or_was_discarded_is_not_handed_out_again(ctx, pool):
    """A spare whose backend died fails its first statement, as a thread's own connection would
    (the request answers 503), and the pool goes on with fresh ones."""
    dead = _backend_of_a_thread(pool)
    with ctx.db.connection().cursor() as cur:
        cur.execute("SELECT pg_terminate_backend(%s)", (dead,))
    failed = []

    def use():
        try:
            pool.connection().execute("SELECT 1")
        except psycopg.OperationalError:
            failed.append(pool.connection().info.backend_pid)  # the same thread's next call: a new one
            pool.connection().execute("SELECT 1")

    thread = threading.Thread(target=use)
    thread.start()
    thread.join()
    del thread
    gc.collect()
    assert failed and failed[0] != dead
    fresh = _backend_of_a_thread(pool)
    assert fresh == failed[0]  # the broken one was not kept

    pool.discard_all()  # the server went away, as far as the pool knows
    assert _backend_of_a_thread(pool) != fresh


def test_a_database_secret_may_hold_an_empty_password(secrets):
    """A server that trusts its clients has none: `make localstack`'s secret for the embedded Postgres
    holds "" and was refused as having no password, so the local runtime never started."""
    arn = secrets(json.dumps({"host": "db.internal", "port": 5432, "username": "memex", "password": "",
                              "dbname": "memex"}))
    dsn = conninfo_to_dict(database_dsn(Settings(database_secret_arn=arn)))
    assert (dsn["host"], dsn["user"], dsn.get("password", "")) == ("db.internal", "memex", "")


@pytest.mark.parametrize("value, says", [
    (json.dumps({"username": "memex", "password": "pw", "dbname": "memex"}), "has no host"),
    (json.dumps({"host": "db.internal", "user": "memex"}), "has no username, password"),
    ("postgresql://memex:pw@db.internal/memex", "is not a JSON object"),
])
def test_a_database_secret_without_what_it_needs_says_what_it_lacks(secrets, value, says):
    # A secret without its host answered every request 500 and failed the deploy's Migrations with
    # "KeyError: 'host'"; one holding a URL, with Powertools' transform error.
    with pytest.raises(ValueError, match=f"the database secret \\(DATABASE_SECRET_ARN\\) {says}") as raised:
        database_dsn(Settings(database_secret_arn=secrets(value)))
    assert "pw" not in str(raised.value)


def test_a_thread_that_waits_on_the_llm_gives_its_borrowed_connection_back_whatever_raised(ctx):
    # The threads of a worker's LLM reads (memex/at_once.py) each kept a connection of their own: a
    # supersession environment opened one a user judged at once. They now borrow one of a bounded
    # few for each stretch of database work, and a stretch that fails must give it back, or the
    # next would wait for it for ever.
    from concurrent.futures import ThreadPoolExecutor

    from memex.db.connection import borrow_only

    db = Database(lambda: ctx.db.dsn, loaned_connections=1)
    lent: list[int] = []

    def failing_statement() -> None:
        with db.borrowed(), db.transaction() as conn:
            lent.append(conn.info.backend_pid)
            conn.execute("SELECT 1 / 0")

    def left_in_a_transaction() -> None:
        with db.borrowed() as conn:
            lent.append(conn.info.backend_pid)
            conn.execute("BEGIN")
            raise RuntimeError("stopped mid-transaction")

    def next_loan() -> tuple[int, int]:
        with db.borrowed() as conn:
            return conn.info.backend_pid, conn.execute("SELECT 1 AS one").fetchone()["one"]

    with ThreadPoolExecutor(2, initializer=borrow_only) as threads:
        with pytest.raises(psycopg.errors.DivisionByZero):
            threads.submit(failing_statement).result(timeout=10)
        # rolled back and given back: the one loan is free, and it is the same session
        assert threads.submit(next_loan).result(timeout=10) == (lent[0], 1)
        with pytest.raises(RuntimeError, match="mid-transaction"):
            threads.submit(left_in_a_transaction).result(timeout=10)
        # given back closed, not lent again with its transaction open
        pid, one = threads.submit(next_loan).result(timeout=10)
        assert (pid != lent[1], one) == (True, 1)
        # and no thread of the pool opens one of its own, which no bound would count
        with pytest.raises(RuntimeError, match="borrowed"):
            threads.submit(db.connection).result(timeout=10)
    # any other thread (a job run inline: MEMEX_LLM_CONCURRENCY=1) borrows its own connection
    with db.borrowed() as conn:
        assert conn is db.connection()
    db.discard_all()
    db.reset()
