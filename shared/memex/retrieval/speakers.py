"""Speaker cues: a question that names a participant is about what they said or what is known of them.

In a conversation between named people ("What did Melanie paint?"), the memories spoken by
Melanie, or filed under her as their subject, are more likely the answer than the other
participant's lines that merely mention her. A memory's speaker is read with its ranking
(db/memories.py SPEAKER); search.py favours the memories whose speaker the question names.

For the same reason a participant's name is a poor keyword: in a conversation between Caroline and
Melanie most lines carry one name or the other (as their speaker, or "Thanks, Melanie!"), so the
name's matches rank lines that merely address her. `without_names` gives the question without the
names of the participants it names, for the keyword channel; the speaker cue stands for them.
"""

from __future__ import annotations

import re
from typing import Iterable

from memex.db.memories import Found

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_POSSESSIVE = ("'s", "’s")


# Not cached: it is asked of memories' contents, and a process-wide cache would keep an erased
# memory's words after its erasure.
def words(text: str) -> frozenset[str]:
    """The lower-cased words of `text`, possessives stripped ("Melanie's" -> "melanie")."""
    lowered = (w.lower() for w in _WORD.findall(text))
    return frozenset(w[:-2] if w.endswith(_POSSESSIVE) else w for w in lowered)


def names(question_words: frozenset[str], memory: Found) -> bool:
    """Whether the question names who said `memory` or whom it is about: a
    participant by name, or the user as "the user", the words memex writes its facts with."""
    return named(question_words, memory.speaker) or named(question_words, memory.subject)


def named(question_words: frozenset[str], speaker: str | None) -> bool:
    """Whether the question names `speaker` (every word of a several-word name)."""
    if not speaker:
        return False
    parts = words(speaker)
    return bool(parts) and parts <= question_words


def without_names(question: str, speakers: Iterable[str | None]) -> str | None:
    """`question` without the words of the participants' names it names (among `speakers`, the
    speakers of the memories found, or all the user's: memories.ahead), possessives
    included; None when it names none, or when nothing else would be left."""
    asked = words(question)
    names = {name for name in set(speakers) if named(asked, name)}
    if not names:
        return None
    parts = sorted({w for name in names for w in words(name)}, key=len, reverse=True)
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in parts) + r")(?:['’]s)?\b", re.IGNORECASE)
    rest = pattern.sub(" ", question)
    return " ".join(rest.split()) if _WORD.search(rest) else None
