"""CleanupFn: the three erasures and GET /health."""

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from memex import memories
from memex.context import Context
from memex.health import health
from memex.models import Id
from memex_edge.http import context, lambda_handler, tenant

router = APIRouter()


@router.delete("/v1/memories/{memory_id}")
def delete_memory(memory_id: Id, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return {"deleted": memories.erase_memory(ctx, tenant_id, memory_id)}


@router.delete("/v1/sessions/{session_id}")
def delete_session(session_id: Id, user_id: Id, tenant_id: str = Depends(tenant),
                   ctx: Context = Depends(context)) -> dict:
    return {"deleted": memories.erase_session(ctx, tenant_id, session_id, user_id)}


@router.delete("/v1/users/{user_id}")
def delete_user(user_id: Id, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return {"deleted": memories.erase_user(ctx, tenant_id, user_id)}


@router.get("/health")
def get_health(ctx: Context = Depends(context)) -> JSONResponse:
    report = health(ctx)
    return JSONResponse(report, status_code=200 if report["status"] == "ok" else 503)


handler = lambda_handler(router)
