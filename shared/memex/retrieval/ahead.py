"""What a search reads of its user before its first round (memories.ahead), kept in the process a
short while for a user none of whose memories names a participant.

That read is a round trip before the query is embedded (~1.2 ms at 1k memories, the whole of it on
the search's path: docs/measurements/performance.md), and a user's searches come in bursts (a
recall runs several, an agent asks again at its next turn). Only a user without participants'
names is kept: what is kept is then the user's size, never a word of what they said, so an erasure
leaves no copy here. A value up to `seconds` old costs, at worst:

- a participant named since: the question without their name is embedded in the second round's
  call to the embedder instead of the first's (search.py reads the names from the memories found,
  as ever): one more call, the same answers;
- a size crossed since (settings.vector_preselect_above, vector_exact_max) or an index of the
  user's own built since: the vector channel takes the path of the size kept (exact ranking
  instead of the pre-selection, say) until the value expires.
"""

from __future__ import annotations

import threading
import time

import psycopg

from memex.db import memories as memory_rows

# Users kept at most; past it the oldest entry goes first (a process serves a few users at a time).
MOST_USERS = 10_000


class KeptAhead:
    """`read` answers memories.ahead, from memory when a recent read found no names."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, str, str, int], tuple[float, memory_rows.Ahead]] = {}
        self._lock = threading.Lock()

    def read(self, conn: psycopg.Connection, dsn: str, tenant_id: str, user_id: str, most: int,
             seconds: float) -> memory_rows.Ahead:
        if seconds <= 0:
            return memory_rows.ahead(conn, tenant_id, user_id, most)
        key = (dsn, tenant_id, user_id, most)
        now = time.monotonic()
        with self._lock:
            kept = self._kept.get(key)
        if kept is not None and now - kept[0] < seconds:
            return kept[1]
        ahead = memory_rows.ahead(conn, tenant_id, user_id, most)
        with self._lock:
            self._kept.pop(key, None)
            if ahead.names == []:
                self._kept[key] = (now, ahead)
                while len(self._kept) > MOST_USERS:
                    del self._kept[next(iter(self._kept))]
        return ahead
