"""The OpenAI-compatible embedding provider, through the real openai client, on a loopback server."""

from __future__ import annotations

import numpy as np
import openai
import pytest

from memex.config import Settings
from memex.embeddings import make_embedder
from memex.embeddings.openai_compat import OpenAICompatibleEmbedder
from bench.openai_double import OpenAIDouble, fake_embedding


def test_vectors_come_back_normalised_in_input_order_across_batches():
    with OpenAIDouble(dim=8) as server:
        embedder = make_embedder(Settings(embeddings_provider="openai", embeddings_base_url=server.base_url,
                                          embeddings_model="embed-test", embedding_dim=8, embeddings_batch_size=2))
        assert isinstance(embedder, OpenAICompatibleEmbedder)
        texts = ["alpha", "beta", "", "delta", "épsilon 🚀"]
        vectors = embedder.embed(texts)
    assert vectors.shape == (5, 8) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    expected = np.asarray(fake_embedding("delta", 8))
    assert np.allclose(vectors[3], expected / np.linalg.norm(expected), atol=1e-5)
    batches = [body["input"] for path, body in server.requests]
    assert batches == [["alpha", "beta"], [" ", "delta"], ["épsilon 🚀"]]
    assert {body["model"] for _, body in server.requests} == {"embed-test"}


def test_a_server_error_is_retried():
    with OpenAIDouble(dim=8) as server:
        server.script("/v1/embeddings", status=500)
        vectors = OpenAICompatibleEmbedder("m", 8, server.base_url, "k").embed(["hello"])
    assert vectors.shape == (1, 8)
    assert len(server.requests) == 2


def test_a_dimension_other_than_configured_is_refused():
    with OpenAIDouble(dim=16) as server:
        with pytest.raises(ValueError, match="16-d"):
            OpenAICompatibleEmbedder("m", 8, server.base_url, "k").embed(["hello"])


def test_a_persistent_client_error_surfaces():
    with OpenAIDouble(dim=8) as server:
        server.script("/v1/embeddings", status=401, body={"error": {"message": "bad key"}})
        with pytest.raises(openai.AuthenticationError):
            OpenAICompatibleEmbedder("m", 8, server.base_url, "wrong").embed(["hello"])
