"""SweepFunction (every 5 minutes): re-publish turns whose publish to the extraction queue was lost, and
go on with the user erasures a DELETE began and left unfinished (a user with a long history)."""

from memex import memories
from memex.ingest import sweep
from memex_edge.context import get_context
from memex_edge.scheduled import scheduled_handler


@scheduled_handler
def handler(event, context):
    ctx = get_context()
    return {"republished": sweep(ctx),
            "erasures_finished": memories.finish_erasures(ctx, ctx.settings.erasure_request_seconds)}
