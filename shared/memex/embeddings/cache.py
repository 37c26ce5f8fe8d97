"""The vectors of recent search queries, kept so that a repeated query is not embedded again.

Only query texts and their vectors are kept, never a memory: a vector is a function of the text
and the model alone, so an entry cannot carry one tenant's memories to another or bring back an
erased one (results always come from Postgres). Writes (`embed`) pass through: their texts are
stored memories, embedded once anyway.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Sequence

import numpy as np

from memex.embeddings.base import Embedder


class QueryCache:
    def __init__(self, inner: Embedder, size: int) -> None:
        if size < 1:
            raise ValueError("a query cache holds at least one entry")
        self._inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self._size = size
        self._entries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._inner.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            vector = self._entries.get(text)
            if vector is not None:
                self._entries.move_to_end(text)
                return vector
        vector = self._inner.embed_query(text)
        # Read-only: a caller that changed it in place would change every later hit.
        vector = np.array(vector, dtype=np.float32)
        vector.flags.writeable = False
        with self._lock:
            self._entries[text] = vector
            self._entries.move_to_end(text)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return vector

    def probe(self) -> None:
        self._inner.probe()
