"""SupersedeWorkerFn: decide each candidate against the user's active memories (FIFO per user)."""

from aws_lambda_powertools.utilities.batch import SqsFifoPartialProcessor, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from memex import pipeline
from memex.jobs import SupersessionJob
from memex_edge.context import get_context
from memex_edge.observability import logger, metrics, tracer
from memex_edge.workers import last_delivery_records_failure

# Within a message group, a failure stops the rest of the batch so that order is kept;
# other groups carry on.
processor = SqsFifoPartialProcessor(skip_group_on_error=True)


def record_handler(record: SQSRecord) -> None:
    ctx = get_context()
    job = SupersessionJob.from_json(record.body)
    with last_delivery_records_failure(ctx, record, lambda error: pipeline.mark_failed(ctx, job.tenant_id, job.turn_id, error)):
        pipeline.resolve(ctx, job)


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event, context):
    metrics.add_metric(name="RecordsReceived", unit="Count", value=len(event.get("Records", [])))
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
