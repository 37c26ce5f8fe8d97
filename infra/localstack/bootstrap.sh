#!/usr/bin/env bash
# Makes a running LocalStack ready for memex; idempotent (infra/localstack/bootstrap.py says what
# it creates). `make localstack` runs it for you. By hand:
#   infra/localstack/bootstrap.sh --database-url URL   queues as template.yaml declares them, the
#                                                       backfill bucket, the database secret
#   infra/localstack/bootstrap.sh --for-sam            the Docker compose path: the artifact bucket
#                                                       and a secret naming the compose Postgres;
#                                                       prints the samlocal deploy command
# LocalStack's endpoint: --endpoint, or AWS_ENDPOINT_URL, or http://127.0.0.1:4566.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
cd "$ROOT"
exec "$PYTHON" -m infra.localstack.bootstrap "$@"
