"""A loopback HTTP endpoint that stands in for a remote one a handler calls: a CloudFormation custom
resource's ResponseURL (`memex invoke migrate`), the Lambda API a handler invokes itself through."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Iterator


@contextmanager
def loopback_endpoint(method: str, status: int) -> Iterator[tuple[str, list[dict]]]:
    """A loopback HTTP endpoint answering each `method` request `status` with no body: yields its URL
    and the list each request lands in (its path, headers and JSON body). A custom resource's
    ResponseURL is ("PUT", 200); the Lambda API of a handler that invokes a function itself (its URL
    for AWS_ENDPOINT_URL_LAMBDA) is ("POST", 202), as Lambda answers an async invocation."""
    received: list[dict] = []

    class Endpoint(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self):
            received.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                             "body": json.loads(self.rfile.read(int(self.headers["content-length"])))})
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

    setattr(Endpoint, f"do_{method}", Endpoint.answer)
    server = HTTPServer(("127.0.0.1", 0), Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
