"""The cache of query vectors: a query asked again is not embedded again; documents never cached."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from memex.config import load_settings
from memex.embeddings import measured_embedder
from memex.embeddings.minilm import MiniLMEmbedder
from memex.embeddings.query_cache import QueryCache, asked_by
from memex.metrics import NoMetrics


class Counting:
    """The real embedder, its calls counted; it fails while `failing` is set."""

    def __init__(self) -> None:
        self.inner = MiniLMEmbedder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.queries: list[str] = []
        self.documents = 0
        self.failing = False

    def embed(self, texts):
        self.documents += len(texts)
        return self.inner.embed(texts)

    def embed_query(self, text):
        self.queries.append(text)
        if self.failing:
            raise TimeoutError("embedder down")
        return self.inner.embed_query(text)

    def embed_queries(self, texts):
        self.queries.extend(texts)
        return self.inner.embed_queries(texts)

    def probe(self):
        self.inner.probe()


def test_a_query_asked_again_is_not_embedded_again():
    inner = Counting()
    cache = QueryCache(inner, size=8)
    first = cache.embed_query("Where does Caroline live?")
    again = cache.embed_query("Where does Caroline live?")
    assert inner.queries == ["Where does Caroline live?"]
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(first, inner.inner.embed_query("Where does Caroline live?"), atol=1e-6)
    with pytest.raises(ValueError):
        again[0] = 1.0  # one vector shared by every search asking the query: nobody may change it


def test_the_least_recently_asked_query_is_dropped_first():
    inner = Counting()
    cache = QueryCache(inner, size=2)
    for query in ("a dog", "a cat", "a dog", "a bird", "a dog", "a cat"):
        cache.embed_query(query)
    # "a cat" was dropped when "a bird" came (the dog asked more recently); the dog stayed.
    assert inner.queries == ["a dog", "a cat", "a bird", "a cat"]


def test_a_batch_of_queries_asks_the_embedder_for_those_not_kept_only():
    inner = Counting()
    cache = QueryCache(inner, size=8)
    first = cache.embed_query("Where does Caroline live?")
    both = cache.embed_queries(["Where does Caroline live?", "What did Melanie paint?", "What did Melanie paint?"])
    assert inner.queries == ["Where does Caroline live?", "What did Melanie paint?"]
    np.testing.assert_array_equal(both[0], first)
    np.testing.assert_array_equal(both[1], both[2])
    np.testing.assert_array_equal(both[1], cache.embed_query("What did Melanie paint?"))
    assert len(inner.queries) == 2


def test_a_query_one_tenant_asked_is_embedded_again_for_another():
    """A kept query answers in a fraction of an embedding's time: shared between tenants, that time
    would tell one tenant what another had asked."""
    inner = Counting()
    cache = QueryCache(inner, size=8)
    for tenant in ("acme", "globex", "acme", "globex"):
        with asked_by(tenant):
            cache.embed_queries(["What is Alice's locker code?"])
    assert inner.queries == ["What is Alice's locker code?"] * 2


def test_documents_are_never_cached():
    inner = Counting()
    cache = QueryCache(inner, size=8)
    cache.embed(["one memory", "another"])
    cache.embed(["one memory"])
    assert inner.documents == 3


def test_a_failed_query_is_embedded_again_when_next_asked():
    inner = Counting()
    cache = QueryCache(inner, size=8)
    inner.failing = True
    with pytest.raises(TimeoutError):
        cache.embed_query("Where does Caroline live?")
    inner.failing = False
    assert cache.embed_query("Where does Caroline live?").shape == (inner.dim,)
    assert inner.queries == ["Where does Caroline live?"] * 2


def test_the_setting_puts_the_cache_in_front_of_the_measured_embedder():
    settings = load_settings()
    metrics = NoMetrics()
    assert not isinstance(measured_embedder(dataclasses.replace(settings, embeddings_query_cache=0), metrics),
                          QueryCache)
    cached = measured_embedder(dataclasses.replace(settings, embeddings_query_cache=16), metrics)
    assert isinstance(cached, QueryCache)
    with pytest.raises(ValueError):
        QueryCache(cached.inner, size=0)
