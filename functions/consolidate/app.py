"""ConsolidateFn (every hour): summarise old episodic memories of users over the threshold."""

from memex.consolidation.job import consolidate_all
from memex_edge.context import get_context
from memex_edge.observability import log_metrics, logger


@logger.inject_lambda_context
@log_metrics
def handler(event, context):
    return consolidate_all(get_context()).to_dict()
