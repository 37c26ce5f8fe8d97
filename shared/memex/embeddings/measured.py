"""An embedder that records each call's latency and failures (EmbeddingLatency, EmbeddingErrors)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from memex.embeddings.base import Embedder
from memex.metrics import EMBEDDING_ERRORS, EMBEDDING_LATENCY, timed
from memex.ports import Metrics


class MeasuredEmbedder:
    """Wraps the embedder a Context uses. `call` tells batches (documents) from search queries,
    which wait on a shorter deadline."""

    def __init__(self, inner: Embedder, metrics: Metrics) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        # What health reads of the embedder's own calls, where it keeps it (memex.health).
        self.outcome = getattr(inner, "outcome", None)
        self._metrics = metrics

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._measured("documents", self.inner.embed, texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._measured("query", self.inner.embed_query, text)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._measured("query", self.inner.embed_queries, texts)

    def probe(self) -> None:
        self.inner.probe()

    def load(self) -> None:
        self.inner.load()

    def _measured(self, call: str, embed, argument):
        try:
            with timed(self._metrics, EMBEDDING_LATENCY, call=call):
                return embed(argument)
        except Exception:
            self._metrics.record(EMBEDDING_ERRORS, call=call)
            raise
