"""SweepFunction (every 5 minutes): re-publish turns whose publish to the extraction queue was lost, make
the jobs to come whose day has come the users' jobs (a user who says nothing that day too), and go on
with the user erasures a DELETE began and left unfinished (a user with a long history), then fill in the vectors
of the memories stored or left without one while the embedder failed (memex/vectorless.py)."""

import time
from typing import Any

from memex import memories, pipeline, vectorless
from memex.context import Context
from memex.ingest import sweep
from memex_edge.context import get_context
from memex_edge.scheduled import scheduled_handler

# The share of what the invocation has left, once the lost turns are re-published, in which the job
# starts and then the erasures may begin transactions. The rest is for the transaction begun last to
# commit (each erasure's of at most MEMEX_ERASURE_CHUNK_ROWS rows; the longest measured took 6 s on a
# loaded machine, docs/measurements/erasure.md) and for the run to end before 80% of the function's
# Timeout, where WorkerFunctionDurationAlarm warns: with the template's 60 s, erasing stops beginning
# at ~35 s.
SHARE_OF_INVOCATION = 0.6
# Of that share, what the job starts may take first: the erasures always keep the rest (~23 s of the
# template's 60 s). A start took ~0.17 s on a loaded 2-core machine, its model loaded
# (docs/measurements/performance.md, nineteenth stop), so the starts' ~12 s is some 70 users a run at
# worst; those the time does not reach are the next run's, and a user's own next turn starts theirs.
JOBS_SHARE = 1 / 3


def run(ctx: Context, context: Any) -> dict[str, int]:
    # The lost turns first: re-publishing them is a few queries and is what keeps ingestion moving for
    # every user, so it is never left without time by a job start or an erasure.
    republished = sweep(ctx)
    seconds = context.get_remaining_time_in_millis() / 1000 * SHARE_OF_INVOCATION
    deadline = time.monotonic() + seconds
    jobs = pipeline.start_jobs_due(ctx, seconds * JOBS_SHARE)
    erasures_finished = memories.finish_erasures(ctx, deadline - time.monotonic())
    # The vectors last: a memory waiting for one is found by its words meanwhile, and erasing is owed at once.
    # An embedder the starts found down is not asked again in this run.
    return {"republished": republished, "jobs_started": jobs.started, "jobs_failed": jobs.failed,
            "jobs_left": jobs.left, "jobs_lock_held": jobs.lock_held, "erasures_finished": erasures_finished,
            "vectors_filled": vectorless.fill(ctx, deadline - time.monotonic(), embedder_down=jobs.embedder_down)}


@scheduled_handler
def handler(event, context):
    return run(get_context(), context)
