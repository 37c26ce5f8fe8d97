"""BackfillWorkerFunction: one chunk of a bulk job (import JSON Lines from a path or S3, re-embed,
re-extract), then the next chunk re-enqueued, until the job is done."""

from typing import Iterator

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from memex import backfill
from memex.jobs import BackfillJob
from memex_edge.context import get_context, load_embedder_at_init
from memex_edge.observability import logger
from memex_edge.workers import batch_handler, last_delivery_records_failure

processor = BatchProcessor(event_type=EventType.SQS)

READ_BYTES = 1 << 16


def source_of(job: BackfillJob) -> backfill.Source:
    """Opens the import's file or S3 object at a byte offset: a seek, or a ranged GET, so each
    chunk reads from where the previous one ended."""

    def read(offset: int) -> Iterator[bytes]:
        if job.s3_uri:
            import boto3

            bucket, _, key = job.s3_uri.removeprefix("s3://").partition("/")
            ranged = {"Range": f"bytes={offset}-"} if offset else {}
            body = boto3.client("s3").get_object(Bucket=bucket, Key=key, **ranged)["Body"]
            try:
                yield from body.iter_chunks(READ_BYTES)
            finally:
                body.close()  # a chunk reads only its lines: the rest is not downloaded
        else:
            with open(job.path, "rb") as handle:
                handle.seek(offset)
                yield from iter(lambda: handle.read(READ_BYTES), b"")

    return read


def record_handler(record: SQSRecord) -> None:
    ctx = get_context()
    job = BackfillJob.from_json(record.body)
    with last_delivery_records_failure(ctx, record, lambda error: backfill.mark_failed(ctx, job, error)):
        backfill.run_chunk(ctx, job, source_of(job))
    logger.info("backfill chunk done", extra={"backfill_id": job.backfill_id, "offset": job.offset})


handler = batch_handler("backfill", processor, record_handler)
# An import's or a re-embedding's every chunk embeds.
load_embedder_at_init()
