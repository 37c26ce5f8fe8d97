"""The answer's type: what a question asks for, and whether a line holds a thing of that type.

"What books has Melanie read?" is answered by a line that names a title ("I loved 'Charlotte's
Web'"), "How many kids does she have?" by one that says a number, "Which cities has Jon visited?" by
one that names a place: a second hop often shares none of the question's words, and then this is
what still speaks for it. The learned order weighs it ("answer_type", learned.py); on LoCoMo-dev a
line that holds what its question asks for is evidence far more often than the other lines of its
conversation (names asked: 0.57 of the evidence against 0.12; places 0.72 against 0.15; counts 0.31
against 0.03). A time asked for ("When did ...", "What year ...", "How long ago ...":
`asks_time`) is no column of the learned order, which reads a question's period and a line's
moment already (a time column added nothing beside them, docs/measurements/locomo.md): search's
when cue weighs it instead. A question that names no period is answered by the line that says a
time, most often one counted from the day it was said ("I just won another regional video game
tournament last week!" for "When did Nate win his third tourney?"), which recall dates by that day;
"last week" is no word of the question, and a line of the same exchange that says no time ranked
above it (search.py `_cues`, time_phrases.counts_from_saying).

A name is read from its capital: a capitalised word that does not open a sentence and is not a
participant's name, or a quoted title. Cheap and rough ("LGBTQ" is a name), but the order learns
how far to trust it.
"""

from __future__ import annotations

import re

_ASKS = {
    "number": re.compile(r"\bhow (?:many|much|long|old|often)\b", re.IGNORECASE),
    "place": re.compile(r"^\s*where\b|\b(?:which|what) (?:city|cities|country|countries|state|states|place|places|"
                        r"town|towns|park|parks)\b", re.IGNORECASE),
    "name": re.compile(r"\b(?:books?|movies?|films?|songs?|shows?|series|bands?|artists?|names?|games?|novels?|"
                       r"albums?|musicians?|authors?|titles?)\b|^\s*who\b", re.IGNORECASE),
}
_ASKS_TIME = re.compile(r"^\W*when\b|\b(?:what|which) (?:date|day|week|month|year)\b|\bhow long ago\b",
                        re.IGNORECASE)
_NUMBER = re.compile(r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred|"
                     r"twice|dozen|couple|both)\b", re.IGNORECASE)
_PLACE = re.compile(r"\b(?:beach|mountains?|forest|lake|park|city|country|town|museum|river|camp(?:ing|site)?|"
                    r"trail|abroad|island)\b", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“][^\"”]{2,}[\"”]")
_CAPITALISED = re.compile(r"\b[A-Z][a-zA-Z]+")
# a sentence's first word is capitalised whatever it is; an episodic line opens with "Speaker: "
_OPENER = re.compile(r"(?:^|[.!?:]\s+|\n)[\"“(]?([A-Z][a-z]+)")


def asked(question: str) -> frozenset[str]:
    """The types the question asks for: "number", "place", "name" (none: it asks for none of them)."""
    return frozenset(kind for kind, pattern in _ASKS.items() if pattern.search(question))


def asks_time(question: str) -> bool:
    """Whether the question asks for a time."""
    return bool(_ASKS_TIME.search(question))


def holds(kinds: frozenset[str], content: str, participants: frozenset[str]) -> bool:
    """Whether `content` holds a thing of one of `kinds`; `participants` (lower-cased words of their
    names) are not names an answer gives."""
    if "number" in kinds and _NUMBER.search(content):
        return True
    if kinds & {"place", "name"} and _names(content, participants):
        return True
    if "place" in kinds and _PLACE.search(content):
        return True
    return "name" in kinds and bool(_QUOTED.search(content))


def _names(content: str, participants: frozenset[str]) -> bool:
    openers = {match.start(1) for match in _OPENER.finditer(content)}
    for match in _CAPITALISED.finditer(content):
        word = match.group(0).lower()
        if match.start() not in openers and word not in participants and word.rstrip("s") not in participants:
            return True
    return False
