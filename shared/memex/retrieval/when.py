"""When: a question that asks when is answered by the line that says a time, most often one counted
from the day it was said.

"When did Nate win his third tourney?" is answered by "I just won another regional video game
tournament last week!", which recall dates by the day it was said; "I held a benefit basketball game
last week." answers "When did John hold the benefit game?". The question names no period, so the
time cue (search.py `_cues`, temporal.windows) has nothing to weigh, and "last week" is no word of
the question: a line of the same exchange that says no time ranks above it. A line that says a time
counted from its day (temporal.counts_from_saying) is what a "When" question asks for.
"""

from __future__ import annotations

import re

# "When did ...", "In what year ...", "What date ...", "How long ago ...": a time is asked for.
_ASKS = re.compile(r"^\W*when\b|\b(?:what|which) (?:date|day|week|month|year)\b|\bhow long ago\b", re.IGNORECASE)


def asks(question: str) -> bool:
    """Whether the question asks for a time."""
    return bool(_ASKS.search(question))
