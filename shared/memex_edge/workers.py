"""What every SQS worker shares: its Lambda entry point, and recording a failure on a
message's last delivery."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator

from aws_lambda_powertools.utilities.batch import BasePartialBatchProcessor, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from memex.context import Context
from memex.errors import public_description
from memex_edge.observability import logger, metrics, tracer


def batch_handler(processor: BasePartialBatchProcessor, record_handler: Callable[[SQSRecord], None]
                  ) -> Callable[[dict, Any], dict]:
    """The Lambda entry point of a worker: each record through `record_handler`, failures
    reported as partial batch failures (the event source mapping retries only those)."""

    @logger.inject_lambda_context
    @tracer.capture_lambda_handler
    @metrics.log_metrics
    def handler(event: dict, context: Any) -> dict:
        metrics.add_metric(name="RecordsReceived", unit="Count", value=len(event.get("Records", [])))
        return process_partial_response(event=event, record_handler=record_handler, processor=processor,
                                        context=context)

    return handler


@contextmanager
def last_delivery_records_failure(ctx: Context, record: SQSRecord, record_failure: Callable[[str], None]) -> Iterator[None]:
    """Re-raise every failure so the record is retried; when this delivery is the last one before
    the DLQ, record the failure first (a turn or backfill marked failed) so its status tells the truth."""
    try:
        yield
    except Exception as exc:
        if int(record.attributes.approximate_receive_count) >= ctx.settings.max_receive_count:
            # The type only: an exception's message can quote what the user said.
            logger.error("message %s failed on its last delivery: %s", record.message_id, public_description(exc))
            record_failure(public_description(exc))
        raise
