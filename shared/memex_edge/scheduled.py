"""The Lambda entry point of a scheduled job: its log lines and metrics, and its chat and
OpenAI-compatible embedding calls within the invocation's time (deadline.py)."""

from __future__ import annotations

from typing import Any, Callable

from memex_edge.deadline import llm_within
from memex_edge.observability import log_metrics, logger


def scheduled_handler(job: Callable[[dict, Any], Any]) -> Callable[[dict, Any], Any]:
    """`job(event, context)` as a Lambda handler. Past the function's timeout Lambda stops the run
    where it is; within the budget a job's calls end first, and the job stops where the next run
    can go on (consolidation's `out_of_time`)."""

    @logger.inject_lambda_context
    @log_metrics
    def handler(event: dict, context: Any) -> Any:
        with llm_within(context):
            return job(event, context)

    return handler
