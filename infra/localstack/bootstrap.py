"""Make a LocalStack ready for memex, idempotently: the queues with their DLQs and redrive
policies as template.yaml declares them, the bucket bulk imports are read from, and the database
secret in the RDS JSON shape the functions read (`DATABASE_SECRET_ARN`).

`make localstack` runs it against the LocalStack it starts, with the embedded Postgres in the
secret; infra/localstack/bootstrap.sh runs it for the Docker compose path (`--for-sam`), where
the stack makes its own queues and the secret names the compose Postgres.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass

from botocore.exceptions import ClientError

from infra.local.sqs_server import QueueSpec, ensure_queues
from infra.localstack.server import RUNTIME_SERVICES, LocalStackError, wait_ready

STACK = "memex"
BACKFILL_BUCKET = "memex-backfill"
ARTIFACT_BUCKET = "memex-sam-artifacts"  # samconfig.toml's [localstack] s3_bucket
SECRET_NAME = "memex/db"
# What `samlocal deploy` of template.yaml needs from the compose LocalStack.
SAM_SERVICES = ("cloudformation", "iam", "lambda", "sqs", "s3", "secretsmanager", "sts", "events", "logs",
                "cloudwatch")


@dataclass(frozen=True)
class Bootstrapped:
    queues: dict[str, dict[str, str]]
    buckets: list[str]
    secret_arn: str


def database_secret(database_url: str) -> dict:
    """The RDS secret shape (host, port, username, password, dbname) of a libpq URL. TLS is not
    the secret's to say: the functions take it from MEMEX_DB_SSLMODE."""
    from psycopg.conninfo import conninfo_to_dict

    parts = conninfo_to_dict(database_url)
    return {"engine": "postgres", "host": parts.get("host", "127.0.0.1"), "port": int(parts.get("port") or 5432),
            "username": parts.get("user", "postgres"), "password": parts.get("password", ""),
            "dbname": parts.get("dbname", "postgres")}


def put_secret(client, name: str, value: dict) -> str:
    try:
        return client.create_secret(Name=name, SecretString=json.dumps(value),
                                    Description="memex Postgres (RDS secret shape)")["ARN"]
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ResourceExistsException":
            raise
        return client.put_secret_value(SecretId=name, SecretString=json.dumps(value))["ARN"]


def ensure_bucket(client, name: str) -> None:
    try:
        client.create_bucket(Bucket=name)
    except ClientError as exc:
        if exc.response["Error"]["Code"] not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
            raise


def bootstrap(session, database: dict, *, queues: dict[str, tuple[bool, int]] | None,
              max_receive_count: int, buckets: list[str], secret_name: str = SECRET_NAME) -> Bootstrapped:
    """`queues`: {local name: (FIFO, visibility timeout)}, or None to leave them to the stack.
    `session` is a boto3 (or localstack-client) session pointed at LocalStack."""
    created = {}
    if queues:
        specs = [QueueSpec(name, fifo, timeout) for name, (fifo, timeout) in queues.items()]
        created = ensure_queues(session.client("sqs"), specs, max_receive_count)
    s3 = session.client("s3")
    for bucket in buckets:
        ensure_bucket(s3, bucket)
    arn = put_secret(session.client("secretsmanager"), secret_name, database)
    return Bootstrapped(created, buckets, arn)


def template_queues() -> dict[str, tuple[bool, int]]:
    """Each queue the local runtime consumes, with the template's FIFO flag and visibility timeout."""
    from infra import template
    from infra.local.runtime import QUEUES
    from infra.local.sqs_server import LOGICAL_IDS

    found = {}
    for name, (_, _, fifo) in QUEUES.items():
        attributes, _, _ = template.queue_attributes(LOGICAL_IDS[name])
        found[name] = (fifo, int(attributes["VisibilityTimeout"]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--endpoint", default=os.environ.get("AWS_ENDPOINT_URL", "http://127.0.0.1:4566"))
    parser.add_argument("--database-url", help="the Postgres the secret names (default: DATABASE_URL)",
                        default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--for-sam", action="store_true",
                        help="the compose path: no queues (the stack makes them), the artifact bucket, a "
                             "secret naming the compose Postgres")
    args = parser.parse_args()
    import boto3

    for name, value in (("AWS_ACCESS_KEY_ID", "test"), ("AWS_SECRET_ACCESS_KEY", "test"),
                        ("AWS_DEFAULT_REGION", "us-east-1")):
        os.environ.setdefault(name, value)
    os.environ["AWS_ENDPOINT_URL"] = args.endpoint
    needed = SAM_SERVICES if args.for_sam else RUNTIME_SERVICES
    try:
        wait_ready(args.endpoint, needed, timeout=120)
    except LocalStackError as exc:
        raise SystemExit(f"bootstrap: {exc} (services {', '.join(needed)})") from None
    if args.for_sam:
        # Lambda containers reach the compose Postgres by its service name.
        database = database_secret(args.database_url or "postgresql://memex:memex@postgres:5432/memex")
        done = bootstrap(boto3.Session(), database, queues=None, max_receive_count=0,
                         buckets=[ARTIFACT_BUCKET, BACKFILL_BUCKET])
    else:
        if not args.database_url:
            parser.error("give --database-url or set DATABASE_URL")
        from memex.config import load_settings

        done = bootstrap(boto3.Session(), database_secret(args.database_url), queues=template_queues(),
                         max_receive_count=load_settings().max_receive_count, buckets=[BACKFILL_BUCKET])
    for name, queue in done.queues.items():
        print(f"queue {name}: {queue['url']} (DLQ {queue['dlq_url']})")
    for bucket in done.buckets:
        print(f"bucket s3://{bucket}")
    print(f"secret {SECRET_NAME}: {done.secret_arn}")
    if args.for_sam:
        print(f"\nBuild and deploy from the repository root:\n\n  samlocal build --config-env localstack\n"
              f"  samlocal deploy --config-env localstack --parameter-overrides "
              f"DatabaseSecretArn={done.secret_arn} DeployTarget=localstack LogLevel=DEBUG\n")


if __name__ == "__main__":
    main()
