"""Keyword first: a hybrid search answered without embedding the query, when the keyword
channel's own answer already settles it.

Under load most of a search's CPU is the query's embedding (README, Performance). A question
that repeats the words of one memory, words the user rarely says, is found by the keyword channel
alone; the vector channel then adds candidates that the fusion ranks below that memory anyway.
The keyword channel is decisive when its best hit

- covers the question: at least `coverage` of the query's words, weighed by their rarity in the
  scope (floor.keyword_signals: a word the user never said weighs as the rarest), so a question
  in words of its own (a paraphrase, which the vector channel is there for) never is;
- says one of the query's rare words as written (floor.RARE_SHARE);
- stands out: its BM25 score exceeds the second hit's by at least `margin`, in units of the
  highest IDF a word can have in the scope (floor.bm25_units), so that the rule reads the same
  for a user with fifty memories as for one with fifty thousand.

The thresholds were chosen on LoCoMo-dev leave-one-conversation-out (README, Performance).
"""

from __future__ import annotations

from dataclasses import dataclass

from memex.db.memories import Ranking
from memex.retrieval import floor


@dataclass(frozen=True)
class Evidence:
    """What the keyword channel says of its best hit."""

    coverage: float
    rare_exact: bool
    margin: float  # over the second hit, in floor.bm25_units (the whole score when there is none)


@dataclass(frozen=True)
class Thresholds:
    coverage: float = 0.8
    margin: float = 0.5


DEFAULT = Thresholds()


def evidence(keyword: Ranking | None) -> Evidence | None:
    """None when the keyword channel found nothing."""
    if keyword is None or not keyword.ranked:
        return None
    (best, first), second = keyword.ranked[0], keyword.ranked[1][1] if len(keyword.ranked) > 1 else 0.0
    coverage, rare = floor.keyword_signals(keyword.terms, *keyword.matched.get(best, ((), ())), keyword.scope_size)
    return Evidence(coverage, rare, floor.bm25_units(first - second, keyword.scope_size))


def decisive(keyword: Ranking | None, thresholds: Thresholds = DEFAULT) -> bool:
    found = evidence(keyword)
    return (found is not None and found.rare_exact and found.coverage >= thresholds.coverage
            and found.margin >= thresholds.margin)
