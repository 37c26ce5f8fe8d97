"""SupersedeWorkerFunction: decide each candidate against the user's active memories (FIFO per user)."""

from aws_lambda_powertools.utilities.batch import SqsFifoPartialProcessor
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from memex import pipeline
from memex.jobs import SupersessionJob
from memex_edge.context import get_context, load_embedder_at_init
from memex_edge.workers import batch_handler, jobs_of, last_delivery_records_failure

# Within a message group, a failure stops the rest of the batch so that order is kept;
# other groups carry on.
processor = SqsFifoPartialProcessor(skip_group_on_error=True)


def resolve_batch(records: list[SQSRecord]) -> None:
    """The batch's turns decided in delivery order (FIFO within each user), their candidates
    embedded in one call; it stops at the first failure, which its record then meets again alone."""
    pipeline.resolve_many(get_context(), jobs_of(records, SupersessionJob))


def record_handler(record: SQSRecord) -> None:
    ctx = get_context()
    job = SupersessionJob.from_json(record.body)
    def record_failure(error: str) -> None:
        pipeline.mark_failed(ctx, job.tenant_id, job.turn_id, error)

    with last_delivery_records_failure(ctx, record, record_failure):
        pipeline.resolve(ctx, job)


handler = batch_handler("supersession", processor, record_handler, prepare=resolve_batch)
# Every batch embeds its candidates.
load_embedder_at_init()
