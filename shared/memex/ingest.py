"""The fast write path: store a turn and its messages in one transaction, then hand it on."""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from typing import Any

from memex import pipeline
from memex.context import Context
from memex.db import erasing
from memex.db import memories as memory_rows
from memex.db import tenants as tenant_rows
from memex.db import turns as turn_rows
from memex.errors import NotFound, public_description
from memex.jobs import ExtractionJob, SupersessionJob
from memex.llm import LLMError
from memex.metrics import TURN_REPUBLISHES_FAILED, TURNS_INGESTED, TURNS_REPUBLISHED
from memex.models import TurnIn, wire_time
from memex.ports import BATCH_MAX

log = logging.getLogger(__name__)


def ingest_turn(ctx: Context, tenant_id: str, turn: TurnIn, wait: bool) -> dict[str, Any]:
    """Store the turn, then process it inline (`wait`) or hand it to the extraction queue. If
    inline processing fails (an LLM down), or the turn is too large to process before the API's
    timeout (`inline_max_chars`), the turn is queued instead: it is never lost."""
    occurred_at = turn.timestamp or datetime.now(timezone.utc)
    size = sum(len(message.content) for message in turn.messages)
    too_large = wait and size > ctx.settings.inline_max_chars
    with ctx.db.transaction() as conn:
        tenant_rows.ensure_tenant(conn, tenant_id, turn.user_id)  # and refuses a user being erased
        turn_id, created = turn_rows.insert_turn(conn, tenant_id, turn, occurred_at)
        if too_large:
            # Written with the turn, so that no reader sees it stored without its reason; kept, as a failed
            # inline try's reason is, until a worker's try replaces it (a replay finds it, or the turn processed).
            # A turn sent first without `wait` gets it when sent again with it.
            turn_rows.note_not_inline(conn, tenant_id, turn_id, f"not processed inline: its messages hold {size} "
                                      f"characters, over MEMEX_INLINE_MAX_CHARS ({ctx.settings.inline_max_chars}), "
                                      "too many to process within the request's time; the turn is queued for the "
                                      "workers")
    if created:
        ctx.metrics.record(TURNS_INGESTED, source="api")
    if wait and not too_large:
        try:
            pipeline.process_inline(ctx, tenant_id, turn_id)
        except Exception as exc:  # noqa: BLE001 - the turn is stored: hand it to the workers instead
            if isinstance(exc, LLMError):
                # Degraded, not down: the LLM's failure (its kind, never its endpoint or the model's answer), named
                # without the traceback a bug keeps.
                log.warning("inline processing of turn %s met the LLM's failure (%s: %s); queued for the workers",
                            turn_id, type(exc).__name__, exc)
            else:
                log.exception("inline processing of turn %s failed; queued for the workers", turn_id)
            # Kept on the turn, before a worker can take it, so that its GET says why until a
            # worker's own try replaces the reason.
            with ctx.db.transaction() as conn:
                turn_rows.note_error(conn, tenant_id, turn_id, f"processing inline failed "
                                     f"({public_description(exc)}); the turn is queued and will be retried")
        else:
            # processed; a turn erased meanwhile (its user's erasure) is a 404, not a failure to retry
            return turn_status(ctx, tenant_id, turn_id)
    if created or wait:
        try:
            ctx.publisher.publish_extraction(ExtractionJob(tenant_id, turn_id))
        except Exception:
            # The turn is stored and stays queued: the sweep publishes it again later.
            log.exception("publish to the extraction queue failed; turn %s left for the sweep", turn_id)
    if not wait:
        return {"turn_id": turn_id, "status": "queued"}
    # The answer is the turn's GET: its messages already stored as memories, and the reason.
    return turn_status(ctx, tenant_id, turn_id)


def turn_status(ctx: Context, tenant_id: str, turn_id: str) -> dict[str, Any]:
    conn = ctx.db.connection()
    turn = turn_rows.get_turn(conn, tenant_id, turn_id)
    if turn is None:
        raise NotFound(f"turn {turn_id} not found")
    erasing.refuse(turn, turn["user_id"])
    # The turn as it was sent, too: its `metadata` is returned nowhere else (each message's is, in
    # the session's messages and the memories' sources).
    answer = {
        "turn_id": turn_id,
        "status": turn["status"],
        "user_id": turn["user_id"],
        "session_id": turn["session_id"],
        "agent_id": turn["agent_id"],
        "occurred_at": wire_time(turn["occurred_at"]),
        "metadata": turn["metadata"],
        "memories": memory_rows.of_turn(conn, tenant_id, turn_id),
    }
    if turn["error"]:
        answer["error"] = turn["error"]
    return answer


def sweep(ctx: Context, older_than_seconds: int | None = None) -> int:
    """Re-publish unfinished turns whose queue message was lost; returns how many were sent again.
    A turn already extracted goes back to supersession (no second LLM extraction); one that keeps
    getting lost is marked failed (db/turns.py says how "lost" is told from "waiting"). A publish that
    fails (the queue down) is not counted: the turn stays as it was, and no outage fails a turn. A queue
    that failed a call is not called again in the run: its turns wait for the next, counted in
    TurnRepublishesFailed."""
    age = ctx.settings.sweep_after_seconds if older_than_seconds is None else older_than_seconds
    # Each call to a queue that is down waits out the client's attempts (sqs.py), a publish with the claimed
    # rows locked: its backlog, its visibility timeout and its turns were each asked of it, failing alike.
    down: set[str] = set()
    idle = {queue: _idle(ctx, queue, down) for queue in turn_rows.QUEUES}
    lost_by = {"extraction_idle": idle["extraction"], "supersession_idle": idle["supersession"],
               "retry_seconds": 2 * _redelivery_seconds(ctx, down)}
    with ctx.db.transaction() as conn:
        # The turns of a queue found down are not claimed: locked for nothing, they would keep a writer of
        # theirs (a user's erasure) waiting while the other queue takes its own. They are counted instead,
        # so that TurnRepublishesFailed, the sweep's metric of a queue it cannot reach, keeps saying so.
        lost = turn_rows.claim_lost(conn, age, ctx.settings.sweep_max_republish,
                                    queues=[queue for queue in turn_rows.QUEUES if queue not in down], **lost_by)
        left = turn_rows.count_lost(conn, age, down, **lost_by) if down else 0
        sent = _republish(ctx, lost)
        turn_rows.count_republished(conn, sent)
    ctx.metrics.record(TURNS_REPUBLISHED, len(sent))
    unsent = left + len(lost) - len(sent)
    if unsent:
        ctx.metrics.record(TURN_REPUBLISHES_FAILED, unsent)
        log.warning("%d lost turns could not be sent again (their queue unreachable, or refusing them); they "
                    "stay for the next sweep", unsent)
    return len(sent)


def _republish(ctx: Context, lost: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Publish the claimed turns again, BATCH_MAX to a request (one SendMessageBatch: a request a turn
    kept the claimed rows locked for as many round trips as turns); returns (tenant id, turn id) of those the
    queue took: one it refused stays as it was, for the next sweep. After a queue's first failed request
    the rest of its turns are not tried: each try would wait out the client's retries while the claimed rows
    stay locked."""
    sent: list[tuple[str, str]] = []
    for queue, publish, job in (
            ("extraction", ctx.publisher.publish_extractions, lambda row: ExtractionJob(row["tenant_id"], row["id"])),
            ("supersession", ctx.publisher.publish_supersessions,
             lambda row: SupersessionJob(row["tenant_id"], row["user_id"], row["id"], row["republished"]))):
        rows = [row for row in lost if row["queue"] == queue]
        for start in range(0, len(rows), BATCH_MAX):
            batch = rows[start:start + BATCH_MAX]
            try:
                taken = publish([job(row) for row in batch])
            except Exception:  # noqa: BLE001 - the turns stay as they were, for the next sweep
                log.exception("the sweep could not publish to the %s queue", queue)
                break
            sent += [(row["tenant_id"], row["id"]) for row, took in zip(batch, taken) if took]
    return sent


def _idle(ctx: Context, queue: str, down: set[str]) -> bool:
    """Whether the queue holds no message at all; unknown (unreachable: the queue joins `down`) counts as
    not idle."""
    try:
        return ctx.publisher.backlog(queue) == 0
    except Exception:  # noqa: BLE001 - the sweep then relies on the ordering evidence alone
        log.warning("the %s queue's backlog could not be read; it is not called again in this sweep", queue)
        down.add(queue)
        return False


# The longest visibility timeout SQS allows.
_LONGEST_REDELIVERY_SECONDS = 12 * 3600


def _redelivery_seconds(ctx: Context, down: set[str]) -> int:
    """How long the extraction queue hides a failed message; unknown (the queue `down`, or unreachable now:
    it joins `down`) counts as the longest SQS allows, so that no turn waiting for its retry is taken for
    lost."""
    if "extraction" in down:
        return _LONGEST_REDELIVERY_SECONDS
    try:
        return ctx.publisher.redelivery_seconds("extraction")
    except Exception:  # noqa: BLE001 - the sweep then leaves turns with a failed try alone
        log.warning("the extraction queue's visibility timeout could not be read; it is not called again in "
                    "this sweep")
        down.add("extraction")
        return _LONGEST_REDELIVERY_SECONDS
