"""SweepFunction (every 5 minutes): re-publish turns whose publish to the extraction queue was lost, make
the jobs to come whose day has come the users' jobs (a user who says nothing that day too), and go on
with the user erasures a DELETE began and left unfinished (a user with a long history)."""

from typing import Any

from memex import memories, pipeline
from memex.context import Context
from memex.ingest import sweep
from memex_edge.context import get_context
from memex_edge.scheduled import scheduled_handler

# The share of what the invocation has left, once the lost turns are re-published, in which the
# erasures may begin transactions. The rest is for the transaction begun last to commit (each of at
# most MEMEX_ERASURE_CHUNK_ROWS rows; the longest measured took 6 s on a loaded machine,
# docs/measurements/erasure.md) and for the run to end before 80% of the function's Timeout, where
# WorkerFunctionDurationAlarm warns: with the template's 60 s, erasing stops beginning at ~35 s.
ERASURE_SHARE_OF_INVOCATION = 0.6


def run(ctx: Context, context: Any) -> dict[str, int]:
    # The lost turns first: re-publishing them is a few queries and is what keeps ingestion moving for
    # every user, so it is never left without time by an erasure that takes whatever it is given.
    republished = sweep(ctx)
    started = pipeline.start_jobs_due(ctx)
    seconds = context.get_remaining_time_in_millis() / 1000 * ERASURE_SHARE_OF_INVOCATION
    return {"republished": republished, "jobs_started": started,
            "erasures_finished": memories.finish_erasures(ctx, seconds)}


@scheduled_handler
def handler(event, context):
    return run(get_context(), context)
