"""Hybrid search: keyword and vector channels over one user's memories, fused and scored."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from memex.context import Context
from memex.db import memories as memory_rows
from memex.models import SearchIn
from memex.retrieval import floor, rrf, scoring

CANDIDATES_PER_CHANNEL = 100
KEYWORD_WEIGHT = 1.0
VECTOR_WEIGHT = 0.5  # see rrf.py for how both were measured

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
    keyword = vector = None
    scope_size = 0
    if request.mode in ("hybrid", "bm25"):
        keyword, scope_size = memory_rows.keyword_ranked(conn, *scope, request.query, depth)
    if request.mode in ("hybrid", "vector"):
        query_vector = ctx.embedder.embed([request.query])[0]
        vector = memory_rows.vector_ranked(conn, *scope, query_vector, depth, _iterative_scan(ctx))

    channels = [(weight, [item for item, _ in ranked]) for weight, ranked
                in ((KEYWORD_WEIGHT, keyword), (VECTOR_WEIGHT, vector)) if ranked is not None]
    fused = rrf.fuse(channels)
    best = rrf.best_possible([weight for weight, _ in channels])
    relevance = {item: score / best for item, score in fused.items()}
    bm25 = dict(keyword or [])
    similarity = dict(vector or [])
    ranks = {name: {item: rank for rank, (item, _) in enumerate(ranked, start=1)}
             for name, ranked in (("bm25", keyword), ("vector", vector)) if ranked is not None}
    signals = {item: (floor.bm25_units(bm25[item], scope_size) if item in bm25 else None, similarity.get(item))
               for item in relevance}
    gate_open = floor.query_passes(signals.values())
    kept = [item for item in relevance if gate_open and floor.item_passes(*signals[item])]

    now = request.reference_time or datetime.now(timezone.utc)
    alpha = scoring.DEFAULT_ALPHA if request.alpha is None else request.alpha
    half_life = request.half_life_days or scoring.DEFAULT_HALF_LIFE_DAYS
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
        signals = {"bm25": bm25.get(item), "similarity": similarity.get(item),
                   **{f"{name}_rank": by_item.get(item) for name, by_item in ranks.items()}}
        results.append({**memory, "score": round(parts.score, 6), "score_parts": {**parts.as_dict(), **signals}})
    results.sort(key=lambda r: r["score"], reverse=True)
    return {"results": results[: request.top_k], "query": request.query, "total": len(results)}
