"""The words for someone in the user's life, by their place in it ("my sister", "her boss", "my
kids"), and whom each one names: the one vocabulary retrieval reads them by (whose.py, topics.py and
named.py's introductions and places).

Built from the offline extractor's lists (extraction/vocabulary.py), a module that imports nothing, so
that extraction may read this one too without a cycle. No extraction module reads it today, and
bench/locomo.py's INGEST_CODE does not hash it: a change here re-ranks, it refiles nothing.

One rule for the many: a word as listed ("sons", "children", "boss"), else a listed word with "s" or
"es" after it ("sisters", "bosses"), as `NAMES_A_PERSON` finds them; both `one` and `said_in` read a
word so. An irregular plural is read only where it is listed: "wives" is no word of `NAMES_A_PERSON`
(extraction/plurals.py's `plural` gives it, for the words that ask for a partner, topics.py).
"""

from __future__ import annotations

import re

from memex.extraction import vocabulary
from memex.literal import caseless

# Every word, one and many ("sister", "sisters" by the rule above; "child", "kids" as listed), longest
# first so that an alternation of them takes "sons" whole, not "son".
WORDS = sorted({*vocabulary.RELATIONS, *vocabulary.CHILDREN, *vocabulary.CHILDREN.values(), *vocabulary.OTHER_PEOPLE,
                *vocabulary.PEOPLE, "grandparent"}, key=len, reverse=True)
PERSON = "|".join(re.escape(word) for word in WORDS)
NAMES_A_PERSON = re.compile(rf"\b(?:{PERSON})(?:e?s)?\b", re.IGNORECASE)
# The listed word a word of NAMES_A_PERSON is, without the plural ending the rule allows.
_LISTED = re.compile(rf"\b({PERSON})(?:e?s)?\b", re.IGNORECASE)
# Which person each word names: the words for one person ("mom", "mum", "mother"; "wife", "husband",
# "partner", "spouse") are one; a son and a daughter are two. A word for several ("parents", "kids")
# names nobody alone, so a line that says one may be about whoever is asked.
ONE = {**{word: word for word in vocabulary.OTHER_PEOPLE if word != "parents"}, **vocabulary.PEOPLE,
       **{word: part for word, part in vocabulary.RELATIONS.items() if part != "child"},
       **{word: word for word, part in vocabulary.RELATIONS.items() if part == "child"},
       **{word: one for word, one in vocabulary.CHILDREN.items() if one != "child"}}
SEVERAL = frozenset(word for word in WORDS if word not in ONE)
# The words for the user's partner, one person whatever the word ("wife", "boyfriend", "spouse").
PARTNER = tuple(word for word, part in vocabulary.RELATIONS.items() if part == "partner")


def one(word: str) -> str | None:
    """The person a word `NAMES_A_PERSON` finds names, as `ONE` says, one and many alike ("sisters",
    "bosses": sister, boss); None for a word for several ("parents", "kids") or no word of it."""
    listed = _LISTED.fullmatch(word)
    return ONE.get(caseless(listed.group(1))) if listed else None


def said_in(text: str) -> frozenset[str]:
    """The people the words of `text` name, a word for one person as `ONE` says ("The user's mum and
    dad": mother, father), a word for several as itself ("kids")."""
    return frozenset(ONE.get(caseless(word), caseless(word)) for word in _LISTED.findall(text))

