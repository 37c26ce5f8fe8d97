"""Hybrid search: keyword and vector channels over one user's memories, fused and scored.

In hybrid mode a search runs in three steps: the question's own channels; extra queries for a
question that needs two facts (multihop.py), whose rankings join the same weighted RRF; then,
when one is configured, a reranker over the best fused candidates (rerank.py), whose floor then
replaces the built-in one (floor.py). The bm25 and vector modes run their one channel alone, for
comparison: no expansion, no reranking.

Degraded, not down: when the embedder fails or times out, the keyword channel answers alone (in
every mode); when the reranker fails, the fused ranking stands with the built-in floor; when the
LLM cannot split the question, the offline expansion stands in. The answer names what was missing
in `degraded` ([] when nothing was).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Sequence

import numpy as np

from memex.config import Settings
from memex.context import Context
from memex.db import memories as memory_rows
from memex.metrics import FLOOR_REJECTIONS
from memex.models import SearchIn
from memex.retrieval import floor, multihop, rerank, rrf, scoring

CANDIDATES_PER_CHANNEL = 100
EXPANSION_CANDIDATES = 30  # per extra query: its lower ranks would add next to nothing
KEYWORD_WEIGHT = 1.0
VECTOR_WEIGHT = 0.5  # see rrf.py for how both were measured

log = logging.getLogger(__name__)

_ITERATIVE_SCAN: dict[str, bool] = {}


def _iterative_scan(ctx: Context) -> bool:
    """Whether this database's pgvector can filter during the HNSW walk; asked once per server."""
    dsn = ctx.db.dsn
    if dsn not in _ITERATIVE_SCAN:
        _ITERATIVE_SCAN[dsn] = memory_rows.pgvector_supports_iterative_scan(ctx.db.connection())
    return _ITERATIVE_SCAN[dsn]


@dataclass
class QueryRun:
    """One query's channels, (id, score) best first; None for a channel that did not run."""

    keyword: list[tuple[str, float]] | None
    vector: list[tuple[str, float]] | None
    scope_size: int

    def rankings(self, weight: float) -> list[tuple[float, list[str]]]:
        return [(weight * channel_weight, [item for item, _ in ranked]) for channel_weight, ranked
                in ((KEYWORD_WEIGHT, self.keyword), (VECTOR_WEIGHT, self.vector)) if ranked is not None]

    def signals(self) -> dict[str, tuple[float | None, float | None]]:
        """id -> (BM25 in floor units, cosine similarity), None where a channel did not find it."""
        bm25, similarity = dict(self.keyword or []), dict(self.vector or [])
        return {item: (floor.bm25_units(bm25[item], self.scope_size) if item in bm25 else None, similarity.get(item))
                for item in bm25.keys() | similarity.keys()}


class Dependencies:
    """What one request asks of the embedder, the LLM and the reranker. Each query is embedded and
    split at most once, and a dependency that failed is not asked again within the request (recall
    runs several searches), so one that is down costs the request a single wait; `degraded` names it."""

    def __init__(self, ctx: Context):
        self._ctx = ctx
        self._vectors: dict[str, np.ndarray] = {}
        self._splits: dict[str, list[str]] = {}
        self._failed: set[str] = set()

    @property
    def degraded(self) -> list[str]:
        return sorted(self._failed)

    def query_vector(self, query: str) -> np.ndarray | None:
        """The query's vector; None when the embedder is unusable."""
        if "embed" in self._failed:
            return None
        if query not in self._vectors:
            try:
                self._vectors[query] = self._ctx.embedder.embed_query(query)
            except Exception as exc:  # noqa: BLE001 - whatever broke, the keyword channel still answers
                log.warning("embedder unusable (%s); keyword channel only", type(exc).__name__)
                self._failed.add("embed")
                return None
        return self._vectors[query]

    def split(self, settings: Settings, question: str) -> list[str] | None:
        """The LLM's sub-queries of `question`; None when the LLM is unusable (multihop logs why)."""
        if "llm" in self._failed:
            return None
        if question not in self._splits:
            subqueries = multihop.split(settings, question)
            if subqueries is None:
                self._failed.add("llm")
                return None
            self._splits[question] = subqueries
        return self._splits[question]

    def rerank(self, reranker: rerank.Reranker, query: str, documents: Sequence[str]) -> list[float] | None:
        """The reranker's scores; None when it is unusable (it logs why)."""
        if "rerank" in self._failed:
            return None
        scores = reranker.scores(query, documents)
        if scores is None:
            self._failed.add("rerank")
        return scores


def search(ctx: Context, tenant_id: str, request: SearchIn, deps: Dependencies | None = None) -> dict[str, Any]:
    """`deps` carries what a caller running several searches for one request already learned."""
    conn = ctx.db.connection()
    deps = deps or Dependencies(ctx)
    scope = (tenant_id, request.user_id, request.agent_id, request.filters, request.include_inactive)

    size: dict[str, int] = {}  # the user's memories in scope: as a keyword run read them, else asked once

    def large_scope() -> bool:
        """Whether the vector channel walks the HNSW index rather than ranking the scope exactly."""
        if "n" not in size:
            size["n"] = memory_rows.scope_size(conn, tenant_id, request.user_id, request.include_inactive)
        return size["n"] > ctx.settings.vector_exact_max

    def run(query: str, depth: int, keyword: bool = True, vector: bool = True) -> QueryRun:
        ranked_keyword = ranked_vector = None
        scope_size = 0
        query_vector = deps.query_vector(query) if vector else None
        if keyword or (vector and query_vector is None):
            ranked_keyword, scope_size = memory_rows.keyword_ranked(conn, *scope, query, depth,
                                                                    ctx.settings.keyword_max_postings)
            size["n"] = scope_size
        if query_vector is not None:
            ranked_vector = memory_rows.vector_ranked(conn, *scope, query_vector, depth,
                                                      _iterative_scan(ctx) and large_scope())
        return QueryRun(ranked_keyword, ranked_vector, scope_size)

    question = run(request.query, max(CANDIDATES_PER_CHANNEL, request.top_k * 2),
                   keyword=request.mode in ("hybrid", "bm25"), vector=request.mode in ("hybrid", "vector"))
    own = question.signals()
    reranker = rerank.from_settings(ctx.settings) if request.mode == "hybrid" else None
    gate_open = floor.query_passes(own.values())
    if not (gate_open or reranker):
        ctx.metrics.record(FLOOR_REJECTIONS)
        return _answer(request, [], deps)  # a query about nothing the user said

    # 1. the question's channels, and those of its extra queries (multi-hop), in one weighted RRF
    runs = [(1.0, question)]
    if request.mode == "hybrid":
        fused_question = rrf.fuse(question.rankings(1.0))

        def first_hits() -> list[str]:
            best = sorted(fused_question, key=fused_question.__getitem__, reverse=True)[:multihop.FIRST_HITS]
            rows = memory_rows.get_many(conn, tenant_id, best)
            return [rows[item]["content"] for item in best if item in rows]

        runs += multihop.expansions(ctx.settings, request.query, first_hits,
                                    lambda query, keyword_only: run(query, EXPANSION_CANDIDATES,
                                                                    vector=not keyword_only),
                                    deps.split)
    channels = [channel for weight, query_run in runs for channel in query_run.rankings(weight)]
    fused = rrf.fuse(channels)
    best_possible = rrf.best_possible([weight for weight, _ in channels])
    relevance = {item: score / best_possible for item, score in fused.items()}

    # 2. the reranker over the best fused candidates, or the built-in floor
    reranked = _rerank(reranker, deps, conn, tenant_id, request.query, fused) if reranker else None
    if reranked is not None:
        relevance = {item: score for item, score in reranked.items() if score >= reranker.min_score}
        kept = list(relevance)
    else:
        # A memory found by an extra query is held to that query's signals, not the question's.
        signals = [query_run.signals() for _, query_run in runs]
        kept = [item for item in relevance
                if gate_open and any(item in s and floor.item_passes(*s[item]) for s in signals)]

    # 3. scoring: relevance blended with recency and importance
    now = request.reference_time or datetime.now(timezone.utc)
    alpha = scoring.DEFAULT_ALPHA if request.alpha is None else request.alpha
    half_life = request.half_life_days or scoring.DEFAULT_HALF_LIFE_DAYS
    bm25, similarity = dict(question.keyword or []), dict(question.vector or [])
    ranks = {name: {item: rank for rank, (item, _) in enumerate(ranked, start=1)}
             for name, ranked in (("bm25", question.keyword), ("vector", question.vector)) if ranked is not None}
    rows = memory_rows.get_many(conn, tenant_id, kept)
    results = []
    for item in kept:
        memory = rows.get(item)
        if memory is None:
            continue  # erased between the ranking and the fetch
        parts = scoring.combine(
            relevance=relevance[item],
            recency_value=scoring.recency(datetime.fromisoformat(memory["valid_from"]), now, half_life),
            importance=memory["importance"],
            alpha=alpha,
        )
        extra = {"bm25": bm25.get(item), "similarity": similarity.get(item),
                 "rerank": reranked.get(item) if reranked is not None else None,
                 **{f"{name}_rank": by_item.get(item) for name, by_item in ranks.items()}}
        results.append({**memory, "score": round(parts.score, 6), "score_parts": {**parts.as_dict(), **extra}})
    results.sort(key=lambda r: r["score"], reverse=True)
    return _answer(request, results, deps)


def _rerank(reranker: rerank.Reranker, deps: Dependencies, conn: Any, tenant_id: str, query: str,
            fused: dict[str, float]) -> dict[str, float] | None:
    """id -> reranker score of the best fused candidates; None when the reranker is unusable."""
    candidates = sorted(fused, key=fused.__getitem__, reverse=True)[:rerank.CANDIDATES]
    rows = memory_rows.get_many(conn, tenant_id, candidates)
    candidates = [item for item in candidates if item in rows]
    scores = deps.rerank(reranker, query, [rows[item]["content"] for item in candidates])
    return None if scores is None else dict(zip(candidates, scores))


def _answer(request: SearchIn, results: list[dict[str, Any]], deps: Dependencies) -> dict[str, Any]:
    return {"results": results[: request.top_k], "query": request.query, "total": len(results),
            "degraded": deps.degraded}
