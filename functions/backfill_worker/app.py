"""BackfillWorkerFn: one chunk of a bulk job (import JSON Lines from a path or S3, re-embed,
re-extract), then the next chunk re-enqueued, until the job is done."""

from typing import Iterator

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from memex import backfill
from memex.jobs import BackfillJob
from memex_edge.context import get_context
from memex_edge.observability import logger
from memex_edge.workers import batch_handler, last_delivery_records_failure

processor = BatchProcessor(event_type=EventType.SQS)


def _lines(job: BackfillJob) -> Iterator[str]:
    if job.s3_uri:
        import boto3

        bucket, _, key = job.s3_uri.removeprefix("s3://").partition("/")
        body = boto3.client("s3").get_object(Bucket=bucket, Key=key)["Body"]
        for raw in body.iter_lines():
            yield raw.decode("utf-8")
    else:
        with open(job.path, encoding="utf-8") as handle:
            yield from handle


def record_handler(record: SQSRecord) -> None:
    ctx = get_context()
    job = BackfillJob.from_json(record.body)
    with last_delivery_records_failure(ctx, record, lambda error: backfill.mark_failed(ctx, job, error)):
        follow_up = backfill.run_chunk(ctx, job, lambda: _lines(job))
        if follow_up is not None:
            ctx.publisher.publish_backfill(follow_up)
    logger.info("backfill chunk done", extra={"backfill_id": job.backfill_id, "offset": job.offset})


handler = batch_handler(processor, record_handler)
