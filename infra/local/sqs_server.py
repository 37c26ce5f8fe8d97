"""An SQS endpoint on loopback (moto in server mode) and the queues the template declares, made
with the template's own attributes (FIFO deduplication scope, retention, encryption)."""

from __future__ import annotations

import json
import socket
import threading
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


class MotoServer:
    """moto's SQS in server mode on a listening socket, served by a thread of its own."""

    def __init__(self, sock: socket.socket):
        from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
        from werkzeug.serving import make_server

        host, port = sock.getsockname()[:2]
        self._server = make_server(host, port, DomainDispatcherApplication(create_backend_app), threaded=True,
                                   request_handler=MotoRequestHandler, fd=sock.fileno())
        self._thread = threading.Thread(target=self._server.serve_forever, name="moto-sqs", daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._server.port

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join()
        self._server.server_close()


def start_moto(port: int = 0) -> tuple[MotoServer, str]:
    """Start moto's SQS server on 127.0.0.1 (port 0: a free port, bound here and not let go, so that
    no other process can take it between its choice and its use); return (server, endpoint_url).
    A port in use raises OSError naming it: bound in moto's own thread, it stopped that thread and
    left moto's ThreadedMotoServer.start waiting forever for a server that would never be ready."""
    with socket.socket() as sock:
        # As werkzeug binds: restarted on its port (bench/reliability), the old connections in
        # TIME_WAIT do not keep it from the port.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            raise OSError(exc.errno, f"cannot serve SQS on 127.0.0.1:{port}: {exc.strerror}") from None
        sock.listen(128)  # werkzeug's backlog
        server = MotoServer(sock)  # serves a duplicate of the socket
    return server, f"http://127.0.0.1:{server.port}"


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
