"""Keyword first: a hybrid search answered without embedding the query, when the keyword
channel's own answer already settles it.

Under load most of a search's CPU is the query's embedding (README, Performance). A question
that repeats the words of one memory is found by the keyword channel alone; the vector channel
then adds candidates that the fusion ranks below that memory anyway. The keyword channel is
decisive when its best hit covers the question: it holds at least `COVERAGE` of the query's
words, each weighed by its rarity in the user's memories (floor.keyword_signals; a word the user
never said weighs as the rarest, so a question put in words of its own, which the vector channel
is there for, never is).

Chosen on LoCoMo-dev from the data (bench/locomo.py's questions, each answered both ways; README,
Performance): among rules on the best hit's coverage and its BM25 margin over the second hit, the
one answering the most questions keyword-only while losing at most 0.0025 of recall@10. It needs
no margin; a rare exact word adds nothing to a coverage this high.
"""

from __future__ import annotations

from memex.db.memories import Ranking
from memex.retrieval import floor

COVERAGE = 0.8


def coverage(keyword: Ranking | None) -> float:
    """The share of the query's words (weighed by rarity) that the keyword channel's best hit holds."""
    if keyword is None or not keyword.ranked:
        return 0.0
    best = keyword.ranked[0][0]
    held, _ = floor.keyword_signals(keyword.terms, *keyword.matched.get(best, ((), ())), keyword.scope_size,
                                  kin=floor.families(keyword.words))
    return held


def decisive(keyword: Ranking | None) -> bool:
    return coverage(keyword) >= COVERAGE
