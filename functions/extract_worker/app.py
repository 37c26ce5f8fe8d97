"""ExtractWorkerFunction: embed a turn's messages, store episodic memories, pass candidates on."""

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from memex import pipeline
from memex.jobs import ExtractionJob
from memex_edge.context import get_context, load_embedder_at_init
from memex_edge.workers import batch_handler, jobs_of, last_delivery, last_delivery_records_failure

processor = BatchProcessor(event_type=EventType.SQS)


def extract_batch(records: list[SQSRecord]) -> None:
    """The batch's turns extracted together, their messages embedded in one call; each record then
    finds its turn extracted and passes its candidates on."""
    ctx = get_context()
    jobs = jobs_of(records, ExtractionJob)
    for tenant_id in dict.fromkeys(j.tenant_id for j in jobs):
        pipeline.extract_many(ctx, tenant_id, [j.turn_id for j in jobs if j.tenant_id == tenant_id])


def record_handler(record: SQSRecord) -> None:
    ctx = get_context()
    job = ExtractionJob.from_json(record.body)
    def record_failure(error: str) -> None:
        pipeline.mark_failed(ctx, job.tenant_id, job.turn_id, error)

    def record_retry(error: str) -> None:
        pipeline.note_retry(ctx, job.tenant_id, job.turn_id, error)

    with last_delivery_records_failure(ctx, record, record_failure, record_retry):
        follow_up = pipeline.extract(ctx, job, last_delivery=last_delivery(ctx, record))
        if follow_up is not None:
            ctx.publisher.publish_supersession(follow_up)


handler = batch_handler("extraction", processor, record_handler, prepare=extract_batch)
# Every batch embeds its turns' messages.
load_embedder_at_init()
