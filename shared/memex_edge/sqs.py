"""The SQS publisher: real AWS, LocalStack (via localstack-client) or a loopback endpoint."""

from __future__ import annotations

from functools import cached_property

from memex.config import Settings
from memex.jobs import BackfillJob, ExtractionJob, SupersessionJob


def sqs_client(settings: Settings):
    if settings.use_localstack:
        import localstack_client.session

        return localstack_client.session.Session(region_name=settings.aws_region).client("sqs")
    import boto3

    return boto3.client("sqs", region_name=settings.aws_region, endpoint_url=settings.sqs_endpoint_url or None)


class SqsPublisher:
    def __init__(self, settings: Settings):
        self._settings = settings

    @cached_property
    def _client(self):
        return sqs_client(self._settings)

    def publish_extraction(self, job: ExtractionJob) -> None:
        self._client.send_message(QueueUrl=self._settings.extraction_queue_url, MessageBody=job.to_json())

    def publish_supersession(self, job: SupersessionJob) -> None:
        self._client.send_message(
            QueueUrl=self._settings.supersession_queue_url,
            MessageBody=job.to_json(),
            MessageGroupId=job.group_id,
            # A redelivered extraction republishes the same turn; FIFO drops the copy.
            MessageDeduplicationId=f"{job.tenant_id}:{job.turn_id}:{job.resend}"[-128:],
        )

    def publish_backfill(self, job: BackfillJob) -> None:
        self._client.send_message(QueueUrl=self._settings.backfill_queue_url, MessageBody=job.to_json())

    def ping(self) -> None:
        self._client.get_queue_attributes(
            QueueUrl=self._settings.extraction_queue_url, AttributeNames=["ApproximateNumberOfMessages"]
        )
