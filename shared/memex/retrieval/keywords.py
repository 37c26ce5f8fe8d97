"""What of a question the keyword channel looks for.

memex writes the person it serves as "the user" into every fact it files ("The user's employer
is Stripe."), and agents ask about that person the same way ("where does the user live?"). Those
words are memex's own, not something the user said: matched as keywords, they tie the question
to every fact whatever it asks, and they weigh on the floor's keyword coverage as if they were a
rare word, so that "I ... live in Dublin" no longer covered enough of the question to be found.
The vector channel and the speaker cue still read the question whole.
"""

from __future__ import annotations

import re

_THE_USER = re.compile(r"\b(?:the|this)\s+user(?:['’]s)?(?=\W|$)|\buser['’]s(?=\W|$)", re.IGNORECASE)


def of(question: str) -> str:
    """The question without its references to the user memex serves ("users" of an app stay)."""
    return _THE_USER.sub(" ", question)
