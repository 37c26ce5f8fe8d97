"""What every SQS worker shares: its Lambda entry point, and recording a failure on a
message's last delivery."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

from aws_lambda_powertools.utilities.batch import BasePartialBatchProcessor, process_partial_response
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from memex.context import Context
from memex.errors import public_description
from memex.metrics import QUEUE_AGE, RECORDS_FAILED, RECORDS_RECEIVED
from memex_edge.context import get_context
from memex_edge.deadline import llm_within
from memex_edge.observability import log_metrics, logger, tracer, warn_of_outage

T = TypeVar("T")


def batch_handler(queue: str, processor: BasePartialBatchProcessor, record_handler: Callable[[SQSRecord], None],
                  prepare: Callable[[list[SQSRecord]], None] | None = None) -> Callable[[dict, Any], dict]:
    """The Lambda entry point of the worker of `queue` (the name its metrics carry): each record
    through `record_handler`, traced (its return value never captured: it could quote the user);
    failures reported as partial batch failures (the event source mapping retries only those).

    `prepare`, given the whole batch first, does the records' work for all of them at once where
    that is cheaper (one embedding call instead of one per record). Record by record, the work is
    idempotent, so each record then finds its part done; if `prepare` fails, each record does all of
    its own, and its failure is reported for it alone.

    All the batch's chat calls end well before the invocation's timeout (deadline.py), so that a
    slow or hung LLM costs the LLM's reading (the rules stand in), not the batch."""

    traced = tracer.capture_method(record_handler, capture_response=False)

    @logger.inject_lambda_context
    @tracer.capture_lambda_handler
    @log_metrics
    def handler(event: dict, context: Any) -> dict:
        records = event.get("Records", [])
        recorded = get_context().metrics
        recorded.record(RECORDS_RECEIVED, len(records), queue=queue)
        now = time.time()
        for record in records:
            sent = (record.get("attributes") or {}).get("SentTimestamp")
            if sent:
                recorded.record(QUEUE_AGE, max(0.0, now - int(sent) / 1000), queue=queue)
        with llm_within(context):
            if prepare is not None and len(records) > 1:
                try:
                    prepare([SQSRecord(r) for r in records])
                except Exception as exc:  # noqa: BLE001 - each record then does its own work
                    logger.warning("preparing the batch failed (%s); each record does its own work",
                                   public_description(exc))
            try:
                result = process_partial_response(event=event, record_handler=traced, processor=processor,
                                                  context=context)
            except BatchProcessingError as exc:  # every record failed
                recorded.record(RECORDS_FAILED, len(records), queue=queue)
                # An outage said once a batch, by the worker itself: Lambda logs the raise as its own error,
                # naming no cause memex knows.
                warn_of_outage(logger, exc, f"{context.function_name} failed every record of the batch",
                               "; the whole batch will be retried")
                raise
        recorded.record(RECORDS_FAILED, len(result.get("batchItemFailures", [])), queue=queue)
        return result

    return handler


def jobs_of(records: list[SQSRecord], job_type: type[T]) -> list[T]:
    """The jobs of the records that parse, in order (the others fail on their own in the record handler)."""
    jobs = []
    for record in records:
        try:
            jobs.append(job_type.from_json(record.body))
        except ValueError:
            continue
    return jobs


def last_delivery(ctx: Context, record: SQSRecord) -> bool:
    """Whether this delivery is the last before the DLQ."""
    return int(record.attributes.approximate_receive_count) >= ctx.settings.max_receive_count


@contextmanager
def last_delivery_records_failure(ctx: Context, record: SQSRecord, record_failure: Callable[[str], None],
                                  record_retry: Callable[[str], None] | None = None) -> Iterator[None]:
    """Re-raise every failure so the record is retried; when this delivery is the last one before
    the DLQ, record the failure first (a turn or backfill marked failed) so its status tells the
    truth, and before another, `record_retry` records that a delivery is still to come."""
    try:
        yield
    except Exception as exc:
        # The type only: an exception's message can quote what the user said.
        if last_delivery(ctx, record):
            logger.error("message %s failed on its last delivery: %s", record.message_id, public_description(exc))
            record_failure(public_description(exc))
        elif record_retry is not None:
            record_retry(public_description(exc))
        raise
