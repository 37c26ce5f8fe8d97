"""Reciprocal rank fusion: merge ranked lists by summing 1 / (k + rank)."""

from __future__ import annotations

from typing import Sequence

K = 60  # the constant of Cormack et al. (2009); it damps the weight of the very first ranks


def fuse(rankings: Sequence[Sequence[str]], k: int = K) -> dict[str, float]:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores
