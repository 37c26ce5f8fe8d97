"""BackfillWorkerFn: import a JSON Lines file of historical turns from a path or an S3 object."""

import json
from typing import Iterator

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from memex.backfill import import_lines
from memex_edge.context import get_context
from memex_edge.observability import logger, metrics, tracer

processor = BatchProcessor(event_type=EventType.SQS)


def _lines(message: dict) -> Iterator[str]:
    if "s3_uri" in message:
        import boto3

        bucket, _, key = message["s3_uri"].removeprefix("s3://").partition("/")
        body = boto3.client("s3").get_object(Bucket=bucket, Key=key)["Body"]
        for raw in body.iter_lines():
            yield raw.decode("utf-8")
    else:
        with open(message["path"], encoding="utf-8") as handle:
            yield from handle


def record_handler(record: SQSRecord) -> None:
    message = json.loads(record.body)
    if message.get("kind") != "import" or not message.get("tenant_id") or not (
        message.get("path") or message.get("s3_uri")
    ):
        raise ValueError("backfill message needs kind=import, tenant_id and path or s3_uri")
    source = message.get("s3_uri") or message["path"]
    counts = import_lines(get_context(), message["tenant_id"], source, _lines(message))
    logger.info("backfill imported", extra={"source": source, **counts})


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event, context):
    metrics.add_metric(name="RecordsReceived", unit="Count", value=len(event.get("Records", [])))
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
