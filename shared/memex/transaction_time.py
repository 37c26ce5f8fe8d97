"""The time a run may begin transactions in, one after another: a user's erasure, the sweep's job
starts. One begins only while what is left is more than the longest one so far took, so that the
last ends within the time rather than a transaction past it (an erasure's: up to ~5 s at
MEMEX_ERASURE_CHUNK_ROWS, docs/measurements/erasure.md). One for a run, whichever users it goes on with."""

from __future__ import annotations

import math
import time


class TransactionTime:
    """With `first`, the first begins whatever the time: a DELETE always makes progress."""

    def __init__(self, seconds: float | None = None, *, first: bool = False):
        self._deadline = math.inf if seconds is None else time.monotonic() + seconds
        self._first = first
        self._longest = 0.0

    def allows(self) -> bool:
        return self._first or self._deadline - time.monotonic() > self._longest

    def took(self, seconds: float) -> None:
        self._first = False
        self._longest = max(self._longest, seconds)
