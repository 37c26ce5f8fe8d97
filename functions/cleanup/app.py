"""CleanupFunction: the three erasures and GET /health; the memory-service seed's DELETE /sessions/{id}
and DELETE /users/{id}."""

from typing import Any, Optional

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from memex import memories
from memex.context import Context
from memex.health import health
from memex.models import Id
from memex_edge.answers import Health, MemoryDeleted, TurnsDeleted, UserErasing
from memex_edge.http.dependencies import context, tenant
from memex_edge.http.lambda_entry import lambda_handler
from memex_edge.http.openapi import errors
from memex_edge.http.seeds import MEMORY_SERVICE_SEED, seed_router

v1 = APIRouter(tags=["v1"])
seed = seed_router(MEMORY_SERVICE_SEED)


@v1.delete("/v1/memories/{memory_id}", response_model=MemoryDeleted, responses=errors(404, 409))
def delete_memory(memory_id: Id, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    """Erase the memory and its past (every memory it replaced), never what replaced it."""
    return {"deleted": memories.erase_memory(ctx, tenant_id, memory_id)}


@v1.delete("/v1/sessions/{session_id}", response_model=TurnsDeleted, responses=errors(409))
def delete_session(session_id: Id, user_id: Id, tenant_id: str = Depends(tenant),
                   ctx: Context = Depends(context)) -> dict:
    return {"deleted": memories.erase_session(ctx, tenant_id, session_id, user_id)}


@seed.delete("/sessions/{session_id}", response_model=TurnsDeleted, responses=errors(409, seed=True))
def delete_session_seed(session_id: Id, user_id: Optional[Id] = None, tenant_id: str = Depends(tenant),
                        ctx: Context = Depends(context)) -> dict:
    """The memory-service seed's session erasure: its session ids named no user, so without
    `user_id` the session is erased for the one user of the tenant who has one by that id, and
    refused (409 `ambiguous_session`) when several have."""
    if user_id is not None:
        return {"deleted": memories.erase_session(ctx, tenant_id, session_id, user_id)}
    return {"deleted": memories.erase_session_of_its_user(ctx, tenant_id, session_id)}


ERASING = {202: {"model": UserErasing, "description": "Erasure begun, not finished: DELETE the user again (or "
                                                       "leave it to the sweep) until it answers 200"}}


@v1.delete("/v1/users/{user_id}", response_model=TurnsDeleted, responses={**ERASING, **errors()})
def delete_user(user_id: Id, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> Any:
    """Erase everything of the user's. 200 once nothing is left; 202 while a user with a long history is
    still being erased (each DELETE goes on with it)."""
    return _user_erased(memories.erase_user(ctx, tenant_id, user_id))


@seed.delete("/users/{user_id}", response_model=TurnsDeleted, responses={**ERASING, **errors(seed=True)})
def delete_user_seed(user_id: Id, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> Any:
    """The memory-service seed's user erasure: `DELETE /v1/users/{user_id}`."""
    return _user_erased(memories.erase_user(ctx, tenant_id, user_id))


def _user_erased(erased: memories.UserErased) -> Any:
    if erased.finished:
        return {"deleted": erased.counts}
    return JSONResponse(UserErasing(deleted=erased.counts, status="erasing").model_dump(), status_code=202)


@v1.get("/health", response_model=Health,
        responses={503: {"model": Health, "description": "Postgres is unreachable (`status: error`)"}})
def get_health(ctx: Context = Depends(context)) -> JSONResponse:
    report = health(ctx)
    return JSONResponse(report, status_code=200 if report["status"] == "ok" else 503)


router = APIRouter()
router.include_router(v1)
router.include_router(seed)
handler = lambda_handler(router)
