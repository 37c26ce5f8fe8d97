"""The optional reranker: any Cohere/Jina-compatible `/rerank` endpoint scores the fused candidates.

POST {base_url}/rerank {model, query, documents: [str], top_n} -> {results: [{index, relevance_score}]}.
Its scores are absolute (unlike fused ranks), so when a reranker is configured its floor
(`rerank_min_score`) replaces the built-in one of floor.py. A reranker that is down must not take
search down with it: after one retry `scores` returns None and the caller keeps the fused ranking.
What is logged of a failure is its kind (a status code, an exception type): never the endpoint's
answer, which may echo the documents, nor its URL.
"""

from __future__ import annotations

import logging
from typing import Sequence

import httpx

from memex.config import Settings

log = logging.getLogger(__name__)

CANDIDATES = 50  # only the best fused candidates are sent: the rest would rarely climb
TIMEOUT_SECONDS = 5.0
ATTEMPTS = 2  # one retry
PROBE_TIMEOUT_SECONDS = 2.0


class Reranker:
    def __init__(self, base_url: str, model: str, api_key: str = "", *, min_score: float = 0.1,
                 timeout: float = TIMEOUT_SECONDS, attempts: int = ATTEMPTS):
        self.url = base_url.rstrip("/") + "/rerank"
        self.model = model
        self.min_score = min_score
        self.attempts = attempts
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers)
        self._probe_client = httpx.Client(timeout=PROBE_TIMEOUT_SECONDS, headers=headers)

    def scores(self, query: str, documents: Sequence[str]) -> list[float] | None:
        """The relevance score of each document, in the documents' order; None when the endpoint
        gave no usable answer (logged), so that the caller falls back to its own ranking."""
        if not documents:
            return []
        body = {"model": self.model, "query": query, "documents": list(documents), "top_n": len(documents)}
        problem = ""
        for attempt in range(1, self.attempts + 1):
            try:
                response = self._client.post(self.url, json=body)
                if response.status_code >= 400:
                    problem = f"HTTP {response.status_code}"
                    if response.status_code < 500 and response.status_code != 429:
                        break  # a client error will not change on retry
                    continue
                return _parse(response.json(), len(documents))
            except (httpx.HTTPError, ValueError, KeyError, TypeError, IndexError) as exc:
                problem = type(exc).__name__
        log.warning("reranker %s unusable (%s); keeping the fused ranking", self.model, problem)
        return None

    def probe(self) -> None:
        """Raise if the endpoint cannot rerank now: one tiny request, one attempt, 2 s at most."""
        response = self._probe_client.post(self.url, json={"model": self.model, "query": "health",
                                                           "documents": ["health"], "top_n": 1})
        response.raise_for_status()
        _parse(response.json(), 1)


def _parse(answer: dict, count: int) -> list[float]:
    """Scores by document index; a document the endpoint left out scores 0 (under any floor)."""
    scores = [0.0] * count
    for result in answer["results"]:
        scores[int(result["index"])] = float(result["relevance_score"])
    return scores


_CACHE: dict[tuple[str, str, str, float, float], Reranker] = {}


def from_settings(settings: Settings) -> Reranker | None:
    """The configured reranker (one client per configuration, reused across searches), or None."""
    if not settings.rerank_configured:
        return None
    key = (settings.rerank_base_url, settings.rerank_model, settings.rerank_api_key, settings.rerank_min_score,
           settings.rerank_timeout_seconds)
    if key not in _CACHE:
        _CACHE[key] = Reranker(settings.rerank_base_url, settings.rerank_model, settings.rerank_api_key,
                               min_score=settings.rerank_min_score, timeout=settings.rerank_timeout_seconds)
    return _CACHE[key]
