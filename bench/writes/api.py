"""`POST /v1/turns` through the ASGI app (authentication, validation, the insert transaction,
the send to the extraction queue) against its physical floor in the same run: the same insert
transaction and the same SQS send, called directly. Request and floor alternate, so that both
see the same machine."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from bench.locomo import percentile
from bench.writes.corpus import synthetic_lines

TENANT = "bench-api"


def run(requests: int) -> dict[str, Any]:
    """Both timed on the started local runtime of this process."""
    from fastapi.testclient import TestClient

    from infra.local.runtime import HTTP_FUNCTIONS, function_module
    from memex.db import tenants as tenant_rows
    from memex.db import turns as turn_rows
    from memex.jobs import ExtractionJob
    from memex.keys import create_key
    from memex.models import TurnIn
    from memex_edge.context import get_context
    from memex_edge.http.app import create_app

    ctx = get_context()
    headers = {"Authorization": f"Bearer {create_key(ctx, TENANT)}"}
    app = create_app(*(function_module(name).router for name in HTTP_FUNCTIONS))
    api_lines = list(synthetic_lines(requests + 20, "bench-api-http", seed=1))
    floor_lines = list(synthetic_lines(requests + 20, "bench-api-floor", seed=1))
    api, floor = [], []
    with TestClient(app) as client:
        for i, (line, direct) in enumerate(zip(api_lines, floor_lines)):
            started = time.perf_counter()
            response = client.post("/v1/turns", json=line, headers=headers)
            elapsed = time.perf_counter() - started
            if response.status_code != 202:
                raise RuntimeError(f"POST /v1/turns: {response.status_code} {response.text[:300]}")
            started = time.perf_counter()
            with ctx.db.transaction() as conn:
                tenant_rows.ensure_tenant(conn, TENANT)
                turn_id, _ = turn_rows.insert_turn(conn, TENANT, TurnIn.model_validate(direct),
                                                   datetime.now(timezone.utc))
            ctx.publisher.publish_extraction(ExtractionJob(TENANT, turn_id))
            floor_elapsed = time.perf_counter() - started
            if i >= 20:  # the first requests warm the app, the connection and the SQS client
                api.append(elapsed)
                floor.append(floor_elapsed)
    summary = {}
    for name, values in (("api", api), ("floor", floor)):
        summary[name] = {"p50_ms": 1000 * percentile(values, 50), "p95_ms": 1000 * percentile(values, 95)}
    summary["ratio_p50"] = summary["api"]["p50_ms"] / summary["floor"]["p50_ms"]
    summary["ratio_p95"] = summary["api"]["p95_ms"] / summary["floor"]["p95_ms"]
    summary["requests"] = len(api)
    return summary
