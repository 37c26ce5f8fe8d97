"""The slow path of a turn: extraction (embed, episodic memories, candidates) then supersession.

Both steps are idempotent, because SQS delivers at least once: every row they write carries a
dedupe key derived from the turn, so a redelivered or re-run job writes nothing twice, and each
step commits in one transaction, so a crash leaves nothing half-written.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from memex.context import Context
from memex.db import memories as memory_rows
from memex.db import turns as turn_rows
from memex.jobs import ExtractionJob, SupersessionJob
from memex.supersession import Decision, related_keys

EPISODIC_IMPORTANCE = 0.3


def episodic_text(message: dict) -> str:
    """What an episodic memory says: the message, prefixed by its speaker's name when the client
    gave one, so that "what did Caroline say about…" finds Caroline's words."""
    return f"{message['name']}: {message['content']}" if message["name"] else message["content"]


HISTORY_MESSAGES = 10


def indexed_text(content: str, context: str | None) -> str:
    """What is embedded for a memory: its content, after the line it answers when there is one."""
    return f"{context}\n{content}" if context else content


def extract(ctx: Context, job: ExtractionJob) -> SupersessionJob | None:
    """Embed the turn's messages, store one episodic memory each, and return the candidates for
    supersession (None when the turn is gone, already done, or said nothing to remember)."""
    jobs = extract_many(ctx, job.tenant_id, [job.turn_id])
    return jobs[0] if jobs else None


def extract_many(ctx: Context, tenant_id: str, turn_ids: list[str], again: bool = False) -> list[SupersessionJob]:
    """`extract` for many turns at once, embedding all their messages in shared batches, in one
    transaction. `again` re-extracts turns already processed (after a model change)."""
    conn = ctx.db.connection()
    work = []
    contexts: dict[str, str | None] = {}  # message id -> the message said just before it
    for turn_id in sorted(set(turn_ids)):  # a fixed lock order: concurrent chunks cannot deadlock
        turn = turn_rows.get_turn(conn, tenant_id, turn_id)
        if turn is None or (turn["status"] == "processed" and not again):
            continue
        messages = turn_rows.messages_of(conn, tenant_id, turn_id)
        history = turn_rows.session_history(conn, tenant_id, turn, HISTORY_MESSAGES)
        work.append((turn, messages, ctx.extractor.extract(messages, history)))
        for previous, message in zip([history[-1] if history else None] + messages, messages):
            contexts[message["id"]] = episodic_text(previous) if previous else None
    texts = [indexed_text(episodic_text(m), contexts[m["id"]]) for _, messages, _ in work for m in messages]
    vectors = iter(ctx.embedder.embed(texts))
    follow_ups = []
    with ctx.db.transaction() as conn:
        for turn, messages, candidates in work:
            turn_vectors = [next(vectors) for _ in messages]
            if turn_rows.lock_turn(conn, tenant_id, turn["id"]) is None:
                continue  # erased meanwhile
            for message, vector in zip(messages, turn_vectors):
                memory_rows.insert(conn, tenant_id, {
                    "id": str(uuid.uuid4()),
                    "user_id": turn["user_id"],
                    "agent_id": turn["agent_id"],
                    "session_id": turn["session_id"],
                    "memory_type": "episodic",
                    "type": "message",
                    "content": episodic_text(message),
                    "context": contexts[message["id"]],
                    "importance": EPISODIC_IMPORTANCE,
                    "embedding": vector,
                    "valid_from": turn["occurred_at"],
                    "source_turn_id": turn["id"],
                    "source_message_id": message["id"],
                    "dedupe_key": f"message:{message['id']}",
                    "metadata": {"role": message["role"], **({"name": message["name"]} if message["name"] else {})},
                })
            turn_rows.set_status(conn, tenant_id, turn["id"], "processing" if candidates else "processed")
            if candidates:
                follow_ups.append(SupersessionJob(tenant_id, turn["user_id"], turn["id"], candidates))
    return follow_ups


# A value this close in meaning under another key may be the same fact under a new name
# (city vs hometown); the judge sees it and decides.
RELATED_MIN_SIMILARITY = 0.8
RELATED_LIMIT = 8


def resolve(ctx: Context, job: SupersessionJob) -> None:
    """Store each candidate as decided against the user's active memories, then mark the turn
    processed. Runs one user at a time (FIFO group), so decisions never race."""
    vectors = ctx.embedder.embed([c.content for c in job.candidates])
    with ctx.db.transaction() as conn:
        turn = turn_rows.lock_turn(conn, job.tenant_id, job.turn_id)
        if turn is None:
            return
        said_at = turn["occurred_at"]
        for candidate, vector in zip(job.candidates, vectors):
            dedupe_key = f"candidate:{turn['id']}:{candidate.key}:{candidate.value.casefold()}"
            if memory_rows.already_written(conn, job.tenant_id, dedupe_key):
                continue  # decided by an earlier delivery of this job
            related = memory_rows.related_active(
                conn, job.tenant_id, job.user_id, related_keys(candidate.key), vector, RELATED_MIN_SIMILARITY,
                RELATED_LIMIT)
            decision = _in_time_order(ctx.judge.decide(candidate, related), said_at)
            if decision.action == "noop":
                continue
            current = decision.action in ("supersede", "coexist")
            memory_rows.insert(conn, job.tenant_id, {
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
                "active": current,
                "valid_from": said_at,
                "valid_to": None if current else said_at,
                "source_turn_id": turn["id"],
                "source_message_id": candidate.source_message_id,
                "dedupe_key": dedupe_key,
                "metadata": {"decision": decision.action, "reason": decision.reason, "judge": ctx.judge.name,
                             "raw_quote": candidate.raw_quote, "subject": candidate.subject},
            })
            for old in decision.replaces:
                memory_rows.supersede(conn, job.tenant_id, old["id"], said_at)
        turn_rows.set_status(conn, job.tenant_id, job.turn_id, "processed")


def _in_time_order(decision: Decision, said_at: datetime) -> Decision:
    """A fact cannot replace one that was stated after it (a backfill can arrive out of order):
    if everything it would replace is newer, it is history itself."""
    if decision.action != "supersede":
        return decision
    older = [m for m in decision.replaces if datetime.fromisoformat(m["valid_from"]) <= said_at]
    if older:
        return Decision("supersede", decision.reason, older)
    return Decision("keep_old", f"{decision.reason}; but the current value was stated later")


def process_inline(ctx: Context, tenant_id: str, turn_id: str) -> None:
    """The whole pipeline in this process, without the queues (`POST /v1/turns?wait=true`)."""
    follow_up = extract(ctx, ExtractionJob(tenant_id, turn_id))
    if follow_up is not None:
        resolve(ctx, follow_up)


def mark_failed(ctx: Context, tenant_id: str, turn_id: str, error: str) -> None:
    with ctx.db.transaction() as conn:
        turn_rows.set_status(conn, tenant_id, turn_id, "failed", error[:2000])
