"""Text embeddings: one interface, a local torch-free model and any OpenAI-compatible endpoint."""

from __future__ import annotations

import enum
import sys

from memex.config import Settings
from memex.embeddings.base import Embedder
from memex.ports import Metrics


def measured_embedder(settings: Settings, metrics: Metrics) -> Embedder:
    """The configured embedder, each call recorded in `metrics` (a query answered from the cache
    of query vectors, when there is one, is no embedding and is not recorded)."""
    from memex.embeddings.measured import MeasuredEmbedder

    embedder = MeasuredEmbedder(make_embedder(settings), metrics)
    if settings.embeddings_query_cache <= 0:
        return embedder
    from memex.embeddings.query_cache import QueryCache

    return QueryCache(embedder, settings.embeddings_query_cache, settings.recent_texts_max_age_seconds)


def make_embedder(settings: Settings) -> Embedder:
    if settings.embeddings_provider == "openai":
        from memex.embeddings.openai_compat import OpenAICompatibleEmbedder

        return OpenAICompatibleEmbedder(
            model=settings.embeddings_model,
            dim=settings.embedding_dim,
            base_url=settings.embeddings_base_url,
            api_key=settings.embeddings_api_key,
            batch_size=settings.embeddings_batch_size,
            query_timeout=settings.embeddings_query_timeout_seconds,
        )
    if settings.embeddings_provider != "local":
        raise ValueError(f"MEMEX_EMBEDDINGS_PROVIDER must be local or openai, not {settings.embeddings_provider!r}")
    from memex.embeddings.minilm import MiniLMEmbedder
    from memex.embeddings.named_emoji import NamedEmojiEmbedder

    embedder = NamedEmojiEmbedder(MiniLMEmbedder(batch_size=settings.embeddings_batch_size,
                                                 blas_threads=settings.embeddings_blas_threads))
    if not settings.embeddings_coalesce:
        return embedder
    from memex.embeddings.coalescing import CoalescingEmbedder

    return CoalescingEmbedder(embedder)


class OnItsSide(enum.Enum):
    """How an embedding call's failure is the embedder's (on_its_side)."""

    PASSING = "may be gone at the next call whatever the text: past its time, a dropped connection, a rate limit"
    # An endpoint may answer a 5xx to one text every time (some self-hosted servers do, to a text too long): down
    # tells the two apart.
    LASTING = "a 5xx: overloaded or failing in itself, or answering so to one text every time"


def on_its_side(exc: BaseException) -> OnItsSide | None:
    """How an embedding call failed on the embedder's side (unreachable, overloaded, failing in itself, past its
    time or the invocation's), so that the next call soon fails alike, after waiting out its attempts again; None
    when on what it was given (a text it refuses, an endpoint's 400), or for a cause not known to be the
    embedder's, which a caller takes as possibly the text's. The OpenAI-compatible embedder's errors are known
    only once its module is loaded: a process without an endpoint never loads the openai client for this."""
    if isinstance(exc, TimeoutError):
        return OnItsSide.PASSING
    endpoint = sys.modules.get("memex.embeddings.openai_compat")
    if endpoint is None or not isinstance(exc, endpoint.TRANSIENT):
        return None
    return OnItsSide.PASSING if isinstance(exc, endpoint.PASSING) else OnItsSide.LASTING


def down(embedder: Embedder, exc: BaseException) -> bool:
    """Whether the embedder is down after a call of it failed with `exc`: a failure on its side (on_its_side)
    that a probe (one short attempt, about 2 s) confirms. An endpoint answering 5xx to one text only answers
    the probe: the failure is that text's, and a caller that stopped for it would stop at every run, with that
    text first in line."""
    if on_its_side(exc) is None:
        return False
    # Asked again of one failure (a job start's savepoint, then the sweep it fails), the probe's answer is kept
    # on it: a second probe would wait for a down embedder once more. It is the embedder's state after that
    # failure, the same for every caller the coalescing embedder raised it to.
    if not hasattr(exc, "embedder_down"):
        try:
            embedder.probe()
        except Exception:  # noqa: BLE001 - it fails alike: down
            exc.embedder_down = True
        else:
            exc.embedder_down = False
    return exc.embedder_down
