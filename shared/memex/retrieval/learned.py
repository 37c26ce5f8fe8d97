"""The learned order: a linear model re-ranks the best fused candidates of a hybrid search.

The hand-set blend (weighted RRF, the question's cues, recency and importance) puts the evidence
in the best 50 far more often than in the best 10. A few things it knows of each candidate weigh
differently from how the blend adds them up; a pairwise logistic regression on LoCoMo-dev learned
how much (bench/ltr.py). Its weights are the constants below; the model sees nothing the search
does not already hold at that point: no extra round trip, a dot product per candidate.

Measured on the five development conversations, over the service's own best 50 (`python -m
bench.ltr`, README "LoCoMo retrieval benchmark"): R@5 / R@10 0.702 / 0.807 -> 0.720 / 0.823
fitted on four conversations and scored on the fifth (leave-one-out, penalty chosen inside the
four), 0.728 / 0.828 fitted on all five; multi-hop R@10 0.446 -> 0.476 (leave-one-out).

Recency is not a feature: the blend already weighs it, and on LoCoMo the model learnt older lines
first, which a user asking what holds these days would pay for (the held-out R@10 is the same
without it). Importance is: it keeps a fact above a message that says no more, and without it a
line's length alone decided between two facts ("The user's job title is PM." above "The user's
employer is Notion." for "where does the user work?").
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any, Sequence

from memex.db.memories import Found
from memex.retrieval import speakers, temporal

CANDIDATES = 50  # as many as the model was fitted on: the blend's best 50

FEATURES = ("relevance", "position", "importance", "bm25_rank", "vector_rank", "length", "speaker_named",
            "in_period")

# Fitted by `python -m bench.ltr` on the whole development file (its penalty chosen by
# leave-one-conversation-out); its last line, pasted here.
WEIGHTS = {"relevance": 6.81, "position": -0.132, "importance": 6.0, "bm25_rank": 1.43, "vector_rank": 1.02,
           "length": 0.91, "speaker_named": 0.694, "in_period": 2.8}

Scored = tuple[str, float, dict[str, Any]]


def rank_feature(rank: int | None) -> float:
    """1 / log2(1 + rank): 1 for the first, falling slowly; 0 for no rank (the channel missed it)."""
    return 1.0 / math.log2(1 + rank) if rank else 0.0


def features(question: str, now: datetime, candidates: Sequence[tuple[dict[str, Any], Found]]) -> list[list[float]]:
    """The FEATURES of each candidate, given best first as (score parts, what the ranking read of it)."""
    asked = speakers.words(question)
    periods = temporal.windows(question, now)
    rows = []
    for position, (parts, found) in enumerate(candidates, start=1):
        values = {
            "relevance": parts["relevance"],
            "position": rank_feature(position),
            "importance": parts["importance"],
            "bm25_rank": rank_feature(parts.get("bm25_rank")),
            "vector_rank": rank_feature(parts.get("vector_rank")),
            "length": math.log(1 + len(found.content.split())),
            "speaker_named": float(speakers.names(asked, found)),
            "in_period": float(temporal.within(found.valid_from, periods)),
        }
        rows.append([values[name] for name in FEATURES])
    return rows


def reorder(question: str, now: datetime, scored: list[Scored], found: dict[str, Found]) -> list[Scored]:
    """`scored` (best first) with its best CANDIDATES in the model's order, the rest after them as
    they were. The list stays in score order: the block's scores are handed out again, highest
    first, in the new order; `score_parts.learned` holds the model's own value."""
    block, rest = scored[:CANDIDATES], scored[CANDIDATES:]
    rows = features(question, now, [(parts, found[item]) for item, _, parts in block])
    values = [sum(WEIGHTS[name] * value for name, value in zip(FEATURES, row)) for row in rows]
    order = sorted(range(len(block)), key=lambda i: (-values[i], i))
    scores = [score for _, score, _ in block]
    return [(block[i][0], score, {**block[i][2], "score": score, "learned": round(values[i], 6)})
            for i, score in zip(order, scores)] + rest
