"""A local stand-in for Lambda's SQS event source mapping, against a real SQS endpoint.

Like the mapping: it receives batches, calls the handler with an SQS event, deletes the
records the handler did not report in batchItemFailures, and leaves the failed ones to come
back after the visibility timeout, until the queue's redrive policy moves them to the DLQ.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from typing import Any, Callable

from infra import template
from infra.local.lambda_context import LocalLambdaContext, label, labelled
from memex_edge.observability import database_outage, llm_outage

log = logging.getLogger("memex.poller")

# A queue that keeps failing (gone, its endpoint down) is tried again after 1, 2, 4, ... s, at most
# this long apart: polled every second, a gone queue wrote a traceback a second into make dev's log.
MAX_RETRY_SECONDS = 30.0

Handler = Callable[[dict[str, Any], Any], Any]


def sqs_event(messages: list[dict[str, Any]], queue_arn: str, region: str) -> dict[str, Any]:
    return {"Records": [{
        "messageId": m["MessageId"],
        "receiptHandle": m["ReceiptHandle"],
        "body": m["Body"],
        "attributes": m.get("Attributes", {}),
        "messageAttributes": m.get("MessageAttributes", {}),
        "md5OfBody": m.get("MD5OfBody") or hashlib.md5(m["Body"].encode()).hexdigest(),
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": region,
    } for m in messages]}


class QueuePoller(threading.Thread):
    def __init__(self, client, queue_url: str, queue_arn: str, handler: Handler, function_name: str,
                 stop: threading.Event, batch_size: int = 10, region: str = "us-east-1",
                 timeout_seconds: float | None = None):
        super().__init__(name=f"poller-{function_name}", daemon=True)
        self._client = client
        self._url = queue_url
        self._arn = queue_arn
        self._handler = handler
        self._function_name = function_name
        self._stopping = stop
        self._batch_size = batch_size
        self._region = region
        # Each batch's time left counts down from the deployed worker's Timeout, as in Lambda: the LLM
        # time budget (memex_edge/deadline.py) is sized by it.
        self._timeout_seconds = template.function_timeout(function_name) if timeout_seconds is None else timeout_seconds

    def run(self) -> None:
        # The thread's own lines (a poll that failed) name its function, not whichever function
        # Powertools labelled the whole process with last (a scheduled run's, say).
        label(LocalLambdaContext(self._function_name, timeout_seconds=self._timeout_seconds))
        failures = 0
        while not self._stopping.is_set():
            try:
                self.poll_once(wait_seconds=1)
            except Exception as exc:  # noqa: BLE001 - the mapping keeps polling whatever a batch did
                failures += 1
                wait = min(MAX_RETRY_SECONDS, 2.0 ** (failures - 1))
                if failures == 1:
                    log.exception("polling %s failed; tried again in %.0f s, at most %.0f s apart while it fails",
                                  self._url, wait, MAX_RETRY_SECONDS)
                else:
                    log.warning("polling %s failed again (%s, %d in a row); next try in %.0f s",
                                self._url, type(exc).__name__, failures, wait)
                self._stopping.wait(wait)
            else:
                if failures:
                    log.info("polling %s works again after %d failures", self._url, failures)
                failures = 0

    def pending(self) -> int:
        attributes = self._client.get_queue_attributes(QueueUrl=self._url, AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
        return sum(int(v) for v in attributes.values())

    def poll_once(self, wait_seconds: int = 0) -> int:
        """Receive and handle one batch; return how many records it held."""
        messages = self._client.receive_message(
            QueueUrl=self._url, MaxNumberOfMessages=self._batch_size, WaitTimeSeconds=wait_seconds,
            AttributeNames=["All"], MessageAttributeNames=["All"],
        ).get("Messages", [])
        if not messages:
            return 0
        event = sqs_event(messages, self._arn, self._region)
        try:
            with labelled(LocalLambdaContext(self._function_name, timeout_seconds=self._timeout_seconds)) as context:
                result = self._handler(event, context) or {}
            failed = {f["itemIdentifier"] for f in result.get("batchItemFailures", [])}
        except Exception as exc:  # noqa: BLE001 - a crashed invocation fails the whole batch, as in Lambda
            # An outage (the LLM's, the database's) the worker warned of itself (memex_edge.workers), without
            # the traceback a bug keeps.
            if not (llm_outage(exc) or database_outage(exc)):
                log.exception("%s raised; the whole batch will be retried", self._function_name)
            failed = {m["MessageId"] for m in messages}
        done = [m for m in messages if m["MessageId"] not in failed]
        if done:
            self._client.delete_message_batch(QueueUrl=self._url, Entries=[
                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)
            ])
        return len(messages)


def drain(pollers: list[QueuePoller], timeout: float = 60.0, between: Callable[[], None] | None = None) -> None:
    """Poll every queue until none holds a message, visible or in flight (used by `memex invoke
    --drain`, `memex backfill` and the tests); `between` is called after each round of batches."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        handled = sum(p.poll_once() for p in pollers)
        if between is not None:
            between()
        if handled == 0:
            if all(p.pending() == 0 for p in pollers):
                return
            time.sleep(0.2)
    raise TimeoutError("queues did not drain")
