"""How the service reaches Postgres and its secrets in AWS: session limits on every connection,
verified TLS for the database named by a Secrets Manager secret, API keys read from Secrets Manager.
Secrets Manager is the session's loopback AWS endpoint (moto or LocalStack), as SQS is."""

from __future__ import annotations

import dataclasses
import json
import uuid

import pytest
from psycopg.conninfo import conninfo_to_dict

from memex.config import Settings
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
