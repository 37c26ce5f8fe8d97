"""What the domain needs from the outside world but does not implement itself."""

from __future__ import annotations

from typing import Protocol, Sequence

from memex.jobs import BackfillJob, ExtractionJob, SupersessionJob
from memex.metrics import Metric


# The most jobs one publish_extractions or publish_supersessions call sends: SQS's SendMessageBatch limit.
BATCH_MAX = 10


class Publisher(Protocol):
    """Sends jobs to the worker queues (SQS in every runtime; see memex_edge.sqs)."""

    def publish_extraction(self, job: ExtractionJob) -> None: ...

    def publish_extractions(self, jobs: Sequence[ExtractionJob]) -> list[bool]:
        """Up to BATCH_MAX jobs in one request; which of them the queue took, in order (it answers each
        on its own). Raises when the request as a whole failed (the queue unreachable)."""
        ...

    def publish_supersession(self, job: SupersessionJob) -> None: ...

    def publish_supersessions(self, jobs: Sequence[SupersessionJob]) -> list[bool]:
        """As publish_extractions."""
        ...

    def publish_backfill(self, job: BackfillJob) -> None: ...

    def ping(self) -> None:
        """Raise if the queues cannot be reached."""
        ...

    def backlog(self, queue: str) -> int:
        """How many messages the queue ("extraction" or "supersession") holds, visible, in flight
        or delayed (approximate, as SQS counts them)."""
        ...

    def redelivery_seconds(self, queue: str) -> int:
        """How long after a failed delivery the queue ("extraction") delivers the message again:
        its visibility timeout."""
        ...


class Metrics(Protocol):
    """Records what happens (CloudWatch in Lambda, Prometheus locally; see memex.metrics)."""

    def record(self, metric: Metric, value: float = 1, **labels: str) -> None:
        """Add `value` to a counter, observe it in a histogram or set a gauge, as `metric.kind`
        says; `labels` are exactly `metric.labels`."""
        ...
