"""Questions about what two people have in common, searched without the words that say so.

"What movies have both Joanna and Nate seen?", "What kind of interests do Joanna and Nate share?",
"What do Jon and Gina both have in common?": "both", "share" and "in common" say how the answer is
put together (a line of each person on the same thing: "I just watched Little Women", "I watched
Little Women recently"), not what it is about, and no line that answers says them. Small talk says
them all the time ("We're both on different paths", "It's good to have friends that share your
interests", "we had a lot in common"), and the question's vector (and, for "share" and "common",
its keywords) then ranks those lines first: on LoCoMo-dev they fill the top ten of the multi-hop
questions of this shape, whose evidence is the people's own lines on the topic the question names.

So such a question is searched as the question about each of them ("What movies have Joanna and
Nate seen?", "What kind of interests do Joanna and Nate have?"); the answer says the question as
asked. Only when it joins two people by "and" (a capitalised word on each side): "Are both of her
kids at school?" and "Did she share the recipe?" ask about one thing each, and stay as they are.
"""

from __future__ import annotations

import re

# Two people joined by "and", capitalised as names are ("Joanna and Nate"); the question's first
# word is capitalised whatever it is, so the pair is looked for after it.
_PAIR = r"[A-Z][\w'-]*\s+and\s+[A-Z][\w'-]*"
_NAMED_PAIR = re.compile(r"(?<=\s)" + _PAIR)
_BOTH_BEFORE = re.compile(r"\bboth\s+(" + _PAIR + r")")  # "both Joanna and Nate"
_BOTH_AFTER = re.compile(r"(" + _PAIR + r")\s+both\b(?!\s+of\b)")  # "Jon and Gina both like"
# a closing "share": "... do Joanna and Nate share?" ("share a photo" asks about the photo)
_SHARE = re.compile(r"\bshare(?=\s*\?*\s*$)")
_IN_COMMON = re.compile(r"\s+in\s+common\b")


def without_cue(question: str) -> str:
    """`question` without "both" and "in common", "have" for a closing "share", when it names two
    people joined by "and"; else `question` itself."""
    if not _NAMED_PAIR.search(question):
        return question
    rewritten = _IN_COMMON.sub("", _SHARE.sub("have", _BOTH_AFTER.sub(r"\1", _BOTH_BEFORE.sub(r"\1", question))))
    return " ".join(rewritten.split()) if rewritten != question else question


def asks(question: str) -> bool:
    """Whether `question` asks what two people it names, joined by "and", have in common."""
    return without_cue(question) != question
