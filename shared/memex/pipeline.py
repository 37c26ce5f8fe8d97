"""The slow path of a turn: extraction (episodic memories, then candidates) and supersession.

SQS delivers at least once, so every step is idempotent: rows carry dedupe keys derived from
the turn, each write commits in one transaction, and a step that already ran is skipped. The
steps are ordered so that a failing LLM loses nothing: a turn's messages are stored as episodic
memories (searchable at once) before the LLM is asked for candidates; the candidates are kept on
the turn, so a lost supersession message is sent again without asking the LLM again.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import asdict
from typing import Any

from memex import llm, timeline
from memex.context import Context
from memex.db import locks
from memex.db import memories as memory_rows
from memex.db import turns as turn_rows
from memex.jobs import Candidate, ExtractionJob, SupersessionJob
from memex.supersession import Decision, RulesJudge, related_keys

log = logging.getLogger(__name__)

EPISODIC_IMPORTANCE = 0.3
HISTORY_MESSAGES = 10
# What one turn can add to the user's semantic memory: a pasted list of a thousand "I love X"
# lines would otherwise cost a thousand supersession decisions. Its words stay searchable in the
# episodic memories whatever the cap keeps.
MAX_CANDIDATES_PER_TURN = 100


def episodic_text(message: dict) -> str:
    """What an episodic memory says: the message, prefixed by its speaker's name when the client
    gave one, so that "what did Caroline say about…" finds Caroline's words."""
    return f"{message['name']}: {message['content']}" if message["name"] else message["content"]


def indexed_text(content: str, context: str | None) -> str:
    """What is embedded for a memory: its content, after the line it answers when there is one."""
    return f"{context}\n{content}" if context else content


def extract(ctx: Context, job: ExtractionJob) -> SupersessionJob | None:
    """Store the turn's messages as episodic memories and its candidates on the turn; return the
    supersession job (None when the turn is gone, done, or said nothing to remember)."""
    jobs = extract_many(ctx, job.tenant_id, [job.turn_id])
    return jobs[0] if jobs else None


def extract_many(ctx: Context, tenant_id: str, turn_ids: list[str], again: bool = False) -> list[SupersessionJob]:
    """`extract` for many turns at once, embedding all their messages in shared batches. `again`
    re-extracts turns already processed (after a model change). If the extractor fails for a
    turn, the others are still stored, then the failure is raised so the job is retried."""
    conn = ctx.db.connection()
    follow_ups, work = [], []
    for turn_id in sorted(set(turn_ids)):
        turn = turn_rows.get_turn(conn, tenant_id, turn_id)
        if turn is None or (turn["status"] == "processed" and not again):
            continue
        if turn["candidates"] is not None and not again:
            follow_ups.append(SupersessionJob(tenant_id, turn["user_id"], turn_id))  # extracted already
            continue
        messages = turn_rows.messages_of(conn, tenant_id, turn_id)
        history = turn_rows.session_history(conn, tenant_id, turn, HISTORY_MESSAGES)
        work.append((turn, messages, history))
    if not work:
        return follow_ups
    _store_episodic(ctx, tenant_id, work)
    extracted, failure = [], None
    with llm.time_budget(ctx.settings.llm_budget_seconds):
        for turn, messages, history in work:
            try:
                extracted.append((turn, ctx.extractor.extract(messages, history)[:MAX_CANDIDATES_PER_TURN]))
            except Exception as exc:  # noqa: BLE001 - the other turns are stored; this one is retried
                failure = failure or exc
    with ctx.db.transaction() as conn:
        for turn, candidates in extracted:
            if turn_rows.lock_turn(conn, tenant_id, turn["id"]) is None:
                continue  # erased meanwhile
            turn_rows.store_candidates(conn, tenant_id, turn["id"], [asdict(c) for c in candidates])
            if candidates:
                follow_ups.append(SupersessionJob(tenant_id, turn["user_id"], turn["id"]))
    if failure is not None:
        raise failure
    return follow_ups


def _store_episodic(ctx: Context, tenant_id: str, work: list[tuple[dict, list[dict], list[dict]]]) -> None:
    """One episodic memory per message, indexed with the line it answers; no LLM involved."""
    contexts: dict[str, str | None] = {}  # message id -> the message said just before it
    for _, messages, history in work:
        for previous, message in zip([history[-1] if history else None] + messages, messages):
            contexts[message["id"]] = episodic_text(previous) if previous else None
    conn = ctx.db.connection()
    pending = [(turn, m) for turn, messages, _ in work for m in messages
               if not memory_rows.already_written(conn, tenant_id, f"message:{m['id']}")]
    if not pending:
        return
    vectors = ctx.embedder.embed([indexed_text(episodic_text(m), contexts[m["id"]]) for _, m in pending])
    with ctx.db.transaction() as conn:
        for user_id in sorted({turn["user_id"] for turn, _ in pending}):  # in one order: no deadlock
            locks.lock_user(conn, tenant_id, user_id)
        for (turn, message), vector in zip(pending, vectors):
            if turn_rows.lock_turn(conn, tenant_id, turn["id"]) is None:
                continue  # erased meanwhile
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


# A value this close in meaning under another key may be the same fact under a new name
# (city vs hometown); the judge sees it and decides.
RELATED_MIN_SIMILARITY = 0.8
RELATED_LIMIT = 8
# Decisions taken outside the lock are re-checked under it; when what they were based on keeps
# changing (many writers for one user), the last try decides with the rules, under the lock.
DECIDE_ATTEMPTS = 3


def resolve(ctx: Context, job: SupersessionJob) -> None:
    """Decide each candidate stored on the turn against the user's current memories, write it,
    then mark the turn processed. The judge (an LLM, maybe) is asked with no lock held; the
    write takes the user's lock and re-checks that what was decided on has not changed."""
    turn = turn_rows.get_turn(ctx.db.connection(), job.tenant_id, job.turn_id)
    if turn is None or turn["candidates"] is None:
        return  # erased, or decided by an earlier delivery
    candidates = [Candidate(**c) for c in turn["candidates"]]
    vectors = ctx.embedder.embed([c.content for c in candidates]) if candidates else []
    with llm.time_budget(ctx.settings.llm_budget_seconds):
        for candidate, vector in zip(candidates, vectors):
            _decide_and_write(ctx, turn, candidate, vector)
    with ctx.db.transaction() as conn:
        turn_rows.finish(conn, job.tenant_id, job.turn_id)


def _decide_and_write(ctx: Context, turn: dict[str, Any], candidate: Candidate, vector) -> None:
    tenant_id, user_id = turn["tenant_id"], turn["user_id"]
    dedupe_key = f"candidate:{turn['id']}:{candidate.key}:{candidate.value.casefold()}"
    keys = related_keys(candidate.key)
    for attempt in range(1, DECIDE_ATTEMPTS + 1):
        conn = ctx.db.connection()
        if memory_rows.already_written(conn, tenant_id, dedupe_key):
            return  # decided by an earlier delivery
        seen = memory_rows.related_active(conn, tenant_id, user_id, keys, vector, RELATED_MIN_SIMILARITY, RELATED_LIMIT)
        decision = ctx.judge.decide(candidate, seen)
        with ctx.db.transaction() as conn:
            locks.lock_user(conn, tenant_id, user_id)
            if turn_rows.lock_turn(conn, tenant_id, turn["id"]) is None:
                return  # erased meanwhile
            if turn_rows.erased_key(conn, tenant_id, turn["id"], candidate.key):
                return  # the user erased what this turn said about it
            related = memory_rows.related_active(conn, tenant_id, user_id, keys, vector, RELATED_MIN_SIMILARITY,
                                                 RELATED_LIMIT)
            if _state(related) != _state(seen):
                if attempt < DECIDE_ATTEMPTS:
                    continue  # another write for this user got in first: decide again, unlocked
                decision = RulesJudge().decide(candidate, related)
                decision = Decision(decision.action, f"rules under the lock after {attempt} changed tries: "
                                    f"{decision.reason}", decision.replaces)
            _write(conn, ctx, turn, candidate, vector, dedupe_key, decision, related)
            return


def _state(related: list[dict[str, Any]]) -> list[tuple]:
    return [(m["id"], m["active"], m["valid_from"]) for m in related]


def _write(conn, ctx: Context, turn: dict[str, Any], candidate: Candidate, vector, dedupe_key: str,
           decision: Decision, related: list[dict[str, Any]]) -> None:
    if decision.action == "noop":
        return
    said_at = turn["occurred_at"]
    same_key = [m for m in related if m["key"] == candidate.key]
    later = [m for m in same_key if timeline.said_after(m, said_at)]
    if decision.action == "keep_old" and not candidate.historical and later:
        # Not about the past, only stated before the current value: it goes in the history at
        # its own time, with a real interval, rather than as a statement about the past.
        decision = Decision("supersede", decision.reason, later)
    placement = timeline.plan(conn, turn["tenant_id"], decision, candidate.value, said_at, same_key)
    if placement.already_known:
        return
    memory_id = str(uuid.uuid4())
    memory_rows.insert(conn, turn["tenant_id"], {
        "id": memory_id,
        "user_id": turn["user_id"],
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
        "active": placement.current,
        "valid_from": said_at if decision.action != "keep_old" else placement.valid_to,
        "valid_to": placement.valid_to,
        "source_turn_id": turn["id"],
        "source_message_id": candidate.source_message_id,
        "dedupe_key": dedupe_key,
        "metadata": {"decision": decision.action, "reason": decision.reason, "judge": ctx.judge.name,
                     "raw_quote": candidate.raw_quote, "subject": candidate.subject,
                     **({"historical": True} if decision.action == "keep_old" else {})},
    })
    timeline.apply(conn, turn["tenant_id"], memory_id, placement)


def process_inline(ctx: Context, tenant_id: str, turn_id: str) -> None:
    """The whole pipeline in this process, without the queues (`POST /v1/turns?wait=true`)."""
    follow_up = extract(ctx, ExtractionJob(tenant_id, turn_id))
    if follow_up is not None:
        resolve(ctx, follow_up)


def mark_failed(ctx: Context, tenant_id: str, turn_id: str, error: str) -> None:
    with ctx.db.transaction() as conn:
        turn_rows.set_status(conn, tenant_id, turn_id, "failed", error[:2000])
