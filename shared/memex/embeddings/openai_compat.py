"""Embeddings from any OpenAI-compatible `/embeddings` endpoint, through the openai client."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from openai import OpenAI

from memex.outcome import LastOutcome

PROBE_TIMEOUT_SECONDS = 2.0


class OpenAICompatibleEmbedder:
    def __init__(self, model: str, dim: int, base_url: str | None, api_key: str | None, batch_size: int = 64,
                 query_timeout: float = 3.0):
        self.name = model
        self.dim = dim
        self._batch_size = batch_size
        # The client reads no key from a file or the network; an endpoint without auth gets a dummy.
        self._client = OpenAI(base_url=base_url or None, api_key=api_key or "unused", max_retries=3, timeout=30)
        self._query_client = self._client.with_options(timeout=query_timeout, max_retries=1)
        self._probe_client = self._client.with_options(timeout=PROBE_TIMEOUT_SECONDS, max_retries=0)
        self.outcome = LastOutcome()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self._batch_size):
            chunk = list(texts[start:start + self._batch_size])
            out[start:start + len(chunk)] = self._embed_with(self._client, chunk)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed_with(self._query_client, [text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed_with(self._query_client, list(texts))

    def probe(self) -> None:
        self._embed_with(self._probe_client, ["health"])

    def load(self) -> None:
        """Nothing to load: the endpoint holds the model."""

    def _embed_with(self, client: OpenAI, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        try:
            # Some endpoints reject empty strings; a single space embeds "nothing" just as well.
            response = client.embeddings.create(model=self.name, input=[t or " " for t in texts])
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
