"""The relevance floor: a query about nothing the user said returns nothing, and a memory that
holds what the query asks for is never dropped.

Fused relevance is relative (the best candidate of an unrelated query still ranks first), so
the floor reads absolute signals of each candidate:

- cosine similarity to the query;
- BM25 in units of the highest IDF a word can have among the scope's N memories (BM25 grows
  with ln N, so a raw threshold that suits a long history would silence a user with five);
- keyword coverage: the share of the query's words the memory holds, each word weighed by its
  IDF in the scope (a word the user never used weighs as much as the rarest word they did), a
  word held only through its stem ("Noted" for "notes") counting `STEM_CREDIT` of one said as
  written. A query about something else shares a word or two with a long, chatty history (its
  rarest words are the ones nobody said); a query about what the user said shares most of them.
  The words of one family searched together (keywords.FAMILIES: "allergies", "allergic") count
  as one word of the query, held by a memory that holds any of them, and weigh as the commonest
  of them (the family is in at least as many memories as it is): a question gains no coverage from
  the words its family adds, and a memory that says "allergic" covers "allergies" as it is written.
  So does a Korean word with the stems it is also read as without its particles (folding.stems:
  "서울은" and "서울"): a memory that says "서울에서" covers the question's "서울은";
- a rare exact hit: the memory's content says, as written, a word of the query that at most
  `RARE_SHARE` of the scope's memories hold. Rare enough scales with the history: a word in half
  of the memories or fewer is one BM25's classic IDF (Robertson and Spärck Jones) still counts
  as evidence; past that it tells a memory from the others no better than chance.

A query passes only if some memory is clearly related to it (the gate: similarity or coverage
high enough, or both channels agreeing on one memory: the coverage that opens the keyword-only
gate and the item floor's similarity); then each memory must be at least loosely related (the item floor), and one with
a rare exact hit always is. So a search for "Globex" finds every memory that says Globex, while
"quantum chromodynamics lecture notes" does not open on "Noted, green tea it is."

The thresholds are calibrated with `python -m bench.floor --data locomo-dev.json`, which also
reports them chosen leave-one-conversation-out; the figures are in the README (The relevance floor).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, NamedTuple

from memex import folding
from memex.retrieval import keywords

RARE_SHARE = 0.5  # a definition, not a tuned value: see above
STEM_CREDIT = 0.5  # a word matched only through its stem counts half


@dataclass(frozen=True)
class Thresholds:
    gate_similarity: float = 0.35
    gate_coverage: float = 0.6
    # When only the keyword channel ran (mode bm25, or the embedder down), coverage is the gate's
    # one signal: chosen to let in no more off-topic queries than the hybrid gate does.
    gate_coverage_alone: float = 0.45
    item_similarity: float = 0.2
    item_bm25: float = 0.33  # in units of the highest IDF (see signals)


DEFAULT = Thresholds()


class Signals(NamedTuple):
    """What the floor knows of one candidate; None where a channel did not find it. A named tuple,
    not a frozen dataclass: as immutable, and built in half the time (a search builds hundreds)."""

    bm25: float | None = None
    similarity: float | None = None
    coverage: float = 0.0
    rare_exact: bool = False


def idf(df: float, scope_size: int) -> float:
    n = max(scope_size, 1)
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def term_weights(terms: dict[str, int], scope_size: int) -> dict[str, float]:
    """Each query term's weight in coverage: its IDF in the scope (at least that of the rarest word)."""
    return {term: idf(max(df, 1), scope_size) for term, df in terms.items()}


def families(words: dict[str, str]) -> list[frozenset[str]]:
    """The terms of each of keywords.FAMILIES that the query's `words` (word -> term) hold more
    than one of, and of each Korean word with its stems (none of them another's stem): each counts
    in coverage as one word."""
    found = [{term for word, term in words.items() if word in family} for family in keywords.FAMILIES]
    stemmed = {word: [stem for stem in folding.stems(word) if stem in words] for word in words}
    found += ({words[word], *(words[stem] for stem in stemmed[word])}
              for word in words if not any(word in other for other in stemmed.values()))
    return [frozenset(terms) for terms in found if len(terms) > 1]


def keyword_signals(terms: dict[str, int], matched: Iterable[str], exact: Iterable[str],
                    scope_size: int, kin: Iterable[frozenset[str]] = ()) -> tuple[float, bool]:
    """(coverage, rare exact hit) of a memory that holds the query terms `matched`, `exact` of
    them as the query writes them; `terms`: each query term's document frequency in the scope;
    `kin`: families(words) of the query, each family one word."""
    return _Query(terms, scope_size, kin).signals(frozenset(matched), frozenset(exact))


class _Query:
    """The query's side of coverage and of a rare exact hit, the same for every memory of one query:
    read once for them all. Its words in coverage, each with its weight (a family of `kin` as one,
    the other terms each alone), their total, and the terms rare enough to count as a rare hit."""

    def __init__(self, terms: dict[str, int], scope_size: int, kin: Iterable[frozenset[str]]) -> None:
        weights = term_weights(terms, scope_size)
        slots = [family & weights.keys() for family in kin]
        grouped = set().union(*slots)
        slots = [s for s in slots if s] + [frozenset((term,)) for term in weights if term not in grouped]
        self.slots = [(slot, min(weights[term] for term in slot)) for slot in slots]
        self.total = 0.0
        for _, weight in self.slots:  # added in the slots' order, as the held weight is
            self.total += weight
        self.rare = frozenset(term for term, df in terms.items() if 0 < df <= RARE_SHARE * scope_size)
        # (matched, exact) -> signals, for this query only: its candidates hold a few sets of its terms
        # between them (a LoCoMo search reads ~185 candidates of ~30 sets)
        self._read: dict[tuple[frozenset[str], frozenset[str]], tuple[float, bool]] = {}

    def signals(self, matched: frozenset[str], exact: frozenset[str]) -> tuple[float, bool]:
        found = self._read.get((matched, exact))
        if found is None:
            found = self._read[matched, exact] = self._signals(matched, exact)
        return found

    def _signals(self, matched: frozenset[str], exact: frozenset[str]) -> tuple[float, bool]:
        held = 0.0
        for slot, weight in self.slots:
            if not slot.isdisjoint(exact):
                held += weight
            elif not slot.isdisjoint(matched):
                held += weight * STEM_CREDIT
        return (held / self.total if self.total > 0 else 0.0), not self.rare.isdisjoint(exact)


def signals(keyword, vector) -> dict[str, Signals]:
    """id -> Signals of every candidate of one query's channels (memories.Ranking, or None for a
    channel that did not run)."""
    bm25 = dict(keyword.ranked) if keyword is not None else {}
    similarity = dict(vector.ranked) if vector is not None else {}
    size = keyword.scope_size if keyword is not None else 0
    query = _Query(keyword.terms, size, families(keyword.words)) if keyword is not None else None
    unit = idf(1, size)  # BM25 in units of the IDF of a word found in one memory of the scope
    nothing = (frozenset(), frozenset())
    matched = keyword.matched if keyword is not None else {}
    found = {item: Signals(score / unit, similarity.get(item), *query.signals(*matched.get(item, nothing)))
             for item, score in bm25.items()}
    for item, score in similarity.items():
        if item not in found:
            found[item] = Signals(None, score)
    return found


def query_passes(candidates: Iterable[Signals], thresholds: Thresholds = DEFAULT, vector_ran: bool = True) -> bool:
    # A memory that holds enough of the query's words to open the keyword-only gate opens this one
    # too when the vector finds it at least loosely related: a vector beside the keywords must not
    # make the gate stricter than bm25 mode for it. Each channel alone sits just under its own
    # threshold for a new user's "I live in Lisbon." asked "Where am I living?" ("living" held
    # through its stem, cosine 0.33, 0.36 without the "?").
    coverage = thresholds.gate_coverage if vector_ran else thresholds.gate_coverage_alone
    return any(s.coverage >= coverage or (s.similarity is not None and (
        s.similarity >= thresholds.gate_similarity
        or (s.similarity >= thresholds.item_similarity and s.coverage >= thresholds.gate_coverage_alone)))
        for s in candidates)


def item_passes(s: Signals, thresholds: Thresholds = DEFAULT) -> bool:
    # A memory that says every word of the query as written is what was asked for, however common
    # those words are in the scope: a new user's two memories that both say "divorced" are found
    # by "divorced" in bm25 mode (or with the embedder down), where BM25 alone, its IDF near zero
    # for a word most memories hold, would drop them both.
    return (s.rare_exact or s.coverage >= 1.0
            or (s.similarity is not None and s.similarity >= thresholds.item_similarity)
            or (s.bm25 is not None and s.bm25 >= thresholds.item_bm25))
