"""Speaker cues: a question that names a participant is about what they said or what is known of them.

In a conversation between named people ("What did Melanie paint?"), the memories spoken by
Melanie, or filed under her as their subject, are more likely the answer than the other
participant's lines that merely mention her. A memory's speaker is read with its ranking
(db/memories.py SPEAKER); search.py favours the memories whose speaker the question names.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def words(text: str) -> frozenset[str]:
    """The lower-cased words of `text`, possessives stripped ("Melanie's" -> "melanie")."""
    return frozenset(re.sub(r"['’]s$", "", w.lower()) for w in _WORD.findall(text))


def names(question_words: frozenset[str], memory) -> bool:
    """Whether the question names who said `memory` (a memories.Found) or whom it is about: a
    participant by name, or the user as "the user", the words memex writes its facts with."""
    return named(question_words, memory.speaker) or named(question_words, memory.subject)


def named(question_words: frozenset[str], speaker: str | None) -> bool:
    """Whether the question names `speaker` (every word of a several-word name)."""
    if not speaker:
        return False
    parts = words(speaker)
    return bool(parts) and parts <= question_words
