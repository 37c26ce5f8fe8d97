"""Hybrid search: keyword and vector channels over one user's memories, fused and scored."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from memex.context import Context
from memex.db import memories as memory_rows
from memex.models import SearchIn
from memex.retrieval import rrf, scoring

CANDIDATES_PER_CHANNEL = 100

_ITERATIVE_SCAN: dict[str, bool] = {}


def _iterative_scan(ctx: Context) -> bool:
    """Whether this database's pgvector can filter during the HNSW walk; asked once per server."""
    dsn = ctx.db.dsn
    if dsn not in _ITERATIVE_SCAN:
        _ITERATIVE_SCAN[dsn] = memory_rows.pgvector_supports_iterative_scan(ctx.db.connection())
    return _ITERATIVE_SCAN[dsn]


def search(ctx: Context, tenant_id: str, request: SearchIn) -> dict[str, Any]:
    conn = ctx.db.connection()
    scope = (tenant_id, request.user_id, request.agent_id, request.filters, request.include_inactive)
    depth = max(CANDIDATES_PER_CHANNEL, request.top_k * 2)
    rankings: dict[str, list[str]] = {}
    if request.mode in ("hybrid", "bm25"):
        rankings["bm25"] = [i for i, _ in memory_rows.keyword_ranked(conn, *scope, request.query, depth)]
    if request.mode in ("hybrid", "vector"):
        query_vector = ctx.embedder.embed([request.query])[0]
        ranked = memory_rows.vector_ranked(conn, *scope, query_vector, depth, _iterative_scan(ctx))
        rankings["vector"] = [i for i, _ in ranked]

    fused = rrf.fuse(list(rankings.values()))
    # Normalised so that an item ranked first by every channel has relevance 1.
    best_possible = len(rankings) / (rrf.K + 1)
    now = request.reference_time or datetime.now(timezone.utc)
    alpha = scoring.DEFAULT_ALPHA if request.alpha is None else request.alpha
    half_life = request.half_life_days or scoring.DEFAULT_HALF_LIFE_DAYS
    rank_of = {name: {mid: i for i, mid in enumerate(ranking, start=1)} for name, ranking in rankings.items()}
    rows = memory_rows.get_many(conn, tenant_id, list(fused))
    results = []
    for memory_id, fused_score in fused.items():
        memory = rows.get(memory_id)
        if memory is None:
            continue  # erased between the ranking and the fetch
        parts = scoring.combine(
            relevance=fused_score / best_possible,
            recency_value=scoring.recency(datetime.fromisoformat(memory["valid_from"]), now, half_life),
            importance=memory["importance"],
            alpha=alpha,
        )
        ranks = {f"{name}_rank": ranks_by_id.get(memory_id) for name, ranks_by_id in rank_of.items()}
        results.append({**memory, "score": round(parts.score, 6), "score_parts": {**parts.as_dict(), **ranks}})
    results.sort(key=lambda r: r["score"], reverse=True)
    return {"results": results[: request.top_k], "query": request.query, "total": len(results)}
