"""Turns through the workers, end to end and offline: queued with `POST /v1/turns`'s own code,
then extracted and decided by the extraction and supersession workers' Lambda handlers,
driven by pollers as the SQS event source mapping drives them. Run twice on the same lines
(for two users): records received ten at a time, as the mapping does by default, whose
embeddings are then computed together, and one at a time."""

from __future__ import annotations

import threading
import time
from typing import Any

from bench.writes.corpus import synthetic_lines

TENANT = "bench-workers"


def run(runtime, turns: int) -> dict[str, Any]:
    from infra.local.poller import QueuePoller, drain
    from infra.local.runtime import QUEUES, function_module
    from memex.ingest import ingest_turn
    from memex.models import TurnIn
    from memex_edge.context import get_context

    ctx = get_context()
    results = {}
    for batch_size in (10, 1):
        user = f"bench-workers-batch{batch_size}"
        stop = threading.Event()
        pollers = [QueuePoller(runtime.sqs_client(), runtime.queues[name]["url"], runtime.queues[name]["arn"],
                               function_module(worker).handler, worker, stop, batch_size=batch_size)
                   for name, (_, worker, _) in QUEUES.items() if name != "memex-backfill"]
        for line in synthetic_lines(turns, user, seed=3):
            ingest_turn(ctx, TENANT, TurnIn.model_validate(line), wait=False)
        started = time.perf_counter()
        drain(pollers, timeout=3600)
        seconds = time.perf_counter() - started
        results[batch_size] = {"seconds": seconds, "turns_per_s": turns / seconds, "memories": _memories(ctx, user)}
    return {
        "turns": turns,
        "batched": {k: v for k, v in results[10].items() if k != "memories"},
        "one_by_one": {k: v for k, v in results[1].items() if k != "memories"},
        "speedup": results[10]["turns_per_s"] / results[1]["turns_per_s"],
        "same_memories": results[10]["memories"] == results[1]["memories"],
    }


def _memories(ctx, user: str) -> list[tuple]:
    """What the user ends up knowing, comparable across users: every memory's content, type,
    key, value, state and validity."""
    rows = ctx.db.connection().execute(
        """SELECT memory_type, key, value, content, active, valid_from, valid_to FROM memories
           WHERE tenant_id = %s AND user_id = %s""", (TENANT, user)).fetchall()
    return sorted(tuple(str(v) for v in r.values()) for r in rows)
