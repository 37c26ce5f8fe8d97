"""The relevance floor: a query about nothing the user said returns nothing.

Fused relevance is relative (the best candidate of an unrelated query still ranks first), so
the floor reads absolute signals: cosine similarity, and BM25 measured in units of the highest
IDF a word can have among the scope's N memories (BM25 grows with ln N, so a raw threshold
that suits a long history would silence a user with five memories). A query passes only if some
memory is clearly related to it (the gate); then each memory must be at least loosely related
(the item floor). Calibrated with `python -m bench.floor --data locomo-dev.json`: on the LoCoMo development
conversations the gate passes 99.9% of the questions and 23% of off-topic queries (in hundreds
of turns of small talk, "hello" or "mountain" is usually said somewhere), and the item floor keeps
98.4% of the memories that hold evidence. On a short history an off-topic query finds nothing.
"""

from __future__ import annotations

import math
from typing import Iterable

GATE_SIMILARITY = 0.35
GATE_BM25 = 0.9  # in units of the highest IDF (see bm25_units)
ITEM_SIMILARITY = 0.2
ITEM_BM25 = 0.33


def bm25_units(score: float, scope_size: int) -> float:
    """A BM25 score divided by the IDF of a word found in one memory out of `scope_size`."""
    return score / math.log(1 + (max(scope_size, 1) - 0.5) / 1.5)


def _related(bm25: float | None, similarity: float | None, min_bm25: float, min_similarity: float) -> bool:
    return (similarity is not None and similarity >= min_similarity) or (bm25 is not None and bm25 >= min_bm25)


def query_passes(signals: Iterable[tuple[float | None, float | None]]) -> bool:
    """`signals`: (bm25, similarity) of each candidate, None where a channel did not find it."""
    return any(_related(b, s, GATE_BM25, GATE_SIMILARITY) for b, s in signals)


def item_passes(bm25: float | None, similarity: float | None) -> bool:
    return _related(bm25, similarity, ITEM_BM25, ITEM_SIMILARITY)
