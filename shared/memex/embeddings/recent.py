"""Vectors of texts embedded lately, the least recently used dropped first: what the write path
(pipeline.embed_distinct) and the query cache (query_cache.py) keep so as not to embed a text again.
Each is kept under its tenant and its text: a text one tenant's request embedded is embedded again
for another's, so that no tenant can tell by a request's speed what another said or asked (a kept
query answers a search in ~8 ms where embedding it took ~40-60 ms), and an erasure can drop what
its tenant's requests left here (`forget`). An erasure empties only its own process's copy: every
text is dropped `max_age` seconds after it was kept (MEMEX_RECENT_TEXTS_MAX_AGE_SECONDS), used or
not, so another process (a worker, the search function) keeps an erased text that long at most, not
until pushed out, which can be hours. Safe to share between threads; each vector kept is a read-only
copy of its own, never a view that would keep its whole batch alive."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from typing import Callable, Iterable, Mapping

import numpy as np


class RecentVectors:
    def __init__(self, size: int, max_age: float, now: Callable[[], float] = time.monotonic) -> None:
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        if max_age <= 0:
            raise ValueError(f"max_age must be positive, got {max_age}")
        self._size = size
        self._max_age = max_age
        self._now = now
        # (tenant, text) -> (vector, when it was kept), the least recently used first
        self._vectors: OrderedDict[tuple[str, str], tuple[np.ndarray, float]] = OrderedDict()
        # (when kept, key) in the order kept: what is oldest, whatever its use (an entry put again
        # or dropped leaves a stale pair here, skipped when reached)
        self._kept: deque[tuple[float, tuple[str, str]]] = deque()
        self._lock = threading.Lock()

    def get_many(self, tenant_id: str, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """The vectors kept of these texts for the tenant, by text (those not kept are absent)."""
        found = {}
        with self._lock:
            self._drop_expired()
            for text in texts:
                entry = self._vectors.get((tenant_id, text))
                if entry is not None:
                    self._vectors.move_to_end((tenant_id, text))
                    found[text] = entry[0]
        return found

    def put_many(self, tenant_id: str, vectors: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Keep these vectors for the tenant; returns the copies kept, by text."""
        kept = {}
        for text, vector in vectors.items():
            copy = np.array(vector, dtype=np.float32)
            copy.flags.writeable = False  # shared by every caller of the tenant that asks for the same text
            kept[text] = copy
        with self._lock:
            now = self._drop_expired()
            for text, copy in kept.items():
                self._vectors[(tenant_id, text)] = (copy, now)
                self._vectors.move_to_end((tenant_id, text))
                self._kept.append((now, (tenant_id, text)))
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
            if len(self._kept) > 2 * self._size:  # stale pairs of entries pushed out or put again
                self._kept = deque(sorted((at, key) for key, (_, at) in self._vectors.items()))
        return kept

    def forget(self, tenant_id: str) -> None:
        """Drop every text kept for the tenant: an erasure's, as what is kept does not say whose
        it was (the tenant's other users' texts are embedded again when next written or asked)."""
        with self._lock:
            for key in [key for key in self._vectors if key[0] == tenant_id]:
                del self._vectors[key]

    def _drop_expired(self) -> float:
        """Drop what was kept `max_age` ago or earlier (under the lock); returns the time now."""
        now = self._now()
        while self._kept and now - self._kept[0][0] >= self._max_age:
            at, key = self._kept.popleft()
            entry = self._vectors.get(key)
            if entry is not None and entry[1] == at:
                del self._vectors[key]
        return now
