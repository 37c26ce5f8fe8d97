"""The learned order: a linear model re-ranks the best fused candidates of a hybrid search.

The hand-set blend (weighted RRF, the question's cues, recency and importance) puts the evidence
in the best 50 far more often than in the best 10. A few things it knows of each candidate weigh
differently from how the blend adds them up; a pairwise logistic regression on LoCoMo-dev learned
how much (bench/ltr.py). Its weights are the constants below; the model sees nothing the search
does not already hold at that point: no extra round trip, a dot product per candidate.

Measured on the five development conversations, over the service's own best 50 (`python -m
bench.ltr`, README "LoCoMo retrieval benchmark"): R@5 / R@10 0.702 / 0.806 -> 0.742 / 0.830
fitted on four conversations and scored on the fifth (leave-one-out, penalty chosen inside the
four), 0.751 / 0.837 fitted on all five; multi-hop R@10 0.446 -> 0.487 (leave-one-out). The
tenth feature, the moment ("moment"), added 0.010 / 0.006 held out to the nine before it (0.732 /
0.824 on the same candidates, multi-hop 0.478); it costs multi-hop R@5 (0.385 -> 0.362). The
eleventh, whether the line holds the type of thing the question asks for ("answer_type": a count, a
place, a name; retrieval/answer_type.py), on a later ingest's candidates: held out 0.742 / 0.831 ->
0.748 / 0.836, multi-hop R@5 / R@10 0.365 / 0.486 -> 0.376 / 0.501; whole file 0.751 / 0.833 -> 0.751
/ 0.839. The twelfth, the news of a list ("news": for a question that asks for a list or a count, the
named speaker's message that tells what they did; retrieval/news.py), refitted with all eleven on the
ninth stop's candidates: held out 0.764 / 0.850 -> 0.766 / 0.852, multi-hop R@10 0.511 -> 0.534, the
adversarial questions unchanged (for every question, not only a list's, it cost them 0.924 -> 0.916:
they name the speaker who did not do the thing). See docs/measurements/locomo.md.

Recency is not a feature: the blend already weighs it, and on LoCoMo the model learnt older lines
first, which a user asking what holds these days would pay for (the held-out R@10 is the same
without it). Importance is: it keeps a fact above a message that says no more, and without it a
line's length alone decided between two facts ("The user's job title is PM." above "The user's
employer is Notion." for "where does the user work?").
"""

from __future__ import annotations

import math
from datetime import datetime
from operator import mul
from typing import Any, Collection, Sequence

from memex import time_phrases
from memex.db.memories import Found
from memex.extraction import vocabulary
from memex.retrieval import answer_type, keywords, news, speakers

CANDIDATES = 50  # as many as the model was fitted on: the blend's best 50

FEATURES = ("relevance", "position", "importance", "bm25_rank", "vector_rank", "length", "speaker_named",
            "in_period", "asked_words", "moment", "answer_type", "news")

# Fitted by `python -m bench.ltr` on the whole development file (its penalty chosen by
# leave-one-conversation-out); its last line, pasted here.
WEIGHTS = {"relevance": 2.55, "position": 0.199, "importance": 6.36, "bm25_rank": 0.697, "vector_rank": 0.643,
           "length": 0.684, "speaker_named": 0.77, "in_period": 2.66, "asked_words": 1.27, "moment": 5.58,
           "answer_type": 1.68, "news": 0.974}

_WEIGHTS = tuple(WEIGHTS[name] for name in FEATURES)  # in the order of a row of features

Scored = tuple[str, float, dict[str, Any]]


def rank_feature(rank: int | None) -> float:
    """1 / log2(1 + rank): 1 for the first, falling slowly; 0 for no rank (the channel missed it)."""
    return 1.0 / math.log2(1 + rank) if rank else 0.0


# The plural and tense endings _stem takes off, in the order it tries them
_ENDINGS = ("ing", "ed", "es", "s")


def _stem(word: str) -> str:
    """The word without a plural or tense ending ("hiking" and "hikes" -> "hik"), so that a line
    need not say it the way the question does."""
    if word[-1:] not in ("g", "d", "s"):  # most words end otherwise, and need not try the endings
        return word
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[:-len(ending)]
    return word


def _content_words(words: frozenset[str]) -> frozenset[str]:
    return frozenset(map(_stem, words - vocabulary.FUNCTION_WORDS))


def _spellings(wanted: frozenset[str]) -> dict[str, str]:
    """Each word, not a function word, that _stem reads as one of `wanted` -> that stem: the stem
    itself or it with one of _stem's endings. The stems of a text's content words that are wanted
    are those of its words among these: a text's words looked up, not each of them stemmed."""
    spelled = {}
    for stem in wanted:
        for ending in ("", *_ENDINGS):
            word = stem + ending
            if word not in vocabulary.FUNCTION_WORDS and _stem(word) == stem:
                spelled[word] = stem
    return spelled


def _wanted_said(spelled: dict[str, str], words: frozenset[str]) -> frozenset[str]:
    """_content_words(words) & wanted, `spelled` = _spellings(wanted)."""
    return frozenset(spelled[word] for word in words.intersection(spelled))


def moments(candidates: Sequence[Found], relevance: Sequence[float]) -> list[float]:
    """Each candidate's relevance, capped at the best relevance of the others said in its turn: a
    line counts as far as its moment backs it. "The others" leave out the candidate's own message
    and the facts drawn from it (for a fact: the message it was drawn from and that message's other
    facts), which restate it rather than back it; a candidate with no other keeps its relevance, so
    a line said alone is not weighed down, and a weak line never gains from a strong turn-mate."""
    said: dict[str, list[tuple[str | None, float]]] = {}
    for found, value in zip(candidates, relevance):
        if found.turn_id is not None:
            said.setdefault(found.turn_id, []).append((found.message_id, value))
    out = []
    for found, value in zip(candidates, relevance):
        others = [other for message, other in said.get(found.turn_id, ()) if message != found.message_id]
        out.append(min(value, max(others)) if others else value)
    return out


def features(question: str, now: datetime, candidates: Sequence[tuple[dict[str, Any], Found]],
             also_said: Sequence[frozenset[str]] = ()) -> list[list[float]]:
    """The FEATURES of each candidate, given best first as (score parts, what the ranking read of it).

    "asked_words" is the share of the question's words the candidate says, each word weighted by how
    few of the candidates say it (a word every candidate says tells them apart no more than a
    function word). It leaves out the participants' names: the speaker cue weighs those, and an
    episodic line starts with its speaker's. `also_said` (by candidate, when given): words a
    candidate counts as saying besides its own, the question's word for the kind of a fact filed
    under it (topics.py: "pets" for "The user's dog is named Bolt.")."""
    asked = speakers.words(question)
    periods = time_phrases.windows(question, now)
    names = frozenset().union(*(speakers.words(name) for _, found in candidates
                                for name in (found.speaker, found.subject) if name))
    wanted = _content_words(speakers.words(keywords.of(question)) - names)  # "for a living" asks no word
    # of each candidate's content words, only the wanted ones (all that is read of them below)
    spelled = _spellings(wanted)
    said = [_wanted_said(spelled, speakers.words(found.content)) for _, found in candidates]
    if also_said:
        said = [words | _wanted_said(spelled, also) for words, also in zip(said, also_said)]
    weight = {word: math.log(1 + len(said) / (1 + sum(word in words for words in said))) for word in wanted}
    # fsum: the same total whatever order the set of words comes in (a string's hash, so a set's order,
    # changes with every process), so the same question over the same memories is ranked the same
    asked_weight = math.fsum(weight.values())
    backed = moments([found for _, found in candidates], [parts["relevance"] for parts, _ in candidates])
    kinds = answer_type.asked(question)
    lists = news.asks_list(question)
    # whether the question names a candidate's speaker or subject: a few pairs among the 50 candidates
    named_by: dict[tuple[str | None, str | None], bool] = {}
    rows = []
    for position, ((parts, found), words, moment) in enumerate(zip(candidates, said, backed), start=1):
        who = found.speaker, found.subject
        named = named_by.get(who)
        if named is None:
            named = named_by[who] = speakers.names(asked, found)
        # in FEATURES' order, a row built as it is read: no dict of the features by name per candidate
        rows.append([
            parts["relevance"],
            rank_feature(position),
            parts["importance"],
            rank_feature(parts.get("bm25_rank")),
            rank_feature(parts.get("vector_rank")),
            math.log(1 + len(found.content.split())),
            float(named),
            float(time_phrases.within(found.valid_from, periods)),
            math.fsum(weight[word] for word in wanted & words) / asked_weight if wanted else 0.0,
            moment,
            float(answer_type.holds(kinds, found.content, names)),
            # a list's items are the named speaker's news, each told once in its own session
            float(lists and named and found.memory_type == "episodic" and news.tells(found.content)),
        ])
    return rows


def reorder(question: str, now: datetime, scored: list[Scored], found: dict[str, Found],
            near: Collection[str] | None = None,
            topical: tuple[frozenset[str], Collection[str]] | None = None) -> list[Scored]:
    """`scored` (best first) with its best CANDIDATES in the model's order, the rest after them as
    they were. The list stays in score order: the block's scores are handed out again, highest
    first, in the new order; `score_parts.learned` holds the model's own value.

    With `near` (the memories the question's own signals would keep: floor.item_passes), a fact
    that is not one of them comes right after the message it was drawn from, not above it, when that
    message is the more relevant: "Hi! I'm Dana. I just moved to Lisbon for a new job." answers
    "where does she work?" through "job"; "The user's name is Dana." (cosine 0.08 to it) was let in
    with its message and its importance would carry it over the words it does not say. A fact near
    the question itself keeps its place, even when its message is the more relevant: "The user's
    employer is Notion." (0.34 from "Which company is she with?") stays above "I just started at
    Notion, left Stripe.".

    With `topical` (the question's words for the kinds of fact it names, and the facts filed under
    them: topics.py), those facts count as saying those words."""
    block, rest = scored[:CANDIDATES], scored[CANDIDATES:]
    also_said = ()
    if topical is not None:
        kind_words, facts = topical
        said = frozenset().union(*(speakers.words(word) for word in kind_words))
        also_said = [said if item in facts else frozenset() for item, _, _ in block]
    rows = features(question, now, [(parts, found[item]) for item, _, parts in block], also_said)
    values = [sum(map(mul, _WEIGHTS, row)) for row in rows]
    under = _under_message(block, found, values, near) if near is not None else {}

    def key(i: int) -> tuple[float, bool, float, int]:
        placed = values[under[i]] if i in under else values[i]
        return -placed, i in under, -values[i], i

    order = sorted(range(len(block)), key=key)
    scores = [score for _, score, _ in block]
    return [(block[i][0], score, {**block[i][2], "score": score, "learned": round(values[i], 6)})
            for i, score in zip(order, scores)] + rest


def _under_message(block: list[Scored], found: dict[str, Found], values: list[float],
                   near: Collection[str]) -> dict[int, int]:
    """fact's index -> its message's, for each fact of `block` not `near` valued above the message
    it was drawn from, though less relevant than that message."""
    messages = {found[item].message_id: i for i, (item, _, _) in enumerate(block)
                if found[item].memory_type == "episodic" and found[item].message_id is not None}
    under = {}
    for i, (item, _, parts) in enumerate(block):
        j = messages.get(found[item].message_id)
        if found[item].memory_type != "episodic" and item not in near and j is not None and values[i] > values[j] \
                and parts["relevance"] < block[j][2]["relevance"]:
            under[i] = j
    return under
