"""Weighted reciprocal rank fusion: merge ranked lists by summing weight / (k + rank).

The constants were measured on the LoCoMo development set (bench/locomo.py): a small k lets
the first ranks of each channel count (k = 60, the usual default, flattened them), and BM25
weighs twice the vector channel, whose small local model finds paraphrases but ranks them
loosely. Plain RRF (k = 60, equal weights) gave recall@10 0.670, this gives 0.752.
"""

from __future__ import annotations

from typing import Sequence

K = 10


def fuse(rankings: Sequence[tuple[float, Sequence[str]]], k: int = K) -> dict[str, float]:
    """id -> fused score, from (weight, ids best first) pairs."""
    scores: dict[str, float] = {}
    for weight, ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores


def best_possible(weights: Sequence[float], k: int = K) -> float:
    """The score of an item ranked first by every channel: divides scores into [0, 1]."""
    return sum(weights) / (k + 1)
