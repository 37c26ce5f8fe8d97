"""What of a question the keyword channel looks for.

memex writes the person it serves as "the user" into every fact it files ("The user's employer
is Stripe."), and agents ask about that person the same way ("where does the user live?"). Those
words are memex's own, not something the user said: matched as keywords, they tie the question
to every fact whatever it asks, and they weigh on the floor's keyword coverage as if they were a
rare word, so that "I ... live in Dublin" no longer covered enough of the question to be found.
The vector channel and the speaker cue still read the question whole.

Nor are "many" and "much" after "how": the answer to "How many kids does she have?" says "three",
and chat says "so many" and "thanks so much" everywhere, so the word only ties the question to
small talk. "How long" and "how often" keep their word: in a dialogue the line that answers is
indexed with the question it answers, which says it ("How long have you been painting?").

Nor is "a living" in "what does she do for a living?" (or "to earn a living"): the idiom asks for a
job, which no answer says in its words, and "living" stems to "live", which tied the question to
"The user lives in Lisbon." first, above the job title the vector channel put first. The learned
order's words asked (learned.py) leave it out too. "A living room" stays.

A word's family, which English stemming leaves apart, is searched with it: "what allergies do I
have?" is answered by "I'm allergic to peanuts" ("allergies" stems to allergi, "allergic" to
allerg), "am I a student?" by "I'm studying law", "what do I dislike?" by "cilantro ... I hate it".
The families are the derived forms a question names a topic by and a message says it by (the noun
and its adjective, a field and who works in it, one and many: "child", "children"), the word said
for it as often ("kids": "Does she have any children?" is answered by "I have two kids."), and the
commonest ways of saying one's dislike. The floor counts a family as one of the question's words
(floor.py), so a question gains no coverage from the words added to it.
"""

from __future__ import annotations

import re

from memex.extraction import vocabulary

_THE_USER = re.compile(r"\b(?:the|this)\s+user(?:['’]s)?(?=\W|$)|\buser['’]s(?=\W|$)", re.IGNORECASE)
_HOW_MUCH = re.compile(r"\b(how)\s+(?:many|much)\b", re.IGNORECASE)
_A_LIVING = re.compile(r"\b(?:for|earn|earns|earning|make|makes|making)\s+a\s+living\b(?!\s+room)", re.IGNORECASE)


FAMILIES: tuple[frozenset[str], ...] = tuple(frozenset(words.split()) for words in (
    "allergy allergies allergic",
    "dislike dislikes disliked hate hates hated detest detests loathe loathes",
    "marriage married marry",
    "pregnancy pregnant",
    "religion religious",
    "diet dietary",
    "student students study studies studying",
    "child children kid kids",
    "music musician musicians",
    "photography photographer photographers photograph",
    "science scientist scientists",
    "teach teaches teaching teacher teachers",
    "paint paints painting painter painters",
))
_FAMILY_OF = {word: family for family in FAMILIES for word in family}
_WORD = re.compile(r"[a-z]+")



def searched(question: str) -> str:
    """What the keyword channel searches for `question`: its keywords (`of`) and the other words of
    each family one of them belongs to."""
    kept = of(question)
    said = set(_WORD.findall(kept.lower()))
    kin = sorted({word for w in said if w in _FAMILY_OF for word in _FAMILY_OF[w]} - said)
    return " ".join([kept, *kin]) if kin else kept


def function_words_only(words: frozenset[str]) -> bool:
    """Whether a question's `words` (speakers.words) say only what kind of question it is ("what?",
    "Who am I?", "And then?"), nothing it is about."""
    return bool(words) and words <= vocabulary.FUNCTION_WORDS


def of(question: str) -> str:
    """The question without its references to the user memex serves ("users" of an app stay),
    without "many" or "much" after "how", and without "for a living"."""
    return _A_LIVING.sub(" ", _HOW_MUCH.sub(r"\1", _THE_USER.sub(" ", question)))
