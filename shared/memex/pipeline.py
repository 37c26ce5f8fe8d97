"""The slow path of a turn: extraction (embed, episodic memories, candidates) then supersession.

Both steps are idempotent, because SQS delivers at least once: every row they write carries a
dedupe key derived from the turn, so a redelivered or re-run job writes nothing twice, and each
step commits in one transaction, so a crash leaves nothing half-written.
"""

from __future__ import annotations

import uuid

from memex import supersession
from memex.context import Context
from memex.db import memories as memory_rows
from memex.db import turns as turn_rows
from memex.jobs import ExtractionJob, SupersessionJob

EPISODIC_IMPORTANCE = 0.3


def episodic_text(message: dict) -> str:
    """What an episodic memory says: the message, prefixed by its speaker's name when the client
    gave one, so that "what did Caroline say about…" finds Caroline's words."""
    return f"{message['name']}: {message['content']}" if message["name"] else message["content"]


def extract(ctx: Context, job: ExtractionJob) -> SupersessionJob | None:
    """Embed the turn's messages, store one episodic memory each, and return the candidates for
    supersession (None when the turn is gone or already done)."""
    conn = ctx.db.connection()
    turn = turn_rows.get_turn(conn, job.tenant_id, job.turn_id)
    if turn is None or turn["status"] == "processed":
        return None
    messages = turn_rows.messages_of(conn, job.tenant_id, job.turn_id)
    texts = [episodic_text(m) for m in messages]
    vectors = ctx.embedder.embed(texts)
    candidates = ctx.extractor.extract(messages, history=[])
    with ctx.db.transaction() as conn:
        turn = turn_rows.lock_turn(conn, job.tenant_id, job.turn_id)
        if turn is None:
            return None
        for message, text, vector in zip(messages, texts, vectors):
            memory_rows.insert(conn, job.tenant_id, {
                "id": str(uuid.uuid4()),
                "user_id": turn["user_id"],
                "agent_id": turn["agent_id"],
                "session_id": turn["session_id"],
                "memory_type": "episodic",
                "type": "message",
                "content": text,
                "importance": EPISODIC_IMPORTANCE,
                "embedding": vector,
                "valid_from": turn["occurred_at"],
                "source_turn_id": turn["id"],
                "source_message_id": message["id"],
                "dedupe_key": f"message:{message['id']}",
                "metadata": {"role": message["role"], **({"name": message["name"]} if message["name"] else {})},
            })
        turn_rows.set_status(conn, job.tenant_id, job.turn_id, "processing" if candidates else "processed")
    if not candidates:
        return None
    return SupersessionJob(job.tenant_id, turn["user_id"], job.turn_id, candidates)


def resolve(ctx: Context, job: SupersessionJob) -> None:
    """Store each candidate as decided against the user's active memories, then mark the turn
    processed. Runs one user at a time (FIFO group), so decisions never race."""
    vectors = ctx.embedder.embed([c.content for c in job.candidates])
    with ctx.db.transaction() as conn:
        turn = turn_rows.lock_turn(conn, job.tenant_id, job.turn_id)
        if turn is None:
            return
        for candidate, vector in zip(job.candidates, vectors):
            existing = memory_rows.active_with_key(conn, job.tenant_id, job.user_id, candidate.key)
            decision = supersession.decide(candidate, existing)
            if decision.action == "noop":
                continue
            new_id = memory_rows.insert(conn, job.tenant_id, {
                "id": str(uuid.uuid4()),
                "user_id": job.user_id,
                "agent_id": turn["agent_id"],
                "session_id": turn["session_id"],
                "memory_type": "semantic",
                "type": candidate.type,
                "key": candidate.key,
                "value": candidate.value,
                "content": candidate.content,
                "importance": candidate.importance,
                "confidence": candidate.confidence,
                "embedding": vector,
                "supersedes": decision.replaces[0]["id"] if decision.replaces else None,
                "valid_from": turn["occurred_at"],
                "source_turn_id": turn["id"],
                "source_message_id": candidate.source_message_id,
                "dedupe_key": f"candidate:{turn['id']}:{candidate.key}:{candidate.value.casefold()}",
                "metadata": {"decision": decision.action, "reason": decision.reason, "raw_quote": candidate.raw_quote},
            })
            if new_id is None:
                continue  # written by an earlier delivery of this job
            for old in decision.replaces:
                memory_rows.supersede(conn, job.tenant_id, old["id"], turn["occurred_at"])
        turn_rows.set_status(conn, job.tenant_id, job.turn_id, "processed")


def process_inline(ctx: Context, tenant_id: str, turn_id: str) -> None:
    """The whole pipeline in this process, without the queues (`POST /v1/turns?wait=true`)."""
    follow_up = extract(ctx, ExtractionJob(tenant_id, turn_id))
    if follow_up is not None:
        resolve(ctx, follow_up)


def mark_failed(ctx: Context, tenant_id: str, turn_id: str, error: str) -> None:
    with ctx.db.transaction() as conn:
        turn_rows.set_status(conn, tenant_id, turn_id, "failed", error[:2000])
