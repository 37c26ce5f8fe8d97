"""The final score of a memory: relevance blended with recency, nudged by importance.

score = (1 - w) * (alpha * relevance + (1 - alpha) * exp(-lambda * age)) + w * importance,
with lambda = ln 2 / half_life, age measured from `reference_time` to when the memory became
valid, and w the importance weight.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

DEFAULT_ALPHA = 0.95
DEFAULT_HALF_LIFE_DAYS = 365.0
IMPORTANCE_WEIGHT = 0.1


@dataclass(frozen=True)
class ScoreParts:
    score: float
    relevance: float
    recency: float
    importance: float

    def as_dict(self) -> dict[str, float]:
        # written out, not read from __dict__: a search asks it of each of its ~150 candidates
        return {"score": round(self.score, 6), "relevance": round(self.relevance, 6),
                "recency": round(self.recency, 6), "importance": round(self.importance, 6)}


def recency(valid_from: datetime, reference_time: datetime, half_life_days: float) -> float:
    age_days = max(0.0, (reference_time - valid_from).total_seconds() / 86_400)
    # 0.5 ** (age / half-life) is exp(-lambda * age) without forming lambda, which overflows for a
    # tiny half-life; the power itself only underflows, to 0.
    return 0.5 ** (age_days / half_life_days)


def combine(relevance: float, recency_value: float, importance: float, alpha: float) -> ScoreParts:
    blended = alpha * relevance + (1 - alpha) * recency_value
    score = (1 - IMPORTANCE_WEIGHT) * blended + IMPORTANCE_WEIGHT * importance
    return ScoreParts(score=score, relevance=relevance, recency=recency_value, importance=importance)


def score(relevance: float, valid_from: datetime, importance: float, now: datetime,
          alpha: float | None, half_life_days: float | None) -> ScoreParts:
    """A memory's parts under a request's `alpha` and `half_life_days` (the defaults where it names
    none); importance as the wire shows it."""
    return combine(
        relevance=relevance,
        recency_value=recency(valid_from, now, half_life_days or DEFAULT_HALF_LIFE_DAYS),
        importance=round(importance, 4),
        alpha=DEFAULT_ALPHA if alpha is None else alpha,
    )
