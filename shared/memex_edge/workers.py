"""What every SQS worker shares: marking a turn failed on its last delivery."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from memex import pipeline
from memex.context import Context
from memex_edge.observability import logger


@contextmanager
def last_delivery_marks_failed(ctx: Context, record: SQSRecord, tenant_id: str, turn_id: str) -> Iterator[None]:
    """Re-raise every failure so the record is retried; when this delivery is the last one before
    the DLQ, record the turn as failed first so GET /v1/turns/{id} tells the truth."""
    try:
        yield
    except Exception as exc:
        if int(record.attributes.approximate_receive_count) >= ctx.settings.max_receive_count:
            logger.error("turn %s failed on its last delivery: %s", turn_id, exc)
            pipeline.mark_failed(ctx, tenant_id, turn_id, f"{type(exc).__name__}: {exc}")
        raise
