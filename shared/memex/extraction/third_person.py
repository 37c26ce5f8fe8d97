"""A value the offline rules read from what someone said, in the third person: "I love cooking for my husband."
files likes 'cooking for their husband', so that the fact ("The user likes cooking for their husband."), pasted into
an agent's prompt, does not read as the agent's husband. `of` turns the speaker's words (my, me, I, we...) into
theirs; a name or a title keeps its words as said ("My Chemical Romance", "How I Met Your Mother", anything
quoted). `folded` is what supersession compares values by (supersession.folded_value): a value stored before in the
first person and the same said again now are one value.
"""

from __future__ import annotations

import re

# The speaker's words, lower case, and theirs: "we" and "our" are theirs too, the user's household or friends.
_THEIRS = {"my": "their", "our": "their", "me": "them", "us": "them", "myself": "themselves",
           "ourselves": "themselves", "mine": "theirs", "ours": "theirs", "we": "they", "we're": "they're",
           "we've": "they've", "we'd": "they'd", "we'll": "they'll", "i": "they", "i'm": "they're",
           "i've": "they've", "i'd": "they'd", "i'll": "they'll"}
# "I" takes "am" and "was", as "they" does not.
_AGREEING = {"am": "are", "was": "were"}
_SPEAKER = re.compile(r"(?<![\w'])(?:I(?:'m|'ve|'d|'ll)?|[Mm]y|[Mm]e|[Mm]yself|[Mm]ine|[Oo]ur|[Oo]urs|[Oo]urselves|"
                      r"[Uu]s|[Ww]e(?:'re|'ve|'d|'ll)?)(?![\w'])(?:(?P<space> )(?P<verb>am|was)(?![\w']))?")
# The next word, when it starts with a capital: a title's ("How I Met Your Mother", "My Little Pony").
_CAPITAL_NEXT = re.compile(r" [A-Z]")
_CAPITAL_BEFORE = re.compile(r"(?<![\w'])[A-Z][\w'-]* $")
_QUOTED = re.compile(r"\"[^\"]*\"|(?<!\w)'[^']*'(?!\w)")


def of(value: str) -> str:
    """`value` with the speaker's words as theirs: "cooking for my husband" -> "cooking for their husband", "what I
    do when I travel" -> "what they do when they travel", "where I was born" -> "where they were born"."""
    quoted = [m.span() for m in _QUOTED.finditer(value)]
    return _SPEAKER.sub(lambda m: m.group(0) if _as_said(m, quoted) else _theirs(m), value)


def _as_said(m: re.Match[str], quoted: list[tuple[int, int]]) -> bool:
    """Whether a speaker's word is a name's or a title's: quoted; a capital within the value ("I love listening to
    My Chemical Romance"), or opening it ("Me and Bobby McGee", "My Little Pony"), but for "My" or "Our" before a
    word in lower case, which opened the sentence ("My commute, I hate it");
    "I" beside a capitalised word ("How I Met Your Mother", "World War I history") or with no word after it."""
    word = m.group(0).split(" ")[0]
    if any(start <= m.start() < end for start, end in quoted):
        return True
    capital_next = bool(_CAPITAL_NEXT.match(m.string, m.start() + len(word)))
    if word[0] == "I":
        return capital_next or bool(_CAPITAL_BEFORE.search(m.string, 0, m.start())) \
            or m.start() + len(word) == len(m.string)
    return word[0].isupper() and (m.start() > 0 or capital_next or word not in ("My", "Our"))


def _theirs(m: re.Match[str]) -> str:
    """The speaker's word as theirs, in lower case: a capital that is the user's opened the sentence ("My commute, I
    hate it": "their commute")."""
    theirs = _THEIRS[m.group(0).split(" ")[0].lower()]
    return theirs + (m.group("space") + _AGREEING[m.group("verb")] if m.group("verb") else "")


# What `of` makes of the speaker's words, read back as the first person, casefolded: a value stored before
# ("cooking for my husband") and the same said now ("cooking for their husband") fold alike.
_FIRST = {"their": "my", "our": "my", "them": "me", "us": "me", "themselves": "myself", "ourselves": "myself",
          "theirs": "mine", "ours": "mine", "they": "i", "we": "i", "they're": "i'm", "we're": "i'm", "they've": "i've",
          "we've": "i've", "they'd": "i'd", "we'd": "i'd", "they'll": "i'll", "we'll": "i'll"}
_PERSONS = re.compile(r"(?<![\w'])(?:(?P<subject>they|we|i) (?:are|am|were|was)|"
                      + "|".join(sorted(map(re.escape, _FIRST), key=len, reverse=True)) + r")(?![\w'])")
_BE = {"are": "am", "am": "am", "were": "was", "was": "was"}


def folded(text: str) -> str:
    """`text` (casefolded) with the third person and the plural of `of` in the first person: "cooking for their
    husband" and "cooking for my husband" are one, as are "where they were born" and "where I was born". A value
    that said "their" of others ("their music") folds as "my music" would: `of` makes the user's "my music" that."""
    def first(m: re.Match[str]) -> str:
        if m.group("subject"):
            return "i " + _BE[m.group(0).split(" ")[1]]
        return _FIRST[m.group(0)]
    return _PERSONS.sub(first, text)
