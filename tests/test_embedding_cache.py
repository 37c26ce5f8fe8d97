"""The query-vector cache (MEMEX_EMBEDDINGS_QUERY_CACHE): a repeated query is embedded once, the
vector is the one a fresh embedding gives, and a warm cache changes nothing a tenant may see:
not another tenant's memories, not an erased memory."""

from __future__ import annotations

import dataclasses
import uuid

import numpy as np
import pytest

from infra.local.runtime import HTTP_FUNCTIONS, function_module
from memex.embeddings.cache import QueryCache
from memex_edge.context import build_context
from memex_edge.http import create_app
from tests.conftest import Tenant


@pytest.fixture(scope="module")
def cached(ctx):
    """An app whose Context was built with the cache on, as MEMEX_EMBEDDINGS_QUERY_CACHE does."""
    from fastapi.testclient import TestClient

    built = build_context(dataclasses.replace(ctx.settings, embeddings_query_cache=64))
    assert isinstance(built.embedder, QueryCache)
    routers = [function_module(name).router for name in HTTP_FUNCTIONS]
    with TestClient(create_app(*routers, provide=lambda: built), raise_server_exceptions=False) as client:
        yield built, client


def test_a_repeated_query_is_embedded_once_and_equals_a_fresh_embedding(ctx):
    cache = QueryCache(ctx.embedder, 4)
    first = cache.embed_query("where does she work")
    assert cache.embed_query("where does she work") is first
    np.testing.assert_allclose(first, ctx.embedder.embed_query("where does she work"), atol=1e-6)
    with pytest.raises(ValueError):
        first[0] = 1.0  # a caller cannot change what later hits return


def test_the_least_recently_used_query_leaves_first(ctx):
    cache = QueryCache(ctx.embedder, 2)
    a, b = cache.embed_query("alpha query"), cache.embed_query("beta query")
    assert cache.embed_query("alpha query") is a  # alpha is now the most recent
    cache.embed_query("gamma query")
    assert cache.embed_query("alpha query") is a
    again = cache.embed_query("beta query")
    assert again is not b
    np.testing.assert_allclose(again, b, atol=1e-6)


def test_writes_are_not_cached(ctx):
    cache = QueryCache(ctx.embedder, 4)
    stored = cache.embed(["I keep bees in the garden."])
    assert cache.embed(["I keep bees in the garden."]) is not stored
    assert cache.embed_query("I keep bees in the garden.") is not stored[0]


def test_a_warm_cache_never_shows_another_tenants_memories(ctx, http, cached):
    _, client = cached
    mine, theirs = Tenant(ctx, http).through(client), Tenant(ctx, http).through(client)
    mine.turn("My cat is called Biscuit.")
    theirs.turn("My cat is called Pepper.")
    query = "what is the cat called"
    for _ in range(2):  # the second time from a warm cache
        for tenant, own, other in ((mine, "Biscuit", "Pepper"), (theirs, "Pepper", "Biscuit")):
            contents = [r["content"] for r in tenant.search(query)]
            assert any(own in c for c in contents), contents
            assert all(other not in c for c in contents), contents


def test_a_warm_cache_never_brings_back_an_erased_memory(ctx, http, cached):
    _, client = cached
    tenant = Tenant(ctx, http).through(client)
    boat = f"Zq{uuid.uuid4().hex[:8]}"
    tenant.turn(f"My boat is named {boat}.")
    query = "what is my boat named"
    found = [r for r in tenant.search(query) if boat in r["content"]]
    assert found
    for memory in found:
        assert tenant.delete(f"/v1/memories/{memory['id']}").status_code == 200
    assert all(boat not in r["content"] for r in tenant.search(query))
