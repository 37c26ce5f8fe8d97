"""The vectors of recent search queries, kept per process: a query asked again is not embedded again.

On the local CPU embedder a query's vector is most of what a search costs (bench/load, profiled
under its 50-user scenario); agents ask the same questions again (a retried turn, the same recall
for every message of a session). The write path keeps its own recent vectors (pipeline.embed_distinct).
A query is kept for the tenant whose search asked it (`asked_by`; recent.py says why).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator, Sequence

import numpy as np

from memex.embeddings.base import Embedder
from memex.embeddings.recent import RecentVectors


# The tenant whose search is embedding queries, set around the embedder's call by the search
# (retrieval/search.Dependencies): the Embedder interface, which every embedder and wrapper
# implements, takes texts only. A query embedded outside any search is kept under no tenant.
_asker: ContextVar[str] = ContextVar("query_cache_asker", default="")


@contextmanager
def asked_by(tenant_id: str) -> Iterator[None]:
    token = _asker.set(tenant_id)
    try:
        yield
    finally:
        _asker.reset(token)


def forget(embedder: Embedder, tenant_id: str) -> None:
    """Drop the queries the tenant asked, when `embedder` is a cache (erasure)."""
    if isinstance(embedder, QueryCache):
        embedder._recent.forget(tenant_id)


class QueryCache:
    """Wraps an embedder; `size` queries at most, the least recently asked dropped first, and none
    kept longer than `max_age` seconds (recent.py says why). A failed embedding is not remembered:
    the query is embedded again when next asked."""

    def __init__(self, inner: Embedder, size: int, max_age: float,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.outcome = getattr(inner, "outcome", None)
        self._recent = RecentVectors(size, max_age, now)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        asker = _asker.get()
        kept = self._recent.get_many(asker, [text])
        if text in kept:
            return kept[text]
        return self._recent.put_many(asker, {text: self.inner.embed_query(text)})[text]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        asker = _asker.get()
        kept = self._recent.get_many(asker, texts)
        missing = list(dict.fromkeys(text for text in texts if text not in kept))
        if missing:
            kept.update(self._recent.put_many(asker, dict(zip(missing, self.inner.embed_queries(missing)))))
        return np.stack([kept[text] for text in texts]) if texts else np.empty((0, self.dim), dtype=np.float32)

    def probe(self) -> None:
        self.inner.probe()

    def load(self) -> None:
        self.inner.load()
