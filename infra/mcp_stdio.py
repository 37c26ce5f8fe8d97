"""`memex mcp`: the MCP server over stdio, for hosts that start their servers as commands (Claude
Desktop, Cline, Zed). It is a bridge to a running server's streamable-HTTP endpoint, not a second
server: each JSON-RPC message read from stdin is POSTed there with the API key, and the answer is
written to stdout as one line, so keys, tenancy, rate limits and every tool are the server's own."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any, BinaryIO

import httpx
from mcp.shared.inbound import (MCP_METHOD_HEADER, MCP_NAME_HEADER, MCP_PROTOCOL_VERSION_HEADER,
                                NAME_BEARING_METHODS, encode_header_value)
from mcp_types import PROTOCOL_VERSION_META_KEY

# JSON-RPC's implementation-defined server error, the code the server's own refusals carry.
SERVER_ERROR = -32000
INTERNAL_ERROR = -32603
# The SDK's own HTTP client's: 30 s to connect, 5 min for an answer (add_turn with wait extracts first).
TIMEOUT = httpx.Timeout(30.0, read=300.0)
# Requests in flight at once: a long tool call does not hold up the host's next request.
CONCURRENCY = 8


def _log(text: str) -> None:
    print(f"memex mcp: {text}", file=sys.stderr, flush=True)


class Bridge:
    """Forwards each message to `url` and writes its answer as one line to `out`."""

    def __init__(self, url: str, api_key: str | None, out: BinaryIO):
        self.url = url
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        self.http = httpx.Client(headers=headers, timeout=TIMEOUT)
        self.out = out
        self.writing = threading.Lock()

    def forward(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            message = None  # sent as it is: the server answers it with its parse error
        # A notification, or an answer to the server, expects no answer; anything else gets one.
        answered = not isinstance(message, dict) or ("method" in message and "id" in message)
        request_id = message.get("id") if isinstance(message, dict) else None
        try:
            self._forward(line, message, answered, request_id)
        except Exception:
            # In the pool, an exception would vanish in its future and leave the host waiting.
            _log(traceback.format_exc())
            if answered:
                self._error(request_id, INTERNAL_ERROR, "memex mcp: the bridge failed; its log (stderr) says why")

    def _forward(self, line: bytes, message: Any, answered: bool, request_id: Any) -> None:
        try:
            response = self.http.post(self.url, content=line, headers=self._routing(message))
        except httpx.HTTPError as exc:
            said = (f"no memex server answered at {self.url} ({type(exc).__name__}: {exc}): start it with "
                    "`make dev`, or give its address with --url or MEMEX_MCP_URL")
            _log(said)
            if answered:
                self._error(request_id, SERVER_ERROR, f"memex mcp: {said}")
            return
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if not answered:
            if response.status_code >= 400:
                _log(f"{self.url} answered a notification with HTTP {response.status_code}: {response.text[:200]}")
            return
        if not (isinstance(answer, dict) and answer.get("jsonrpc") == "2.0"):
            said = (f"{self.url} answered HTTP {response.status_code}, not a JSON-RPC message: is it a memex "
                    "server's /mcp address?")
            _log(f"{said} {response.text[:200]!r}")
            self._error(request_id, SERVER_ERROR, f"memex mcp: {said}")
            return
        if "error" in answer and answer.get("id") is None:
            # Refused before the server read the id (401, 413, 429, 503): the host matches answers
            # to requests by id, so it is this request's, as the SDK's HTTP client makes it.
            answer["id"] = request_id
        self._write(answer)

    @staticmethod
    def _routing(message: Any) -> dict[str, str]:
        """The headers the server routes a 2026-protocol request by, which over stdio only its body
        carries: its version (from `params._meta`), its method and, for a tool call, the tool's
        name; without them the server takes it for a handshake-era request (and `server/discover`
        is not found). A handshake-era request needs none: the server reads no version from one."""
        if not isinstance(message, dict) or not isinstance(method := message.get("method"), str):
            return {}
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        version = meta.get(PROTOCOL_VERSION_META_KEY)
        if not isinstance(version, str):
            return {}
        headers = {MCP_PROTOCOL_VERSION_HEADER: version, MCP_METHOD_HEADER: method}
        name = params.get(NAME_BEARING_METHODS.get(method, ""))
        if isinstance(name, str):
            headers[MCP_NAME_HEADER] = encode_header_value(name)
        return headers

    def _error(self, request_id: Any, code: int, message: str) -> None:
        self._write({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})

    def _write(self, answer: dict) -> None:
        # One line each (json.dumps escapes the newlines in strings), whole, whatever the threads.
        line = json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        with self.writing:
            try:
                self.out.write(line)
                self.out.flush()
            except BrokenPipeError:
                os._exit(0)  # the host is gone, and with it whoever would read the answer


def serve(url: str, api_key: str | None) -> None:
    """Bridges this process's stdin and stdout to `url` until stdin ends (then exit 0, once the
    answers in flight are written) or a SIGINT or SIGTERM (exit 0 at once)."""
    out = sys.stdout.buffer
    # Stdout is the protocol: whatever else would print there (a library's warning) goes to the log.
    sys.stdout = sys.stderr
    bridge = Bridge(url, api_key, out)

    def stop(signum, frame) -> None:
        with bridge.writing:  # never in the middle of an answer's line
            os._exit(0)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    _log(f"stdio bridged to {url}, {'with' if api_key else 'without'} an API key (MEMEX_API_KEY)")
    with ThreadPoolExecutor(CONCURRENCY, thread_name_prefix="mcp") as pool:
        for line in sys.stdin.buffer:
            if line.strip():
                pool.submit(bridge.forward, line)
