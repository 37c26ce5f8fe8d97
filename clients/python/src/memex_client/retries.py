"""When a failed request is sent again, and after how long.

Sent again whatever the request: a 429 or 503 (the service refused it before doing any work)
and a connection that was never made. Sent again only when the request is safe to replay (a
read, an erasure, or a turn, which always carries an idempotency key): other 5xx answers and a
connection lost after the request went out, since the service may have acted on it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional

import httpx

from memex_client.errors import retry_after

REFUSED = {429, 503}
FAILED = {500, 502, 504}


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3
    # The first backoff in seconds, doubled on each attempt up to `max_backoff`.
    backoff: float = 0.5
    max_backoff: float = 8.0
    # A Retry-After longer than this is not waited for: the error is raised with `retry_after` set.
    max_retry_after: float = 60.0

    def after_response(self, attempt: int, response: httpx.Response, replay_safe: bool) -> Optional[float]:
        """Seconds to wait before attempt `attempt + 1`, or None to give up on this answer."""
        if attempt >= self.max_retries:
            return None
        if response.status_code not in REFUSED and not (replay_safe and response.status_code in FAILED):
            return None
        asked = retry_after(response)
        if asked is None:
            return self._backoff(attempt)
        if asked > self.max_retry_after:
            return None
        # Never sooner than asked; the jitter keeps clients told the same time from arriving together.
        return asked + random.uniform(0, self.backoff)

    def after_error(self, attempt: int, error: httpx.TransportError, replay_safe: bool) -> Optional[float]:
        if attempt >= self.max_retries:
            return None
        never_sent = isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout))
        return self._backoff(attempt) if never_sent or replay_safe else None

    def _backoff(self, attempt: int) -> float:
        # Half fixed, half random: attempts spread out without ever retrying at once.
        ceiling = min(self.max_backoff, self.backoff * 2 ** attempt)
        return ceiling / 2 + random.uniform(0, ceiling / 2)
