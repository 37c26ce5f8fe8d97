#!/usr/bin/env bash
# Prepares LocalStack (docker-compose.localstack.yml) for `samlocal deploy --config-env localstack`:
#   - waits for LocalStack,
#   - creates (or updates) the database secret, pointing at the compose Postgres as the
#     Lambda containers see it (host "postgres" on the compose network),
#   - creates the artifact bucket named in samconfig.toml,
#   - prints the deploy command with the secret's ARN.
# Idempotent: run it again after `docker compose ... down -v`, or any time.
#
# Needs a Python with boto3 (the repository's .venv has it); no AWS CLI required.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x "$ROOT/.venv/bin/python" ]]; then PYTHON="$ROOT/.venv/bin/python"; else PYTHON=python3; fi
fi

export LOCALSTACK_ENDPOINT="${LOCALSTACK_ENDPOINT:-http://localhost:4566}"
export AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-us-east-1}"
export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-test}"
export AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-test}"
export MEMEX_DB_SECRET_NAME="${MEMEX_DB_SECRET_NAME:-memex/db}"
export MEMEX_DB_HOST="${MEMEX_DB_HOST:-postgres}"
export MEMEX_ARTIFACT_BUCKET="${MEMEX_ARTIFACT_BUCKET:-memex-sam-artifacts}"

SECRET_ARN="$("$PYTHON" - <<'PY'
import json
import os
import sys
import time
import urllib.request

import boto3
from botocore.exceptions import ClientError

endpoint = os.environ["LOCALSTACK_ENDPOINT"]
needed = {"lambda", "sqs", "secretsmanager", "cloudformation", "s3", "iam", "sts"}

deadline = time.monotonic() + 120
while True:
    try:
        with urllib.request.urlopen(f"{endpoint}/_localstack/health", timeout=5) as response:
            services = json.load(response).get("services", {})
        if all(services.get(name) in ("available", "running") for name in needed):
            break
    except OSError:
        pass
    if time.monotonic() > deadline:
        sys.exit(f"LocalStack at {endpoint} is not ready; is `docker compose -f docker-compose.localstack.yml up -d` running?")
    time.sleep(2)

secret = json.dumps({
    "engine": "postgres",
    "host": os.environ["MEMEX_DB_HOST"],
    "port": 5432,
    "username": "memex",
    "password": "memex",
    "dbname": "memex",
    "sslmode": "disable",
})
name = os.environ["MEMEX_DB_SECRET_NAME"]
secrets = boto3.client("secretsmanager", endpoint_url=endpoint)
try:
    arn = secrets.create_secret(Name=name, SecretString=secret, Description="memex Postgres (compose)")["ARN"]
except ClientError as exc:
    if exc.response["Error"]["Code"] != "ResourceExistsException":
        raise
    arn = secrets.put_secret_value(SecretId=name, SecretString=secret)["ARN"]
print(f"secret {name}: {arn}", file=sys.stderr)

bucket = os.environ["MEMEX_ARTIFACT_BUCKET"]
s3 = boto3.client("s3", endpoint_url=endpoint)
try:
    s3.create_bucket(Bucket=bucket)
    print(f"bucket {bucket}: created", file=sys.stderr)
except ClientError as exc:
    if exc.response["Error"]["Code"] not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
        raise
    print(f"bucket {bucket}: exists", file=sys.stderr)
print(arn)
PY
)"

cat <<EOF

LocalStack is ready. Build and deploy from the repository root ($ROOT):

  samlocal build --config-env localstack
  samlocal deploy --config-env localstack --parameter-overrides DatabaseSecretArn=$SECRET_ARN DeployTarget=localstack LogLevel=DEBUG

EOF
