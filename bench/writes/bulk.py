"""Bulk import: what `memex backfill FILE` does (the job on the backfill queue, the local
runtime's workers drained in this process), timed per block of turns from the turns' own
completion times."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

USER = "bench-import"
TENANT = "bench"


def run(runtime, path: Path, block: int) -> dict[str, Any]:
    """Import `path` as `memex backfill` does, on the started local runtime, and report."""
    from memex import backfill
    from memex.supersession import holds_several
    from memex_edge.context import get_context

    ctx = get_context()
    conn = ctx.db.connection()
    started_db = conn.execute("SELECT clock_timestamp() AS t").fetchone()["t"]
    started = time.perf_counter()
    job = backfill.new_job("import", TENANT, path=str(path.resolve()))
    ctx.publisher.publish_backfill(job)
    runtime.drain(timeout=24 * 3600)
    elapsed = time.perf_counter() - started
    status = backfill.status(ctx, TENANT, job.backfill_id)
    # A turn is done when supersession decided it, or when extraction found nothing to decide.
    rows = conn.execute(
        """SELECT coalesce(resolved_at, extracted_at) AS done_at, status FROM turns
           WHERE tenant_id = %s AND user_id = %s ORDER BY occurred_at, id""", (TENANT, USER)).fetchall()
    blocks, previous = [], started_db
    for start in range(0, len(rows), block):
        finished = max(r["done_at"] for r in rows[start:start + block])
        blocks.append(len(rows[start:start + block]) / max((finished - previous).total_seconds(), 1e-6))
        previous = max(previous, finished)
    memories = conn.execute(
        """SELECT count(*) FILTER (WHERE memory_type = 'episodic') AS episodic,
                  count(*) FILTER (WHERE memory_type = 'semantic') AS semantic,
                  count(*) FILTER (WHERE memory_type = 'semantic' AND active) AS active
           FROM memories WHERE tenant_id = %s AND user_id = %s""", (TENANT, USER)).fetchone()
    doubled = sum(not holds_several(row["key"]) for row in conn.execute(
        """SELECT key FROM memories WHERE tenant_id = %s AND user_id = %s AND memory_type = 'semantic' AND active
           GROUP BY key HAVING count(*) > 1""", (TENANT, USER)))
    return {"status": status, "seconds": elapsed, "turns_per_s": len(rows) / elapsed, "blocks": blocks,
            "processed": sum(r["status"] == "processed" for r in rows), "doubled_keys": doubled, **memories}
