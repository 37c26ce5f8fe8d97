"""The consolidation run: for each user over the threshold, old episodic memories that repeat each
other or share a topic are replaced by one summary memory that cites every one of them.

Nothing is lost: the originals become inactive and stay in the summary's history (memory_links),
readable with `include_inactive` and erasable as ever (db/erasure.py removes a summary when one of
its sources is erased, and the others become current again).

Idempotent and safe beside the other writers: groups and summaries are decided without a lock (a
summariser may call an LLM), then, under the user's lock, a group is written only if every one of
its memories is still active, with a dedupe key derived from its members, so a re-run, a
redelivered schedule or a concurrent run writes nothing twice. Summaries are never grouped again.

Within an invocation's time (memex_edge/deadline.py): once its budget is spent (llm.spent), the run
starts no more batches, and a batch whose summary or embedding the budget cut short writes nothing;
the run ends with `out_of_time`, and the next one goes on with what is still active and ungrouped.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone

import numpy as np

from memex import embedded_text, llm
from memex.consolidation import LLM_FALLBACK, Summariser, make_summariser
from memex.consolidation.grouping import Rules, group, said
from memex.context import Context
from memex.db import consolidation as rows
from memex.db import locks
from memex.metrics import CONSOLIDATION_RUNS, MEMORIES_MERGED

log = logging.getLogger(__name__)


@dataclass
class ConsolidationResult:
    """What a run did: the one place its counts are reported (the CLI prints it, the scheduled
    function returns it and turns it into metrics)."""
    users: int = 0              # users over the threshold that were examined
    summaries: int = 0          # summary memories written
    merged: int = 0             # episodic memories they replaced (now inactive)
    llm_fallbacks: int = 0      # summaries written extractively because the LLM gave no usable answer
    out_of_time: int = 0        # 1: the invocation's time was spent and the run stopped; the next goes on

    def add(self, other: "ConsolidationResult") -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class Options:
    threshold: int
    min_age_days: float
    batch_size: int
    rules: Rules

    @classmethod
    def from_settings(cls, ctx: Context, threshold: int | None = None,
                      min_age_days: float | None = None) -> "Options":
        """The configured settings; `threshold` and `min_age_days` override them for one run."""
        s = ctx.settings
        return cls(
            threshold=s.consolidation_threshold if threshold is None else threshold,
            min_age_days=s.consolidation_min_age_days if min_age_days is None else min_age_days,
            batch_size=s.consolidation_batch_size,
            rules=Rules(s.consolidation_jaccard, s.consolidation_similarity, s.consolidation_max_group),
        )


def consolidate_all(ctx: Context, options: Options | None = None) -> ConsolidationResult:
    """Every tenant's users over the threshold (the scheduled job)."""
    options = options or Options.from_settings(ctx)
    total = ConsolidationResult()
    for tenant_id in rows.tenants(ctx.db.connection()):
        total.add(consolidate(ctx, tenant_id, options=options))
        if total.out_of_time:
            break
    return total


def consolidate(ctx: Context, tenant_id: str, user_id: str | None = None,
                options: Options | None = None, now: datetime | None = None) -> ConsolidationResult:
    """The tenant's users over the threshold (or only `user_id`, if it is over it)."""
    options = options or Options.from_settings(ctx)
    now = now or datetime.now(timezone.utc)
    summariser = make_summariser(ctx.settings)
    result = ConsolidationResult()
    for user in rows.users_over(ctx.db.connection(), tenant_id, options.threshold, user_id):
        result.users += 1
        result.add(_consolidate_user(ctx, summariser, tenant_id, user, options, now))
        if result.out_of_time:
            log.warning("consolidation stopped: the invocation's time is spent; the next run goes on")
            break
    ctx.metrics.record(CONSOLIDATION_RUNS)
    if result.merged:
        ctx.metrics.record(MEMORIES_MERGED, result.merged)
    return result


def _consolidate_user(ctx: Context, summariser: Summariser, tenant_id: str, user_id: str,
                      options: Options, now: datetime) -> ConsolidationResult:
    result = ConsolidationResult()
    said_before = now - timedelta(days=options.min_age_days)
    after = None
    # A line said again and again across batches is one summary: the lines that say one thing alone
    # (a group of the same line, or a line left alone) are held by what they say, later batches' lines
    # saying it join them, and they are written once every batch is read.
    held: dict[tuple[str, ...], list[dict]] = {}
    while True:
        if llm.spent():
            result.out_of_time = 1
            break
        batch = rows.eligible(ctx.db.connection(), tenant_id, user_id, said_before, after, options.batch_size)
        if not batch:
            break
        after = (batch[-1]["valid_from"], batch[-1]["id"])
        fresh = []
        for m in batch:
            if said(m["content"]) in held:
                held[said(m["content"])].append(_unembedded(m))
            else:
                fresh.append(m)
        vectors = (np.stack([m["embedding"].to_numpy() for m in fresh]).astype(np.float32)
                   if options.rules.similarity > 0 and fresh else None)
        groups = []
        alone = set(range(len(fresh)))
        for members in group([m["content"] for m in fresh], vectors, options.rules):
            alone -= set(members)
            groups.append([fresh[i] for i in members])
        for i in sorted(alone):
            groups.append([fresh[i]])
        mixed = []
        for members in groups:
            one = {said(m["content"]) for m in members}
            if len(one) == 1 and () not in one:
                held[one.pop()] = [_unembedded(m) for m in members]
            elif len(members) > 1:
                mixed.append(members)
        if mixed:
            result.add(_write(ctx, summariser, tenant_id, user_id, mixed, now))
        if result.out_of_time or len(batch) < options.batch_size:
            break
    repeated = [members for members in held.values() if len(members) > 1]
    if repeated and not result.out_of_time:
        result.add(_write(ctx, summariser, tenant_id, user_id, repeated, now))
    return result


def _write(ctx: Context, summariser: Summariser, tenant_id: str, user_id: str,
           groups: list[list[dict]], now: datetime) -> ConsolidationResult:
    result = ConsolidationResult()
    # Decided outside the lock: the summariser may call an LLM.
    try:
        summaries = [summariser.summarise(_distinct([m["content"] for m in members])) for members in groups]
        vectors = ctx.embedder.embed([embedded_text.of(s.content, memory_type="episodic", subject="user")
                                      for s in summaries])
    except _cut_short():
        if not llm.spent():
            raise
        # Cut short by the invocation's time, not failed: none of the batch is written, all of it is
        # still active, and the next run groups it again.
        return ConsolidationResult(out_of_time=1)
    with ctx.db.transaction() as conn:
        locks.lock_user(conn, tenant_id, user_id)
        active = rows.still_active(conn, tenant_id, [m["id"] for members in groups for m in members])
        for members, summary, vector in zip(groups, summaries, vectors):
            ids = [m["id"] for m in members]
            if not set(ids) <= active:
                continue  # erased or consolidated since it was read: the next run regroups what is left
            written = rows.write_summary(conn, tenant_id, {
                "id": str(uuid.uuid4()),
                "user_id": user_id,
                "agent_id": _common(m["agent_id"] for m in members),
                "session_id": _common(m["session_id"] for m in members),
                "memory_type": "episodic",
                "content": summary.content,
                "importance": max(float(m["importance"]) for m in members),
                "embedding": vector,
                # As recent as its latest line: recency ranks it as that line was ranked.
                "valid_from": max(m["valid_from"] for m in members),
                "dedupe_key": "summary:" + hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest(),
                "metadata": {"summary_of": len(ids), "summarised_by": summary.method},
            }, ids, now)
            if written:
                result.summaries += 1
                result.merged += len(ids)
                result.llm_fallbacks += summary.method == LLM_FALLBACK
    if result.summaries:
        log.info("consolidated %d memories into %d summaries for one user", result.merged, result.summaries)
    return result


def _cut_short() -> tuple[type[Exception], ...]:
    """What the summariser and the embedder raise when a call of theirs ends with the invocation's time:
    the chat client's LLMError; the OpenAI-compatible embedder's TimeoutError (no attempt started) or
    its endpoint's error on the last attempt the time allowed. Another failure is raised, whenever it
    comes. Evaluated only once something was raised (an except clause's expression is): the embedder's
    module imports the openai client, which a run without endpoints never loads."""
    from memex.embeddings.openai_compat import TRANSIENT

    return (llm.LLMError, TimeoutError, *TRANSIENT)


def _distinct(lines: list[str]) -> list[str]:
    """Each line once, the first saying of it: a summary of the same line said a thousand times
    asks the model about one line, and the extractive summary would drop the repetitions anyway."""
    seen: set[tuple[str, ...]] = set()
    kept = []
    for line in lines:
        key = said(line)
        if key and key in seen:
            continue
        seen.add(key)
        kept.append(line)
    return kept


def _unembedded(memory: dict) -> dict:
    """A line held until every batch is read, without its vector (not needed to write a summary):
    a user's whole history may be held."""
    return {k: v for k, v in memory.items() if k != "embedding"}


def _common(values) -> str | None:
    """The value every member shares, else None (a summary across sessions belongs to none)."""
    distinct = set(values)
    return distinct.pop() if len(distinct) == 1 else None
