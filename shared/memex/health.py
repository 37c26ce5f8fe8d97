"""The state of each dependency, and which ones run in a degraded mode."""

from __future__ import annotations

from typing import Any

from memex.context import Context


def health(ctx: Context) -> dict[str, Any]:
    degraded: list[str] = []
    try:
        ctx.db.connection().execute("SELECT 1")
        db = "ok"
    except Exception as exc:  # noqa: BLE001 - any failure means the database is unusable
        ctx.db.reset()
        db = f"error: {type(exc).__name__}"
    try:
        ctx.publisher.ping()
        queue = "ok"
    except Exception as exc:  # noqa: BLE001
        queue = f"error: {type(exc).__name__}"
    llm = f"{ctx.settings.llm_model}" if ctx.settings.llm_configured else "offline rules"
    if not ctx.settings.llm_configured:
        degraded.append("llm")
    ok = db == "ok" and queue == "ok"
    return {
        "status": "ok" if ok else "error",
        "db": db,
        "queue": queue,
        "embedder": f"{ctx.settings.embeddings_provider}:{ctx.embedder.name}",
        "llm": llm,
        "extractor": ctx.extractor.name,
        "reranker": (ctx.settings.rerank_model or "default") if ctx.settings.rerank_configured else "none",
        "degraded": degraded,
    }
