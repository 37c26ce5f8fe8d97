"""Context for a prompt: the memories that matter for a query, packed into a token budget.

Priority: stable facts about the user, then memories relevant to the query, then the recent
messages of the current session. A bullet goes in whole or not at all, and every bullet is cited.
The answer's `degraded` names what its searches had to do without (search.py).
"""

from __future__ import annotations

from typing import Any

from memex.budget import count_tokens
from memex.context import Context
from memex.metrics import RECALL_TOKENS
from memex.models import RecallIn, SearchFilters, SearchIn
from memex.retrieval.search import Dependencies, search

HEADER = "Relevant memories about the user:"
STABLE_FACTS = 10
RELEVANT = 30
RECENT_SESSION = 10


def recall(ctx: Context, tenant_id: str, request: RecallIn) -> dict[str, Any]:
    deps = Dependencies(ctx)

    def hits(query: str, top_k: int, filters: SearchFilters) -> list[dict[str, Any]]:
        return search(ctx, tenant_id, SearchIn(
            user_id=request.user_id, query=query, agent_id=request.agent_id, top_k=top_k,
            reference_time=request.reference_time, filters=filters,
        ), deps)["results"]

    groups = [
        # Facts about the user themself; another participant's come in with the relevant memories.
        hits(request.query, STABLE_FACTS, SearchFilters(memory_type="semantic", subject="user")),
        hits(request.query, RELEVANT, SearchFilters()),
    ]
    if request.session_id:
        groups.append(hits(request.query, RECENT_SESSION, SearchFilters(session_id=request.session_id)))

    lines = [HEADER]
    used = count_tokens(HEADER)
    citations: list[dict[str, Any]] = []
    seen: set[str] = set()
    for group in groups:
        for memory in group:
            if memory["id"] in seen:
                continue
            bullet = f"- {memory['content']}"
            # Joined with a newline; counted as its own piece, then checked on the whole text.
            cost = count_tokens("\n" + bullet)
            if used + cost > request.max_tokens:
                continue
            seen.add(memory["id"])
            lines.append(bullet)
            used += cost
            source = memory["sources"][0] if memory["sources"] else {}
            citations.append({
                "memory_id": memory["id"],
                "turn_id": source.get("turn_id"),
                "message_id": source.get("message_id"),
                "score": memory["score"],
                "snippet": memory["content"][:200],
            })
    context = "\n".join(lines) if citations else ""
    token_count = count_tokens(context)
    # Token counts of pieces can differ from the count of their concatenation; never exceed.
    while token_count > request.max_tokens and citations:
        lines.pop()
        citations.pop()
        context = "\n".join(lines) if citations else ""
        token_count = count_tokens(context)
    ctx.metrics.record(RECALL_TOKENS, token_count)
    return {"context": context, "citations": citations, "token_count": token_count, "degraded": deps.degraded}
