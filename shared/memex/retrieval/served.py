"""A search as a client asks for it (POST /v1/search, the MCP tool): the search, measured.

Recall's own searches are not counted here: a recall is measured by what it returns (RecallTokens).
"""

from __future__ import annotations

from typing import Any

from memex.context import Context
from memex.metrics import SEARCH_LATENCY, SEARCH_RESULTS, timed
from memex.models import SearchIn
from memex.retrieval.search import search


def search_request(ctx: Context, tenant_id: str, request: SearchIn) -> dict[str, Any]:
    with timed(ctx.metrics, SEARCH_LATENCY, mode=request.mode):
        answer = search(ctx, tenant_id, request)
    ctx.metrics.record(SEARCH_RESULTS, len(answer["results"]), mode=request.mode)
    return answer
