"""The cache of query vectors: a query asked again is not embedded again; documents never cached."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from memex.config import ConfigurationError, load_settings
from memex.embeddings import measured_embedder
from memex.embeddings.minilm import MiniLMEmbedder
from memex.embeddings.query_cache import QueryCache, asked_by
from memex.embeddings.recent import RecentVectors
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
    cache = QueryCache(inner, size=8, max_age=600)
    first = cache.embed_query("Where does Caroline live?")
    again = cache.embed_query("Where does Caroline live?")
    assert inner.queries == ["Where does Caroline live?"]
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(first, inner.inner.embed_query("Where does Caroline live?"), atol=1e-6)
    with pytest.raises(ValueError):
        again[0] = 1.0  # one vector shared by every search asking the query: nobody may change it


def test_the_least_recently_asked_query_is_dropped_first():
    inner = Counting()
    cache = QueryCache(inner, size=2, max_age=600)
    for query in ("a dog", "a cat", "a dog", "a bird", "a dog", "a cat"):
        cache.embed_query(query)
    # "a cat" was dropped when "a bird" came (the dog asked more recently); the dog stayed.
    assert inner.queries == ["a dog", "a cat", "a bird", "a cat"]


def test_a_batch_of_queries_asks_the_embedder_for_those_not_kept_only():
    inner = Counting()
    cache = QueryCache(inner, size=8, max_age=600)
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
    cache = QueryCache(inner, size=8, max_age=600)
    for tenant in ("acme", "globex", "acme", "globex"):
        with asked_by(tenant):
            cache.embed_queries(["What is Alice's locker code?"])
    assert inner.queries == ["What is Alice's locker code?"] * 2


def test_documents_are_never_cached():
    inner = Counting()
    cache = QueryCache(inner, size=8, max_age=600)
    cache.embed(["one memory", "another"])
    cache.embed(["one memory"])
    assert inner.documents == 3


def test_a_failed_query_is_embedded_again_when_next_asked():
    inner = Counting()
    cache = QueryCache(inner, size=8, max_age=600)
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
        QueryCache(cached.inner, size=0, max_age=600)


class Clock:
    """The time the cache reads, moved by the test (no sleeping)."""

    def __init__(self) -> None:
        self.at = 1000.0

    def __call__(self) -> float:
        return self.at


def test_a_query_is_embedded_again_once_it_was_kept_for_the_maximum_age_however_often_asked():
    """Another process than the erasing one keeps an erased query that long at most: asking it
    again does not extend its life."""
    inner, clock = Counting(), Clock()
    cache = QueryCache(inner, size=8, max_age=600, now=clock)
    for at in (0, 300, 599):
        clock.at = 1000.0 + at
        cache.embed_query("What is Alice's locker code?")
    assert inner.queries == ["What is Alice's locker code?"]
    clock.at = 1600.0
    cache.embed_query("What is Alice's locker code?")
    assert inner.queries == ["What is Alice's locker code?"] * 2


def test_an_expired_text_leaves_the_process_at_its_next_use_whatever_is_asked():
    """Not only unused: dropped, so that its words are not kept in memory (recent.py)."""
    clock = Clock()
    recent = RecentVectors(8, max_age=60, now=clock)
    recent.put_many("acme", {"My locker code is 4512.": np.ones(3)})
    recent.put_many("globex", {"a later text": np.ones(3)})
    clock.at += 30
    recent.put_many("acme", {"My locker code is 4512.": np.ones(3)})  # written again: kept anew
    clock.at += 45
    assert recent.get_many("acme", ["something else"]) == {}
    assert [text for _, text in recent._vectors] == ["My locker code is 4512."]
    clock.at += 15
    recent.get_many("acme", [])
    assert list(recent._vectors) == []
    with pytest.raises(ValueError):
        RecentVectors(8, max_age=0)


@pytest.mark.parametrize("age", ["0", "-5"])
def test_a_maximum_age_that_is_not_positive_stops_the_start_naming_the_setting(monkeypatch, age):
    monkeypatch.setenv("MEMEX_RECENT_TEXTS_MAX_AGE_SECONDS", age)
    with pytest.raises(ConfigurationError, match=r"^MEMEX_RECENT_TEXTS_MAX_AGE_SECONDS: must be a positive"):
        load_settings()
    monkeypatch.setenv("MEMEX_RECENT_TEXTS_MAX_AGE_SECONDS", "90")
    assert load_settings().recent_texts_max_age_seconds == 90
