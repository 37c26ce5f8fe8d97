"""Whether a line says what it means without the line before it.

An episodic memory is indexed with the line it answers (embedded_text.py): "Two of them."
means nothing alone. But a speaker who says two things in a row often says two separate things:
"I work at Stripe." then "My dog is called Biscuit." Indexed with the first, the second would
be found for "where do I work?" beside the line that answers it. So a line that follows its own
speaker keeps that line as its context only when it leans on it: a pronoun or "there" pointing
back, an opening "and"/"but"/"so", or too few words to name anything itself, unless those few are a
statement of the speaker's own ("I like football.": a subject and what it does, not "I do too."). A line that follows
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
# The speaker opening a short line as its subject ("I like football.", "We adopted Biscuit.", "My knee hurts."),
# and the words that end one whose verb stands for a line before ("I do too.", "I think so.", "I'd love to.").
_OWN_SUBJECTS = frozenset("i i'm i've i'd i'll we we're we've we'd we'll my our".split())
_STANDING_FOR = frozenset("too so not either to".split())


def stands_alone(text: str) -> bool:
    """Whether `text` needs no earlier line of its speaker to be understood."""
    words = [w.replace("’", "'").lower() for w in WORD.findall(text)]
    if not words or words[0] in _CONTINUING or any(w in _POINTING_BACK for w in words):
        return False
    return len(words) >= _FEWEST_WORDS or _own_statement(words)


def _own_statement(words: list[str]) -> bool:
    """Whether a line too short to stand alone by its length is a statement of the speaker's own: their
    subject, a verb ("I'm" holds both) and what it says of them."""
    said = len(words) + ("'" in words[0])
    return words[0] in _OWN_SUBJECTS and said >= _FEWEST_WORDS - 1 and words[-1] not in _STANDING_FOR


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
