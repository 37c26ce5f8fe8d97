"""The slice of the Lambda context object that handlers and Powertools read, and the labelling of
each local invocation's log lines with the function that really handled it."""

from __future__ import annotations

import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator


@dataclass
class LocalLambdaContext:
    function_name: str
    memory_limit_in_mb: int = 1024
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    log_group_name: str = "local"
    log_stream_name: str = "local"
    # The function's Timeout: what it has left counts down from its start, as in Lambda, so that a
    # job sizing its work by the time left (the sweep's erasures, consolidation, the LLM time budget)
    # stops as it would there. Whatever runs a function passes template.yaml's (infra.template.function_timeout);
    # the default serves contexts that only label an HTTP request's log lines.
    timeout_seconds: float = 300.0
    started: float = field(default_factory=time.monotonic)

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:us-east-1:000000000000:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.started + self.timeout_seconds - time.monotonic()) * 1000))


def label(context: LocalLambdaContext) -> None:
    """Names `context`'s function (name and ARN) and request on every log line of this thread (or
    asyncio task) from now on. Powertools' inject_lambda_context sets them process-wide, which is right in
    Lambda, where a process runs one function; here one process runs every function in threads,
    so without this a line would carry whichever function was invoked last."""
    from memex_edge.observability import logger

    logger.thread_safe_append_keys(function_name=context.function_name, function_arn=context.invoked_function_arn,
                                   function_request_id=context.aws_request_id)


_LABELS = ("function_name", "function_arn", "function_request_id")


@contextmanager
def labelled(context: LocalLambdaContext) -> Iterator[LocalLambdaContext]:
    """`label` for the duration of one invocation on a thread that does other work after it; the
    thread's own labels (a poller's) come back after it."""
    from memex_edge.observability import logger

    before = {k: v for k, v in logger.thread_safe_get_current_keys().items() if k in _LABELS}
    label(context)
    try:
        yield context
    finally:
        logger.thread_safe_remove_keys(list(_LABELS))
        if before:
            logger.thread_safe_append_keys(**before)
