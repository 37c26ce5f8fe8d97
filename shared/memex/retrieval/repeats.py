"""Lines said again: a search's top k is not spent on a message's words it already returned.

A user who says "I had a long day at work." on fifty evenings has fifty episodic memories that read
the same; a question near them ranked them all above everything else, and the top ten held one line
ten times (trial 15, docs/measurements/quality.md). A message whose text reads as one ranked above
it goes below every line that reads as none other, in its order: the distinct lines take the top k
first, and a caller asking for more still gets each repeat (with its own day: "when did I last say
so?" needs them). A repeat keeps its own score: below it the scores no longer fall. What reads the
same is nearly what recall takes in once (recall._line): the same words, and for words that count
time from the day they were said ("yesterday"), the same day (recall also merges two historical
lines of different days, whose day it does not print). Only episodic memories are compared
(messages, summaries): a fact is distinct by its key, which two facts of the same words may not share.
"""

from __future__ import annotations

from datetime import date, tzinfo
from typing import Sequence, TypeVar

from memex import time_phrases
from memex.db import memories as memory_rows

Entry = TypeVar("Entry", bound=tuple)


def after_distinct(scored: Sequence[Entry], found: dict[str, memory_rows.Found], zone: tzinfo | None) -> list[Entry]:
    """`scored` (best first, each entry's first field the memory id) with every message that reads as
    one before it moved below the others, repeats in their order; `zone`: the asker's, for the days."""
    rows = [found.get(entry[0]) for entry in scored]
    words = [row.content for row in rows if row is not None and row.memory_type == "episodic"]
    if len(set(words)) == len(words):  # nearly every search: no words said twice, nothing to move
        return list(scored)
    firsts: list[Entry] = []
    repeats: list[Entry] = []
    said: dict[str, list[memory_rows.Found]] = {}  # words -> the messages first to say them (one a day)
    for entry, row in zip(scored, rows):
        if row is None or row.memory_type != "episodic":
            firsts.append(entry)
            continue
        earlier = said.setdefault(row.content, [])
        # the phrases are read only for words said before: most lines are said once
        if earlier and (not time_phrases.counts_from_saying(row.content)
                        or any(_day(first, zone) == _day(row, zone) for first in earlier)):
            repeats.append(entry)
        else:
            earlier.append(row)
            firsts.append(entry)
    return firsts + repeats


def _day(row: memory_rows.Found, zone: tzinfo | None) -> date:
    return row.valid_from.astimezone(zone).date()
