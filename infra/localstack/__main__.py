"""`python -m infra.localstack` (`make localstack`): memex served against LocalStack run in-process.

LocalStack's own runtime starts on loopback from its pinned Python 3.13 virtualenv; the bootstrap
makes the queues (as template.yaml declares them), the backfill bucket and the database secret;
then the local runtime serves the API, its pollers consuming the LocalStack queues through
localstack-client, and the functions reaching the embedded Postgres through the secret, as in
Lambda. Ctrl-C stops memex, then Postgres and LocalStack.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import boto3

from infra.local.__main__ import hold_home, listen, parse_args, serve, share_metrics_between_processes
from infra.local.runtime import QUEUES, LocalRuntime
from infra.localstack import bootstrap
from infra.localstack.server import LocalStack, LocalStackError


def main() -> None:
    args = parse_args("Run memex on LocalStack (no Docker): API, workers, LocalStack queues, embedded Postgres.")
    home = args.home.resolve()
    with hold_home(home):
        run(args, home)


def run(args: argparse.Namespace, home: Path) -> None:
    """LocalStack, then memex on it, until Ctrl-C; then both stopped."""
    share_metrics_between_processes(home)
    port = int(os.environ.get("MEMEX_LOCALSTACK_PORT", "4566"))
    for name in ("AWS_PROFILE", "DATABASE_URL", "SQS_ENDPOINT_URL", "EXTRACTION_QUEUE_URL",
                 "SUPERSESSION_QUEUE_URL", "BACKFILL_QUEUE_URL"):
        os.environ.pop(name, None)
    ports = listen(args)
    localstack = LocalStack(port, home / "localstack")
    print(f"memex: starting LocalStack on {localstack.endpoint} (log: {localstack.log_path})", flush=True)
    try:
        localstack.start()
    except LocalStackError as exc:
        raise SystemExit(f"memex: {exc}") from None
    try:
        # LocalStack takes any credentials; boto3 and localstack-client read the endpoint here.
        os.environ.update(AWS_ACCESS_KEY_ID="test", AWS_SECRET_ACCESS_KEY="test", AWS_DEFAULT_REGION="us-east-1",
                          AWS_ENDPOINT_URL=localstack.endpoint, MEMEX_LOCALSTACK="true")
        runtime = LocalRuntime(home)
        try:
            start(runtime, localstack)
        except BaseException:
            runtime.stop()
            raise
        serve(runtime, args, ports)
    finally:
        localstack.stop()
        print("memex: LocalStack stopped", flush=True)


def start(runtime: LocalRuntime, localstack: LocalStack) -> None:
    """Postgres, then LocalStack's resources made for it, then the runtime on both."""
    runtime.start_database()
    from memex.config import load_settings

    done = bootstrap.bootstrap(
        boto3.Session(), bootstrap.database_secret(os.environ.pop("DATABASE_URL")),
        queues=bootstrap.template_queues(), max_receive_count=load_settings().max_receive_count,
        buckets=[bootstrap.BACKFILL_BUCKET])
    os.environ.update({env: done.queues[name]["url"] for name, (env, _, _) in QUEUES.items()})
    # The functions read the database from the secret, as in Lambda; the embedded Postgres
    # listens on a local socket without TLS.
    os.environ.update(DATABASE_SECRET_ARN=done.secret_arn, MEMEX_DB_SSLMODE="disable")
    runtime.notes += [f"LocalStack: {localstack.endpoint} (SQS, S3, Secrets Manager)",
                      *(f"queue {name}: {q['url']} (DLQ {q['dlq_url']})" for name, q in done.queues.items()),
                      f"bulk imports: s3://{bootstrap.BACKFILL_BUCKET}",
                      f"database secret: {done.secret_arn}"]
    # LocalStack starts empty: whatever was in flight when it last stopped is sent again.
    runtime.start(queues_are_new=True)


if __name__ == "__main__":
    main()
