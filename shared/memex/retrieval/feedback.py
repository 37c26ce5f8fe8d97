"""Pseudo-relevance feedback for the keyword channel (RM3-style, offline).

A question often shares no word with half of what answers it: "Where did the family go on
holiday?" finds "Our family holiday was a week of canoeing in the mountains.", but "The canoeing
was exhausting but the twins adored it." only through "canoeing", a word the first hit uses and the
question does not. The best hits' distinctive words, as a second keyword query fused with a small
weight, reach such lines.

Distinctive is measured against the candidates the question's own channels returned (up to two
hundred memories, already read with the rankings): a word most candidates use ("really", "today")
says nothing of these hits, one used by the best hits and few other candidates does. Its weight is
its weight in the hits times an inverse document frequency over that pool, which costs no
statistics lookup; the query is one more keyword statement, sent in the round trip the other
extra queries make (the stop words it may pick are dropped by the text search configuration).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Iterable, Sequence

_WORD = re.compile(r"[^\W\d_]{3,}")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def terms(hits: Sequence[str], pool: Iterable[str], question: str, exclude: Iterable[str], limit: int) -> list[str]:
    """Up to `limit` words of `hits` (the question's best memories, best first, their own words)
    that `question` does not use, by their weight in the hits (the first hit's words count most)
    times their rarity in `pool` (the contents of every candidate the question's channels found).
    `exclude` are words never to add: the participants' names, which most lines carry."""
    pool_df: Counter[str] = Counter()
    size = 0
    for text in pool:
        size += 1
        pool_df.update(_words(text))
    asked = _words(question) | {w.lower() for w in exclude}
    weight: Counter[str] = Counter()
    for rank, text in enumerate(hits):
        for word in _words(text) - asked:
            weight[word] += 1.0 / (rank + 1)
    scored = sorted(((-w * math.log((size + 1) / max(pool_df[word], 1)), word) for word, w in weight.items()))
    return [word for _, word in scored[:limit]]
