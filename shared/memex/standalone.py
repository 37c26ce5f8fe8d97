"""Whether a line says what it means without the line before it.

An episodic memory is indexed with the line it answers (embedded_text.py): "Two of them."
means nothing alone. But a speaker who says two things in a row often says two separate things:
"I work at Stripe." then "My dog is called Biscuit." Indexed with the first, the second would
be found for "where do I work?" beside the line that answers it. So a line that follows its own
speaker keeps that line as its context only when it leans on it: a pronoun or "there" pointing
back, an opening "and"/"but"/"so", or too few words to name anything itself. A line that follows
another speaker's, or a question, always keeps the line it answers. A line with no word ("", "...",
"👍") is no line to keep, and keeps none: like a "Got it!" (memex/filler.py), it would be found in
the place of the line it follows.
"""

from __future__ import annotations

import re

# Words that point back to something said before, and the openers that continue a thought.
_POINTING_BACK = frozenset("""
it it's its itself that that's this these those there there's then them they they're their theirs
he he's she she's him her hers his one ones such same former latter above
""".split())
_CONTINUING = frozenset("and but so or also too because though although plus anyway which".split())
# A word as the episodic lines are read (here and in memex/filler.py): letters with inner apostrophes, or a number.
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+")
_FEWEST_WORDS = 4


def stands_alone(text: str) -> bool:
    """Whether `text` needs no earlier line of its speaker to be understood."""
    words = [w.replace("’", "'").lower() for w in WORD.findall(text)]
    if len(words) < _FEWEST_WORDS or words[0] in _CONTINUING:
        return False
    return not any(w in _POINTING_BACK for w in words)


def wordless(text: str) -> bool:
    """Whether `text` has no word: blank (what the pipeline stores no memory for: memex/episodic.py), or
    only punctuation or emoji ("...", ";)", "👍")."""
    return WORD.search(text) is None


def asks(text: str) -> bool:
    """Whether `text` ends with a question: the line after it answers it, whoever says it (two
    people may share one role without names)."""
    return text.rstrip().endswith("?")


def same_speaker(one: dict, other: dict) -> bool:
    """Whether two messages come from the same speaker (the same role and the same name, or none)."""
    return one["role"] == other["role"] and (one.get("name") or None) == (other.get("name") or None)
