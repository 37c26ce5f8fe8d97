"""Whose name, which pet: a question that asks about someone or some animal of one kind is not
answered by a memory about one of another kind.

MiniLM puts two short first-person sentences with the same frame close together whatever each says
the frame holds: "What is my wife's name?" is 0.4 from "I have a dog named Rex.", over the floor's
gate, and no cosine tells that answer from a right one (docs/measurements/quality.md, "Off-topic
answers that share the question's frame"). What does tell them apart is the kind of the thing
each names, read with the offline extractor's own vocabulary (extraction/vocabulary.py: the
relations a name is filed under, children, pets, the other people a user speaks of by their place
in the user's life) and the user's own name. A memory that names things of some kinds, none of
them a kind the question asks about, is not an answer to it; one that names no kind at all
("We made bowls!") or the asked kind in any of its words ("my husband" for "partner") is left to the
floor. Words outside the vocabulary ("nephew") name no kind and change nothing.
"""

from __future__ import annotations

import re

from memex import people
from memex.literal import caseless
from memex.extraction import vocabulary

# word -> the kinds it names; a word for someone in the user's life by the one it names (people.ONE: a
# coworker is the colleague, mum the mother), filed under their relation (a wife and a husband are the
# partner, a son and the boys are the children)
_KIND: dict[str, frozenset[str]] = {
    **{word: frozenset({vocabulary.RELATIONS.get(one, one)}) for word, one in people.ONE.items()},
    # the words for several the children are ("kids"): the children too
    **{word: frozenset({"child"}) for word, one in vocabulary.CHILDREN.items() if one == "child"},
    "parents": frozenset({"mother", "father", "parents"}),  # a mother or a father answers for "my parents"
    "grandparents": frozenset(vocabulary.GRANDPARENTS),
    **{word: frozenset({kind}) for word, kind in vocabulary.PETS.items()},
}
_WORDS = re.compile(
    r"\b(" + "|".join(re.escape(word) for word in sorted(_KIND, key=len, reverse=True)) + r")(?:e?s)?\b",
    re.IGNORECASE)
# The user's own name, asked for ("what's my name?", "what is she called?") and said ("my name is").
_SELF = "self"
_ASKS_OWN_NAME = re.compile(r"\b(?:my|the user'?s|her|his|your) name\b|\b(?:am I|are you|is (?:she|he|the user)) "
                            r"(?:called|named)\b", re.IGNORECASE)
_SAYS_OWN_NAME = re.compile(r"\b(?:my|the user'?s) name is\b|\bI(?:'m| am) called\b|\bcall me\b", re.IGNORECASE)
# Only a question that asks who someone is or what they are called: there the kind is the whole of
# what is asked. "What do Melanie's kids like?" can be answered by "They love the dinosaurs, being a
# mom is great", which names a mother.
_ASKS_A_NAME = re.compile(r"\b(?:names?|called|named|who)\b", re.IGNORECASE)


def _named(text: str, own_name: re.Pattern[str]) -> frozenset[str]:
    """The kinds `text` names; `own_name` tells when it names the user's own name."""
    text = text.replace("’", "'")
    kinds = {kind for word in _WORDS.findall(text) for kind in _KIND[caseless(word)]}
    if own_name.search(text):
        kinds.add(_SELF)
    return frozenset(kinds)


def asked(question: str) -> frozenset[str]:
    """The kinds whose name a question asks for (empty: none the vocabulary knows, or it asks no name)."""
    return _named(question, _ASKS_OWN_NAME) if _ASKS_A_NAME.search(question) else frozenset()


def answers(kinds_asked: frozenset[str], content: str) -> bool:
    """False when the memory names kinds, and none of them is one the question asks about."""
    if not kinds_asked:
        return True
    said = _named(content, _SAYS_OWN_NAME)
    return not said or bool(said & kinds_asked)
