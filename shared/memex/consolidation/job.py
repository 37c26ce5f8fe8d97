"""The consolidation run: for each user over the threshold, old episodic memories that repeat each
other or share a topic are replaced by one summary memory that cites every one of them.

Nothing is lost: the originals become inactive and stay in the summary's history (memory_links),
readable with `include_inactive` and erasable as ever (db/erasure.py removes a summary when one of
its sources is erased, and the others become current again).

Idempotent and safe beside the other writers: groups and summaries are decided without a lock (a
summariser may call an LLM), then, under the user's lock, a group is written only if every one of
its memories is still active, with a dedupe key derived from its members, so a re-run, a
redelivered schedule or a concurrent run writes nothing twice. Summaries are never grouped again, but
a group saying what an active summary says (a line said again since the run that summarised it)
extends that summary: it cites the new lines too and is as recent as the latest, and no summary alike
is written. Erasing any line it cites, old or new, erases it as before. Summaries alike one another,
left by runs before summaries were extended, become one at the start of a run (_end_alike).

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

from memex import embedded_text, embeddings, llm
from memex.consolidation import LLM_FALLBACK, Summariser, Summary, make_summariser
from memex.consolidation.grouping import Group, Grouper, Rules, Said, gist
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
    extended: int = 0           # summaries that took in lines saying what they say, instead of one more alike
    alike_ended: int = 0        # active summaries alike a newer one (runs before `extended`), ended into it
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
    grouper: Grouper[_Line] = Grouper(options.rules)
    summarised = _Summarised.read(ctx, tenant_id, user_id)
    if summarised.alike:
        result.add(_end_alike(ctx, tenant_id, user_id, summarised.alike, now))
    compare = options.rules.similarity > 0
    while True:
        if llm.spent():
            result.out_of_time = 1
            break
        batch = rows.eligible(ctx.db.connection(), tenant_id, user_id, said_before, after, options.batch_size,
                              vectors=compare)
        if not batch:
            break
        after = (batch[-1]["valid_from"], batch[-1]["id"])
        vectors = [m["embedding"].to_numpy() for m in batch] if compare else None
        differ = grouper.add([_Line.of(m) for m in batch], [m["content"] for m in batch], vectors)
        if differ:
            result.add(_write(ctx, summariser, tenant_id, user_id, differ, summarised, now))
        if result.out_of_time or len(batch) < options.batch_size:
            break
    if not result.out_of_time:
        # A line said once since the last run is written too when a summary says it already: it joins it.
        held = [g for g in grouper.held() if len(g.members) > 1 or summarised.saying(g)]
        if held:
            result.add(_write(ctx, summariser, tenant_id, user_id, held, summarised, now))
    return result


@dataclass(frozen=True, slots=True)
class _Line:
    """What a line read for grouping keeps until it is written: neither its vector nor its text (its
    group keeps the text of each line it says once), since a user's whole history may be held."""
    id: str
    valid_from: datetime
    importance: float
    session_id: str | None
    agent_id: str | None

    @classmethod
    def of(cls, row: dict) -> "_Line":
        return cls(row["id"], row["valid_from"], float(row["importance"]), row["session_id"], row["agent_id"])


class _Summarised:
    """The user's active summaries by what they say, read once a run: a group that says what one of them
    says (its gist: the same lines, however often; or the same summary text; or, a line said alone, a
    line it cites) extends it rather than writing one more alike (a line said every week, summarised again
    in every run). Summaries alike one another (written before runs extended one) are `alike`: each
    (kept, ended) pair, the newest kept. The run's own summaries are added as they are written."""

    def __init__(self) -> None:
        self._gists: dict[frozenset[Said], str] = {}
        self._texts: dict[str, str] = {}
        self._lines: dict[Said, str] = {}
        self.alike: list[tuple[dict, dict]] = []

    @classmethod
    def read(cls, ctx: Context, tenant_id: str, user_id: str) -> "_Summarised":
        summarised = cls()
        kept: dict[str, dict] = {}
        for summary in rows.active_summaries(ctx.db.connection(), tenant_id, user_id):  # newest first
            said = gist(summary["lines"])
            alike = (summarised._gists.get(said) if said is not None else None) or summarised._texts.get(
                summary["content"])
            if alike:
                summarised.alike.append((kept[alike], summary))
            else:
                kept[summary["id"]] = summary
            # what an ended one says leads to the one it ends into; the newest keeps what it says
            summarised._remember(alike or summary["id"], said, summary["content"], replace=False)
        return summarised

    def saying(self, group: Group[_Line]) -> str | None:
        """The summary of the group's gist; for a line said alone, else a summary citing it (one line of
        a mixed summary said again is not a summary of its own)."""
        if group.gist is None:
            return None
        found = self._gists.get(group.gist)
        if found is None and len(group.gist) == 1:
            [line] = group.gist
            found = self._lines.get(line)
        return found

    def by_text(self, text: str) -> str | None:
        return self._texts.get(text)

    def add(self, summary_id: str, said: frozenset[Said] | None, text: str | None = None) -> None:
        self._remember(summary_id, said, text, replace=True)

    def _remember(self, summary_id: str, said: frozenset[Said] | None, text: str | None, replace: bool) -> None:
        entries = [(self._texts, text)] if text is not None else []
        if said is not None:
            entries += [(self._gists, said), *((self._lines, line) for line in said)]
        for found, key in entries:
            if replace:
                found[key] = summary_id
            else:
                found.setdefault(key, summary_id)


def _end_alike(ctx: Context, tenant_id: str, user_id: str, alike: list[tuple[dict, dict]],
               now: datetime) -> ConsolidationResult:
    """Each summary alike a newer one ends into it (db/consolidation.fold_summary), under the user's lock,
    when both are still active."""
    result = ConsolidationResult()
    with ctx.db.transaction() as conn:
        locks.lock_user(conn, tenant_id, user_id)
        active = rows.still_active(conn, tenant_id, [s["id"] for pair in alike for s in pair])
        for kept, ended in alike:
            if {kept["id"], ended["id"]} <= active:
                rows.fold_summary(conn, tenant_id, kept, ended, now)
                result.alike_ended += 1
    if result.alike_ended:
        log.info("ended %d summaries alike a newer one for one user", result.alike_ended)
    return result


@dataclass
class _Plan:
    group: Group[_Line]
    summary_id: str            # the summary to extend, or the new one's id
    summary: Summary | None    # None: extend summary_id


def _write(ctx: Context, summariser: Summariser, tenant_id: str, user_id: str,
           groups: list[Group[_Line]], summarised: _Summarised, now: datetime) -> ConsolidationResult:
    result = ConsolidationResult()
    # Decided outside the lock: the summariser may call an LLM. A group with the gist of a summary is
    # not summarised again (nor the model asked); one whose summary reads as a summary's does, or as
    # one this call writes first, extends it.
    plans: list[_Plan] = []
    planned: dict[str, str] = {}
    try:
        for g in groups:
            existing = summarised.saying(g)
            if existing:
                plans.append(_Plan(g, existing, None))
                continue
            summary = summariser.summarise(g.lines)
            existing = summarised.by_text(summary.content) or planned.get(summary.content)
            if existing:
                plans.append(_Plan(g, existing, None))
            else:
                plans.append(_Plan(g, planned.setdefault(summary.content, str(uuid.uuid4())), summary))
        fresh = [p for p in plans if p.summary is not None]
        vectors = ctx.embedder.embed([embedded_text.of(p.summary.content, memory_type="episodic", subject="user")
                                      for p in fresh])
    except Exception as exc:
        if not (_cut_short(exc) and llm.spent()):
            raise
        # Cut short by the invocation's time, not failed: none of the batch is written, all of it is
        # still active, and the next run groups it again.
        return ConsolidationResult(out_of_time=1)
    vector_of = {p.summary_id: v for p, v in zip(fresh, vectors)}
    with ctx.db.transaction() as conn:
        locks.lock_user(conn, tenant_id, user_id)
        active = rows.still_active(conn, tenant_id, [m.id for p in plans for m in p.group.members]
                                   + [p.summary_id for p in plans if p.summary is None])
        for plan in plans:
            members = plan.group.members
            ids = [m.id for m in members]
            if not set(ids) <= active or (plan.summary is None and plan.summary_id not in active):
                continue  # erased or consolidated since it was read: the next run regroups what is left
            if plan.summary is None:
                rows.extend_summary(conn, tenant_id, plan.summary_id, ids, max(m.valid_from for m in members),
                                    max(m.importance for m in members), _common(m.agent_id for m in members),
                                    _common(m.session_id for m in members), now)
                result.extended += 1
                result.merged += len(ids)
                summarised.add(plan.summary_id, plan.group.gist)
                continue
            written = rows.write_summary(conn, tenant_id, {
                "id": plan.summary_id,
                "user_id": user_id,
                "agent_id": _common(m.agent_id for m in members),
                "session_id": _common(m.session_id for m in members),
                "memory_type": "episodic",
                "content": plan.summary.content,
                "importance": max(m.importance for m in members),
                "embedding": vector_of[plan.summary_id],
                # As recent as its latest line: recency ranks it as that line was ranked.
                "valid_from": max(m.valid_from for m in members),
                "dedupe_key": "summary:" + hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest(),
                "metadata": {"summary_of": len(ids), "summarised_by": plan.summary.method},
            }, ids, now)
            if written:
                active.add(plan.summary_id)  # a later group of this call reading as it does extends it
                summarised.add(plan.summary_id, plan.group.gist, plan.summary.content)
                result.summaries += 1
                result.merged += len(ids)
                result.llm_fallbacks += plan.summary.method == LLM_FALLBACK
    if result.merged:
        log.info("consolidated %d memories into %d new summaries and %d extended for one user",
                 result.merged, result.summaries, result.extended)
    return result


def _cut_short(exc: Exception) -> bool:
    """Whether `exc` is what the summariser or the embedder raise when a call of theirs ends with the
    invocation's time: the chat client's LLMError; the embedder's failure on its side (embeddings.on_its_side:
    its TimeoutError, no attempt started, or its endpoint's error on the last attempt the time allowed).
    Another failure is raised, whenever it comes."""
    return isinstance(exc, llm.LLMError) or embeddings.on_its_side(exc) is not None


def _common(values) -> str | None:
    """The value every member shares, else None (a summary across sessions belongs to none)."""
    distinct = set(values)
    return distinct.pop() if len(distinct) == 1 else None
