"""Vectors of texts embedded lately, the least recently used dropped first: what the write path
(pipeline.embed_distinct) and the query cache (query_cache.py) keep so as not to embed a text again.
Safe to share between threads; each vector kept is a read-only copy of its own, never a view that
would keep its whole batch alive."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Iterable, Mapping

import numpy as np


class RecentVectors:
    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        self._size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get_many(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """The vectors kept of these texts, by text (those not kept are absent)."""
        found = {}
        with self._lock:
            for text in texts:
                vector = self._vectors.get(text)
                if vector is not None:
                    self._vectors.move_to_end(text)
                    found[text] = vector
        return found

    def put_many(self, vectors: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Keep these vectors; returns the copies kept, by text."""
        kept = {}
        for text, vector in vectors.items():
            copy = np.array(vector, dtype=np.float32)
            copy.flags.writeable = False  # shared by every caller that asks for the same text
            kept[text] = copy
        with self._lock:
            self._vectors.update(kept)
            for text in kept:
                self._vectors.move_to_end(text)
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
        return kept
