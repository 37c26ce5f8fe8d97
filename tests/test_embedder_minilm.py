"""The numpy MiniLM embedder reproduces sentence-transformers' all-MiniLM-L6-v2 vectors."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memex.embeddings.minilm import MiniLMEmbedder
from tests.conftest import ROOT

REFERENCE = Path(__file__).parent / "data" / "all-minilm-l6-v2.json"


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture(scope="module")
def reference() -> tuple[list[str], np.ndarray]:
    items = json.loads(REFERENCE.read_text(encoding="utf-8"))["items"]
    return [item["text"] for item in items], np.array([item["embedding"] for item in items], dtype=np.float32)


def test_reproduces_reference_vectors(embedder, reference):
    texts, expected = reference
    got = embedder.embed(texts)
    cosines = np.sum(got * expected, axis=1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(expected, axis=1))
    worst = int(np.argmin(cosines))
    assert cosines[worst] >= 0.999, f"worst cosine {cosines[worst]:.6f} for {texts[worst][:60]!r}"


def test_batch_equals_one_at_a_time(embedder, reference):
    texts, _ = reference
    batched = embedder.embed(texts)
    single = np.vstack([embedder.embed([text]) for text in texts])
    diff = float(np.max(np.abs(batched - single)))
    assert diff < 1e-5, f"max abs diff {diff:.2e}"


def test_output_is_normalised_float32(embedder, reference):
    texts, _ = reference
    got = embedder.embed(texts)
    assert got.dtype == np.float32
    assert got.shape == (len(texts), embedder.dim)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_empty_input(embedder):
    got = embedder.embed([])
    assert got.shape == (0, embedder.dim)
    assert got.dtype == np.float32


def test_short_and_long_texts_in_one_batch(embedder, reference):
    """The dense layers run on real tokens only: a text batched with much longer ones (most of its
    row padding) gets the vector it gets alone, and so does each long one."""
    texts, expected = reference
    mixed = ["Hi.", texts[0], "ok", " ".join(texts[:3]), "Biscuit"]
    batched = embedder.embed(mixed)
    single = np.vstack([embedder.embed([text]) for text in mixed])
    assert float(np.max(np.abs(batched - single))) < 1e-5
    np.testing.assert_allclose(batched[1], expected[0], atol=2e-3)


HUB_CLIENT = ("huggingface_hub", "hf_xet")


def test_nothing_of_the_layer_imports_the_hub_client():
    # shared/Makefile leaves huggingface_hub and hf_xet (tokenizers' dependencies) out of the layer.
    for path in (ROOT / "shared").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not [n for n in names if n.split(".")[0] in HUB_CLIENT], f"{path}: {names}"


def test_the_embedder_loads_and_embeds_without_the_hub_client():
    # None in sys.modules makes an import of the package fail, as its absence from the layer would.
    code = (f"import sys; sys.modules.update(dict.fromkeys({HUB_CLIENT!r}))\n"
            "from memex.embeddings.minilm import MiniLMEmbedder\n"
            "print(MiniLMEmbedder().embed(['I work at Stripe.']).shape)")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=dict(os.environ),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "(1, 384)"
