"""The local embedder's texts with each emoji read as its name (memex.emoji.named): all-MiniLM-L6-v2's
vocabulary has no emoji, each was its unknown token, which says nothing of sushi and made every text
with an emoji near every other (docs/measurements/emoji.md). A text without an emoji is embedded as
sent, and the model itself still computes what sentence-transformers computes."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from memex import emoji
from memex.embeddings.base import Embedder


class NamedEmojiEmbedder:
    """Wraps an embedder whose vocabulary has no emoji."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.name = inner.name
        self.dim = inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._inner.embed([emoji.named(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._inner.embed_query(emoji.named(text))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._inner.embed_queries([emoji.named(t) for t in texts])

    def probe(self) -> None:
        self._inner.probe()

    def load(self) -> None:
        self._inner.load()
