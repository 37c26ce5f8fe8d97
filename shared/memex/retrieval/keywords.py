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
"""

from __future__ import annotations

import re

_THE_USER = re.compile(r"\b(?:the|this)\s+user(?:['’]s)?(?=\W|$)|\buser['’]s(?=\W|$)", re.IGNORECASE)
_HOW_MUCH = re.compile(r"\b(how)\s+(?:many|much)\b", re.IGNORECASE)


def of(question: str) -> str:
    """The question without its references to the user memex serves ("users" of an app stay) and
    without "many" or "much" after "how"."""
    return _HOW_MUCH.sub(r"\1", _THE_USER.sub(" ", question))
