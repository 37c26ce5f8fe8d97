"""ExtractWorkerFn: embed a turn's messages, store episodic memories, pass candidates on."""

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from memex import pipeline
from memex.jobs import ExtractionJob
from memex_edge.context import get_context
from memex_edge.observability import logger, metrics, tracer
from memex_edge.workers import last_delivery_records_failure

processor = BatchProcessor(event_type=EventType.SQS)


def record_handler(record: SQSRecord) -> None:
    ctx = get_context()
    job = ExtractionJob.from_json(record.body)
    with last_delivery_records_failure(ctx, record, lambda error: pipeline.mark_failed(ctx, job.tenant_id, job.turn_id, error)):
        follow_up = pipeline.extract(ctx, job)
        if follow_up is not None:
            ctx.publisher.publish_supersession(follow_up)


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event, context):
    metrics.add_metric(name="RecordsReceived", unit="Count", value=len(event.get("Records", [])))
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
