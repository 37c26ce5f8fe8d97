"""One embedding at a time per process, batched: calls that arrive while the embedder is busy
wait, and the next of them embeds every waiting call's texts as one batch. A batch that failed, maybe for
one caller's text, is embedded again caller by caller, each on its own thread, beside the next batch.

On a CPU embedder, concurrent calls each running their own small matmuls compete for the same
cores; one batch computes the same vectors with fewer, larger matmuls (bench/embedder.py
measures both ways; the README's Measurements table has the figures). No thread of its own: a caller does the
work, so nothing outlives a Lambda invocation.
"""

from __future__ import annotations

import threading
from typing import Sequence

import numpy as np

from memex import embeddings
from memex.embeddings.base import Embedder


class _Call:
    __slots__ = ("texts", "vectors", "error", "alone")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.vectors: np.ndarray | None = None
        self.error: BaseException | None = None
        self.alone = False  # its batch failed, maybe for another caller's text: embedded again on its own


class CoalescingEmbedder:
    """Wraps an embedder whose vectors do not depend on what a text is batched with."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self._waiting: list[_Call] = []
        self._waiting_lock = threading.Lock()
        # Held by the caller that is embedding; a waiting call is done once it can take it.
        self._busy = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        call = _Call(list(texts))
        if not call.texts:
            return self._inner.embed(call.texts)
        with self._waiting_lock:
            self._waiting.append(call)
        with self._busy:
            # A caller that embedded while we waited may have taken our texts in its batch.
            if call.vectors is None and call.error is None and not call.alone:
                self._embed_waiting()
        if call.alone:
            # On this caller's thread, with _busy free: retried one caller after another under it, every call
            # that came meanwhile waited for all of the retries.
            return self._inner.embed(call.texts)
        if call.error is not None:
            raise call.error
        return call.vectors

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts)

    def probe(self) -> None:
        self._inner.probe()

    def load(self) -> None:
        self._inner.load()

    def _embed_waiting(self) -> None:
        with self._waiting_lock:
            calls, self._waiting = self._waiting, []
        try:
            vectors = self._inner.embed([text for call in calls for text in call.texts])
        except BaseException as exc:
            if len(calls) > 1 and isinstance(exc, Exception) and embeddings.on_its_side(exc) is None:
                # One caller's text may be what the embedder refused (a local embedder's own error): every
                # caller got the error, and a job start failing for another user's text was taken for refused
                # (pipeline). Each caller's texts once more on their own (embed): only the caller whose text fails
                # gets it.
                for call in calls:
                    call.alone = True
                return
            for call in calls:
                call.error = exc
            return
        start = 0
        for call in calls:
            call.vectors = vectors[start:start + len(call.texts)]
            start += len(call.texts)
