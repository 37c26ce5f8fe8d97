"""RecallFunction: POST /v1/recall, memories packed into a token budget with citations; the
memory-service seed's POST /recall."""

from fastapi import APIRouter, Depends

from memex.context import Context
from memex.models import RecallIn, SeedRecallIn
from memex.recall import recall
from memex_edge.answers import RecallAnswer
from memex_edge.context import load_embedder_at_init
from memex_edge.http.dependencies import context, tenant
from memex_edge.http.lambda_entry import lambda_handler
from memex_edge.http.openapi import errors
from memex_edge.http.seeds import MEMORY_SERVICE_SEED, seed_router

v1 = APIRouter(tags=["v1"])
seed = seed_router(MEMORY_SERVICE_SEED)


@v1.post("/v1/recall", response_model=RecallAnswer, responses=errors(409, 413))
def post_recall(request: RecallIn, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return recall(ctx, tenant_id, request)


@seed.post("/recall", response_model=RecallAnswer, responses=errors(409, 413, seed=True))
def post_recall_seed(request: SeedRecallIn, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)
                     ) -> dict:
    """The memory-service seed's recall: `POST /v1/recall` with `require_relevant` on by default."""
    return recall(ctx, tenant_id, request)


router = APIRouter()
router.include_router(v1)
router.include_router(seed)
handler = lambda_handler(router)
# A recall embeds its query.
load_embedder_at_init()
