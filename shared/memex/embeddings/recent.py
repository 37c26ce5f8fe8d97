"""Vectors of texts embedded lately, the least recently used dropped first: what the write path
(pipeline.embed_distinct) and the query cache (query_cache.py) keep so as not to embed a text again.
Each is kept under its tenant and its text: a text one tenant's request embedded is embedded again
for another's, so that no tenant can tell by a request's speed what another said or asked (a kept
query answers a search in ~8 ms where embedding it took ~40-60 ms), and an erasure can drop what
its tenant's requests left here (`forget`). Safe to share between threads; each vector kept is a
read-only copy of its own, never a view that would keep its whole batch alive."""

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
        self._vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get_many(self, tenant_id: str, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """The vectors kept of these texts for the tenant, by text (those not kept are absent)."""
        found = {}
        with self._lock:
            for text in texts:
                vector = self._vectors.get((tenant_id, text))
                if vector is not None:
                    self._vectors.move_to_end((tenant_id, text))
                    found[text] = vector
        return found

    def put_many(self, tenant_id: str, vectors: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Keep these vectors for the tenant; returns the copies kept, by text."""
        kept = {}
        for text, vector in vectors.items():
            copy = np.array(vector, dtype=np.float32)
            copy.flags.writeable = False  # shared by every caller of the tenant that asks for the same text
            kept[text] = copy
        with self._lock:
            for text, copy in kept.items():
                self._vectors[(tenant_id, text)] = copy
                self._vectors.move_to_end((tenant_id, text))
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
        return kept

    def forget(self, tenant_id: str) -> None:
        """Drop every text kept for the tenant: an erasure's, as what is kept does not say whose
        it was (the tenant's other users' texts are embedded again when next written or asked)."""
        with self._lock:
            for key in [key for key in self._vectors if key[0] == tenant_id]:
                del self._vectors[key]
