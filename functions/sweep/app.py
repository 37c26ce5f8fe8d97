"""SweepFn (every 5 minutes): re-publish turns whose publish to the extraction queue was lost."""

from memex.ingest import sweep
from memex_edge.context import get_context
from memex_edge.observability import log_metrics, logger


@logger.inject_lambda_context
@log_metrics
def handler(event, context):
    return {"republished": sweep(get_context())}
