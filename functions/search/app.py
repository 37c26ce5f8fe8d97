"""SearchFn: POST /v1/search and the reads of stored memories."""

from typing import Optional

from fastapi import APIRouter, Depends, Query

from memex import memories
from memex.context import Context
from memex.models import Id, SearchIn
from memex.retrieval.served import search_request
from memex_edge.http import context, lambda_handler, tenant

router = APIRouter()


@router.post("/v1/search")
def post_search(request: SearchIn, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return search_request(ctx, tenant_id, request)


# Declared before /v1/memories/{memory_id} so that "count" is not taken for an id.
@router.get("/v1/memories/count")
def get_count(user_id: Id, agent_id: Optional[Id] = None,
              tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return {"count": memories.count(ctx, tenant_id, user_id, agent_id)}


@router.get("/v1/memories/{memory_id}")
def get_memory(memory_id: Id, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return memories.get(ctx, tenant_id, memory_id)


@router.get("/v1/memories/{memory_id}/history")
def get_history(memory_id: Id, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return {"memory_id": memory_id, "history": memories.history(ctx, tenant_id, memory_id)}


@router.get("/v1/users/{user_id}/memories")
def list_user_memories(user_id: Id, include_inactive: bool = False, limit: int = Query(50, ge=1, le=500),
                       cursor: Optional[str] = Query(None, max_length=1024), tenant_id: str = Depends(tenant),
                       ctx: Context = Depends(context)) -> dict:
    return memories.list_for_user(ctx, tenant_id, user_id, include_inactive, limit, cursor)


handler = lambda_handler(router)
