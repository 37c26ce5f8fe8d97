"""SearchFunction: POST /v1/search, the reads of stored memories, of a user's sessions and turns and of a
session's messages; the seeds' searches (POST /search, POST /v1/memories/search) and the memory-service seed's
GET /users/{user_id}/memories."""

from typing import Optional

from fastapi import APIRouter, Depends, Query

from memex import export, memories, sessions
from memex.context import Context
from memex.models import Id, ListOrder, MemexSeedSearchIn, QueryFlag, SearchIn, SeedSearchIn
from memex.retrieval.served import search_request
from memex_edge.answers import (Count, Memory, MemoryHistory, MemoryList, SearchAnswer, SessionList,
                                SessionMessageList, TurnList)
from memex_edge.context import load_embedder_at_init
from memex_edge.http.dependencies import context, tenant
from memex_edge.http.lambda_entry import lambda_handler
from memex_edge.http.openapi import errors
from memex_edge.http.seeds import MEMEX_SEED, MEMORY_SERVICE_SEED, seed_router

v1 = APIRouter(tags=["v1"])
memory_service = seed_router(MEMORY_SERVICE_SEED)
memex_seed = seed_router(MEMEX_SEED)

LIMIT = Query(50, ge=1, le=500)
CURSOR = Query(None, max_length=1024, description="The `next_cursor` of the previous page")


@v1.post("/v1/search", response_model=SearchAnswer, response_model_exclude_unset=True, responses=errors(409, 413))
def post_search(request: SearchIn, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return search_request(ctx, tenant_id, request)


@memory_service.post("/search", response_model=SearchAnswer, response_model_exclude_unset=True,
                     responses=errors(409, 413, seed=True))
def post_search_seed(request: SeedSearchIn, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    """The memory-service seed's search: `POST /v1/search`."""
    return search_request(ctx, tenant_id, request)


@memex_seed.post("/v1/memories/search", response_model=SearchAnswer, response_model_exclude_unset=True,
                 responses=errors(409, 413, seed=True))
def post_memories_search(request: MemexSeedSearchIn, tenant_id: str = Depends(tenant),
                         ctx: Context = Depends(context)) -> dict:
    """The memex seed's search, `{agent_id, user_id, query, top_k, alpha}`: `POST /v1/search` with
    those fields. Each result carries the seed's `id, content, memory_type, created_at, score`."""
    return search_request(ctx, tenant_id, request.to_search())


# Declared before /v1/memories/{memory_id} so that "count" is not taken for an id.
@v1.get("/v1/memories/count", response_model=Count, responses=errors(409))
def get_count(user_id: Id, agent_id: Optional[Id] = None, include_inactive: QueryFlag = False,
              tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    """How many current memories the user has; with `include_inactive`, with their history (what the
    memories listing with `include_inactive` lists)."""
    return {"count": memories.count(ctx, tenant_id, user_id, agent_id, include_inactive)}


@v1.get("/v1/memories/{memory_id}", response_model=Memory, responses=errors(404, 409))
def get_memory(memory_id: Id, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return memories.get(ctx, tenant_id, memory_id)


@v1.get("/v1/memories/{memory_id}/history", response_model=MemoryHistory, responses=errors(404, 409))
def get_history(memory_id: Id, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return {"memory_id": memory_id, "history": memories.history(ctx, tenant_id, memory_id)}


@v1.get("/v1/users/{user_id}/memories", response_model=MemoryList, responses=errors(409))
def list_user_memories(user_id: Id, include_inactive: QueryFlag = False, agent_id: Optional[Id] = None,
                       limit: int = LIMIT, cursor: Optional[str] = CURSOR, order: ListOrder = "written",
                       tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    """The user's memories, the latest written first; with `order=valid_from`, the earliest
    `valid_from` first (when each was said, or held from: the order things happened in, whenever
    they were sent); with `agent_id`, only that agent's (as a search's and a count's `agent_id`
    keep them). A cursor continues only the order that issued it."""
    return memories.list_for_user(ctx, tenant_id, user_id, include_inactive, limit, cursor, agent_id, order)


@v1.get("/v1/users/{user_id}/sessions", response_model=SessionList, responses=errors(409))
def list_user_sessions(user_id: Id, agent_id: Optional[Id] = None, limit: int = LIMIT,
                       cursor: Optional[str] = CURSOR, tenant_id: str = Depends(tenant),
                       ctx: Context = Depends(context)) -> dict:
    """The user's sessions, the latest begun first, each with its turns, messages and first and
    last turn's time (Zep's `memory.list_sessions` of a user); none for a user with none. With
    `agent_id`, only the sessions that agent sent a turn in (a session of two agents is each's)."""
    return sessions.of_user(ctx, tenant_id, user_id, limit, cursor, agent_id)


@v1.get("/v1/users/{user_id}/turns", response_model=TurnList, responses=errors(409))
def list_user_turns(user_id: Id, agent_id: Optional[Id] = None, session_id: Optional[Id] = None,
                    limit: int = LIMIT, cursor: Optional[str] = CURSOR, tenant_id: str = Depends(tenant),
                    ctx: Context = Depends(context)) -> dict:
    """The user's turns as they were sent, the earliest said first, each with its messages (the user's
    data to take out: `memex export` writes them as `memex backfill` imports them); none for a user
    with none. With `agent_id` or `session_id`, only that agent's or that session's turns."""
    return export.turns(ctx, tenant_id, user_id, limit, cursor, agent_id, session_id)


@v1.get("/v1/sessions/{session_id}/messages", response_model=SessionMessageList, responses=errors(404, 409))
def list_session_messages(session_id: Id, user_id: Id, limit: int = LIMIT, cursor: Optional[str] = CURSOR,
                          tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    """The user's session as it was sent: every message in the order it was said (Zep's
    `memory.get(session_id)`); 404 if the user has no such session."""
    return sessions.messages(ctx, tenant_id, user_id, session_id, limit, cursor)


@memory_service.get("/users/{user_id}/memories", response_model=MemoryList, responses=errors(409, seed=True))
def list_user_memories_seed(user_id: Id, limit: int = Query(500, ge=1, le=500), cursor: Optional[str] = CURSOR,
                            tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    """The memory-service seed's listing: every memory of the user, current ones and the history
    they superseded (`active: false`, linked by `supersedes`), newest first, 500 a page."""
    return memories.list_for_user(ctx, tenant_id, user_id, True, limit, cursor)


router = APIRouter()
for part in (v1, memory_service, memex_seed):
    router.include_router(part)
handler = lambda_handler(router)
# A search embeds its query (the reads of stored memories do not, but they are the fewer).
load_embedder_at_init()
