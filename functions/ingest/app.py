"""IngestFunction: POST /v1/turns, GET /v1/turns/{turn_id}, POST /v1/memories, GET /v1/backfills and
GET /v1/backfills/{id}; the memory-service seed's POST /turns."""

from typing import Optional

from fastapi import APIRouter, Depends, Query, Response

from memex import backfill, ingest, memories
from memex.context import Context
from memex.models import Id, MemoryPostIn, QueryFlag, TurnIn
from memex_edge.answers import Backfill, BackfillList, Memory, TurnAnswer
from memex_edge.http.dependencies import context, tenant
from memex_edge.http.lambda_entry import lambda_handler
from memex_edge.http.openapi import errors
from memex_edge.http.seeds import MEMORY_SERVICE_SEED, seed_router

v1 = APIRouter(tags=["v1"])
seed = seed_router(MEMORY_SERVICE_SEED)

PROCESSED = {201: {"model": TurnAnswer, "description": "With `wait=true`: processed, with its memories"}}


@v1.post("/v1/turns", status_code=202, response_model=TurnAnswer, response_model_exclude_unset=True,
             responses={**PROCESSED, **errors(409, 413)})
def post_turn(turn: TurnIn, response: Response, wait: QueryFlag = False,
              tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    """Store a turn: queued for extraction (202), or processed before answering with `wait=true`
    (201, with its memories; 202 with an `error` if it was queued instead: inline processing failed, or
    its messages are over MEMEX_INLINE_MAX_CHARS)."""
    answer = ingest.ingest_turn(ctx, tenant_id, turn, wait)
    if answer["status"] == "processed":
        response.status_code = 201
    return answer


@seed.post("/turns", status_code=201, response_model=TurnAnswer, response_model_exclude_unset=True,
           responses=errors(409, 413, seed=True))
def post_turn_inline(turn: TurnIn, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    """The memory-service seed's ingest: the turn processed before the answer, as `POST
    /v1/turns?wait=true`. 201 once the turn is stored: `status` says `processed`, or `queued` with
    an `error` when inline processing failed or the turn is over MEMEX_INLINE_MAX_CHARS, and the
    workers will process it."""
    return ingest.ingest_turn(ctx, tenant_id, turn, wait=True)


@v1.get("/v1/turns/{turn_id}", response_model=TurnAnswer, response_model_exclude_unset=True,
            responses=errors(404, 409))
def get_turn(turn_id: Id, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return ingest.turn_status(ctx, tenant_id, turn_id)


@v1.post("/v1/memories", status_code=201, response_model=Memory, responses=errors(409, 413))
def post_memory(memory: MemoryPostIn, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    """Store one memory as given, no extraction (also the memex seed's create)."""
    return memories.add(ctx, tenant_id, memory)


@v1.get("/v1/backfills", response_model=BackfillList, responses=errors(409))
def list_backfills(user_id: Optional[Id] = None, limit: int = Query(50, ge=1, le=500),
                   cursor: Optional[str] = Query(None, max_length=1024,
                                                 description="The `next_cursor` of the previous page"),
                   tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    """The tenant's imports, re-embeddings and re-extractions, the newest first, for a client that
    no longer has a job's id. With `user_id`, only the jobs run for that user: a job over the whole
    tenant (no `user_id`) is listed only without the filter."""
    return backfill.listing(ctx, tenant_id, user_id, limit, cursor)


@v1.get("/v1/backfills/{backfill_id}", response_model=Backfill, responses=errors(404, 409))
def get_backfill(backfill_id: Id, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return backfill.status(ctx, tenant_id, backfill_id)


router = APIRouter()
router.include_router(v1)
router.include_router(seed)
handler = lambda_handler(router)
