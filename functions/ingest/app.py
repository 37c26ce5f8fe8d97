"""IngestFn: POST /v1/turns, GET /v1/turns/{turn_id}, POST /v1/memories, GET /v1/backfills/{id}."""

from fastapi import APIRouter, Depends, Response

from memex import backfill, ingest, memories
from memex.context import Context
from memex.models import Id, MemoryIn, TurnIn
from memex_edge.http import context, lambda_handler, tenant

router = APIRouter()


@router.post("/v1/turns", status_code=202)
def post_turn(turn: TurnIn, response: Response, wait: bool = False,
              tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    answer = ingest.ingest_turn(ctx, tenant_id, turn, wait)
    if answer["status"] == "processed":
        response.status_code = 201
    return answer


@router.get("/v1/turns/{turn_id}")
def get_turn(turn_id: Id, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return ingest.turn_status(ctx, tenant_id, turn_id)


@router.post("/v1/memories", status_code=201)
def post_memory(memory: MemoryIn, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return memories.add(ctx, tenant_id, memory)


@router.get("/v1/backfills/{backfill_id}")
def get_backfill(backfill_id: Id, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return backfill.status(ctx, tenant_id, backfill_id)


handler = lambda_handler(router)
