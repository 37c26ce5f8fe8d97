"""A small OpenAI-compatible HTTP server on loopback, scripted per test or benchmark.

Tests and benchmarks talk to it through the real `openai` client. Each endpoint answers from a queue of
scripted replies when one is queued (a status code and body, or a delay), else by default.

`/v1/embeddings` answers deterministic vectors by default. `/v1/chat/completions` has no
default: with nothing scripted it answers 500 "nothing scripted", so every test says what the
model replies. A scripted chat body that is a string is the assistant's message content, wrapped
in a chat completion; `script_chat` is the short way to queue one.

`GET /v1/models` lists one model by default (what a health probe asks of the LLM).

`/v1/rerank` (Cohere/Jina-compatible) scores each document by default as the share of the query's
words it contains; `rerank_scores` sets a score per document text instead (others score 0).

`chat_default` (a message content) answers chats when nothing is scripted, for a caller that
needs a working model rather than scripted replies. `fail(path, "500")` makes an endpoint answer
500 and `fail(path, "hang")` makes it hold each request for `hang_seconds` before answering 500,
until `heal(path)`: the faults of a real provider, for the reliability campaign.

`on_request(path, body)`, when set, is called as each request arrives, before it is answered: a test
sees there what its caller holds meanwhile (a database lock).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import defaultdict, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import numpy as np

CHAT = "/v1/chat/completions"
EMBEDDINGS = "/v1/embeddings"
RERANK = "/v1/rerank"
MODELS = "/v1/models"


def fake_embedding(text: str, dim: int) -> list[float]:
    """Deterministic per text, so tests can predict what the server returns."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(dim).round(6).tolist()


class OpenAIDouble:
    def __init__(self, dim: int = 8):
        self.dim = dim
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.scripts: dict[str, deque] = defaultdict(deque)
        self.rerank_scores: dict[str, float] | None = None
        self.chat_default: str | None = None
        self.faults: dict[str, str] = {}
        self.failing_inputs: list[str] = []  # embeddings whose input holds one answer 500 (fail_inputs_with)
        self.on_request: Callable[[str, dict[str, Any]], None] | None = None
        self.hang_seconds = 60.0
        # the most requests answered at once since the last reset: whether a client's calls overlapped
        self.most_at_once = 0
        self._at_once = 0
        self._lock = threading.Lock()
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):  # answered as a POST without a body
                self.do_POST()

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                double.requests.append((self.path, body))
                if double.on_request is not None:
                    double.on_request(self.path, body)
                with double._lock:
                    double._at_once += 1
                    double.most_at_once = max(double.most_at_once, double._at_once)
                try:
                    status, answer, headers = double._answer(self.path, body)
                finally:
                    with double._lock:
                        double._at_once -= 1
                payload = json.dumps(answer).encode()
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a scripted delay past its timeout)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        # A short poll interval: shutting the server down at the end of each test takes no time.
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> "OpenAIDouble":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def script(self, path: str, status: int = 200, body: Any = None, delay: float = 0.0,
               headers: dict[str, str] | None = None) -> None:
        """Queue one reply of `path`: its status, body and headers (a 429's `Retry-After`), after `delay`."""
        self.scripts[path].append((status, body, delay, headers or {}))

    def script_chat(self, *contents: str, delay: float = 0.0) -> None:
        """Queue chat replies whose assistant content is each of `contents`, in order."""
        for content in contents:
            self.script(CHAT, body=content, delay=delay)

    def script_refusal(self, refusal: str | None = None) -> None:
        """Queue a chat reply that refuses: `message.refusal` set, or with none a null content cut by
        the server's filter (`finish_reason: "content_filter"`)."""
        self.script(CHAT, body=completion("", None, refusal=refusal,
                                           finish_reason="stop" if refusal else "content_filter"))

    def reset(self) -> None:
        """Forget what was asked and scripted: a test sharing the server starts clean."""
        self.requests.clear()
        self.scripts.clear()
        self.rerank_scores = None
        self.chat_default = None
        self.faults.clear()
        self.failing_inputs.clear()
        self.on_request = None
        self.most_at_once = 0

    def fail(self, path: str, mode: str) -> None:
        if mode not in {"500", "hang"}:
            raise ValueError(f"unknown fault mode {mode!r}")
        self.faults[path] = mode

    def fail_inputs_with(self, marker: str) -> None:
        """Answer 500 to every embeddings request one of whose inputs holds `marker`, and the others as ever:
        an endpoint failing on one text only (some self-hosted servers do, to a text too long)."""
        self.failing_inputs.append(marker)

    def heal(self, path: str) -> None:
        self.faults.pop(path, None)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The bodies of the chat requests received so far, in order."""
        return [body for path, body in self.requests if path == CHAT]

    def chat_prompts(self) -> list[str]:
        """Every chat request's messages as one text each, for asserting what the model was shown."""
        return ["\n".join(m.get("content") or "" for m in body.get("messages", [])) for body in self.chat_requests]

    @property
    def rerank_requests(self) -> list[dict[str, Any]]:
        return [body for path, body in self.requests if path == RERANK]

    def _rerank(self, body: dict[str, Any]) -> dict[str, Any]:
        query = set(_words(body["query"]))
        scores = []
        for i, document in enumerate(body["documents"]):
            if self.rerank_scores is not None:
                score = self.rerank_scores.get(document, 0.0)
            else:
                score = len(query & set(_words(document))) / max(len(query), 1)
            scores.append({"index": i, "relevance_score": score})
        scores.sort(key=lambda r: r["relevance_score"], reverse=True)
        return {"model": body.get("model"), "results": scores[: body.get("top_n") or len(scores)]}

    def _answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        """The status, body and headers of the reply to a request of `path`."""
        fault = self.faults.get(path)
        if fault is not None:
            if fault == "hang":
                time.sleep(self.hang_seconds)
            return 500, {"error": {"message": f"injected fault: {fault}", "type": "server_error"}}, {}
        if path == EMBEDDINGS and any(marker in text for marker in self.failing_inputs
                                      for text in (body["input"] if isinstance(body["input"], list) else [body["input"]])):
            return 500, {"error": {"message": "injected fault: an input", "type": "server_error"}}, {}
        if self.scripts[path]:
            status, scripted, delay, headers = self.scripts[path].popleft()
            time.sleep(delay)
            if path == CHAT and isinstance(scripted, str) and status == 200:
                return 200, completion(body.get("model", ""), scripted), headers
            if scripted is not None or status != 200:
                return status, scripted if scripted is not None else {"error": {"message": "scripted failure"}}, headers
        return (*self._default(path, body), {})

    def _default(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if path == CHAT and self.chat_default is not None:
            return 200, completion(body.get("model", ""), self.chat_default)
        if path == CHAT:
            return 500, {"error": {"message": "nothing scripted", "type": "server_error"}}
        if path == EMBEDDINGS:
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            return 200, {
                "object": "list", "model": body["model"],
                "data": [{"object": "embedding", "index": i, "embedding": fake_embedding(t, self.dim)}
                         for i, t in enumerate(inputs)],
                "usage": {"prompt_tokens": 0, "total_tokens": 0},
            }
        if path == RERANK:
            return 200, self._rerank(body)
        if path == MODELS:
            return 200, {"object": "list", "data": [{"id": "test-model", "object": "model", "created": 0,
                                                     "owned_by": "double"}]}
        return 404, {"error": {"message": f"no route {path}"}}


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def completion(model: str, content: str | None, refusal: str | None = None,
                finish_reason: str = "stop") -> dict[str, Any]:
    """The body of a chat completion answering `content`, for this double and those built on it
    (bench/soak/model.py)."""
    return {
        "id": f"chatcmpl-{hashlib.sha256((content or '').encode()).hexdigest()[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "refusal": refusal},
                     "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }
