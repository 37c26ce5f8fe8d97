"""The one interface every embedding provider implements."""

from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of L2-normalised vectors, one row per text."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of one search query: an interactive caller waits a short deadline, not the
        patience of a batch job. Raises when the embedder cannot answer in time."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors of several search queries in one call, on embed_query's deadline: a
        search's queries of one round trip, each vector the one embed_query gives the text."""
        ...

    def probe(self) -> None:
        """Raise if the embedder cannot embed now. Cheap and bounded (about 2 s at most)."""
        ...

    def load(self) -> None:
        """Load now what the first embedding would otherwise load (a local model's weights)."""
        ...
