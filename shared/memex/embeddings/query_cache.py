"""The vectors of recent search queries, kept per process: a query asked again is not embedded again.

On the local CPU embedder a query's vector is most of what a search costs (bench/load, profiled
under its 50-user scenario); agents ask the same questions again (a retried turn, the same recall
for every message of a session). Documents are never cached: each is embedded once, when written.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Sequence

import numpy as np

from memex.embeddings.base import Embedder


class QueryCache:
    """Wraps an embedder; `size` queries at most, the least recently asked dropped first. A
    failed embedding is not remembered: the query is embedded again when next asked."""

    def __init__(self, inner: Embedder, size: int) -> None:
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.outcome = getattr(inner, "outcome", None)
        self._size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            vector = self._vectors.get(text)
            if vector is not None:
                self._vectors.move_to_end(text)
                return vector
        vector = np.array(self.inner.embed_query(text), dtype=np.float32)
        vector.flags.writeable = False  # shared by every search that asks the same query
        with self._lock:
            self._vectors[text] = vector
            self._vectors.move_to_end(text)
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
        return vector

    def probe(self) -> None:
        self.inner.probe()
