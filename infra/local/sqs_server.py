"""An SQS endpoint on loopback (moto in server mode) and the queues the template declares, made
with the template's own attributes (FIFO deduplication scope, retention, encryption)."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass

from infra import template

# The local name of each queue -> its resource in template.yaml (whose DLQ it names).
LOGICAL_IDS = {"memex-extraction": "ExtractionQueue", "memex-supersession": "SupersessionQueue",
               "memex-backfill": "BackfillQueue"}


@dataclass(frozen=True)
class QueueSpec:
    name: str
    fifo: bool
    visibility_timeout: int


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_moto(port: int = 0):
    """Start moto's SQS server on 127.0.0.1 (port 0: a free port, bound by the server itself, so that
    no other process can take it between its choice and its use); return (server, endpoint_url)."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    return server, f"http://127.0.0.1:{server.get_host_and_port()[1]}"


def ensure_queues(client, specs: list[QueueSpec], max_receive_count: int,
                  logical_ids: dict[str, str] = LOGICAL_IDS) -> dict[str, dict[str, str]]:
    """Create each queue with its DLQ and redrive policy, as template.yaml does (the spec's
    visibility timeout and `max_receive_count` in place of the template's, so that tests see
    retries in seconds); idempotent. `logical_ids` maps each spec's name to its queue in the
    template. Returns {name: {"url": ..., "dlq_url": ..., "arn": ...}}."""
    created = {}
    for spec in specs:
        attributes, dlq_id, _ = template.queue_attributes(logical_ids[spec.name])
        dlq_attributes, _, _ = template.queue_attributes(dlq_id)
        if (attributes.get("FifoQueue") == "true") != spec.fifo:
            raise ValueError(f"{spec.name}: FIFO is {not spec.fifo} in template.yaml")
        suffix = ".fifo" if spec.fifo else ""
        dlq_url = client.create_queue(QueueName=f"{spec.name}-dlq{suffix}", Attributes=dlq_attributes)["QueueUrl"]
        dlq_arn = client.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        url = client.create_queue(QueueName=f"{spec.name}{suffix}", Attributes={
            **attributes,
            "VisibilityTimeout": str(spec.visibility_timeout),
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": max_receive_count}),
        })["QueueUrl"]
        arn = client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        created[spec.name] = {"url": url, "dlq_url": dlq_url, "arn": arn}
    return created
