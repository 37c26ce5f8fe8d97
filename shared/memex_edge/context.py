"""The Context of this execution environment, built once on first use."""

from __future__ import annotations

from functools import lru_cache

from psycopg.conninfo import make_conninfo

from memex.config import Settings, load_settings
from memex.context import Context
from memex.db.connection import Database
from memex.embeddings import make_embedder
from memex.extraction import make_extractor
from memex.supersession import make_judge
from memex_edge.sqs import SqsPublisher


def database_dsn(settings: Settings) -> str:
    if settings.database_url:
        return settings.database_url
    if settings.database_secret_arn:
        from aws_lambda_powertools.utilities.parameters import get_secret

        secret = get_secret(settings.database_secret_arn, transform="json", max_age=300)
        return make_conninfo(
            host=secret["host"], port=secret.get("port", 5432), user=secret["username"],
            password=secret["password"], dbname=secret.get("dbname", "postgres"),
            sslmode=secret.get("sslmode", "prefer"),
        )
    raise RuntimeError("set DATABASE_URL or DATABASE_SECRET_ARN")


def build_context(settings: Settings) -> Context:
    return Context(
        settings=settings,
        db=Database(lambda: database_dsn(settings)),
        embedder=make_embedder(settings),
        publisher=SqsPublisher(settings),
        extractor=make_extractor(settings),
        judge=make_judge(settings),
    )


@lru_cache(maxsize=1)
def get_context() -> Context:
    return build_context(load_settings())
