"""RecallFn: POST /v1/recall, memories packed into a token budget with citations."""

from fastapi import APIRouter, Depends

from memex.context import Context
from memex.models import RecallIn
from memex.recall import recall
from memex_edge.http import context, lambda_handler, tenant

router = APIRouter()


@router.post("/v1/recall")
def post_recall(request: RecallIn, tenant_id: str = Depends(tenant), ctx: Context = Depends(context)) -> dict:
    return recall(ctx, tenant_id, request)


handler = lambda_handler(router)
