"""The SQS publisher: real AWS, LocalStack (via localstack-client) or a loopback endpoint.

Every message is checked against the limits AWS enforces before it is sent, in every runtime:
moto and LocalStack let through what AWS refuses, so without the check a test would pass on a
message that fails in production.
"""

from __future__ import annotations

import hashlib
import logging
import re
from functools import cached_property
from typing import Any, Sequence

from memex.config import Settings
from memex.jobs import BackfillJob, ExtractionJob, SupersessionJob
from memex.ports import BATCH_MAX

log = logging.getLogger("memex.edge")

# AWS's limits (SQS developer guide, "Quotas related to messages"; SendMessage API reference).
MAX_BODY_BYTES = 256 * 1024
_BODY_CHARACTERS = re.compile("[\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]*")
_FIFO_ID = re.compile(r"[A-Za-z0-9!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]{1,128}")


class QueueContractError(ValueError):
    """A message that SQS in AWS would refuse."""


def check_message(body: str, group_id: str | None = None, deduplication_id: str | None = None) -> int:
    """Raise QueueContractError unless AWS would accept this message; its body's size in bytes."""
    size = len(body.encode("utf-8", errors="surrogatepass"))
    if size > MAX_BODY_BYTES:
        raise QueueContractError(f"message body is {size} bytes; SQS accepts at most {MAX_BODY_BYTES}")
    if not _BODY_CHARACTERS.fullmatch(body):
        raise QueueContractError("message body holds a character SQS does not accept")
    for name, value in (("MessageGroupId", group_id), ("MessageDeduplicationId", deduplication_id)):
        if value is not None and not _FIFO_ID.fullmatch(value):
            raise QueueContractError(f"{name} must be 1 to 128 characters of ASCII letters, digits and "
                                     f"punctuation, got {value[:40]!r}")
    return size


def sqs_client(settings: Settings):
    from botocore.config import Config

    # boto3's defaults wait a minute per attempt for an endpoint that does not answer; a turn is
    # stored before it is published, and the sweep re-sends what was not, so ingest gives up fast.
    config = Config(connect_timeout=2, read_timeout=10, retries={"mode": "standard", "max_attempts": 2})
    if settings.use_localstack:
        import localstack_client.session

        return localstack_client.session.Session(region_name=settings.aws_region).client("sqs", config=config)
    import boto3

    return boto3.client("sqs", region_name=settings.aws_region, endpoint_url=settings.sqs_endpoint_url or None,
                        config=config)


def _fifo(job: SupersessionJob) -> dict[str, str]:
    # A redelivered extraction republishes the same turn and FIFO drops the copy; a re-send by
    # the sweep counts in the id, so it is not dropped as a copy of the message that was lost.
    # Hashed, as the group id is, because ids may hold characters a deduplication id may not.
    deduplication_id = hashlib.sha256(f"{job.tenant_id}\0{job.turn_id}\0{job.resend}".encode()).hexdigest()
    return {"MessageGroupId": job.group_id, "MessageDeduplicationId": deduplication_id}


class SqsPublisher:
    def __init__(self, settings: Settings):
        self._settings = settings

    @cached_property
    def _client(self):
        return sqs_client(self._settings)

    def _send(self, queue_url: str, body: str, **fifo: str) -> None:
        check_message(body, fifo.get("MessageGroupId"), fifo.get("MessageDeduplicationId"))
        self._client.send_message(QueueUrl=queue_url, MessageBody=body, **fifo)

    def _send_batch(self, queue_url: str, entries: list[dict[str, Any]]) -> list[bool]:
        """One SendMessageBatch of these entries (SendMessageBatch's, without their `Id`); which of them
        the queue took, in order. An entry AWS would refuse is not sent, and one the queue refused is
        not taken: the others are (SQS answers each entry of a batch on its own). A batch AWS would refuse
        as a whole is not sent: none taken, and the log says why (raising would say the queue failed)."""
        if len(entries) > BATCH_MAX:
            raise ValueError(f"SendMessageBatch takes at most {BATCH_MAX} messages, got {len(entries)}")
        sendable, size = {}, 0
        for n, entry in enumerate(entries):
            try:
                size += check_message(entry["MessageBody"], entry.get("MessageGroupId"),
                                      entry.get("MessageDeduplicationId"))
            except QueueContractError as refused:
                log.warning("a message of a batch was not sent: %s", refused)
                continue
            sendable[str(n)] = entry
        taken = [False] * len(entries)
        # AWS's limit on a message is also its limit on a batch's; the jobs here are ids, far below a tenth of it.
        if size > MAX_BODY_BYTES:
            log.warning("a batch of %d messages was not sent: their bodies are %d bytes together; SQS accepts at "
                        "most %d in a batch", len(sendable), size, MAX_BODY_BYTES)
            return taken
        if not sendable:
            return taken
        answer = self._client.send_message_batch(QueueUrl=queue_url,
                                                 Entries=[{"Id": n, **entry} for n, entry in sendable.items()])
        for sent in answer.get("Successful", []):
            taken[int(sent["Id"])] = True
        if answer.get("Failed"):
            # The codes only: an entry's message may quote its body.
            log.warning("the queue refused %d of a batch's %d messages (%s)", len(answer["Failed"]), len(sendable),
                        ", ".join(sorted({failed["Code"] for failed in answer["Failed"]})))
        return taken

    def publish_extraction(self, job: ExtractionJob) -> None:
        self._send(self._settings.extraction_queue_url, job.to_json())

    def publish_extractions(self, jobs: Sequence[ExtractionJob]) -> list[bool]:
        return self._send_batch(self._settings.extraction_queue_url, [{"MessageBody": job.to_json()} for job in jobs])

    def publish_supersession(self, job: SupersessionJob) -> None:
        self._send(self._settings.supersession_queue_url, job.to_json(), **_fifo(job))

    def publish_supersessions(self, jobs: Sequence[SupersessionJob]) -> list[bool]:
        return self._send_batch(self._settings.supersession_queue_url,
                                [{"MessageBody": job.to_json(), **_fifo(job)} for job in jobs])

    def publish_backfill(self, job: BackfillJob) -> None:
        self._send(self._settings.backfill_queue_url, job.to_json())

    def backlog(self, queue: str) -> int:
        url = {"extraction": self._settings.extraction_queue_url,
               "supersession": self._settings.supersession_queue_url}[queue]
        counts = self._client.get_queue_attributes(QueueUrl=url, AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed"])["Attributes"]
        return sum(int(value) for value in counts.values())

    def redelivery_seconds(self, queue: str) -> int:
        url = {"extraction": self._settings.extraction_queue_url}[queue]
        return int(self._client.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])
                   ["Attributes"]["VisibilityTimeout"])

    def ping(self) -> None:
        self._client.get_queue_attributes(
            QueueUrl=self._settings.extraction_queue_url, AttributeNames=["ApproximateNumberOfMessages"]
        )
