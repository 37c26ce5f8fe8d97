"""Embeddings from any OpenAI-compatible `/embeddings` endpoint, through the openai client.

The retries are memex's, not the client's, so that each attempt's timeout can be cut to what is
left of the invocation's budget (llm.time_left, entered by memex_edge/deadline.py): a hung endpoint
then fails the job within its Lambda's time (the job is retried, a search goes keyword-only)
instead of having Lambda stop the invocation half-way."""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np
import openai
from openai import OpenAI

from memex import llm
from memex.outcome import LastOutcome

DOCUMENT_TIMEOUT_SECONDS = 30.0
DOCUMENT_ATTEMPTS = 4
QUERY_ATTEMPTS = 2
PROBE_TIMEOUT_SECONDS = 2.0
RETRY_PAUSE_SECONDS = 0.5
# Worth another attempt: the endpoint was slow, unreachable, overloaded or failed on its side.
TRANSIENT = (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)  # timeouts included
PASSING = (openai.APIConnectionError, openai.RateLimitError)  # of those, the ones no text brings on (timeouts too)


class OpenAICompatibleEmbedder:
    def __init__(self, model: str, dim: int, base_url: str | None, api_key: str | None, batch_size: int = 64,
                 query_timeout: float = 3.0):
        self.name = model
        self.dim = dim
        self._batch_size = batch_size
        # The client reads no key from a file or the network; an endpoint without auth gets a dummy.
        self._client = OpenAI(base_url=base_url or None, api_key=api_key or "unused", max_retries=0)
        self._query_timeout = query_timeout
        self.outcome = LastOutcome()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self._batch_size):
            chunk = list(texts[start:start + self._batch_size])
            out[start:start + len(chunk)] = self._embed_with(chunk, DOCUMENT_TIMEOUT_SECONDS, DOCUMENT_ATTEMPTS)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed_with([text], self._query_timeout, QUERY_ATTEMPTS)[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed_with(list(texts), self._query_timeout, QUERY_ATTEMPTS)

    def probe(self) -> None:
        self._embed_with(["health"], PROBE_TIMEOUT_SECONDS, 1)

    def load(self) -> None:
        """Nothing to load: the endpoint holds the model."""

    def _embed_with(self, texts: list[str], timeout: float, attempts: int) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        try:
            response = self._create(texts, timeout, attempts)
        except Exception as exc:
            self.outcome.record(exc)
            raise
        self.outcome.record()
        for item in response.data:
            vector = np.asarray(item.embedding, dtype=np.float32)
            if vector.shape != (self.dim,):
                raise ValueError(f"endpoint returned {vector.shape[0]}-d vectors, configured {self.dim}")
            out[item.index] = vector / (np.linalg.norm(vector) or 1.0)
        return out

    def _create(self, texts: list[str], timeout: float, attempts: int):
        # Some endpoints reject empty strings; a single space embeds "nothing" just as well.
        inputs = [t or " " for t in texts]
        attempt = 1
        while True:
            within = llm.attempt_timeout(timeout)
            if within is None:
                raise TimeoutError("the invocation's time budget for its endpoints' calls is spent")
            try:
                return self._client.embeddings.create(model=self.name, input=inputs, timeout=within)
            except TRANSIENT:
                pause = RETRY_PAUSE_SECONDS * attempt
                if attempt == attempts or not llm.may_wait(pause):
                    raise
            time.sleep(pause)
            attempt += 1
