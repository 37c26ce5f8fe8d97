"""What every SQS worker shares: recording a failure on a message's last delivery."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from memex.context import Context
from memex_edge.observability import logger


@contextmanager
def last_delivery_records_failure(ctx: Context, record: SQSRecord, record_failure: Callable[[str], None]) -> Iterator[None]:
    """Re-raise every failure so the record is retried; when this delivery is the last one before
    the DLQ, record the failure first (a turn or backfill marked failed) so its status tells the truth."""
    try:
        yield
    except Exception as exc:
        if int(record.attributes.approximate_receive_count) >= ctx.settings.max_receive_count:
            logger.error("message %s failed on its last delivery: %s", record.message_id, exc)
            record_failure(f"{type(exc).__name__}: {exc}")
        raise
