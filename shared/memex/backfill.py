"""Bulk jobs over a tenant's data in resumable chunks: import history (JSON Lines, one turn per
line, original timestamps), re-embed memories, re-extract turns after a model change.

Each chunk is one queue message; it does its work idempotently, records its progress once, and
names the next chunk. Lines of an import get idempotency keys from the source and the line
number, so a redelivered chunk stores nothing twice.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import uuid
from datetime import datetime, timezone
from typing import Any, Callable, Iterable

from pydantic import ValidationError

from memex import pipeline
from memex.context import Context
from memex.db import backfills as backfill_rows
from memex.db import tenants as tenant_rows
from memex.db import turns as turn_rows
from memex.errors import NotFound
from memex.jobs import BackfillJob
from memex.models import TurnIn

LINES_PER_CHUNK = 500
MEMORIES_PER_CHUNK = 512
TURNS_PER_CHUNK = 100

Lines = Callable[[], Iterable[str]]


def new_job(kind: str, tenant_id: str, path: str | None = None, s3_uri: str | None = None,
            user_id: str | None = None) -> BackfillJob:
    return BackfillJob(kind, tenant_id, f"bf_{uuid.uuid4().hex[:16]}", path, s3_uri, user_id)


def run_chunk(ctx: Context, job: BackfillJob, lines: Lines | None = None) -> BackfillJob | None:
    """Do one chunk; return the job for the next chunk, or None when the work is done.
    `lines` opens the import's source (the caller knows files and S3; the domain does not)."""
    _ensure_row(ctx, job, lines)
    if job.kind == "import":
        return _import_chunk(ctx, job, lines)
    if job.kind == "reembed":
        return _reembed_chunk(ctx, job)
    return _reextract_chunk(ctx, job)


def status(ctx: Context, tenant_id: str, backfill_id: str) -> dict[str, Any]:
    row = backfill_rows.get(ctx.db.connection(), tenant_id, backfill_id)
    if row is None:
        raise NotFound(f"backfill {backfill_id} not found")
    total = row["total"] or 0
    return {
        "backfill_id": row["id"], "kind": row["kind"], "status": row["status"], "source": row["source"],
        "user_id": row["user_id"], "total": total, "done": row["done"], "failed": row["failed"],
        "remaining": max(0, total - row["done"] - row["failed"]), "error": row["error"],
        "created_at": row["created_at"].isoformat(), "updated_at": row["updated_at"].isoformat(),
    }


def mark_failed(ctx: Context, job: BackfillJob, error: str) -> None:
    with ctx.db.transaction() as conn:
        backfill_rows.fail(conn, job.tenant_id, job.backfill_id, error[:2000])


def _ensure_row(ctx: Context, job: BackfillJob, lines: Lines | None) -> None:
    conn = ctx.db.connection()
    if backfill_rows.get(conn, job.tenant_id, job.backfill_id) is not None:
        return
    if job.kind == "import":
        total = sum(1 for line in lines() if line.strip())
    else:
        total = backfill_rows.count_scope(conn, "memories" if job.kind == "reembed" else "turns",
                                          job.tenant_id, job.user_id)
    with ctx.db.transaction() as conn:
        tenant_rows.ensure_tenant(conn, job.tenant_id)
        backfill_rows.create(conn, job.tenant_id, job.backfill_id, job.kind, job.source, job.user_id, total)


def _import_chunk(ctx: Context, job: BackfillJob, lines: Lines) -> BackfillJob | None:
    start = int(job.offset or 0)
    source_tag = hashlib.sha256((job.source or "").encode()).hexdigest()[:16]
    chunk = list(itertools.islice(enumerate(lines(), start=1), start, start + LINES_PER_CHUNK + 1))
    more = len(chunk) > LINES_PER_CHUNK
    chunk = chunk[:LINES_PER_CHUNK]
    turns, failed = [], 0
    for number, line in chunk:
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            data.setdefault("idempotency_key", f"backfill:{source_tag}:{number}")
            turns.append(TurnIn.model_validate(data))
        except (json.JSONDecodeError, ValidationError, AttributeError, TypeError):
            failed += 1
    turn_ids = []
    with ctx.db.transaction() as conn:
        tenant_rows.ensure_tenant(conn, job.tenant_id)
        for turn in turns:
            turn_ids.append(turn_rows.insert_turn(conn, job.tenant_id, turn, turn.timestamp or datetime.now(timezone.utc))[0])
    for follow_up in pipeline.extract_many(ctx, job.tenant_id, turn_ids):
        ctx.publisher.publish_supersession(follow_up)
    end = start + len(chunk)
    return _advance(ctx, job, str(end), len(turns), failed, more)


def _reembed_chunk(ctx: Context, job: BackfillJob) -> BackfillJob | None:
    rows = backfill_rows.memory_ids_after(ctx.db.connection(), job.tenant_id, job.user_id, job.offset,
                                          MEMORIES_PER_CHUNK + 1)
    more = len(rows) > MEMORIES_PER_CHUNK
    rows = rows[:MEMORIES_PER_CHUNK]
    vectors = ctx.embedder.embed([pipeline.indexed_text(r["content"], r["context"]) for r in rows])
    with ctx.db.transaction() as conn:
        backfill_rows.set_embeddings(conn, job.tenant_id, [(r["id"], v) for r, v in zip(rows, vectors)])
    return _advance(ctx, job, rows[-1]["id"] if rows else job.offset, len(rows), 0, more)


def _reextract_chunk(ctx: Context, job: BackfillJob) -> BackfillJob | None:
    turn_ids = backfill_rows.turn_ids_after(ctx.db.connection(), job.tenant_id, job.user_id, job.offset,
                                            TURNS_PER_CHUNK + 1)
    more = len(turn_ids) > TURNS_PER_CHUNK
    turn_ids = turn_ids[:TURNS_PER_CHUNK]
    for follow_up in pipeline.extract_many(ctx, job.tenant_id, turn_ids, again=True):
        ctx.publisher.publish_supersession(follow_up)
    return _advance(ctx, job, turn_ids[-1] if turn_ids else job.offset, len(turn_ids), 0, more)


def _advance(ctx: Context, job: BackfillJob, position: str, done: int, failed: int, more: bool) -> BackfillJob | None:
    with ctx.db.transaction() as conn:
        backfill_rows.advance(conn, job.tenant_id, job.backfill_id, job.offset, position, done, failed,
                              finished=not more)
    # Sent even when this delivery was a repeat: the first one may have died before sending it.
    return job.next(position) if more else None
