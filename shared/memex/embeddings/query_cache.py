"""The vectors of recent search queries, kept per process: a query asked again is not embedded again.

On the local CPU embedder a query's vector is most of what a search costs (bench/load, profiled
under its 50-user scenario); agents ask the same questions again (a retried turn, the same recall
for every message of a session). The write path keeps its own recent vectors (pipeline.embed_distinct).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from memex.embeddings.base import Embedder
from memex.embeddings.recent import RecentVectors


class QueryCache:
    """Wraps an embedder; `size` queries at most, the least recently asked dropped first. A
    failed embedding is not remembered: the query is embedded again when next asked."""

    def __init__(self, inner: Embedder, size: int) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.outcome = getattr(inner, "outcome", None)
        self._recent = RecentVectors(size)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        kept = self._recent.get_many([text])
        if text in kept:
            return kept[text]
        return self._recent.put_many({text: self.inner.embed_query(text)})[text]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        kept = self._recent.get_many(texts)
        missing = list(dict.fromkeys(text for text in texts if text not in kept))
        if missing:
            kept.update(self._recent.put_many(dict(zip(missing, self.inner.embed_queries(missing)))))
        return np.stack([kept[text] for text in texts]) if texts else np.empty((0, self.dim), dtype=np.float32)

    def probe(self) -> None:
        self.inner.probe()

    def load(self) -> None:
        self.inner.load()
