"""Questions that ask for many things, and the spread of their answers across occasions.

"What books has Melanie read?", "Which cities has Jon visited?", "How many times has Nate won?"
ask for everything of a kind the user (or a participant) ever mentioned, and each was usually
mentioned on another day. Such a question often finds one occasion's lines first, and they, with
the lines said next to them, fill the top while the other days' answers wait below. For these
questions only, past the first `free` memories of one day, each further memory of that day counts
a little less, so that another day's best line can pass the first day's fourth.

Applied to every question, the same spread loses (README, LoCoMo: most questions' evidence is
several lines said together); it is kept to the question's form, read from its words alone.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Mapping, Sequence

from memex.db.memories import Found

# "what books has", "which US cities does", "what kind of books does", "what are Joanna's hobbies":
# a plural (with up to two words before it: the head of the question), then its verb
_PLURAL = r"(?P<plural>[a-z+/-]*[a-z]s(?:/[a-z]+s)?)"  # "books", "artists/bands"
_LISTED = (
    re.compile(r"^\s*(?:in\s+)?(?:what|which)\s+(?P<head>(?:[\w+/'’-]+\s+){0,2}?" + _PLURAL
               + r")\s+(?:has|have|does|do|are)\b", re.IGNORECASE),
    re.compile(r"^\s*what\s+are\s+(?:(?:the|some|all)\s+)?(?:[\w'’-]+\s+){0,3}?(?P<head>" + _PLURAL + r")\b",
               re.IGNORECASE),
    re.compile(r"^\s*how\s+many\s+(?P<head>(?:[\w'’-]+\s+){0,2}?" + _PLURAL + r")\s+(?:has|have|does|do)\b",
               re.IGNORECASE),
)
# "how many times", "what has Melanie painted" (over time), "do they both"
_MANY = re.compile(r"^\s*how\s+many\s+(?:times\b|(?:[\w'’-]+\s+){1,3}?(?:has|have|does|do)\b)"
                   r"|^\s*(?:what|which)\s+(?:has|have)\b|\bboth\b", re.IGNORECASE)
_KIND_OF = re.compile(r"^(?:(?:kinds?|types?|sorts?)\s+of\s+)", re.IGNORECASE)
# words ending in s that are not plurals of a thing
_NOT_PLURAL = frozenset({"this", "its", "his", "hers", "yours", "ours", "theirs", "us", "always", "perhaps",
                         "sometimes", "news", "series", "species", "basis", "status", "plus", "thus", "yes",
                         "class", "business", "address", "stress", "success", "fitness", "illness", "times"})


def asks_for_many(question: str) -> bool:
    """Whether `question`'s form asks for all things of a kind, or how many there were."""
    return bool(_MANY.search(question)) or head(question) is not None


def head(question: str) -> str | None:
    """The plural `question` asks for, with the words that qualify it ("martial arts", "European
    countries", "books" of "what kind of books"); None when its form names none."""
    for form in _LISTED:
        match = form.search(question)
        if match is None:
            continue
        plural = match.group("plural").lower()
        if plural not in _NOT_PLURAL and not plural.endswith(("ss", "us", "'s", "’s")):
            return _KIND_OF.sub("", match.group("head").strip())
    return None


def spread(relevance: Mapping[str, float], kept: Sequence[str], found: Mapping[str, Found], free: int,
           decay: float) -> dict[str, float]:
    """The relevance of each kept memory, times `decay` for each kept memory of the same day ranked
    above it beyond the first `free`. Nothing rises, so relevance stays within [0, 1]."""
    seen: Counter = Counter()
    out = dict(relevance)
    for item in sorted(kept, key=lambda item: relevance[item], reverse=True):
        if found[item].valid_from is None:
            continue
        day = found[item].valid_from.date()
        out[item] = relevance[item] * decay ** max(0, seen[day] - free + 1)
        seen[day] += 1
    return out
