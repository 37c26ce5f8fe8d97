"""The Context of this execution environment, built once on first use."""

from __future__ import annotations

import dataclasses
import json
import logging
from functools import lru_cache

from psycopg.conninfo import make_conninfo

from memex.config import Settings, load_settings
from memex.context import Context
from memex.db.connection import Database
from memex.embeddings import measured_embedder
from memex.errors import public_description
from memex.extraction import make_extractor
from memex.metrics import NoMetrics
from memex.ports import Metrics
from memex.supersession import make_judge
from memex_edge.sqs import SqsPublisher

SECRET_MAX_AGE_SECONDS = 300

# A child of the "memex" logger, whose lines the functions' Powertools Logger formats
# (memex_edge.observability).
log = logging.getLogger("memex.edge")


def _secret(arn: str, transform: str | None = None):
    from aws_lambda_powertools.utilities.parameters import get_secret

    return get_secret(arn, transform=transform, max_age=SECRET_MAX_AGE_SECONDS)


def database_dsn(settings: Settings) -> str:
    if settings.database_url:
        return settings.database_url
    if settings.database_secret_arn:
        secret = _database_secret(settings.database_secret_arn)
        # TLS comes from the settings, never from the secret: whoever can edit a secret must not
        # be able to turn certificate checks off.
        tls = {"sslmode": settings.db_sslmode}
        if settings.db_sslmode in ("verify-ca", "verify-full"):
            tls["sslrootcert"] = settings.db_sslrootcert
        return make_conninfo(
            host=secret["host"], port=secret.get("port", 5432), user=secret["username"],
            password=secret["password"], dbname=secret.get("dbname", "postgres"), **tls,
        )
    raise RuntimeError("set DATABASE_URL or DATABASE_SECRET_ARN")


# What the secret must hold: RDS's own JSON for a database's credentials (port and dbname may be left out).
DATABASE_SECRET_FIELDS = ("host", "username", "password")


def _database_secret(arn: str) -> dict:
    """The database secret's fields, or an error that says what it lacks: the first place an operator
    reads it is the deploy's Migrations event, then every request's log."""
    from aws_lambda_powertools.utilities.parameters.exceptions import TransformParameterError

    try:
        secret = _secret(arn, transform="json")
    except TransformParameterError:
        secret = None
    shape = f"it holds {', '.join(DATABASE_SECRET_FIELDS)}, port and dbname, as RDS writes them"
    if not isinstance(secret, dict):
        raise ValueError(f"the database secret (DATABASE_SECRET_ARN) is not a JSON object: {shape}")
    # An empty password is one: a server that trusts its clients has none (the LocalStack
    # bootstrap's embedded Postgres); an absent one is a secret of another shape.
    missing = [name for name in DATABASE_SECRET_FIELDS
               if not (isinstance(secret.get(name), str) if name == "password" else secret.get(name))]
    if missing:
        raise ValueError(f"the database secret (DATABASE_SECRET_ARN) has no {', '.join(missing)}: {shape}")
    return secret


def _api_key(arn: str) -> str:
    """A key stored as the secret's plain string, or as the `api_key` field of a JSON secret."""
    value = _secret(arn).strip()
    if value.startswith("{"):
        return str(json.loads(value)["api_key"])
    return value


def with_secret_keys(settings: Settings) -> Settings:
    """The settings with each API key whose secret ARN is set read from Secrets Manager, so the
    domain only ever sees plain strings."""
    resolved = {key: _api_key(getattr(settings, f"{key}_secret_arn"))
                for key in ("llm_api_key", "embeddings_api_key", "rerank_api_key")
                if getattr(settings, f"{key}_secret_arn")}
    return dataclasses.replace(settings, **resolved) if resolved else settings


def make_metrics(settings: Settings) -> Metrics:
    """The metrics adapter MEMEX_METRICS names."""
    if settings.metrics == "emf":
        from memex_edge.emf import EmfMetrics
        from memex_edge.observability import metrics

        return EmfMetrics(metrics)
    if settings.metrics == "prometheus":
        from memex_edge.prometheus import PrometheusMetrics

        return PrometheusMetrics()
    if settings.metrics == "off":
        return NoMetrics()
    raise ValueError(f"MEMEX_METRICS must be emf, prometheus or off, not {settings.metrics!r}")


def build_context(settings: Settings) -> Context:
    settings = with_secret_keys(settings)
    metrics = make_metrics(settings)
    return Context(
        settings=settings,
        db=Database(lambda: database_dsn(settings), statement_timeout_ms=settings.db_statement_timeout_ms,
                    prepared_statements=settings.db_prepared_statements,
                    spare_connections=settings.db_spare_connections, loaned_connections=settings.llm_db_connections,
                    idle_in_transaction_timeout_ms=settings.db_idle_in_transaction_timeout_ms),
        embedder=measured_embedder(settings, metrics),
        publisher=SqsPublisher(settings),
        extractor=make_extractor(settings, metrics),
        judge=make_judge(settings, metrics),
        metrics=metrics,
    )


@lru_cache(maxsize=1)
def get_context() -> Context:
    return build_context(load_settings())


def load_embedder_at_init() -> None:
    """Called at import by the functions that embed on nearly every invocation: with
    MEMEX_EMBEDDER_AT_INIT, the Context is built and its embedder's model loaded in the Lambda's
    init phase, so the first request does not wait for them. Without it, nothing is built here.
    A failure is left to the first request, which meets it again and answers it in its own shape
    (an HTTP function's error body, a worker's failed records) instead of a failed init."""
    try:
        if load_settings().embedder_at_init:
            get_context().embedder.load()
    except Exception as exc:  # noqa: BLE001 - see above
        log.warning("loading the embedder at init failed (%s); the first request loads it",
                    public_description(exc))
