"""Tense: whether a question asks what holds now ("where does she work now?", "what does he think
of it?"); the periods a question names are read by memex.time_phrases.
"""

from __future__ import annotations

import re

# "Where does the user work now?", "what does she think of it these days?": the question asks for
# what holds today, and of two lines on the subject, the later one is more likely to.
_PRESENT = re.compile(r"\b(now|nowadays|currently|current|these days|at the moment|at present|still|anymore|"
                      r"any more|lately|latest|most recent)\b", re.IGNORECASE)


# A view of something asked in the present tense ("What does the user think of TypeScript?", "How
# does she feel about night shifts?", "What is his opinion of Python?") is the view held today:
# views change, and one asked without a time is the latest, as a fact asked with "now" is. Only a
# view *of* or *about* something: "How does he feel while surfing?" asks what an activity is like.
_VIEW = re.compile(r"\b(?:think|thinks|feel|feels)\s+(?:of|about)\b|\bopinions?\s+(?:of|on|about)\b", re.IGNORECASE)
_PAST = re.compile(r"\b(?:did|was|were|had|used to|before|ago|when|first|originally|back then)\b", re.IGNORECASE)


def asks_present(question: str) -> bool:
    """Whether the question asks what holds now rather than at some time."""
    return bool(_PRESENT.search(question)) or bool(_VIEW.search(question) and not _PAST.search(question))
