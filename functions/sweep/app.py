"""SweepFunction (every 5 minutes): re-publish turns whose publish to the extraction queue was lost."""

from memex.ingest import sweep
from memex_edge.context import get_context
from memex_edge.scheduled import scheduled_handler


@scheduled_handler
def handler(event, context):
    return {"republished": sweep(get_context())}
