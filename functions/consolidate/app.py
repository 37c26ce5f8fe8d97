"""ConsolidateFunction (every hour): summarise old episodic memories of users over the threshold."""

from memex.consolidation.job import consolidate_all
from memex_edge.context import get_context
from memex_edge.scheduled import scheduled_handler


@scheduled_handler
def handler(event, context):
    return consolidate_all(get_context()).to_dict()
