"""Questions that ask only what was said in a period: "what did I tell you yesterday?", "what did we
talk about last week?", "anything new this month?".

Such a question's only topic is its time: it shares no word or meaning with what was said then, so
the channels find nothing above the floor's gate, and the temporal cue (a favour for the memories of
a period the question names, time_phrases.py) has nothing to favour. `asked` tells it: a period the
question names and, the time expressions taken out, only words of asking what was said or what
happened. Such a question is answered with the messages said in the period, newest first
(memories.said_within). One that names a topic ("what did I eat yesterday?", "where was she in May?")
is searched as any other, its period a favour.

"She", "he" or "they" ask it of the user as "I" does ("what did she do in April?", "what did they say
last week?"): every other word being a word of asking, the question names nobody else the pronoun
could stand for, which is when search reads a "she" as the user elsewhere (first_person.asked); one that
names someone ("what did Anna do in April?") has a topic, and that person's lines come first by the
speaker cue. The answer is every message of the period, whoever said it, as for "what happened?".
"""

from __future__ import annotations

import re
from datetime import datetime

from memex import time_phrases

# What a question may say besides its time to ask only what was said or happened then.
_ASKING = frozenset("""
what what's whats did do does was were is are has have had i we you me us my our i've we've
tell told say said talk talked talking speak spoke discuss discussed mention mentioned chat chatted
share shared happen happened happening go went going on new news anything something any everything
about up to the a an of in during from over there please again remind recap summary summarise
summarize catch can could would doing done been
she he they her him his them their she's he's they've
""".split())
_WORD = re.compile(r"[a-z']+")


def asked(question: str, now: datetime) -> list[time_phrases.Window]:
    """The periods the question asks what was said in, when that is all it asks; else []."""
    periods, rest = time_phrases.read(question, now)
    if not periods:
        return []
    return periods if all(word in _ASKING for word in _WORD.findall(rest.lower())) else []
